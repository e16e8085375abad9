package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docir/docir/docir/corpustest"
)

// TestHostSession drives a real `docir serve` over NDJSON as a host does,
// one line at a time, and checks each step against what docs/protocol.md
// says (issue 23, Done when):
//
//  1. a 16-frame read batch answers every row, each byte for byte the
//     reply the frame gets alone;
//  2. a source file a batch reads is edited (no refresh): the batch is
//     source_drift with no rows, and every read after it answers
//     source_drift, reads under a binding included;
//  3. a bind is served (it is not a read) but does not end the drift;
//  4. a granted refresh publishes generation 2 and ends it: reads answer
//     from the new generation, a batch pinned to generation 1 is
//     batch_malformed and one pinned to 2 runs, and the receipt bound
//     during the drift still reads generation 1 (its hold keeps it).
func TestHostSession(t *testing.T) {
	if testing.Short() {
		t.Skip("runs docir serve")
	}
	h := startHostSession(t)
	docs, call, code, result, alone := h.docs, h.call, replyCode(t), replyResult(t), h.alone
	reads, frames := hostReads(), sixteenFrames(hostReads())
	batch := h.batch

	// 1. A 16-frame batch: every row, byte for byte the frame's reply alone.
	var res struct {
		Schema          string    `json:"schema"`
		Responses       []*string `json:"responses"`
		SourceAuthority bool      `json:"source_authority"`
	}
	result(batch(1, frames), &res)
	if res.Schema != "docir.read-batch.v1" || len(res.Responses) != 16 || res.SourceAuthority {
		t.Fatalf("batch: %+v", res)
	}
	for i, f := range frames {
		if res.Responses[i] == nil {
			t.Errorf("row %d: null", i)
			continue
		}
		if want := alone(f) + "\n"; *res.Responses[i] != want {
			t.Errorf("row %d:\n%s\nalone:\n%s", i, *res.Responses[i], want)
		}
	}

	// 2. An edit: the batch that reads the file drifts; every read after
	// it answers source_drift.
	src := filepath.Join(docs, "runbooks", "disk-full.md")
	body, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(strings.ReplaceAll(string(body), "storage on-call", "platform on-call")), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := batch(1, frames); code(got) != "source_drift" || !strings.Contains(got, "runbooks/disk-full") || strings.Contains(got, `"responses"`) {
		t.Fatalf("a batch over an edited source: %.400s", got)
	}
	for _, r := range reads[:6] {
		if got := call(r.method, r.params); code(got) != "source_drift" {
			t.Errorf("%s after the drift: %.300s", r.method, got)
		}
	}

	// 3. A bind is served, and holds its generation, but ends nothing.
	var bound struct {
		Receipt  string `json:"receipt"`
		Revision int    `json:"revision"`
		Hold     *struct {
			Binds int `json:"binds"`
		} `json:"hold"`
	}
	result(call("workspace/bind", ""), &bound)
	if bound.Revision != 1 || bound.Hold == nil || bound.Hold.Binds != 1 {
		t.Fatalf("bind during the drift: %+v", bound)
	}
	receipt, _ := json.Marshal(bound.Receipt)
	pinned := `{"doc_id":"runbooks/disk-full#escalate","binding":` + string(receipt) + `}`
	for _, got := range []string{call("docir/get", `{"doc_id":"runbooks/disk-full#escalate"}`), call("docir/get", pinned), batch(1, frames[:1])} {
		if code(got) != "source_drift" {
			t.Errorf("after a bind, still drifted: %.300s", got)
		}
	}

	// 4. A granted refresh ends the drift: generation 2 is current.
	var sum struct {
		Generation int  `json:"generation"`
		Published  bool `json:"published"`
		Changed    int  `json:"changed"`
	}
	result(call("workspace/refresh", ""), &sum)
	if sum.Generation != 2 || !sum.Published || sum.Changed != 1 {
		t.Fatalf("refresh: %+v", sum)
	}
	var doc struct {
		Generation int    `json:"generation"`
		Body       string `json:"body"`
	}
	result(call("docir/get", `{"doc_id":"runbooks/disk-full#escalate"}`), &doc)
	if doc.Generation != 2 || !strings.Contains(doc.Body, "platform on-call") {
		t.Errorf("after the refresh: %+v", doc)
	}
	if got := batch(1, frames); code(got) != "batch_malformed" || !strings.Contains(got, "image_revision 1 is not the held generation 2") {
		t.Errorf("a batch pinned to generation 1 after the refresh: %.300s", got)
	}
	result(batch(2, frames), &res)
	if len(res.Responses) != 16 || res.Responses[0] == nil || !strings.Contains(*res.Responses[0], "platform on-call") {
		t.Errorf("a batch on generation 2: %+v", res)
	}
	// The receipt bound during the drift still reads generation 1: its
	// hold kept it past retain 1.
	result(call("docir/get", pinned), &doc)
	if doc.Generation != 1 || !strings.Contains(doc.Body, "storage on-call") {
		t.Errorf("the receipt after the refresh: %+v", doc)
	}
}

