package markdown

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// TestTableRowsAreInlineContexts: a GFM table's rows are each an inline
// context, as GitHub and Hugo read them: a backtick left open in one cell
// does not make the rows below it code, so their anchors and links are
// read (Traefik's option tables: 47 of 48 anchors were lost below one).
func TestTableRowsAreInlineContexts(t *testing.T) {
	md := "# T\n\nSome `text\n| Field | Description |\n|:------|:------------|\n" +
		"| <a id=\"opt-a\">`a`</a> | The format is:`[host]:port |\n" +
		"| <a id=\"opt-b\">`b`</a> | See [the guide](g.md) |\n" +
		"| <a id=\"opt-c\">`c`</a> | `x |\n\n" +
		"Not a `table <a id=\"in-code\">\n| a |\nno delimiter` row\n"
	rec := NewParser().Parse("t.md", []byte(md)).Record
	var targets []string
	for _, l := range rec.Sections[0].Links {
		targets = append(targets, l.Target)
	}
	if diff := cmp.Diff([]string{"opt-a", "opt-b", "opt-c"}, rec.Sections[0].Anchors); diff != "" {
		t.Errorf("anchors (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"g.md"}, targets); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
}

func TestIsDelimiterRow(t *testing.T) {
	for line, want := range map[string]bool{
		"|:------|:------------|": true,
		"| --- | :-: | --: |":     true,
		"--- | ---":               true,
		"| --- |":                 true,
		"---":                     false,
		"| --- | a |":             false,
		"| |":                     false,
		"||":                      false,
	} {
		if got := isDelimiterRow([]byte(line)); got != want {
			t.Errorf("isDelimiterRow(%q) = %v, want %v", line, got, want)
		}
	}
}

// FuzzTableLinksGoldmark: the links docir reads in a GFM table are the
// ones goldmark's table extension renders, cell by cell (a row with more
// cells than its header, whose excess GFM drops, is skipped).
func FuzzTableLinksGoldmark(f *testing.F) {
	tokens := []string{"|", "`", "[", "]", "(", ")", " ", "g.md", "x", "\\|", "``", "**"} // no '<': goldmark's own reading of "<…>" destinations is another matter (FuzzLinksGoldmark)
	for _, s := range []string{"\x02\x07\x03\x04\x07\x05", "\x01\x00\x02\x07\x03\x04\x07\x05\x01", "\x09\x02\x08\x03"} {
		f.Add([]byte(s))
	}
	p := NewParser()
	gm := goldmark.New(goldmark.WithExtensions(extension.Table, extension.Footnote)).Parser()
	const header = "| a | b | c | d | e | f | g | h | i | j | k | l | m | n | o | p |\n" +
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 48 {
			return
		}
		row := tokenLine("| ", tokens, b)
		md := []byte("# T\n\n" + header + row + "\n| [ok](o.md) |\n")
		want, cells := goldmarkLinks(gm, md)
		if strings.Count(strings.ReplaceAll(row, "\\|", ""), "|") > 16 || cells != 3*16 {
			t.Skip("a row of more cells than its header, or no table: GFM drops or reads them otherwise")
		}
		sameLinks(t, p, md, want)
	})
}
