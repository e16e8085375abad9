package session

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// innerReader's Status stands for an outer call that runs inner frames
// through reads on a held reader (as a read batch's workers do) while a
// refresh waits for the engine lock.
type innerReader struct {
	docir.Reader // answers everything but Status
	run          func(ctx context.Context) error
}

func (r *innerReader) Status(ctx context.Context) (docir.Status, error) {
	if err := r.run(ctx); err != nil {
		return docir.Status{}, err
	}
	return docir.Status{Store: "inner", Sources: []docir.SourceInfo{}}, nil
}

// TestInnerReadsUnderWaitingRefresh: an outer call holds the engine's read
// lock and a refresh waits for the write lock; inner frames run from the
// outer call on reads still run (re-taking the read lock would deadlock:
// Go's RWMutex makes new readers wait behind a waiting writer), give
// exactly the reply Handle gives for the same frame, and the refresh runs
// only once the outer call is done.
func TestInnerReadsUnderWaitingRefresh(t *testing.T) {
	ws, _ := testStore(t, nil)
	frame := []byte(`{"jsonrpc":"2.0","id":7,"method":"docir/get","params":{"doc_ids":["runbooks/disk-full#escalate","nope"]}}`)
	want := New(Config{Reader: ws}).Handle(context.Background(), frame)

	refreshed := make(chan struct{})
	refreshDone := make(chan struct{})
	var e *Engine
	var inner [][]byte
	reader := &innerReader{Reader: ws, run: func(ctx context.Context) error {
		go func() {
			defer close(refreshDone)
			e.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"workspace/refresh"}`))
		}()
		// Wait until the refresh is queued on the write lock: from then
		// on TryRLock fails.
		deadline := time.Now().Add(time.Minute)
		for e.mu.TryRLock() {
			e.mu.RUnlock()
			if time.Now().After(deadline) {
				return fmt.Errorf("the refresh never waited for the lock")
			}
			time.Sleep(time.Millisecond)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			for range 3 {
				req, _, werr := wire.DecodeRequest(frame)
				if werr != nil {
					panic(werr)
				}
				result, werr := e.readsOn(ws, nil).Call(ctx, req.Method, req.Params)
				inner = append(inner, wire.Reply(req, result, werr, e.maxReply))
			}
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			return fmt.Errorf("inner calls deadlocked behind the waiting refresh")
		}
		select {
		case <-refreshed:
			return fmt.Errorf("the refresh ran beside the outer call")
		default:
		}
		return nil
	}}
	e = New(Config{Reader: reader, Policy: &Policy{Schema: PolicyV1, Grants: []string{GrantRefresh}},
		Refresh: func(ctx context.Context) (docir.IndexSummary, error) {
			close(refreshed)
			return ws.Refresh(ctx)
		}})
	reply := e.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"workspace/status"}`))
	if !strings.Contains(string(reply), `"result"`) {
		t.Fatalf("outer call: %s", reply)
	}
	for i, got := range inner {
		if string(got) != string(want) {
			t.Errorf("inner call %d:\n got %q\nwant %q", i, got, want)
		}
	}
	select {
	case <-refreshed:
	case <-time.After(10 * time.Second):
		t.Fatal("the refresh never ran after the outer call")
	}
	<-refreshDone // the store is written until then
}

// A doc_id damaged on the way (invalid UTF-8, a lone surrogate) is a
// malformed address, as on the CLI, never a different address after
// encoding/json's U+FFFD substitution.
func TestDamagedAddressIsMalformed(t *testing.T) {
	e, _ := newTestEngine(t, nil, nil)
	for _, frame := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_id":"runbooks/disk-full\ud800"}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"docir/get\",\"params\":{\"doc_ids\":[\"a\xff\"]}}",
	} {
		reply := string(e.Handle(context.Background(), []byte(frame)))
		if !strings.Contains(reply, `"code":"malformed_address"`) {
			t.Errorf("%q: %s, want malformed_address", frame, reply)
		}
	}
	reply := string(e.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"docir/search","params":{"query":"\udc00"}}`)))
	if !strings.Contains(reply, `"code":"invalid_params"`) {
		t.Errorf("a search with a lone surrogate: %s, want invalid_params", reply)
	}
}
