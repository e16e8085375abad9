package rank

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
)

func TestLeadSlug(t *testing.T) {
	body := "---\ntitle: KEP\n---\n<!-- toc -->\n\n# KEP\n\nSummary.\n\n## Drawbacks\n\n<!-- none -->\n"
	h1 := strings.Index(body, "# KEP")
	dr := strings.Index(body, "## Drawbacks")
	rec := docir.Record{ID: "k", MarkdownStart: strings.Index(body, "<!--"), Sections: []docir.Section{
		{Slug: "kep", Level: 1, Start: h1, OwnEnd: dr, End: len(body)},
		{Slug: "drawbacks", Level: 2, Start: dr, OwnEnd: len(body), End: len(body)},
	}}
	if got := leadSlug(&rec, []byte(body)); got != "kep" {
		t.Errorf("a comment before the first heading is not prose: lead %q, want kep", got)
	}
	body2 := strings.Replace(body, "<!-- toc -->", "Intro text.  ", 1)
	if got := leadSlug(&rec, []byte(body2)); got != "" {
		t.Errorf("prose before the first heading: lead %q, want the document", got)
	}
	if got := leadSlug(&docir.Record{ID: "x"}, []byte("text")); got != "" {
		t.Errorf("no headings: lead %q, want the document", got)
	}
}

func TestPlainName(t *testing.T) {
	for in, want := range map[string]string{
		"Transpile Sass to CSS.": "Transpile Sass to CSS",
		"  a   b ":               "a b",
		"What?":                  "What",
		"math.Pi":                "math.Pi",
	} {
		if got := plainName(in); got != want {
			t.Errorf("plainName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOutline(t *testing.T) {
	var secs []docir.Section
	for i, lv := range []int{1, 2, 3, 2, 3, 4, 2} {
		secs = append(secs, docir.Section{Slug: string(rune('a' + i)), Heading: string(rune('A' + i)), Level: lv, Start: i, End: i + 1})
	}
	body := []byte("0123456789")
	d := planned{rec: docir.Record{ID: "d", Sections: secs}, tc: newTokenCounter(body)}
	var got []string
	for _, e := range outline(&d, 40) {
		got = append(got, e.Address)
	}
	if diff := cmp.Diff([]string{"d#a", "d#b", "d#d", "d#g"}, got); diff != "" {
		t.Errorf("two levels from the top (-want +got)\n%s", diff)
	}
	if n := len(outline(&d, 2)); n != 2 {
		t.Errorf("bounded to 2: %d entries", n)
	}
}

func TestSnippetSkipsMarkup(t *testing.T) {
	// hit() blanks markup before cutting the snippet; Snippet itself keeps
	// what it is given.
	f := &found{
		rec:  docir.Record{ID: "d", Title: "T", MarkdownStart: 0},
		body: []byte("<!-- hidden note -->\n{{< figure src=\"x.png\" >}}\nThe visible prose about budgets."),
		q:    "budgets",
	}
	h := f.hit()
	if h.Snippet != "The visible prose about budgets." || h.MatchedSection != "d" {
		t.Errorf("hit: snippet %q, matched %q", h.Snippet, h.MatchedSection)
	}
}