// hostSession is a real `docir serve` over NDJSON on a copy of the
// fixture corpus (retain 1), with a policy that grants refresh and four
// read-batch workers, talked to one line at a time.
type hostSession struct {
	t       *testing.T
	docs    string // the corpus, where serve runs
	stdin   io.WriteCloser
	replies *bufio.Reader
	stderr  *strings.Builder
	id      int
}

func startHostSession(t *testing.T) *hostSession {
	t.Helper()
	work := t.TempDir()
	docs := filepath.Join(work, "docs")
	if err := corpustest.CopyTree("../../testdata/corpus", docs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "docir.yaml"), []byte("sources:\n  - path: .\nretain: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runDocir(t, docs, nil, "index"); r.code != 0 {
		t.Fatalf("index: %+v", r)
	}
	policy := filepath.Join(work, "host.json")
	if err := os.WriteFile(policy, []byte(`{"schema": "docir.host-policy.v2", "grants": ["refresh"], "read_batch_workers": 4}`), 0o644); err != nil {
		t.Fatal(err)
	}
	bin, err := exec.LookPath("docir")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--policy", policy)
	cmd.Dir = docs
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	h := &hostSession{t: t, docs: docs, stdin: stdin, replies: bufio.NewReaderSize(stdout, 2<<20), stderr: &strings.Builder{}}
	cmd.Stderr = h.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("docir serve: %v\n%s", err, h.stderr.String())
		}
	})
	return h
}

// call sends one request and returns its reply line.
func (h *hostSession) call(method, params string) string {
	h.t.Helper()
	h.id++
	frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q`, h.id, method)
	if params != "" {
		frame += `,"params":` + params
	}
	frame += "}\n"
	if _, err := io.WriteString(h.stdin, frame); err != nil {
		h.t.Fatal(err)
	}
	line, err := readLine(h.replies, 30*time.Second)
	if err != nil {
		h.t.Fatalf("%s: no reply: %v\n%s", method, err, h.stderr.String())
	}
	return line
}

// hostRead is one read of the allowlist with its params.
type hostRead struct{ method, params string }

// hostReads are every read of the allowlist, on several documents.
func hostReads() []hostRead {
	return []hostRead{
		{"docir/get", `{"doc_id":"runbooks/disk-full#escalate"}`},
		{"docir/get", `{"doc_ids":["runbooks/disk-full","adr/0001-record-architecture-decisions","nope"]}`},
		{"docir/search", `{"query":"retry budget","limit":3}`},
		{"docir/query", `{"expr":"kind:adr"}`},
		{"docir/context", `{"query":"disk full","budget":300}`},
		{"workspace/status", ``},
		{"workspace/discover", ``},
		{"docir/get", `{"doc_id":"nope"}`},
	}
}

// sixteenFrames are sixteen request frames cycling through reads, with
// ids "f0" to "f15".
func sixteenFrames(reads []hostRead) []string {
	var frames []string
	for i := range 16 {
		r := reads[i%len(reads)]
		f := fmt.Sprintf(`{"jsonrpc":"2.0","id":"f%d","method":%q`, i, r.method)
		if r.params != "" {
			f += `,"params":` + r.params
		}
		frames = append(frames, f+"}")
	}
	return frames
}

// batch sends a read batch of frames pinned to rev and returns its reply.
func (h *hostSession) batch(rev int, frames []string) string {
	h.t.Helper()
	list, _ := json.Marshal(frames)
	return h.call("workspace/read-batch", fmt.Sprintf(`{"image_revision":%d,"batch":{"frames":%s}}`, rev, list))
}

// alone sends a frame as it is and returns its reply line.
func (h *hostSession) alone(frame string) string {
	h.t.Helper()
	if _, err := io.WriteString(h.stdin, frame+"\n"); err != nil {
		h.t.Fatal(err)
	}
	line, err := readLine(h.replies, 30*time.Second)
	if err != nil {
		h.t.Fatal(err)
	}
	return line
}

// replyCode is the data.code of a reply line's error, "" for a result.
func replyCode(t *testing.T) func(reply string) string {
	return func(reply string) string {
		t.Helper()
		var r struct {
			Error *struct {
				Data struct{ Code string } `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(reply), &r); err != nil {
			t.Fatalf("reply %.200s: %v", reply, err)
		}
		if r.Error == nil {
			return ""
		}
		return r.Error.Data.Code
	}
}

// replyResult decodes a reply line's result into v; a reply without one
// fails the test.
func replyResult(t *testing.T) func(reply string, v any) {
	return func(reply string, v any) {
		t.Helper()
		var r struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(reply), &r); err != nil || r.Result == nil {
			t.Fatalf("want a result: %.300s (%v)", reply, err)
		}
		if err := json.Unmarshal(r.Result, v); err != nil {
			t.Fatal(err)
		}
	}
}

// readLine reads one reply line, failing after d.
func readLine(r *bufio.Reader, d time.Duration) (string, error) {
	type read struct {
		line string
		err  error
	}
	got := make(chan read, 1)
	go func() {
		line, err := r.ReadString('\n')
		got <- read{strings.TrimSuffix(line, "\n"), err}
	}()
	select {
	case g := <-got:
		return g.line, g.err
	case <-time.After(d):
		return "", fmt.Errorf("nothing after %s", d)
	}
}
