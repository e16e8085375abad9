package mcp

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docir/docir/store"
	"github.com/docir/docir/workspace"
	"github.com/docir/docir/workspace/session"
)

// TestIndexingProgress: a tool call with a progress token that comes
// while the store is indexed in the background gets progress
// notifications while it waits, then the indexing error; a call without a
// token gets none.
func TestIndexingProgress(t *testing.T) {
	checkLeaks(t)
	ws := workspace.New(workspace.Config{Dir: t.TempDir(), Sources: []store.Source{{Path: t.TempDir()}}})
	t.Cleanup(func() { ws.Close() })
	gate := session.NewGate(ws, 800*time.Millisecond) // never opened: indexing throughout
	e := session.New(session.Config{Reader: gate, Version: "test"})
	var step atomic.Int64
	o := Options{Version: "test", Indexing: func() (string, int, int, bool) {
		return "parse", int(step.Add(1)), 100, true
	}}
	w, r := serve(t, e, o)
	var mu sync.Mutex
	var got []*sdk.ProgressNotificationParams
	c := sdk.NewClient(&sdk.Implementation{Name: "docir-test", Version: "0"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, req.Params)
		},
	})
	cs, err := c.Connect(context.Background(), &sdk.IOTransport{Reader: r, Writer: w}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })

	params := &sdk.CallToolParams{Name: "status", Arguments: map[string]any{}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "(indexing, JSON-RPC -32010)") {
		t.Errorf("status while indexing: %+v", res.Content[0])
	}
	// The notifications were written before the result; give the
	// client's dispatcher a moment to hand them over.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n > 0 {
			break
		}
	}
	mu.Lock()
	n := len(got)
	for i, p := range got {
		if p.ProgressToken != "tok-1" || p.Total != 100 || !strings.HasPrefix(p.Message, "indexing the corpus: parse ") ||
			i > 0 && p.Progress <= got[i-1].Progress {
			t.Errorf("notification %d: %+v", i, p)
		}
	}
	mu.Unlock()
	if n == 0 {
		t.Errorf("no progress notification over an 800 ms wait (one every %v)", progressEvery)
	}
	// Without a token: no notifications.
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "status", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != n {
		t.Errorf("a call without a progress token got %d notifications", len(got)-n)
	}
}
