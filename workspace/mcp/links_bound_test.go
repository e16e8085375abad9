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
	src := t.TempDir()
	if err := corpustest.CopyTree("../../testdata/corpus", src); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("# Many\n\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "[x](missing-page-with-a-long-name-%d.md)\n", i)
	}
	if err := os.WriteFile(filepath.Join(src, "many.md"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := storeOf(t, src)
	cs := connect(t, session.New(session.Config{Reader: ws, Version: "test", Hold: func(ctx context.Context, rev uint64) (session.Held, error) {
		v, err := ws.Hold(ctx, rev)
		if err != nil {
			return nil, err
		}
		return v, nil
	}}))
	call := func(args map[string]any) (docir.CheckResult, string) {
		t.Helper()
		r, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolCheck, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		text := r.Content[0].(*sdk.TextContent).Text
		if r.IsError {
			t.Fatalf("check %v: %s", args, text)
		}
		data, _ := json.Marshal(r.StructuredContent)
		var res docir.CheckResult
		if err := json.Unmarshal(data, &res); err != nil {
			t.Fatal(err)
		}
		if len(data) > PageBytes || len(data)+len(text)+4096 > wire.MaxReplyBytes {
			t.Errorf("check %v: %d bytes of JSON and %d of text; a page over MCP is at most %d", args, len(data), len(text), PageBytes)
		}
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
