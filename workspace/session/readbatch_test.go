package session

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

func batchFrame(t testing.TB, id any, rev uint64, frames ...string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": wire.MethodReadBatch,
		"params": map[string]any{"image_revision": rev, "batch": map[string]any{"frames": frames}}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type batchReply struct {
	Result *struct {
		Schema          string    `json:"schema"`
		Responses       []*string `json:"responses"`
		SourceAuthority bool      `json:"source_authority"`
	} `json:"result"`
	Error *wire.Error `json:"error"`
}

func runBatch(t testing.TB, e *Engine, frame []byte) batchReply {
	t.Helper()
	var r batchReply
	if err := json.Unmarshal(e.Handle(context.Background(), frame), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// Parity: for every allowlisted method a row is byte for byte what the
// same frame gets sent alone (its line ending included), and least
// authority: refresh (granted here), a nested batch and any other method
// get -32601 rows and do not run.
func TestReadBatchParityAndLeastAuthority(t *testing.T) {
	refreshed := false
	ws, _ := testStore(t, nil)
	e := New(Config{Reader: ws, Hold: holdOf(ws), Version: "test",
		Policy: &Policy{Schema: PolicyV2, Grants: []string{GrantRefresh}, ReadBatchWorkers: 4},
		Refresh: func(ctx context.Context) (docir.IndexSummary, error) {
			refreshed = true
			return ws.Refresh(ctx)
		}})
	allowed := []string{
		`{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_id":"runbooks/disk-full#Escalate"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"docir/get","params":{"doc_ids":["adr/0003-retry-budget","nope","adr/0003-retry-budget#nope"]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"docir/search","params":{"query":"retry budget"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"docir/query","params":{"expr":"kind:adr","sort":"-title"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"docir/context","params":{"query":"disk full","budget":200}}`,
		`{"jsonrpc":"2.0","id":6,"method":"workspace/status"}`,
		`{"jsonrpc":"2.0","id":7,"method":"workspace/discover"}`,
		`{"jsonrpc":"2.0","id":8,"method":"docir/get","params":{"doc_id":"nope"}}`,
		`{"jsonrpc":"2.0","id":9,"method":"docir/get","params":{"doc_id":"a b"}}`,
	}
	refused := []string{
		`{"jsonrpc":"2.0","id":"r","method":"workspace/refresh"}`,
		string(batchFrame(t, "n", 1, `{"jsonrpc":"2.0","id":1,"method":"workspace/status"}`)),
		`{"jsonrpc":"2.0","id":"b","method":"workspace/bind","params":{}}`,
		`{"jsonrpc":"2.0","id":"p","method":"workspace/replay","params":{}}`,
		`{"jsonrpc":"2.0","id":"x","method":"no/such"}`,
	}
	r := runBatch(t, e, batchFrame(t, 1, 1, append(allowed, refused...)...))
	if r.Error != nil || r.Result == nil {
		t.Fatalf("batch: %+v", r.Error)
	}
	if r.Result.Schema != "docir.read-batch.v1" || r.Result.SourceAuthority || len(r.Result.Responses) != len(allowed)+len(refused) {
		t.Fatalf("result: %+v", r.Result)
	}
	for i, f := range allowed {
		want := string(e.Handle(context.Background(), []byte(f))) + "\n"
		if got := r.Result.Responses[i]; got == nil || *got != want {
			t.Errorf("row %d:\n got %v\nwant %q", i, got, want)
		}
	}
	for i, f := range refused {
		got := r.Result.Responses[len(allowed)+i]
		if got == nil || !strings.Contains(*got, `"code":-32601`) {
			t.Errorf("refused frame %s: row %v", f, got)
		}
	}
	if refreshed {
		t.Error("a refresh inside a batch ran")
	}
}

// Drift: a source file a row read changes while the batch runs; the
// second authentication discards every row (source_drift), and the session
// answers source_drift to every read until a granted refresh.
func TestReadBatchSourceDrift(t *testing.T) {
	ws, dir := testStore(t, nil)
	src := filepath.Join(filepath.Dir(dir), "corpus", "runbooks", "disk-full.md")
	var e *Engine
	hold := holdOf(ws)
	e = New(Config{Reader: ws, Version: "test", Refresh: ws.Refresh,
		Policy: &Policy{Schema: PolicyV2, Grants: []string{GrantRefresh}, ReadBatchWorkers: 1},
		Hold: func(ctx context.Context, rev uint64) (Held, error) {
			h, err := hold(ctx, rev)
			if err != nil {
				return nil, err
			}
			return &touchingHeld{Held: h, path: src}, nil
		}})
	r := runBatch(t, e, batchFrame(t, 1, 1,
		`{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_id":"runbooks/disk-full"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"workspace/status"}`))
	if r.Error == nil || r.Error.StableCode() != docir.CodeSourceDrift || r.Result != nil {
		t.Fatalf("batch over an edited source: %+v", r)
	}
	for _, f := range []string{
		`{"jsonrpc":"2.0","id":3,"method":"docir/search","params":{"query":"disk"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"workspace/status"}`,
		string(batchFrame(t, 5, 1, "")),
	} {
		if got := string(e.Handle(context.Background(), []byte(f))); !strings.Contains(got, `"code":"source_drift"`) {
			t.Errorf("after drift, %s: %s", f, got)
		}
	}
	if got := string(e.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":6,"method":"workspace/refresh"}`))); !strings.Contains(got, `"published":true`) {
		t.Fatalf("refresh: %s", got)
	}
	r = runBatch(t, e, batchFrame(t, 7, 2, `{"jsonrpc":"2.0","id":1,"method":"workspace/status"}`))
	if r.Result == nil || r.Result.Responses[0] == nil || !strings.Contains(*r.Result.Responses[0], `"generation":2`) {
		t.Fatalf("after the refresh: %+v %+v", r.Result, r.Error)
	}
}

// touchingHeld edits a source file once the batch has read something, just
// before the second authentication, as an editor saving mid-batch would.
type touchingHeld struct {
	Held
	path string
	done bool
}

func (h *touchingHeld) Authenticate(ctx context.Context) error {
	if !h.done && len(docir.ReadLogOf(ctx).IDs()) > 0 {
		h.done = true
		f, err := os.OpenFile(h.path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = f.WriteString("\nSaved while the batch ran.\n")
		if err := errors.Join(err, f.Close()); err != nil {
			return err
		}
	}
	return h.Held.Authenticate(ctx)
}

// Nothing claims what does not exist: every method discover advertises,
// under every kind of policy, runs when called with well-formed params
// (no -32601, no not_implemented).
func TestDiscoverAdvertisesOnlyWhatRuns(t *testing.T) {
	wellFormed := map[string]string{
		wire.MethodGet:       `{"doc_ids":["runbooks/disk-full"]}`,
		wire.MethodSearch:    `{"query":"disk"}`,
		wire.MethodQuery:     `{"expr":"kind:adr"}`,
		wire.MethodContext:   `{"query":"disk"}`,
		wire.MethodStatus:    `{}`,
		wire.MethodDiscover:  `{}`,
		wire.MethodRefresh:   `{}`,
		wire.MethodReadBatch: `{"image_revision":1,"batch":{"frames":["{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"workspace/status\"}"]}}`,
		wire.MethodBind:      `{}`,
	}
	for _, p := range []*Policy{nil,
		{Schema: PolicyV1, Grants: []string{GrantRefresh}},
		{Schema: PolicyV2, Grants: []string{GrantRefresh}, ReadBatchWorkers: 2},
	} {
		e, _ := newTestEngine(t, p, nil)
		var bound struct {
			Result docir.BindingResult `json:"result"`
		}
		if err := json.Unmarshal(e.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"workspace/bind"}`)), &bound); err != nil {
			t.Fatal(err)
		}
		receipt, _ := json.Marshal(bound.Result.Receipt)
		wellFormed[wire.MethodReplay] = `{"receipt":` + string(receipt) + `}`
		wellFormed[wire.MethodEvidence] = `{"binding":` + string(receipt) + `,"method":"docir/search","params":{"query":"disk"}}`
		for _, m := range e.Discover().Methods {
			params, ok := wellFormed[m]
			if !ok {
				t.Errorf("discover advertises %s, which this test has no call for", m)
				continue
			}
			frame := `{"jsonrpc":"2.0","id":1,"method":"` + m + `","params":` + params + `}`
			reply := string(e.Handle(context.Background(), []byte(frame)))
			if strings.Contains(reply, `"code":-32601`) || strings.Contains(reply, "not_implemented") || !strings.Contains(reply, `"result"`) {
				t.Errorf("advertised %s does not run: %s", m, reply)
			}
		}
	}
}
