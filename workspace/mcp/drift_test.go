package mcp

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/workspace/session"
)

// TestDriftIsOneMCPSessions: a read batch that finds its held source
// changed (source_drift) leaves that MCP session answering source_drift to
// its later reads, and no other session on the same engine: after the
// session engine kept one drift for every session (a shared --http server
// refused every client until a restart), and then one for none (each MCP
// call its own engine session, so a drifted session read on).
func TestDriftIsOneMCPSessions(t *testing.T) {
	checkLeaks(t)
	src := t.TempDir()
	if err := corpustest.CopyTree("../../testdata/corpus", src); err != nil {
		t.Fatal(err)
	}
	ws := storeOf(t, src)
	f, err := os.OpenFile(filepath.Join(src, "runbooks", "disk-full.md"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\nEdited after the index.\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	policy, err := session.ParsePolicy([]byte(`{"schema":"docir.host-policy.v2","grants":[],"read_batch_workers":1}`))
	if err != nil {
		t.Fatal(err)
	}
	e := session.New(session.Config{Reader: ws, Policy: policy, Version: "test", Bindings: ws.Bindings(),
		Hold: func(ctx context.Context, rev uint64) (session.Held, error) {
			h, err := ws.Hold(ctx, rev)
			if err != nil {
				return nil, err
			}
			return h, nil
		}})
	a, b := connect(t, e), connect(t, e)
	ctx := context.Background()
	search := func(cs *sdk.ClientSession) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: ToolSearch, Arguments: map[string]any{"query": "disk", "limit": 1}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError {
			return ""
		}
		return toolErrorCode(t, res)
	}
	res, err := a.CallTool(ctx, &sdk.CallToolParams{Name: ToolReadBatch, Arguments: map[string]any{
		"image_revision": 1,
		"batch":          map[string]any{"frames": []string{`{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_id":"runbooks/disk-full"}}`}},
	}})
	if err != nil || !res.IsError || toolErrorCode(t, res) != string(docir.CodeSourceDrift) {
		t.Fatalf("the drifting read_batch: %v %+v", err, res)
	}
	if got := search(a); got != string(docir.CodeSourceDrift) {
		t.Errorf("the drifted session's next search: %q, want source_drift", got)
	}
	if got := search(b); got != "" {
		t.Errorf("another session's search: %q, want a result", got)
	}
}

// toolErrorCode is the docir code a tool error's text names ("… (code,
// JSON-RPC n)"), "" when it names none.
func toolErrorCode(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("a tool error of %d contents", len(res.Content))
	}
	text, _ := res.Content[0].(*sdk.TextContent)
	if text == nil {
		t.Fatalf("a tool error without text: %+v", res.Content[0])
	}
	m := regexp.MustCompile(`\(([a-z_]+), JSON-RPC -?\d+\)$`).FindStringSubmatch(text.Text)
	if m == nil {
		return ""
	}
	return m[1]
}
