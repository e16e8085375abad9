package markdown

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
)

// TestPropertyLinks: the wikilinks of a front matter's text values and
// lists of text are the document's links, at the line and column they
// stand on (a review of a vault: `related: "[[Other]]"` gave Other no
// backlink, and a broken one was never checked); nothing else in the
// front matter is.
func TestPropertyLinks(t *testing.T) {
	wiki := func(target, alt string, line, col int) docir.LinkRef {
		return docir.LinkRef{Target: target, Kind: docir.LinkWiki, Alt: alt, Line: line, Column: col}
	}
	tests := []struct {
		name, md string
		want     []docir.LinkRef
	}{
		{"text", "---\nrelated: \"[[Other]]\"\n---\n# T\n", []docir.LinkRef{wiki("Other", "", 2, 11)}},
		{"list and text", "---\nup:\n  - \"[[A|the a]]\"\n  - plain\n  - '[[B#H]]'\nnote: see [[C]] and [[D]]\n---\n[[E]]\n",
			[]docir.LinkRef{wiki("A", "the a", 3, 6), wiki("B#H", "", 5, 6), wiki("C", "", 6, 11), wiki("D", "", 6, 21), wiki("E", "", 8, 1)}},
		{"the same link twice", "---\na: \"[[X]]\"\nb: \"[[X]]\"\n---\n", []docir.LinkRef{wiki("X", "", 2, 5), wiki("X", "", 3, 5)}},
		// Obsidian reads a link in a property only quoted; a nested
		// mapping, a key and a comment are no property's text.
		{"not links", "---\nunquoted: [[Other]]\nnested:\n  k: \"[[N]]\"\n\"[[K]]\": 1\n# [[Comment]]\nn: 3\n---\n", nil},
		// A value's escapes hide the link from the text: it stands at
		// the front matter's first line.
		{"escaped", "---\na: \"[[Caf\\u00e9]]\"\n---\n", []docir.LinkRef{wiki("Café", "", 1, 1)}},
		{"toml", "+++\nrelated = [\"[[A]]\"]\n+++\n", []docir.LinkRef{wiki("A", "", 2, 13)}},
		{"json", "{\"related\": \"[[A]]\"}\n", []docir.LinkRef{wiki("A", "", 1, 14)}},
		{"no front matter", "related: \"[[A]]\"\n", []docir.LinkRef{wiki("A", "", 1, 11)}},
	}
	p := NewParser()
	for _, tt := range tests {
		got := allLinks(p.Parse("a.md", []byte(tt.md)).Record)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: %q (-want +got):\n%s", tt.name, tt.md, diff)
		}
	}
}

// FuzzPropertyLinks holds propertyLinks' invariants on any YAML front
// matter: as many links as its values hold, each where a "[[" stands in
// the front matter or at its start.
func FuzzPropertyLinks(f *testing.F) {
	for _, s := range []string{"a: \"[[b]]\"", "a:\n  - '[[b|c]]'\n  - \"[[d]]\"", "a: [[b]]\n# [[c]]", "a: \"[[b\\u00e9]]\"\nc: \"[[b]] [[b]]\"", "a: \"[[[[b]]\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, yaml string) {
		fm := []byte("---\n" + yaml + "\n---\n")
		fields, err := decodeFrontMatter(fm[4 : len(fm)-4])
		if err != nil {
			return
		}
		n := 0
		for _, v := range fields {
			switch v := v.(type) {
			case string:
				n += len(wikilinksOf([]byte(v)))
			case []any:
				for _, e := range v {
					if s, ok := e.(string); ok {
						n += len(wikilinksOf([]byte(s)))
					}
				}
			}
		}
		got := propertyLinks(fields, fm, 0, len(fm))
		if len(got) != n {
			t.Fatalf("%d links, the values hold %d", len(got), n)
		}
		for _, l := range got {
			at := l.at + len(fm)
			if at != 0 && (at < 0 || !bytes.HasPrefix(fm[at:], []byte("[["))) || l.target == "" || l.kind != docir.LinkWiki {
				t.Fatalf("link %+v at %d of %q", l, at, fm)
			}
		}
	})
}
