package markdown

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMkDocsBlocks: the body of an admonition, details block or content
// tab (indented 4 spaces under its opener) is markdown, not an indented
// code block: its links are read, with the links of the opener's title,
// and a heading in it is an anchor of its section, as in a block quote.
// A line that is not an opener by Python-Markdown's and pymdownx's
// patterns leaves an indented block after it code.
func TestMkDocsBlocks(t *testing.T) {
	type sec struct {
		Slug    string
		Anchors []string
		Links   []string
	}
	tests := []struct {
		name, md string
		want     []sec
	}{
		{"admonition", "# A\n!!! note \"Heads [up](t.md)\"\n    See [B](b.md#x).\n\n    ## Inner\n\n        code [c](c.md)\n",
			[]sec{{"a", []string{"inner"}, []string{"t.md", "b.md#x"}}}},
		{"tabs and details", "# A\n=== \"Tab one\"\n    Read [m](m.md).\n\n=== \"Tab two\"\n    ???+ tip\n        Or [b](b.md).\n\n??? \"Only a title\"\n    [d](d.md)\n",
			[]sec{{"a", nil, []string{"m.md", "b.md", "d.md"}}}},
		{"tab-indented body, in a list", "# A\n- item\n\n    !!!note\n    \t[e](e.md)\n\n===! \"New set\"\n\t[f](f.md)\n",
			[]sec{{"a", nil, []string{"e.md", "f.md"}}}},
		{"interrupts a paragraph, ends at an unindented line", "# A\ntext\n!!! warning \"W\"\n    [g](g.md)\n\n[h](h.md)\n\n    [code](c.md)\n",
			[]sec{{"a", nil, []string{"g.md", "h.md"}}}},
		{"not openers", "# A\n!!! WARNING !!!\n\n    [c1](c.md)\n\n??? \n\n    [c2](c.md)\n\n=== Tab\n\n    [c3](c.md)\n\n!!!  two spaces\n\n    [c4](c.md)\n\n    !!! note\n        [c5](c.md)\n",
			[]sec{{"a", nil, nil}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := NewParser().Parse("a.md", []byte(tt.md)).Record
			var got []sec
			for _, s := range rec.Sections {
				g := sec{Slug: s.Slug, Anchors: s.Anchors}
				for _, l := range s.Links {
					g.Links = append(g.Links, l.Target)
				}
				got = append(got, g)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tt.md, diff)
			}
		})
	}
}

// TestMkDocsOpeners holds the opener patterns to the extensions' regular
// expressions on the lines their documentation and tests use.
func TestMkDocsOpeners(t *testing.T) {
	for line, want := range map[string]string{
		`!!! note`:                      "",
		`!!! note "Title"`:              "Title",
		`!!! danger highlight blink ""`: "",
		`!!!tip "a "quoted" b"  `:       `a "quoted" b`,
		`??? note`:                      "",
		`???+ note "Open"`:              "Open",
		`??? "Just a title"`:            "Just a title",
		`=== "Tab 1"`:                   "Tab 1",
		`===+ "Selected"`:               "Selected",
		`===!+ "New set, selected"`:     "New set, selected",
		`!!! Überblick`:                 "",
	} {
		s, e, ok := MkDocsOpener([]byte(line))
		got := ""
		if s >= 0 {
			got = line[s:e]
		}
		if !ok || got != want {
			t.Errorf("%q: opener %v, title %q; want one, titled %q", line, ok, got, want)
		}
	}
	for _, line := range []string{`!!! WARNING !!!`, `!!!`, `!!!  note`, `???`, `???"t"`, `=== Tab`, `==="Tab"`, `===!! "x"`, `!!! note 'single'`, `!! note`} {
		if _, _, ok := MkDocsOpener([]byte(line)); ok {
			t.Errorf("%q is an opener", line)
		}
	}
}
