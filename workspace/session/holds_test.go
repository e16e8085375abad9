package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/ingest"
	"github.com/docir/docir/workspace"
)

// TestBindHoldsOverNDJSON: over the NDJSON transport, with retain 1 and a
// granted refresh, workspace/bind holds its generation: three refreshes
// later reads under the receipt still answer from it, workspace/replay
// shows the hold, and a release (workspace/bind {release}) ends it, after
// which the next refresh prunes the generation and the receipt answers
// stale_revision. ttl is checked as the CLI checks --ttl, and release goes
// alone.
func TestBindHoldsOverNDJSON(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "corpus")
	if err := corpustest.CopyTree(corpusDir, src); err != nil {
		t.Fatal(err)
	}
	ws := workspace.New(workspace.Config{Dir: filepath.Join(root, "store"), Sources: []store.Source{{Path: src}}, Ingest: ingest.Options{Retain: 1}})
	t.Cleanup(func() { ws.Close() })
	if _, err := ws.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	e := New(Config{Reader: ws, Refresh: ws.Refresh, Version: "test", Hold: holdOf(ws), Bindings: ws.Bindings(),
		Policy: &Policy{Schema: PolicyV1, Grants: []string{GrantRefresh}}})
	// session runs frames through one NDJSON session and returns the
	// reply lines.
	session := func(frames ...string) []string {
		t.Helper()
		var out bytes.Buffer
		if err := Serve(context.Background(), e, strings.NewReader(strings.Join(frames, "\n")+"\n"), &out); err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	}
	edit := func(text string) {
		t.Helper()
		f, err := os.OpenFile(filepath.Join(src, "runbooks", "disk-full.md"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "\n%s\n", text)
		f.Close()
	}

	var bound docir.BindingResult
	replies := session(`{"jsonrpc":"2.0","id":1,"method":"workspace/bind","params":{"ttl":"2h"}}`)
	if err := json.Unmarshal(result(t, replies[0]), &bound); err != nil || bound.Hold == nil || bound.Hold.Binds != 1 ||
		bound.Hold.Expires.Sub(bound.Hold.Created).Hours() != 2 {
		t.Fatalf("bind: %s (%v)", replies[0], err)
	}
	receipt, _ := json.Marshal(bound.Receipt)
	for i := range 3 {
		edit(fmt.Sprint("edit ", i))
		session(`{"jsonrpc":"2.0","id":2,"method":"workspace/refresh"}`)
	}
	replies = session(
		`{"jsonrpc":"2.0","id":3,"method":"docir/get","params":{"doc_id":"runbooks/disk-full#escalate","binding":`+string(receipt)+`}}`,
		`{"jsonrpc":"2.0","id":4,"method":"workspace/replay","params":{"receipt":`+string(receipt)+`}}`,
		`{"jsonrpc":"2.0","id":5,"method":"workspace/bind","params":{"ttl":"0"}}`,
		`{"jsonrpc":"2.0","id":6,"method":"workspace/bind","params":{"ttl":"31d"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"workspace/bind","params":{"ttl":"soon"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"workspace/bind","params":{"release":`+string(receipt)+`,"ttl":"1h"}}`,
		`{"jsonrpc":"2.0","id":9,"method":"workspace/bind","params":{"release":`+string(receipt)+`}}`,
		`{"jsonrpc":"2.0","id":10,"method":"workspace/bind","params":{"release":`+string(receipt)+`}}`,
	)
	var doc docir.Document
	if err := json.Unmarshal(result(t, replies[0]), &doc); err != nil || doc.Generation != 1 {
		t.Fatalf("a read under the held receipt after 3 refreshes (retain 1): %s", replies[0])
	}
	var replayed docir.BindingResult
	if err := json.Unmarshal(result(t, replies[1]), &replayed); err != nil || replayed.Hold == nil || replayed.Current || *replayed.Hold != *bound.Hold {
		t.Fatalf("replay: %s", replies[1])
	}
	var unheld docir.BindingResult
	if err := json.Unmarshal(result(t, replies[2]), &unheld); err != nil || unheld.Hold != nil || unheld.Revision != 4 {
		t.Fatalf("bind with ttl 0: %s", replies[2])
	}
	for i, want := range []string{"want 0 (no hold), or 1s to 720h0m0s", "want a duration such as 90m, 24h or 7d", "release goes alone"} {
		if !strings.Contains(replies[3+i], `"code":"invalid_params"`) || !strings.Contains(replies[3+i], want) {
			t.Errorf("reply %d: %s; want invalid_params saying %q", 6+i, replies[3+i], want)
		}
	}
	var released docir.BindingResult
	if err := json.Unmarshal(result(t, replies[6]), &released); err != nil || released.Hold != nil || released.Revision != 1 || released.Receipt != bound.Receipt {
		t.Fatalf("release: %s", replies[6])
	}
	if !strings.Contains(replies[7], `"hold":null`) {
		t.Fatalf("a release of nothing: %s", replies[7])
	}
	edit("one more")
	replies = session(
		`{"jsonrpc":"2.0","id":11,"method":"workspace/refresh"}`,
		`{"jsonrpc":"2.0","id":12,"method":"docir/get","params":{"doc_id":"runbooks/disk-full#escalate","binding":`+string(receipt)+`}}`,
	)
	if !strings.Contains(replies[1], `"code":"stale_revision"`) || !strings.Contains(replies[1], "generation 1 is not retained") {
		t.Fatalf("a read under the released receipt once pruned: %s", replies[1])
	}
}

// result returns the result of a reply line, failing on an error reply.
func result(t *testing.T, line string) json.RawMessage {
	t.Helper()
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil || r.Error != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return r.Result
}
