package fulltext

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestParseSyntax(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Syntax
	}{
		{"retry budget", Syntax{Text: "retry budget"}},
		{`"retry budget" examples`, Syntax{Text: "retry budget examples", Phrases: []string{"retry budget"}}},
		{`retry -timeout -"circuit breaker"`, Syntax{Text: "retry", Not: []string{"timeout", "circuit breaker"}}},
		{"kube-scheduler --force - x", Syntax{Text: "kube-scheduler --force - x"}},
		{`unclosed "phrase is words`, Syntax{Text: "unclosed phrase is words"}},
		{`a "b c" d "e f`, Syntax{Text: "a b c d e f", Phrases: []string{"b c"}}},
		{`x -"unclosed y`, Syntax{Text: "x unclosed y"}},
		{`a""b`, Syntax{Text: "a b"}},
		{`-"" x`, Syntax{Text: "x"}},
		{"  \t ", Syntax{}},
	} {
		if d := cmp.Diff(tt.want, ParseSyntax(tt.in)); d != "" {
			t.Errorf("ParseSyntax(%q) (-want +got):\n%s", tt.in, d)
		}
	}
}

// TestParseSyntaxWith: a "-word" that option says is an option is the
// word, in its place; quoted, it still excludes.
func TestParseSyntaxWith(t *testing.T) {
	option := func(w string) bool { return flagKey(w) == "depth" || flagKey(w) == "x" }
	for _, tt := range []struct {
		in   string
		want Syntax
	}{
		{"default -Depth of json -Compress", Syntax{Text: "default Depth of json", Not: []string{"Compress"}}},
		{`tar -x -"x" -xf`, Syntax{Text: "tar x", Not: []string{"x", "xf"}}},
		{"a -Depth, b", Syntax{Text: "a Depth, b"}},
	} {
		if d := cmp.Diff(tt.want, ParseSyntaxWith(tt.in, option)); d != "" {
			t.Errorf("ParseSyntaxWith(%q) (-want +got):\n%s", tt.in, d)
		}
	}
}

// FuzzParseSyntax: any query parses; the positive text and the excluded
// words are made of the query's own bytes, and a query without quotes or
// a leading "-" is its own text (spaces folded).
func FuzzParseSyntax(f *testing.F) {
	for _, s := range []string{"retry budget", `"a b" -c -"d e"`, `"`, `-`, `--x`, "a\u00a0-b", `-"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		s := ParseSyntax(q)
		for _, part := range append(append([]string{}, s.Phrases...), s.Not...) {
			if !strings.Contains(q, part) {
				t.Fatalf("%q: part %q is not in the query", q, part)
			}
		}
		// With every "-word" an option, what it excludes is some of what
		// ParseSyntax excludes (the quoted ones), and its text is the
		// query's own bytes too.
		all := ParseSyntaxWith(q, func(string) bool { return true })
		if len(all.Not) > len(s.Not) {
			t.Fatalf("%q: excludes %q with every word an option, %q without", q, all.Not, s.Not)
		}
		for _, w := range strings.Fields(all.Text) {
			if !strings.Contains(q, w) {
				t.Fatalf("%q: word %q is not in the query", q, w)
			}
		}
		if utf8.ValidString(q) && !strings.ContainsAny(q, `"-`) {
			if want := strings.Join(strings.Fields(q), " "); s.Text != want {
				t.Fatalf("%q: text %q, want %q", q, s.Text, want)
			}
		}
	})
}

