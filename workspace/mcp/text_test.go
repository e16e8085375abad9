package mcp

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// TestTextOf pins the markdown each tool's text content carries.
func TestTextOf(t *testing.T) {
	doc := docir.Document{Address: "a#b", ID: "a", Title: "A", Path: "a.md", Store: "local", Generation: 3,
		Section: &docir.SectionRef{Slug: "b", Heading: "B", Level: 2}, Body: "## B\n\ntext\n"}
	hit := docir.Hit{ID: "a", Title: "A", Path: "a.md", Store: "local", Score: 1, MatchedSection: "a#b", Snippet: "some\n  text"}
	tests := []struct {
		method string
		result any
		want   string
	}{
		{wire.MethodGet, doc, "<!-- docir: a#b | A | a.md | generation 3 -->\n## B\n\ntext\n"},
		{wire.MethodGet, docir.GetResult{Documents: []docir.Document{doc, doc}, Missing: []docir.Missing{{Address: "x", Reason: "no_document", Suggestions: []string{"a"}}}},
			"<!-- docir: a#b | A | a.md | generation 3 -->\n## B\n\ntext\n\n\n---\n\n<!-- docir: a#b | A | a.md | generation 3 -->\n## B\n\ntext\n\n\n---\n\nNot found:\n- `x`: no_document (did you mean `a`?)\n"},
		{wire.MethodGet, docir.GetResult{Documents: []docir.Document{}, Missing: []docir.Missing{}}, "No addresses asked, none read.\n"},
		{wire.MethodSearch, docir.SearchResult{Query: "q", Hits: []docir.Hit{hit, {ID: "p", Title: "P", Path: "p.md", Store: "peer1", MatchedSection: "p"}}, Total: 7,
			Stores: []docir.StoreStatus{{Store: "peer2", Status: "failed", Error: "timeout"}}},
			"2 of 7 matches for `q` (read one with get and its address):\n1. `a#b` A (a.md) — some text\n2. `p` P (p.md) [peer1]\nStore peer2: failed timeout\n"},
		{wire.MethodQuery, docir.SearchResult{Query: "kind:x", Hits: []docir.Hit{}}, "0 of 0 matches for `kind:x`.\n"},
		{wire.MethodContext, docir.ContextResult{Query: "q", Budget: 100, Tokens: 40, Addresses: []string{"a#b"},
			Hits: []docir.ContextHit{{Hit: hit, Tokens: 90, Outline: []docir.OutlineEntry{{Address: "a#b"}}}}},
			"Read next (about 40 of 100 tokens): get with doc_ids [\"a#b\"]\n\nRanked documents for `q` (outlines with token counts in structuredContent):\n1. `a#b` A (a.md) — some text; 90 tokens, 1 sections\n"},
		{wire.MethodStatus, docir.Status{Store: "/s", Generation: 2, Documents: 5, Sources: []docir.SourceInfo{{Path: "/d1"}, {Path: "/d2"}}},
			"Store /s: generation 2, 5 documents, from /d1, /d2.\n"},
	}
	for _, tt := range tests {
		data, err := json.Marshal(tt.result)
		if err != nil {
			t.Fatal(err)
		}
		got, err := textOf(tt.method, data)
		if err != nil {
			t.Fatalf("%s: %v", tt.method, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.method, data, diff)
		}
	}
	if _, err := textOf("docir/nope", []byte(`{}`)); err == nil {
		t.Error("an unknown method rendered")
	}
}
