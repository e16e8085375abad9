package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/workspace/session"
)

// TestLinksToolBound: the links tool's doc_ids has the bound of get's over
// MCP (MaxToolAddresses) in its schema, its description says so, and the
// tool enforces it. Before, the schema said maxItems 100, the description
// "at most 1000", and a call of 150 addresses was served.
func TestLinksToolBound(t *testing.T) {
	checkLeaks(t)
	cs := connect(t, fixture(t, ""))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name != ToolLinks {
			continue
		}
		in, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Properties struct {
				DocIDs struct {
					MaxItems    int    `json:"maxItems"`
					Description string `json:"description"`
				} `json:"doc_ids"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(in, &s); err != nil {
			t.Fatal(err)
		}
		d := s.Properties.DocIDs
		if d.MaxItems != MaxToolAddresses || !strings.Contains(d.Description, fmt.Sprintf("at most %d)", MaxToolAddresses)) {
			t.Errorf("links doc_ids: maxItems %d, description %q; want %d in both", d.MaxItems, d.Description, MaxToolAddresses)
		}
	}
	call := func(n int) *sdk.CallToolResult {
		t.Helper()
		ids := make([]string, n)
		for i := range ids {
			ids[i] = "runbooks/disk-full"
		}
		r, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolLinks, Arguments: map[string]any{"doc_ids": ids}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := call(MaxToolAddresses); r.IsError {
		t.Errorf("links of %d addresses: %v", MaxToolAddresses, r.Content)
	}
	r := call(MaxToolAddresses + 50)
	text := ""
	if len(r.Content) == 1 {
		if tc, ok := r.Content[0].(*sdk.TextContent); ok {
			text = tc.Text
		}
	}
	if !r.IsError || !strings.Contains(text, "(invalid_params, JSON-RPC -32602)") || !strings.Contains(text, fmt.Sprintf("%d addresses in doc_ids", MaxToolAddresses+50)) {
		t.Errorf("links of %d addresses: isError %v, %.200q", MaxToolAddresses+50, r.IsError, text)
	}
}

// TestCheckToolPages: the check tool answers a page (limit), says in its
// text how to read the next, and the next page's cursor reads the rest;
// a page over MCP is bounded at PageBytes, whatever the reply holds twice.
func TestCheckToolPages(t *testing.T) {
	checkLeaks(t)
	var b strings.Builder
	b.WriteString("# Many\n\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "[x](missing-page-with-a-long-name-%d.md)\n", i)
	}
	cs := pagedTools(t, map[string]string{"many.md": b.String()})
	call := func(args map[string]any) (docir.CheckResult, string) {
		t.Helper()
		var res docir.CheckResult
		text := callPage(t, cs, ToolCheck, args, &res)
		return res, text
	}
	res, text := call(map[string]any{"limit": 2})
	if len(res.Broken) != 2 || res.Next == "" || !strings.Contains(text, fmt.Sprintf("call check again with the same arguments and cursor %q", res.Next)) {
		t.Fatalf("a page of 2: %d broken, next %q, text %q", len(res.Broken), res.Next, text)
	}
	got, pages := res.Broken, 1
	for cursor := res.Next; cursor != ""; cursor = res.Next {
		res, _ = call(map[string]any{"cursor": cursor})
		got = append(got, res.Broken...)
		pages++
	}
	if len(got) != 3000 || got[2999].Target != "missing-page-with-a-long-name-2999.md" || pages < 3 {
		t.Errorf("%d pages hold %d links; want 3,000 in several", pages, len(got))
	}
}

// pagedTools is an MCP session over the fixture corpus and files.
func pagedTools(t *testing.T, files map[string]string) *sdk.ClientSession {
	t.Helper()
	src := t.TempDir()
	if err := corpustest.CopyTree("../../testdata/corpus", src); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := storeOf(t, src)
	return connect(t, session.New(session.Config{Reader: ws, Version: "test", Hold: func(ctx context.Context, rev uint64) (session.Held, error) {
		v, err := ws.Hold(ctx, rev)
		if err != nil {
			return nil, err
		}
		return v, nil
	}}))
}

// callPage calls a paged tool, decodes its structured result into v and
// returns its text; a page over MCP is bounded at PageBytes, and its text
// fits the reply beside it.
func callPage(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any, v any) string {
	t.Helper()
	r, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	text := r.Content[0].(*sdk.TextContent).Text
	if r.IsError {
		t.Fatalf("%s %v: %s", tool, args, text)
	}
	data, _ := json.Marshal(r.StructuredContent)
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
	if len(data) > PageBytes || len(data)+len(text)+4096 > wire.MaxReplyBytes {
		t.Errorf("%s %v: %d bytes of JSON and %d of text; a page over MCP is at most %d", tool, args, len(data), len(text), PageBytes)
	}
	return text
}

// TestLinksToolPages: the links tool answers a page of a hub's links when
// they pass what a reply over MCP holds (PageBytes) and with limit, says in
// its text how to read the next, and the pages, walked, are every link
// once.
func TestLinksToolPages(t *testing.T) {
	checkLeaks(t)
	files := map[string]string{"hub.md": "# Hub\n\n[x](missing.md)\n"}
	for i := range 30 {
		var b strings.Builder
		fmt.Fprintf(&b, "# Page %d with a heading long enough to make its links longer\n\n", i)
		for j := range 100 {
			fmt.Fprintf(&b, "[hub](hub.md) %d\n", j)
		}
		files[fmt.Sprintf("p%02d.md", i)] = b.String()
	}
	cs := pagedTools(t, files)
	var res docir.LinkResult
	text := callPage(t, cs, ToolLinks, map[string]any{"doc_id": "hub", "limit": 2}, &res)
	if len(res.Links.Outgoing) != 1 || len(res.Links.Incoming) != 1 || res.Links.Next == "" ||
		!strings.Contains(text, fmt.Sprintf("call links again with the same arguments and cursor %q", res.Links.Next)) {
		t.Fatalf("a page of 2: %+v, text %q", res.Links, text)
	}
	seen, pages := map[string]bool{}, 0
	args := map[string]any{"doc_id": "hub"}
	for {
		res = docir.LinkResult{}
		text = callPage(t, cs, ToolLinks, args, &res)
		pages++
		for _, l := range res.Links.Incoming {
			k := fmt.Sprint(l.From, l.Line)
			if seen[k] {
				t.Fatalf("%s listed twice", k)
			}
			seen[k] = true
		}
		if pages > 1 && !strings.Contains(text, "- no outgoing links on this page") {
			t.Errorf("page %d's text: %.200q", pages, text)
		}
		if res.Links.Next == "" {
			break
		}
		args["cursor"] = res.Links.Next
	}
	if len(seen) != 3000 || pages < 2 {
		t.Errorf("%d pages hold %d incoming links; want 3,000 in several", pages, len(seen))
	}
}
