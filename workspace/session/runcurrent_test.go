package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/store"
)

// TestRunCurrent: a read with a binding and require_current: true is
// run_current over the protocol. It reads while the binding's generation
// is current, and a refresh started during the read waits for it (the
// refresh lock is held from the check to the end of the read); once a
// refresh has published another generation it answers binding_rejected
// and reads nothing, while the same read without require_current still
// answers from the bound generation. require_current without a binding is
// invalid_params.
func TestRunCurrent(t *testing.T) {
	ws, dir := testStore(t, nil)
	hold := holdOf(ws)
	var waited chan struct{}     // closed once a refresh started inside a read waits for the lock
	var locked chan func() error // the refresh's lock, once it has it
	e := New(Config{Reader: ws, Version: "test", Bindings: ws.Bindings(), Refresh: ws.Refresh,
		Policy: &Policy{Schema: PolicyV1, Grants: []string{GrantRefresh}},
		Hold: func(ctx context.Context, rev uint64) (Held, error) {
			if waited != nil {
				locked = make(chan func() error, 1)
				go func() {
					u, err := store.Lock(dir, func(by store.Holder) {
						if by != store.HeldByReads {
							t.Errorf("the refresh waits on %v, not on the read", by)
						}
						close(waited)
					})
					if err != nil {
						t.Error(err)
					}
					locked <- u
				}()
				select {
				case <-waited:
				case <-time.After(30 * time.Second):
					t.Error("a refresh during a require_current read did not wait for it")
				}
			}
			return hold(ctx, rev)
		}})
	call := func(frame string) wire.Response {
		t.Helper()
		var r wire.Response
		if err := json.Unmarshal(e.Handle(context.Background(), []byte(frame)), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	var bound docir.BindingResult
	if r := call(`{"jsonrpc":"2.0","id":1,"method":"workspace/bind"}`); r.Error != nil || json.Unmarshal(r.Result, &bound) != nil {
		t.Fatalf("bind: %+v", r.Error)
	}
	receipt, _ := json.Marshal(bound.Receipt)
	read := func(requireCurrent bool) string {
		rc := ""
		if requireCurrent {
			rc = `,"require_current":true`
		}
		return `{"jsonrpc":"2.0","id":2,"method":"docir/get","params":{"doc_id":"runbooks/disk-full","binding":` + string(receipt) + rc + `}}`
	}

	waited = make(chan struct{})
	if r := call(read(true)); r.Error != nil || !strings.Contains(string(r.Result), `"id":"runbooks/disk-full"`) {
		t.Fatalf("run_current on the current generation: %+v %s", r.Error, r.Result)
	}
	select { // the read is over: the waiting refresh gets the lock
	case u := <-locked:
		if u != nil {
			u()
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the refresh never got the lock after the read")
	}
	waited = nil

	src := filepath.Join(filepath.Dir(dir), "corpus", "runbooks", "disk-full.md")
	if err := os.WriteFile(src, []byte("# Disk full\n\nRewritten.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := call(`{"jsonrpc":"2.0","id":3,"method":"workspace/refresh"}`); r.Error != nil {
		t.Fatalf("refresh: %+v", r.Error)
	}
	if r := call(read(true)); r.Error == nil || r.Error.StableCode() != docir.CodeBindingRejected {
		t.Errorf("run_current after a refresh: %+v %s; want binding_rejected", r.Error, r.Result)
	}
	if r := call(read(false)); r.Error != nil || strings.Contains(string(r.Result), "Rewritten") {
		t.Errorf("the bound read without require_current: %+v %s; want the bound generation's text", r.Error, r.Result)
	}
	if r := call(`{"jsonrpc":"2.0","id":4,"method":"docir/search","params":{"query":"disk","require_current":true}}`); r.Error == nil || r.Error.StableCode() != docir.CodeInvalidParams {
		t.Errorf("require_current without a binding: %+v; want invalid_params", r.Error)
	}
}
