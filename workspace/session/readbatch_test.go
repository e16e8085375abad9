package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/workspace/binding"
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

// handler is a session that answers frames: an Engine (each frame a
// session of its own) or a Conn.
type handler interface {
	Handle(ctx context.Context, frame []byte) []byte
}

func runBatch(t testing.TB, e handler, frame []byte) batchReply {
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
// answers source_drift to every read until a granted refresh: a bind does
// not clear it. (drift_test.go: a drift is one session's, and a new
// generation ends it.)
func TestReadBatchSourceDrift(t *testing.T) {
	ws, dir := testStore(t, nil)
	src := filepath.Join(filepath.Dir(dir), "corpus", "runbooks", "disk-full.md")
	var e *Engine
	hold := holdOf(ws)
	e = New(Config{Reader: ws, Version: "test", Refresh: ws.Refresh, Bindings: ws.Bindings(),
		Policy: &Policy{Schema: PolicyV2, Grants: []string{GrantRefresh}, ReadBatchWorkers: 1},
		Hold: func(ctx context.Context, rev uint64) (Held, error) {
			h, err := hold(ctx, rev)
			if err != nil {
				return nil, err
			}
			return &touchingHeld{Held: h, path: src}, nil
		}})
	c := e.NewConn()
	r := runBatch(t, c, batchFrame(t, 1, 1,
		`{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_id":"runbooks/disk-full"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"workspace/status"}`))
	if r.Error == nil || r.Error.StableCode() != docir.CodeSourceDrift || r.Result != nil {
		t.Fatalf("batch over an edited source: %+v", r)
	}
	// A bind does not clear the drift: only a granted refresh does.
	if got := string(c.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":8,"method":"workspace/bind"}`))); !strings.Contains(got, `"result"`) {
		t.Fatalf("bind after drift: %s", got)
	}
	for _, f := range []string{
		`{"jsonrpc":"2.0","id":3,"method":"docir/search","params":{"query":"disk"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"workspace/status"}`,
		string(batchFrame(t, 5, 1, "")),
		`{"jsonrpc":"2.0","id":9,"method":"docir/get","params":{"doc_id":"runbooks/disk-full","image_revision":1}}`,
	} {
		if got := string(c.Handle(context.Background(), []byte(f))); !strings.Contains(got, `"code":"source_drift"`) {
			t.Errorf("after drift, %s: %s", f, got)
		}
	}
	if got := string(c.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":6,"method":"workspace/refresh"}`))); !strings.Contains(got, `"published":true`) {
		t.Fatalf("refresh: %s", got)
	}
	r = runBatch(t, c, batchFrame(t, 7, 2, `{"jsonrpc":"2.0","id":1,"method":"workspace/status"}`))
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

func (h *touchingHeld) Authenticate(ctx context.Context, log *docir.ReadLog) error {
	if !h.done && len(log.IDs()) > 0 {
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
	return h.Held.Authenticate(ctx, log)
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
		wire.MethodLinks:     `{"doc_id":"runbooks/disk-full"}`,
		wire.MethodCheck:     `{}`,
		wire.MethodChanges:   `{"since":1}`,
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

// countingBindings counts every use of the store's bindings.
type countingBindings struct {
	binding.Service
	n atomic.Int32
}

func (c *countingBindings) Workspace(ctx context.Context) (string, error) {
	c.n.Add(1)
	return c.Service.Workspace(ctx)
}

func (c *countingBindings) Generation(ctx context.Context, rev uint64) (binding.Generation, error) {
	c.n.Add(1)
	return c.Service.Generation(ctx, rev)
}

func (c *countingBindings) Current(ctx context.Context) (binding.Generation, error) {
	c.n.Add(1)
	return c.Service.Current(ctx)
}

func (c *countingBindings) HoldRefresh(ctx context.Context) (func(), error) {
	c.n.Add(1)
	return c.Service.HoldRefresh(ctx)
}

// TestReadBatchEncodingTricks drives every method off the allowlist through
// every encoding trick a frame can carry (leading and trailing Unicode
// spaces, a byte-order mark, escaped member names and values, a method
// member twice in either order, another letter case, a nested batch, a
// JSON array, a string holding the frame) inside a batch sent over the
// NDJSON transport, with a policy that grants refresh: none runs. The
// session's refresh, bindings, fields and holds count every use; the
// batch holds its generation once, and nothing else is touched.
func TestReadBatchEncodingTricks(t *testing.T) {
	ws, _ := testStore(t, nil)
	var refreshes, fields, holds atomic.Int32
	bindings := &countingBindings{Service: ws.Bindings()}
	hold := holdOf(ws)
	e := New(Config{Reader: ws, Version: "test", Bindings: bindings,
		Policy: &Policy{Schema: PolicyV2, Grants: []string{GrantRefresh}, ReadBatchWorkers: 2},
		Refresh: func(ctx context.Context) (docir.IndexSummary, error) {
			refreshes.Add(1)
			return ws.Refresh(ctx)
		},
		Fields: func(ctx context.Context) (docir.FieldsResult, error) {
			fields.Add(1)
			return docir.FieldsResult{}, nil
		},
		Hold: func(ctx context.Context, rev uint64) (Held, error) {
			holds.Add(1)
			return hold(ctx, rev)
		}})
	excluded := map[string]string{
		wire.MethodRefresh:   `{}`,
		wire.MethodBind:      `{}`,
		wire.MethodReplay:    `{"receipt":"x"}`,
		wire.MethodEvidence:  `{"binding":"x","method":"docir/search","params":{"query":"disk"}}`,
		wire.MethodFields:    `{}`,
		wire.MethodReadBatch: `{"image_revision":1,"batch":{"frames":["{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"workspace/refresh\"}"]}}`,
	}
	escape := func(m string) string { // every letter as \uXXXX, and / as \/
		var b strings.Builder
		for _, r := range m {
			if r == '/' {
				b.WriteString(`\/`)
				continue
			}
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		return b.String()
	}
	var frames []string
	for m, params := range excluded {
		plain := `{"jsonrpc":"2.0","id":1,"method":"` + m + `","params":` + params + `}`
		frames = append(frames,
			plain,
			"\u00a0"+plain, "\u2028"+plain, "\u2029"+plain, "\u0085"+plain, "\v"+plain, "\f"+plain, "\ufeff"+plain, "\u3000"+plain,
			plain+"\u00a0", plain+"\v",
			`{"jsonrpc":"2.0","id":1,"`+escape("method")+`":"`+m+`","params":`+params+`}`,
			`{"jsonrpc":"2.0","id":1,"method":"`+escape(m)+`","params":`+params+`}`,
			`{"jsonrpc":"2.0","id":1,"method":"docir/get","method":"`+m+`","params":`+params+`}`,
			`{"jsonrpc":"2.0","id":1,"method":"`+m+`","method":"docir/get","params":`+params+`}`,
			`{"jsonrpc":"2.0","id":1,"Method":"`+m+`","params":`+params+`}`,
			`{"jsonrpc":"2.0","id":1,"METHOD":"`+m+`","params":`+params+`}`,
			`[`+plain+`]`,
			string(mustJSON(t, plain)),
			`{"jsonrpc":"2.0","id":1,"method":"`+m+`"}`,              // no params
			`{"jsonrpc":"2.0","method":"`+m+`","params":`+params+`}`, // a notification
			string(batchFrame(t, 2, 1, plain)),
		)
	}
	var in strings.Builder
	for start := 0; start < len(frames); start += 16 {
		in.Write(batchFrame(t, start, 1, frames[start:min(start+16, len(frames))]...))
		in.WriteByte('\n')
	}
	var out strings.Builder
	if err := Serve(context.Background(), e, strings.NewReader(in.String()), &out); err != nil {
		t.Fatal(err)
	}
	replies := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if want := (len(frames) + 15) / 16; len(replies) != want {
		t.Fatalf("%d replies for %d batches", len(replies), want)
	}
	for _, line := range replies {
		var r batchReply
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Result == nil {
			t.Fatalf("batch reply %s: %v", line, err)
		}
		for i, row := range r.Result.Responses {
			if row != nil && strings.Contains(*row, `"result"`) {
				t.Errorf("row %d ran: %s", i, *row)
			}
		}
	}
	if n := refreshes.Load(); n != 0 {
		t.Errorf("%d refreshes ran inside batches", n)
	}
	if n := fields.Load(); n != 0 {
		t.Errorf("docir/fields ran %d times inside batches", n)
	}
	if n := bindings.n.Load(); n != 0 {
		t.Errorf("the bindings were used %d times inside batches", n)
	}
	if n, batches := holds.Load(), int32(len(replies)); n != batches {
		t.Errorf("%d holds for %d batches: a nested batch ran", n, batches)
	}
	st, err := ws.Status(context.Background())
	if err != nil || st.Generation != 1 {
		t.Errorf("generation %d (%v) after the batches; want 1", st.Generation, err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// authLog is a Held that keeps what each authentication was asked to check.
type authLog struct {
	Held
	checked *[][]string
}

func (h authLog) Authenticate(ctx context.Context, log *docir.ReadLog) error {
	*h.checked = append(*h.checked, log.IDs())
	return h.Held.Authenticate(ctx, log)
}

// TestReadBatchLogsEveryRead: what a batch's frames read, on the held
// generation or on one a frame pins itself (image_revision), is in the
// read log the second authentication checks; the first checks an empty one.
func TestReadBatchLogsEveryRead(t *testing.T) {
	ws, _ := testStore(t, nil)
	var checked [][]string
	hold := holdOf(ws)
	e := New(Config{Reader: ws, Version: "test",
		Policy: &Policy{Schema: PolicyV2, ReadBatchWorkers: 2},
		Hold: func(ctx context.Context, rev uint64) (Held, error) {
			h, err := hold(ctx, rev)
			if err != nil {
				return nil, err
			}
			return authLog{Held: h, checked: &checked}, nil
		}})
	r := runBatch(t, e, batchFrame(t, 1, 1,
		`{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_id":"runbooks/disk-full"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"docir/get","params":{"doc_id":"runbooks/retry-budget","image_revision":1}}`,
		`{"jsonrpc":"2.0","id":3,"method":"docir/get","params":{"doc_id":"no/such-document"}}`))
	if r.Error != nil || r.Result == nil {
		t.Fatalf("batch: %+v", r)
	}
	want := [][]string{nil, {"runbooks/disk-full", "runbooks/retry-budget"}}
	if diff := cmp.Diff(want, checked, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("read logs authenticated (-want +got):\n%s", diff)
	}
}