// TestQuerySyntax: a phrase matches only passages with its words adjacent,
// in order; "-word" and "-\"phrase\"" exclude the passages that hold them,
// but a "-word" that a passage writes as a command-line option is that
// option (flags.go).
func TestQuerySyntax(t *testing.T) {
	x, err := Create(filepath.Join(t.TempDir(), "ft"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	ps := []Passage{
		{ID: "a", Text: "set the front matter dates here"},
		{ID: "b", Text: "the matter of the front door and its dates"},
		{ID: "c", Text: "front matter without the other word"},
		{ID: "d", Text: "dates in a menu"},
		{ID: "e", Text: "### -Depth\n\nThe default depth is 2: `ConvertTo-Json -Depth 3`."},
		{ID: "f", Text: "the default value"},
	}
	if err := x.Apply(nil, ps); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tt := range []struct {
		q    string
		want []string // the passages that score above 0, by id
	}{
		{"front matter dates", []string{"a", "b", "c", "d"}},
		{`"front matter" dates`, []string{"a", "c"}},
		{`"front matter dates"`, []string{"a"}},
		{"dates -menu", []string{"a", "b"}},
		{`front -"front matter"`, []string{"b"}},
		{`"matter front"`, nil},
		// e writes -Depth as an option, so -depth is that option (a word,
		// ranked); -"depth" still excludes; -menu is written as no option.
		{"default -Depth", []string{"e", "f"}},
		{`default -"depth"`, []string{"f"}},
		{"default -menu", []string{"e", "f"}},
		{"menu -dates", nil},
		// A question's quotes quote: its quoted words are words, none
		// required; a question with an exclusion keeps its phrases.
		{`where do I set "front matter" dates?`, []string{"a", "b", "c", "d"}},
		{`how are "front matter" dates read`, []string{"a", "b", "c", "d"}},
		{`where do I set "front matter" -menu?`, []string{"a", "c"}},
		// A phrase that opens with an interrogative is a phrase: the
		// question is read outside the quotes.
		{`"where the front matter"`, nil},
		{`"the front matter" how`, []string{"a"}},
	} {
		q, err := x.Prepare(ctx, tt.q)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range ps {
			if x.ScorePassage(q, p) > 0 {
				got = append(got, p.ID)
			}
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%q (-want +got):\n%s", tt.q, d)
		}
	}
}

// TestJoinedWords: a query word that matches nothing and is two or three
// indexed words written together is read as them, adjacent; a word some
// passage holds (an identifier's catenation too: see Catenations), or
// that is no such join, stays as typed.
func TestJoinedWords(t *testing.T) {
	x := indexed(t, []Passage{
		{ID: "a", Text: "The .WordCount method counts the words of a page."},
		{ID: "b", Text: "Set baseURL, the base of every URL; see Get-ChildItem."},
		{ID: "c", Text: "A submarine is not a sub."},
		{ID: "d", Text: "The page size, and the file name of each page."},
	})
	ctx := context.Background()
	for _, tt := range []struct{ q, want string }{
		{"pagesize", "page size"},
		{"PAGESIZE method", "PAGE SIZE method"},
		{"filenames", "file names"},      // plurals are the index's terms too
		{"wordcount", "wordcount"},       // WordCount's catenation
		{"baseurl", "baseurl"},           // baseURL's
		{"getchilditem", "getchilditem"}, // Get-ChildItem's (a hyphen joins)
		{"childitem", "child item"},      // a part of a catenation is no catenation
		{"submarine", "submarine"},       // a passage holds it
		{"pagesizex", "pagesizex"},       // "x" is no word of three letters
		{`"pagesize"`, "pagesize"},       // a query with a phrase stays as typed
		{"page-size", "page-size"},       // not letters only
		{"zzzqqqxxx", "zzzqqqxxx"},       // no split into held words
	} {
		q, err := x.Prepare(ctx, tt.q)
		if err != nil {
			t.Fatal(err)
		}
		if q.Text() != tt.want {
			t.Errorf("Prepare(%q).Text() = %q, want %q", tt.q, q.Text(), tt.want)
		}
	}
}

// FuzzJoinedParts: a split is of w's own letters, in order, into 2 to n
// parts of MinJoinedPart letters or more, each one held.
func FuzzJoinedParts(f *testing.F) {
	for _, s := range []string{"getchilditem", "baseurl", "aaaaaa", "abcabcabc", ""} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, w string, n int) {
		n = n%4 + 1
		held := func(s string) bool { return len(s)%2 == 1 || strings.HasPrefix(s, "ab") } // any rule will do
		parts := joinedParts(w, n, held)
		if parts == nil {
			return
		}
		if strings.Join(parts, "") != w || len(parts) < 2 || len(parts) > n {
			t.Fatalf("joinedParts(%q, %d) = %q", w, n, parts)
		}
		for _, p := range parts {
			if len(p) < MinJoinedPart || !held(p) {
				t.Fatalf("joinedParts(%q, %d) = %q: part %q", w, n, parts, p)
			}
		}
	})
}
