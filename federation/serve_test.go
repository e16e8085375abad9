package federation

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
)

// buildDocir builds the docir binary into a temporary folder.
func buildDocir(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "docir")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/docir/docir/cmd/docir")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// stderrWatch collects a process's stderr and says when a line matching re
// has appeared.
type stderrWatch struct {
	re    *regexp.Regexp
	mu    sync.Mutex
	buf   bytes.Buffer
	match []string
	found chan struct{}
}

func (w *stderrWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.match == nil {
		if m := w.re.FindStringSubmatch(w.buf.String()); m != nil {
			w.match = m
			close(w.found)
		}
	}
	return len(p), nil
}

func (w *stderrWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// startServe runs `docir serve --http 127.0.0.1:0` over the store in dir
// with a bearer token, and returns its URL and a stop function that ends it
// with SIGTERM and waits for it.
func startServe(t *testing.T, bin, dir, token string) (url string, stop func()) {
	t.Helper()
	cmd := exec.Command(bin, "--store", dir, "serve", "--http", "127.0.0.1:0")
	cmd.Dir = t.TempDir() // no docir.yaml here: the store is all it serves
	cmd.Env = append(os.Environ(), "DOCIR_HTTP_TOKEN="+token)
	w := &stderrWatch{re: regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)/rpc`), found: make(chan struct{})}
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				_ = cmd.Process.Kill()
				<-done
				t.Errorf("docir serve did not end on SIGTERM; stderr:\n%s", w)
			}
		})
	}
	t.Cleanup(stop)
	select {
	case <-w.found:
	case <-time.After(30 * time.Second):
		stop()
		t.Fatalf("docir serve did not say where it listens; stderr:\n%s", w)
	}
	return w.match[1], stop
}

// TestServePeer federates with a real `docir serve --http` subprocess on
// 127.0.0.1, with a bearer token: deep reads per address, single reads,
// skeleton reads and status go over HTTP; once the server is gone its
// addresses are unavailable and local documents still come back.
// TestServePeerHostRefused: the right token, and a Host the loopback
// server does not take (a name other than a loopback one): the warning
// says what the server said, not to check the token (before: "check the
// token in $...", which 401 means).
func TestServePeerHostRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds docir and runs a server")
	}
	url, _ := startServe(t, buildDocir(t), makeStore(t, teamFiles), "tok-123")
	other, err := OpenPeers([]PeerConfig{{Name: "team", URL: strings.Replace(url, "127.0.0.1", "0.0.0.0", 1), TokenEnv: "TEAM_TOKEN", Token: "tok-123"}})
	if err != nil {
		t.Fatal(err)
	}
	byName := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: other})
	defer byName.Close()
	res, err := docir.Get(context.Background(), byName, mustParseAll(t, "b"), 0)
	if err != nil || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "refused: HTTP 403") ||
		!strings.Contains(res.Warnings[0], "loopback") || strings.Contains(res.Warnings[0], "token") {
		t.Errorf("a Host the server refuses: %+v %v; want the server's reason, no token hint", res.Warnings, err)
	}
}

func TestServePeer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds docir and runs a server")
	}
	ctx := context.Background()
	bin := buildDocir(t)
	url, stop := startServe(t, bin, makeStore(t, teamFiles), "tok-123")

	peers, err := OpenPeers([]PeerConfig{
		{Name: "team", URL: url, TokenEnv: "TEAM_TOKEN", Token: "tok-123"},
		{Name: "archive", Path: makeStore(t, archiveFiles)},
	})
	if err != nil {
		t.Fatal(err)
	}
	fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: peers})
	defer fed.Close()

	res, err := docir.Get(ctx, fed, mustParseAll(t, "a", "b", "c#sec", "a#intro", "b#nope", "zz"), 0)
	if err != nil {
		t.Fatal(err)
	}
	docs, missing := summarize(res)
	wantDocs := []docSummary{{"a", "local", "A in local"}, {"b", "team", "B in team"}, {"c#sec", "archive", "C in archive"}, {"a#intro", "local", "A in local"}}
	if diff := cmp.Diff(wantDocs, docs); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	wantMissing := []docir.Missing{{Address: "b#nope", Reason: "no_section"}, {Address: "zz", Reason: "no_document"}}
	if diff := cmp.Diff(wantMissing, missing); diff != "" || len(res.Warnings) != 0 {
		t.Errorf("missing (-want +got):\n%s\nwarnings %q", diff, res.Warnings)
	}
	if res.Documents[1].Body != teamFiles["b.md"] || res.Documents[1].Generation != 1 || res.Documents[1].Path != "b.md" {
		t.Errorf("b over HTTP: %+v", res.Documents[1])
	}

	doc, err := docir.GetOne(ctx, fed, address.MustParse("b#B in team"), 0)
	if err != nil || doc.Store != "team" || doc.Section == nil || doc.Section.Slug != "b-in-team" || doc.Address != "b#B in team" {
		t.Errorf("GetOne over HTTP: %+v %v", doc, err)
	}

	sr, err := fed.Search(ctx, docir.SearchParams{Query: "retry budget"})
	if err != nil {
		t.Fatal(err)
	}
	var hits []string
	for _, h := range sr.Hits {
		hits = append(hits, h.ID+"@"+h.Store)
	}
	if diff := cmp.Diff([]string{"a@local", "b@team", "c@archive"}, hits); diff != "" {
		t.Errorf("search hits (-want +got):\n%s", diff)
	}
	st, err := fed.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantPeers := []docir.PeerStatus{
		{Name: "team", Kind: "url", Location: url, Status: "ok", Generation: 1, Documents: 2},
		{Name: "archive", Kind: "path", Location: peers[1].Location, Status: "ok", Generation: 1, Documents: 4},
	}
	if diff := cmp.Diff(wantPeers, st.Peers); diff != "" {
		t.Errorf("peers (-want +got):\n%s", diff)
	}

	// The wrong token is refused by the real server.
	wrong, err := OpenPeers([]PeerConfig{{Name: "team", URL: url + "/rpc", TokenEnv: "TEAM_TOKEN", Token: "nope"}})
	if err != nil {
		t.Fatal(err)
	}
	bad := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: wrong})
	defer bad.Close()
	res, err = docir.Get(ctx, bad, mustParseAll(t, "b"), 0)
	if err != nil || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "peer team: refused: HTTP 401") {
		t.Errorf("wrong token: %+v %v", res, err)
	}

	// The server is gone: b falls through to archive, the rest of team's
	// share is unavailable, local documents still come back.
	stop()
	fed.Close() // drop idle keep-alive connections to the dead server
	res, err = docir.Get(ctx, fed, mustParseAll(t, "a", "b", "zz"), 0)
	if err != nil {
		t.Fatal(err)
	}
	docs, missing = summarize(res)
	if diff := cmp.Diff([]docSummary{{"a", "local", "A in local"}, {"b", "archive", "B in archive"}}, docs); diff != "" {
		t.Errorf("after stop (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]docir.Missing{{Address: "zz", Reason: "unavailable"}}, missing); diff != "" {
		t.Errorf("after stop (-want +got):\n%s", diff)
	}
	if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], "peer team: unreachable: ") {
		t.Errorf("warnings %q", res.Warnings)
	}
}
