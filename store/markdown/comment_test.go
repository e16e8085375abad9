package markdown

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/docir/docir/docir"
)

// TestComments is the table of Obsidian's comments: what a reader of the
// vault never sees.
func TestComments(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // the text of each comment
	}{
		{"none", "100% sure", nil},
		{"inline", "Inline %%zebraword%% here.", []string{"%%zebraword%%"}},
		{"two on a line", "a %%b%% c %%d%% e", []string{"%%b%%", "%%d%%"}},
		{"block over a blank line", "x\n%%\nsecret [[P]]\n\nmore\n%%\ny", []string{"%%\nsecret [[P]]\n\nmore\n%%"}},
		{"opening a paragraph", "%% hidden\nstill hidden %%\nshown", []string{"%% hidden\nstill hidden %%"}},
		{"empty", "%%%%", []string{"%%%%"}},
		// Unclosed: Obsidian hides the rest of the note; docir keeps it.
		{"unclosed", "use %%timeit to time a cell", nil},
		{"third unclosed", "%%a%% then %%timeit", []string{"%%a%%"}},
		// In code a "%%" neither opens nor closes.
		{"code span", "`%%` a `%%`", nil},
		{"code span inside", "%% a `%%` b %%", []string{"%% a `%%` b %%"}},
		{"fence", "```matlab\n%% cell one\nx = 1\n%% cell two\n```", nil},
		{"fence between", "%% a\n```\n%%\n```\nb %%", []string{"%% a\n```\n%%\n```\nb %%"}},
		{"indented code", "text\n\n    %% cell one\n    x = 1\n\n    %% cell two\n", nil},
		{"indented code at the start", "    %% a\n    %% b", nil},
		{"indented continuation line", "para\n    %%a%%", []string{"%%a%%"}},
		{"tab-indented list item", "- a\n\t- b %%c%%", []string{"%%c%%"}},
		{"crlf", "%%\r\na\r\n%%\r\n", []string{"%%\r\na\r\n%%"}},
		// An HTML comment holds the "%%" in it; an Obsidian comment holds
		// an HTML comment's opener as its text.
		{"in an HTML comment", "<!-- 50%% -->\n\nvisible\n\n%% hidden %%", []string{"%% hidden %%"}},
		{"in an unclosed HTML comment", "<!-- 50%% and %%x%%", nil},
		{"HTML opener in one", "%% draft <!-- todo %%\n\nvisible", []string{"%% draft <!-- todo %%"}},
		{"HTML comment between", "%% a <!-- %% <!-- c %% --> d %%e%%", []string{"%% a <!-- %%", "%%e%%"}},
		{"HTML opener in code", "`<!--` %%x%% b", []string{"%%x%%"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range Comments(tt.text) {
				got = append(got, tt.text[c[0]:c[1]])
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// TestCommentLinks: a link in an Obsidian comment is no link (inline, a
// block over blank lines, one line: a review of a vault found check
// reporting [[Phantom]] and [[Ghost]] there); in code a "%%" opens none,
// and neither does one that nothing closes, nor one in another section.
func TestCommentLinks(t *testing.T) {
	const wiki = docir.LinkWiki
	tests := []struct {
		name, md string
		want     []docir.LinkRef
	}{
		{"obsidian comments", "a %%[[Inl]]%% [[A]]\n\n%%\n[[Phantom]]\n\n[[Phantom2]]\n%%\n\n%% one [[Ghost]] %%\n\n[[B]]",
			[]docir.LinkRef{link(wiki, "A", 1), link(wiki, "B", 11)}},
		{"obsidian comment marks in code", "`%%` [[A]] `%%`\n\n```\n%%\n```\n\n[[B]]\n\n    %% cell\n\n[[C]] %% [[D]]",
			[]docir.LinkRef{link(wiki, "A", 1), link(wiki, "B", 7), link(wiki, "C", 11), link(wiki, "D", 11)}},
		{"obsidian comment in each section", "# H\n\n%% [[X]]\n\n# I\n\n%% [[Y]]", []docir.LinkRef{link(wiki, "X", 3), link(wiki, "Y", 7)}},
		{"obsidian comment mark in an HTML comment", "<!-- 50%% -->\n\nvisible [[V]]\n\n%% hidden [[H]] %%", []docir.LinkRef{link(wiki, "V", 3)}},
		// A backtick fence's info string holds no backtick: a code span,
		// not a fence that would read the rest of the page as code.
		{"a paragraph that opens with a code span", "```ls``` lists files\n\n%% hidden [[H]] %%\n\n[[V]]", []docir.LinkRef{link(wiki, "V", 5)}},
		// A fence closes as goldmark closes it: a run at least as long,
		// then nothing (review: "```go" and a shorter run closed it, and
		// the comment after was read as code, its link kept).
		{"a fence's line with an info string closes nothing", "# H\n\n```\nx\n```go\ny\n```\n\n%% hidden [[H]] %%\n\n[[V]]\n", []docir.LinkRef{link(wiki, "V", 11)}},
		{"a shorter run closes nothing", "````\nx\n```\ny\n````\n\n%% hidden [[H]] %%\n\n[[V]]", []docir.LinkRef{link(wiki, "V", 9)}},
	}
	p := NewParser()
	for _, tt := range tests {
		got := allLinks(p.Parse("a.md", []byte(tt.md)).Record)
		if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(docir.LinkRef{}, "Column")); diff != "" {
			t.Errorf("%s: %q (-want +got):\n%s", tt.name, tt.md, diff)
		}
	}
}

// TestCommentsLinear: a text of many "%%", in and out of code, is read
// in time linear in its size (each "%%" looked at once).
func TestCommentsLinear(t *testing.T) {
	text := strings.Repeat("%% `%%` a\n\n    %%\n", 100_000)
	if got := len(Comments(text)); got != 50_000 {
		t.Errorf("%d comments, want 50000", got)
	}
}

// FuzzComments holds Comments' invariants on any text: the comments are
// in order and apart, each opens and closes with "%%" outside code.
func FuzzComments(f *testing.F) {
	for _, s := range []string{"a %%b%% c", "%%\nx\n\ny\n%%", "`%%` %% `%%` %%", "```\n%%\n```\n%%", "    %%\n%%%", "%%\r%%", "<!-- 5%% --> %%a%%", "%% <!-- %% --> %%", "`<!--` %%x%% <!--"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		last, code := 0, NewCodeRanges(text)
		for _, c := range Comments(text) {
			if c[0] < last || c[1]-c[0] < 4 || c[1] > len(text) {
				t.Fatalf("comment %v after %d in %d bytes", c, last, len(text))
			}
			if !strings.HasPrefix(text[c[0]:], "%%") || !strings.HasSuffix(text[:c[1]], "%%") {
				t.Fatalf("comment %q not within %%%%", text[c[0]:c[1]])
			}
			if code.Holds(c[0]) {
				t.Fatalf("comment %q opens in code", text[c[0]:c[1]])
			}
			last = c[1]
		}
	})
}

// TestFences: a fence opens with three or more backticks or tildes (a
// backtick fence's info string holds no backtick) and closes, as
// CommonMark reads it, on a run of its character at least as long with
// nothing after but white space.
func TestFences(t *testing.T) {
	for _, tt := range []struct {
		line, fence string
	}{
		{"```", "```"}, {"````md", "````"}, {"~~~ yaml", "~~~"}, {"~~~`x`", "~~~"},
		{"```ls``` lists", ""}, {"``", ""}, {"~~", ""}, {"x```", ""},
	} {
		if got := FenceOf(tt.line); got != tt.fence {
			t.Errorf("FenceOf(%q) = %q, want %q", tt.line, got, tt.fence)
		}
	}
	for _, tt := range []struct {
		line, fence string
		closes      bool
	}{
		{"```", "```", true}, {"`````  \r", "````", true}, {"~~~~", "~~~", true},
		{"```go", "```", false}, {"``` done", "```", false}, {"```", "````", false}, {"~~~", "```", false}, {"", "```", false},
	} {
		if got := ClosesFence(tt.line, tt.fence); got != tt.closes {
			t.Errorf("ClosesFence(%q, %q) = %v", tt.line, tt.fence, got)
		}
	}
}
