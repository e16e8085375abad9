package session

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docir/docir/store"
	"github.com/docir/docir/workspace"
)

// driftEngine is an engine that serves read batches (no grants) over a
// fresh fixture store whose runbooks/disk-full.md is edited after the
// index, so that a batch reading it drifts. publish indexes the edit from
// another service on the same store, as `docir index` in another process
// (or --watch) does: generation 2.
func driftEngine(t *testing.T) (e *Engine, publish func()) {
	t.Helper()
	ws, dir := testStore(t, nil)
	src := filepath.Join(filepath.Dir(dir), "corpus")
	f, err := os.OpenFile(filepath.Join(src, "runbooks", "disk-full.md"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\nEdited after the index.\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	e = New(Config{Reader: ws, Version: "test", Hold: holdOf(ws), Bindings: ws.Bindings(),
		Policy: &Policy{Schema: PolicyV2, Grants: []string{}, ReadBatchWorkers: 1}})
	return e, func() {
		other := workspace.New(workspace.Config{Dir: dir, Sources: []store.Source{{Path: src}}})
		defer other.Close()
		if sum, err := other.Refresh(context.Background()); err != nil || sum.Generation != 2 {
			t.Fatalf("publishing generation 2: %+v, %v", sum, err)
		}
	}
}

// Frames of the drift tests: a batch that reads the edited file, and two
// reads.
const (
	driftStatus = `{"jsonrpc":"2.0","id":2,"method":"workspace/status"}`
	driftSearch = `{"jsonrpc":"2.0","id":3,"method":"docir/search","params":{"query":"disk","limit":1}}`
)

func driftBatch(t *testing.T) string {
	return string(batchFrame(t, 1, 1, `{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_id":"runbooks/disk-full"}}`))
}

// codeOf is a reply's data.code, "" for a result.
func codeOf(t *testing.T, reply string) string {
	t.Helper()
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Data struct {
				Code string `json:"code"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(reply), &r); err != nil || (r.Error == nil) == (r.Result == nil) {
		t.Fatalf("reply %q: %v", reply, err)
	}
	if r.Error == nil {
		return ""
	}
	return r.Error.Data.Code
}

// serveLines runs one NDJSON session of frames on e and returns its
// replies' codes.
func serveLines(t *testing.T, e *Engine, frames ...string) []string {
	t.Helper()
	var out bytes.Buffer
	if err := Serve(context.Background(), e, strings.NewReader(strings.Join(frames, "\n")+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	var codes []string
	for line := range strings.Lines(out.String()) {
		codes = append(codes, codeOf(t, line))
	}
	return codes
}

// TestDriftIsOneSessions (review finding 1): a read batch that finds its
// source edited leaves its own session refusing reads, and no other one on
// the same engine: a new NDJSON session reads, and a POST /rpc request, a
// session of its own, gets the drift as its batch's reply and leaves
// nothing for the next request.
func TestDriftIsOneSessions(t *testing.T) {
	checkLeaks(t)
	e, _ := driftEngine(t)
	batch := driftBatch(t)
	if got, want := serveLines(t, e, batch, driftStatus, driftSearch), []string{"source_drift", "source_drift", "source_drift"}; !slices.Equal(got, want) {
		t.Errorf("session A: %q, want %q", got, want)
	}
	if got, want := serveLines(t, e, driftStatus, driftSearch), []string{"", ""}; !slices.Equal(got, want) {
		t.Errorf("session B, after A drifted: %q, want %q", got, want)
	}
	url := startHTTP(t, e, HTTPOptions{Loopback: true})
	for i, f := range []string{batch, driftStatus, batch, driftSearch} {
		want := ""
		if i%2 == 0 {
			want = "source_drift"
		}
		if _, body := do(t, rpcRequest(t, url, f)); codeOf(t, body) != want {
			t.Errorf("POST /rpc %d: %s, want code %q", i, body, want)
		}
	}
}

// TestDriftEndsWithANewGeneration: a drifted session reads again once the
// generation its batch held is no longer current (another process
// published the edit): its reads answer from the new generation.
func TestDriftEndsWithANewGeneration(t *testing.T) {
	checkLeaks(t)
	e, publish := driftEngine(t)
	c := e.NewConn()
	for _, f := range []string{driftBatch(t), driftStatus} {
		if got := string(c.Handle(context.Background(), []byte(f))); codeOf(t, got) != "source_drift" {
			t.Fatalf("before the new generation: %s", got)
		}
	}
	publish()
	got := string(c.Handle(context.Background(), []byte(driftStatus)))
	if codeOf(t, got) != "" || !strings.Contains(got, `"generation":2`) {
		t.Errorf("status once generation 2 is current: %s", got)
	}
	if got := string(c.Handle(context.Background(), batchFrame(t, 4, 2, driftSearch))); codeOf(t, got) != "" {
		t.Errorf("a batch on generation 2: %s", got)
	}
}
