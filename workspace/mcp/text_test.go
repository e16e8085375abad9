package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/readbatch"
	"github.com/docir/docir/workspace/session"
)

// TestTextOf pins the markdown each tool's text content carries.
func TestTextOf(t *testing.T) {
	doc := docir.Document{Address: "a#b", ID: "a", Title: "A", Path: "a.md", Store: "local", Generation: 3,
		Section: &docir.SectionRef{Slug: "b", Heading: "B", Level: 2}, Body: "## B\n\ntext\n"}
	hit := docir.Hit{ID: "a", Title: "A", Path: "a.md", Store: "local", Score: 1, MatchedSection: "a#b", Snippet: "some\n  text"}
	long := "The retry budget caps the share of calls that are retries. " + strings.Repeat("Filler words go on and on here. ", 6) +
		"Once the budget is spent, calls fail fast instead of retrying."
	tests := []struct {
		method string
		result any
		want   string
	}{
		{wire.MethodGet, doc, "<!-- docir: a#b | A -->\n## B\n\ntext\n"},
		{wire.MethodGet, docir.GetResult{Documents: []docir.Document{doc, doc}, Missing: []docir.Missing{{Address: "x", Reason: "no_document", Suggestions: []string{"a"}}}},
			"<!-- docir: a#b | A -->\n## B\n\ntext\n\n---\n\n<!-- docir: a#b | A -->\n## B\n\ntext\n\n---\n\nNot found:\n- `x`: no_document (did you mean `a`?)\n"},
		{wire.MethodGet, docir.GetResult{Documents: []docir.Document{}, Missing: []docir.Missing{}}, "No addresses asked, none read.\n"},
		// A path the id does not say is kept.
		{wire.MethodGet, docir.Document{Address: "p/x", ID: "p/x", Title: "X", Path: "x.md", Body: "x\n"}, "<!-- docir: p/x | X | x.md -->\nx\n"},
		// The path only when the id does not say it; a snippet cut to the
		// words around the query.
		{wire.MethodSearch, docir.SearchResult{Query: "fail fast", Hits: []docir.Hit{hit, {ID: "p", Title: "P", Path: "src/p.md", Store: "peer1", MatchedSection: "p"},
			{ID: "r/index", Title: "R", Path: "r/index.md", Store: "local", MatchedSection: "r/index#budget", Snippet: long}}, Total: 7,
			Stores: []docir.StoreStatus{{Store: "peer2", Status: "failed", Error: "timeout"}}},
			"3 documents; 7 sections hold the query's words; get reads one by its address:\n1. `a#b` A — some text\n2. `p` P (src/p.md) [peer1]\n" +
				"3. `r/index#budget` R — …go on and on here. Filler words go on and on here. Once the budget is spent, calls fail fast instead of retrying.\nStore peer2: failed timeout\n"},
		{wire.MethodQuery, docir.SearchResult{Query: "kind:x", Hits: []docir.Hit{}}, "0 of 0 matching documents.\n"},
		// One is one ("1 documents" before).
		{wire.MethodSearch, docir.SearchResult{Query: "q", Hits: []docir.Hit{{ID: "p", Title: "P", Path: "p.md", MatchedSection: "p"}}, Total: 1},
			"1 document; 1 section holds the query's words; get reads one by its address:\n1. `p` P\n"},
		{wire.MethodQuery, docir.SearchResult{Query: "kind:x", Hits: []docir.Hit{{ID: "p", Title: "P", Path: "p.md", MatchedSection: "p"}}, Total: 1},
			"1 of 1 matching document; get reads one by its address:\n1. `p` P\n"},
		// The plan, then the outline of each document it reads from, its
		// planned sections marked and subsections nested; no hit repeated,
		// each size said once (a planned section's in its outline).
		{wire.MethodContext, docir.ContextResult{Query: "q", Budget: 1000, Tokens: 340, Addresses: []string{"a#c", "b", "a#e"},
			Hits: []docir.ContextHit{
				{Hit: hit, Tokens: 900, Outline: []docir.OutlineEntry{{Address: "a#b", Level: 2, Tokens: 500}, {Address: "a#c", Level: 3, Tokens: 200},
					{Address: "a#d", Level: 4, Tokens: 50}, {Address: "a#e", Level: 2, Tokens: 40}, {Address: "a#f", Level: 4, Tokens: 10}}},
				{Hit: docir.Hit{ID: "b", Title: "B", Path: "b.md", MatchedSection: "b"}, Tokens: 100, Outline: []docir.OutlineEntry{}},
				{Hit: docir.Hit{ID: "z", Title: "Z", Path: "z.md", MatchedSection: "z"}, Tokens: 5000},
			}},
			"Plan: get these in order and stop once answered (340 of 1000 tokens):\n" +
				"1. `a#c`\n2. `b` whole, 100 tokens\n3. `a#e`\n" +
				"Outlines (#section tokens; * planned):\n" +
				"`a` A, 900: #b 500 (#c* 200 (#d 50)), #e* 40 (#f 10)\n"},
		// A planned section no outline shows (a peer's hit without one):
		// no size is made up for it.
		{wire.MethodContext, docir.ContextResult{Query: "q", Budget: 1000, Tokens: 30, Addresses: []string{"p#x"},
			Hits: []docir.ContextHit{{Hit: docir.Hit{ID: "p", Title: "P", Path: "p.md", Store: "peer1", MatchedSection: "p#x"}, Tokens: 30,
				Outline: []docir.OutlineEntry{}}}},
			"Plan: get these in order and stop once answered (30 of 1000 tokens):\n1. `p#x`\n"},
		{wire.MethodContext, docir.ContextResult{Query: "q", Budget: 10, Addresses: []string{}, Hits: []docir.ContextHit{}},
			"Nothing to read for `q` within 10 tokens.\n"},
		// A long outline shows the planned section, its parent, and the
		// sections nearest them; "…" where others are left out.
		{wire.MethodContext, docir.ContextResult{Query: "q", Budget: 1000, Tokens: 7, Addresses: []string{"l#s9"},
			Hits: []docir.ContextHit{{Hit: docir.Hit{ID: "l", Title: "L", Path: "l.md", MatchedSection: "l#s9"}, Tokens: 5000, Outline: longOutline()}}},
			"Plan: get these in order and stop once answered (7 of 1000 tokens):\n1. `l#s9`\n" +
				"Outlines (#section tokens; * planned):\n" +
				"`l` L, 5000: …, #s3 3, #s4 4, #s5 5 (#s6 6, #s7 7, #s8 8, #s9* 9, #s10 10, #s11 11, #s12 12), #s13 13, #s14 14, …\n"},
		{wire.MethodStatus, docir.Status{Store: "/s", Generation: 2, Documents: 5, Sources: []docir.SourceInfo{{Path: "/d1"}, {Path: "/d2"}}},
			"Store /s: generation 2, 5 documents, from /d1, /d2.\n"},
		// A source's prefix and id rule say what its documents' ids are.
		{wire.MethodStatus, docir.Status{Store: "/s", Generation: 2, Documents: 5, Sources: []docir.SourceInfo{{Path: "/d1", Prefix: "v1"}, {Path: "/d2", FrontMatterID: "name"}}},
			"Store /s: generation 2, 5 documents, from /d1 (prefix v1), /d2 (front_matter_id name).\n"},
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

// longOutline is 20 sections: s5 holds s6 to s12, the others are at the top.
func longOutline() []docir.OutlineEntry {
	var out []docir.OutlineEntry
	for i := range 20 {
		level := 2
		if i >= 6 && i <= 12 {
			level = 3
		}
		out = append(out, docir.OutlineEntry{Address: fmt.Sprintf("l#s%d", i), Level: level, Tokens: i})
	}
	return out
}

// TestReadBatchText pins read_batch's text: every answer, in order, as
// its method's tool renders it alone, or its error as a tool error says
// it; past the room the reply bound leaves, the largest answers point at
// structuredContent instead. Before, the text was only a count.
func TestReadBatchText(t *testing.T) {
	doc := docir.Document{Address: "a", ID: "a", Title: "A", Path: "a.md", Body: "# A\n\n" + strings.Repeat("body ", 40) + "\n"}
	docLine, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": doc})
	line := func(s string) *string { return &s }
	result, _ := json.Marshal(readbatch.Result{Schema: "docir.read-batch.v1", Responses: []*string{
		line(string(docLine) + "\n"),
		line(`{"jsonrpc":"2.0","id":"s","error":{"code":-32602,"message":"docir/search: query of 5000 bytes","data":{"code":"invalid_params"}}}` + "\n"),
		nil,
	}})
	args := `{"image_revision":3,"batch":{"frames":["{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"docir/get\",\"params\":{\"doc_id\":\"a\"}}",` +
		`"{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"docir/search\",\"params\":{\"query\":\"x\"}}","{\"jsonrpc\":\"2.0\",\"method\":\"docir/status\"}"]}}`
	docText, _ := textOf(wire.MethodGet, json.RawMessage(docLine[strings.Index(string(docLine), `"result":`)+9:len(docLine)-1]))
	want := "3 answers, in request order (each also in structuredContent.responses):\n" +
		"<!-- answer 1 of 3: docir/get, id 1 -->\n" + docText +
		"\n---\n\n<!-- answer 2 of 3: docir/search, id \"s\" -->\nError: docir/search: query of 5000 bytes (invalid_params, JSON-RPC -32602)\n" +
		"\n---\n\n<!-- answer 3 of 3: docir/status -->\n(a notification: no answer)\n"
	got, err := batchText(json.RawMessage(args), result, 1<<20)
	if err != nil || got != want {
		t.Errorf("read_batch text (%v):\n%s", err, cmp.Diff(want, got))
	}
	if !strings.Contains(docText, "<!-- docir: a | A -->\n# A\n") {
		t.Errorf("the get answer is not get's text: %q", docText)
	}
	small, _ := batchText(json.RawMessage(args), result, 500)
	if encodedLen(small) > 500 || !strings.Contains(small, "<!-- answer 1 of 3: docir/get, id 1 -->\n(") ||
		!strings.Contains(small, "structuredContent.responses[0] holds it") || !strings.Contains(small, "Error: docir/search") {
		t.Errorf("within 500 bytes (%d):\n%s", encodedLen(small), small)
	}
}

// TestReadBatchToolText: the read_batch tool's text carries its answers.
func TestReadBatchToolText(t *testing.T) {
	checkLeaks(t)
	ws := fixtureStore(t)
	policy, err := session.ParsePolicy([]byte(`{"schema":"docir.host-policy.v2","grants":[],"read_batch_workers":2}`))
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, session.New(session.Config{Reader: ws, Policy: policy, Version: "test",
		Hold: func(ctx context.Context, rev uint64) (session.Held, error) {
			h, err := ws.Hold(ctx, rev)
			if err != nil {
				return nil, err
			}
			return h, nil
		}}))
	st, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolStatus, Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var status docir.Status
	b, _ := json.Marshal(st.StructuredContent)
	_ = json.Unmarshal(b, &status)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolReadBatch, Arguments: map[string]any{
		"image_revision": status.Generation,
		"batch":          map[string]any{"frames": []string{`{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_id":"runbooks/disk-full#mitigate"}}`}},
	}})
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("read_batch: %v %+v", err, res.Content[0])
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if !strings.Contains(text, "<!-- answer 1 of 1: docir/get, id 1 -->\n<!-- docir: runbooks/disk-full#mitigate") || !strings.Contains(text, "## Mitigate\n") {
		t.Errorf("read_batch text:\n%s", text)
	}
}
