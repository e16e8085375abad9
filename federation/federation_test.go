package federation

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
)

// Three stores with overlapping ids: a in all three, b in both peers, d
// in local (without a section) and in archive (with it).
var (
	localFiles = map[string]string{
		"a.md": "# A in local\n\nlocal a, about retry budgets\n\n## Intro\n\nlocal intro\n",
		"d.md": "# D in local\n\nno sections in local d\n",
	}
	teamFiles = map[string]string{
		"a.md": "# A in team\n\nteam a\n\n## Intro\n\nteam intro\n",
		"b.md": "# B in team\n\nteam b, a retry budget runbook\n",
	}
	archiveFiles = map[string]string{
		"a.md": "# A in archive\n\narchive a\n",
		"b.md": "# B in archive\n\narchive b\n",
		"c.md": "# C in archive\n\n## Sec\n\narchive c sec, retry budget\n",
		"d.md": "# D in archive\n\n## Sec\n\narchive d sec\n",
	}
)

type fixture struct {
	local, team, archive *counting
	fed                  *Reader
	teamDir, archiveDir  string
}

// newFixture builds three real stores: local, then peers team and
// archive, each wrapped to count what it is asked.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{teamDir: makeStore(t, teamFiles), archiveDir: makeStore(t, archiveFiles)}
	f.local = &counting{Reader: openLocal(t, makeStore(t, localFiles))}
	team, archive := pathPeerOf(t, "team", f.teamDir), pathPeerOf(t, "archive", f.archiveDir)
	f.team, f.archive = &counting{Reader: team.r}, &counting{Reader: archive.r}
	team.r, archive.r = f.team, f.archive
	f.fed = New(Config{Local: f.local, Peers: []*Peer{team, archive}})
	t.Cleanup(func() { f.fed.Close() })
	return f
}

func TestPriorityPerAddress(t *testing.T) {
	f := newFixture(t)
	addrs := mustParseAll(t, "a", "b", "c#sec", "nope", "a#nosuch", "d#sec", "a", "b#Intro")
	res, err := docir.Get(context.Background(), f.fed, addrs, 0)
	if err != nil {
		t.Fatal(err)
	}
	docs, missing := summarize(res)
	wantDocs := []docSummary{
		{"a", "local", "A in local"},
		{"b", "team", "B in team"},
		{"c#sec", "archive", "C in archive"},
		{"d#sec", "archive", "D in archive"}, // local has d, but not its section
		{"a", "local", "A in local"},
	}
	wantMissing := []docir.Missing{
		{Address: "nope", Reason: docir.ReasonNoDocument},
		{Address: "a#nosuch", Reason: docir.ReasonNoSection},
		{Address: "b#Intro", Reason: docir.ReasonNoSection},
	}
	if diff := cmp.Diff(wantDocs, docs); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantMissing, missing); diff != "" {
		t.Errorf("missing (-want +got):\n%s", diff)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings %q, want none", res.Warnings)
	}
	if res.Documents[2].Body != "## Sec\n\narchive c sec, retry budget\n" || res.Documents[2].Section.Slug != "sec" {
		t.Errorf("c#sec from archive: %+v", res.Documents[2])
	}

	// Each store asked once, in one batch, for the distinct addresses
	// nothing nearer answered, in request order.
	want := map[string][][]string{
		"local":   {{"a", "b", "c#sec", "nope", "a#nosuch", "d#sec", "b#Intro"}},
		"team":    {{"b", "c#sec", "nope", "a#nosuch", "d#sec", "b#Intro"}},
		"archive": {{"c#sec", "nope", "a#nosuch", "d#sec", "b#Intro"}},
	}
	got := map[string][][]string{"local": f.local.calls(), "team": f.team.calls(), "archive": f.archive.calls()}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestPeerAskedOnlyForRemainder(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name          string
		addrs         []string
		team, archive [][]string
	}{
		{"all local", []string{"a", "a#intro", "d"}, nil, nil},
		{"team finishes it", []string{"a", "b"}, [][]string{{"b"}}, nil},
		{"archive only for the rest", []string{"b", "c", "a"}, [][]string{{"b", "c"}}, [][]string{{"c"}}},
		{"empty request", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if _, err := docir.Get(ctx, f.fed, mustParseAll(t, tt.addrs...), 0); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.team, f.team.calls()); diff != "" {
				t.Errorf("team calls (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.archive, f.archive.calls()); diff != "" {
				t.Errorf("archive calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGetOneSameOrder(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	for addr, store := range map[string]string{"a": "local", "b": "team", "c#Sec": "archive", "d#sec": "archive"} {
		doc, err := docir.GetOne(ctx, f.fed, address.MustParse(addr), 0)
		if err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		if doc.Store != store || doc.Address != addr {
			t.Errorf("%s: answered by %s as %q, want %s", addr, doc.Store, doc.Address, store)
		}
	}
	if got := f.archive.calls(); len(got) != 2 {
		t.Errorf("archive asked %d times for two single reads it alone holds: %v", len(got), got)
	}
	_, err := docir.GetOne(ctx, f.fed, address.MustParse("nope"), 0)
	if docir.CodeOf(err) != docir.CodeNotFound || !strings.Contains(err.Error(), "no_document") {
		t.Errorf("nope: %v (%s), want not_found no_document", err, docir.CodeOf(err))
	}
	_, err = docir.GetOne(ctx, f.fed, address.MustParse("a#nosuch"), 0)
	if docir.CodeOf(err) != docir.CodeNotFound || !strings.Contains(err.Error(), "no_section") {
		t.Errorf("a#nosuch: %v, want not_found no_section", err)
	}
}

// A peer that ignores its context still cannot hold the read past its
// timeout.
type stuck struct {
	docir.Reader
	release chan struct{}
}

func (s *stuck) Resolve(ctx context.Context, addrs []address.Address, maxBytes int) (docir.Resolved, error) {
	<-s.release
	return docir.Resolved{}, errors.New("too late")
}

func TestStuckPeerTimeout(t *testing.T) {
	s := &stuck{release: make(chan struct{})}
	defer close(s.release)
	fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{NewPeer("slow", KindPath, "/x", 150*time.Millisecond, s)}})
	start := time.Now()
	res, err := docir.Get(context.Background(), fed, mustParseAll(t, "a", "zz"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("read took %v past a 150ms timeout", el)
	}
	docs, missing := summarize(res)
	if len(docs) != 1 || docs[0].Store != "local" || cmp.Diff([]docir.Missing{{Address: "zz", Reason: "unavailable"}}, missing) != "" {
		t.Errorf("got %v %v", docs, missing)
	}
	if len(res.Warnings) != 1 || res.Warnings[0] != "peer slow: timed out after 150ms; unavailable: zz" {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// An interrupted read is an error, not a peer failure.
func TestCancelledRead(t *testing.T) {
	s := &stuck{release: make(chan struct{})}
	defer close(s.release)
	fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{NewPeer("slow", KindPath, "/x", time.Minute, s)}})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := docir.Get(ctx, fed, mustParseAll(t, "zz"), 0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

// A peer whose timeout is longer than what is left of the read's own
// deadline (a served read's 1 min 45 s) is cut short ReplyMargin before
// that deadline and reported as timed out, as its own timeout is: the
// read answers with what resolved. Before, the parent's deadline fired
// first and the read failed whole (context deadline exceeded, no peer
// named, the local document lost). A peer asked when the deadline is
// nearer than ReplyMargin is not asked at all.
func TestPeerTimeoutPastReadDeadline(t *testing.T) {
	s := &stuck{release: make(chan struct{})}
	defer close(s.release)
	fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{NewPeer("slow", KindPath, "/x", time.Minute, s)}})
	const left = 400 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), ReplyMargin+left)
	defer cancel()
	start := time.Now()
	res, err := docir.Get(ctx, fed, mustParseAll(t, "a", "zz"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > left+ReplyMargin/2 {
		t.Errorf("the read took %v; want it done %v before its deadline", el, ReplyMargin/2)
	}
	docs, missing := summarize(res)
	if len(docs) != 1 || docs[0].Store != "local" || cmp.Diff([]docir.Missing{{Address: "zz", Reason: "unavailable"}}, missing) != "" {
		t.Errorf("got %v %v", docs, missing)
	}
	if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], "peer slow: timed out after ") ||
		!strings.HasSuffix(res.Warnings[0], ", what the read's own deadline left it (its timeout is 1m0s); unavailable: zz") {
		t.Errorf("warnings %q", res.Warnings)
	}

	near, cancel := context.WithTimeout(context.Background(), ReplyMargin/2)
	defer cancel()
	res, err = docir.Get(near, fed, mustParseAll(t, "a", "zz"), 0)
	want := []string{"peer slow: timed out: not asked, the read's own deadline was near (its timeout is 1m0s); unavailable: zz"}
	if err != nil || len(res.Documents) != 1 || cmp.Diff(want, res.Warnings) != "" {
		t.Errorf("deadline nearer than ReplyMargin: %+v, %v", res, err)
	}
}

// A skeleton read and a status cut a hanging HTTP peer short before the
// read's deadline as a deep read does: the peer failed, timed out, and
// the local store's hits come back.
func TestHTTPPeerTimeoutPastReadDeadline(t *testing.T) {
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	defer srv.Close()
	defer close(done)
	fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{httpPeerOf(t, "hang", srv.URL, "", 10*time.Minute)}})
	defer fed.Close()
	ctx, cancel := context.WithTimeout(context.Background(), ReplyMargin+300*time.Millisecond)
	defer cancel()
	sr, err := fed.Search(ctx, docir.SearchParams{Query: "retry"})
	if err != nil {
		t.Fatal(err)
	}
	if len(sr.Hits) != 1 || sr.Hits[0].Store != "local" || sr.Stores[1].Status != StatusFailed ||
		!strings.HasPrefix(sr.Stores[1].Error, "timed out after ") || !strings.HasSuffix(sr.Stores[1].Error, "(its timeout is 10m0s)") {
		t.Errorf("hits %+v, stores %+v", sr.Hits, sr.Stores)
	}
	st, err := fed.Status(ctx)
	if err != nil || st.Peers[0].Status != StatusFailed || !strings.HasPrefix(st.Peers[0].Error, "timed out") {
		t.Errorf("status %+v, %v", st.Peers, err)
	}
}

// A read that is cancelled (its client left) stops, though its context
// has a deadline too: cancellation is not the deadline drawing near.
func TestCancelledReadWithDeadline(t *testing.T) {
	s := &stuck{release: make(chan struct{})}
	defer close(s.release)
	fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{NewPeer("slow", KindPath, "/x", time.Minute, s)}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := docir.Get(ctx, fed, mustParseAll(t, "zz"), 0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

// httpPeerOf declares a url peer at srv.
func httpPeerOf(t *testing.T, name, url, token string, timeout time.Duration) *Peer {
	t.Helper()
	cfg := PeerConfig{Name: name, URL: url, Timeout: timeout}
	if token != "" {
		cfg.TokenEnv, cfg.Token = "TEST_TOKEN", token
	}
	peers, err := OpenPeers([]PeerConfig{cfg})
	if err != nil {
		t.Fatal(err)
	}
	return peers[0]
}

// overHTTP federates a local store with team's, served over HTTP by the
// real session engine (with token, when not empty); the server and the
// federation end with t.
func overHTTP(t *testing.T, token string) (*counting, *httptest.Server, *Reader) {
	team := &counting{Reader: openLocal(t, makeStore(t, teamFiles))}
	srv := httptest.NewServer(rpcServer(team, token))
	t.Cleanup(srv.Close)
	fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{httpPeerOf(t, "team", srv.URL, token, 0)}})
	t.Cleanup(func() { fed.Close() })
	return team, srv, fed
}

func TestHTTPPeer(t *testing.T) {
	ctx := context.Background()
	team, srv, fed := overHTTP(t, "s3cret")

	res, err := docir.Get(ctx, fed, mustParseAll(t, "a", "b", "a#intro", "b#nope", "zz"), 0)
	if err != nil {
		t.Fatal(err)
	}
	docs, missing := summarize(res)
	if diff := cmp.Diff([]docSummary{{"a", "local", "A in local"}, {"b", "team", "B in team"}, {"a#intro", "local", "A in local"}}, docs); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]docir.Missing{{Address: "b#nope", Reason: "no_section"}, {Address: "zz", Reason: "no_document"}}, missing); diff != "" {
		t.Errorf("missing (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{"b", "b#nope", "zz"}}, team.calls()); diff != "" {
		t.Errorf("team calls (-want +got):\n%s", diff)
	}

	doc, err := docir.GetOne(ctx, fed, address.MustParse("b"), 0)
	if err != nil || doc.Store != "team" || doc.Generation != 1 {
		t.Errorf("GetOne(b) = %+v, %v", doc, err)
	}
	st, err := fed.Status(ctx)
	if err != nil || st.Peers[0].Status != "ok" || st.Peers[0].Documents != 2 || st.Peers[0].Kind != "url" || st.Peers[0].Location != srv.URL {
		t.Errorf("status %+v, %v", st.Peers, err)
	}

	// The wrong token is a refusal, reported as data.
	bad := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{httpPeerOf(t, "team", srv.URL, "wrong", 0)}})
	defer bad.Close()
	res, err = docir.Get(ctx, bad, mustParseAll(t, "b"), 0)
	if err != nil || len(res.Missing) != 1 || res.Missing[0].Reason != "unavailable" ||
		len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "peer team: refused: HTTP 401 (check the token in $TEST_TOKEN)") {
		t.Errorf("wrong token: %+v, %v", res, err)
	}
}

// A declared token_env that is not set fails the peer as data; it is
// never asked without its token.
func TestHTTPPeerTokenUnset(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	peers, err := OpenPeers([]PeerConfig{{Name: "team", URL: srv.URL, TokenEnv: "DOCIR_TEAM_TOKEN"}})
	if err != nil {
		t.Fatal(err)
	}
	fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: peers})
	res, err := docir.Get(context.Background(), fed, mustParseAll(t, "b"), 0)
	if err != nil || hits.Load() != 0 || len(res.Warnings) != 1 || res.Warnings[0] != "peer team: environment variable DOCIR_TEAM_TOKEN (its token_env) is not set; unavailable: b" {
		t.Errorf("got %+v, %v, %d requests", res, err, hits.Load())
	}
}

// A token read with its newline (or another control character) fails
// the peer with a message naming the variable, not as unreachable, and
// without the token; nothing is sent.
func TestHTTPPeerTokenNotAHeaderValue(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	peers, err := OpenPeers([]PeerConfig{{Name: "team", URL: srv.URL, TokenEnv: "DOCIR_TEAM_TOKEN", Token: "s3cret\n"}})
	if err != nil {
		t.Fatal(err)
	}
	fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: peers})
	res, err := docir.Get(context.Background(), fed, mustParseAll(t, "b"), 0)
	want := "peer team: the token in $DOCIR_TEAM_TOKEN is not a valid HTTP header value (a trailing newline or another control character?); unavailable: b"
	if err != nil || hits.Load() != 0 || len(res.Warnings) != 1 || res.Warnings[0] != want {
		t.Errorf("got %+v, %v, %d requests", res, err, hits.Load())
	}
}

func TestHTTPPeerHangs(t *testing.T) {
	ctx := context.Background()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // hang until the client gives up (or the test ends)
		case <-r.Context().Done():
		case <-done:
		}
	}))
	defer srv.Close()
	defer close(done)
	const timeout = 300 * time.Millisecond
	fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{httpPeerOf(t, "hang", srv.URL, "", timeout)}})
	defer fed.Close()

	start := time.Now()
	res, err := docir.Get(ctx, fed, mustParseAll(t, "a", "b"), 0)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if elapsed < timeout || elapsed > timeout+2*time.Second {
		t.Errorf("read took %v with a %v timeout", elapsed, timeout)
	}
	docs, missing := summarize(res)
	if len(docs) != 1 || docs[0].Address != "a" || cmp.Diff([]docir.Missing{{Address: "b", Reason: "unavailable"}}, missing) != "" {
		t.Errorf("got %v %v", docs, missing)
	}
	if len(res.Warnings) != 1 || res.Warnings[0] != "peer hang: timed out after 300ms; unavailable: b" {
		t.Errorf("warnings %q", res.Warnings)
	}

	start = time.Now()
	sr, err := fed.Search(ctx, docir.SearchParams{Query: "retry"})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > timeout+2*time.Second {
		t.Errorf("search took %v", el)
	}
	want := []docir.StoreStatus{{Store: "local", Status: "ok"}, {Store: "hang", Status: "failed", Error: "timed out after 300ms"}}
	if diff := cmp.Diff(want, sr.Stores); diff != "" {
		t.Errorf("stores (-want +got):\n%s", diff)
	}
	if len(sr.Hits) != 1 || sr.Hits[0].Store != "local" {
		t.Errorf("hits %+v", sr.Hits)
	}
	st, err := fed.Status(ctx)
	if err != nil || st.Peers[0].Status != "failed" || st.Peers[0].Error != "timed out after 300ms" {
		t.Errorf("status %+v %v", st.Peers, err)
	}
}

func TestHTTPPeerGarbage(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   string // in the warning
	}{
		{"not json", 200, "<html>hello</html>", "answered garbage: not a JSON-RPC response"},
		{"truncated", 200, `{"jsonrpc":"2.0","id":1,"result":{"documents":[`, "answered garbage: not a JSON-RPC response"},
		{"wrong version", 200, `{"jsonrpc":"1.0","id":1,"result":{}}`, `jsonrpc is "1.0"`},
		{"wrong id", 200, `{"jsonrpc":"2.0","id":7,"result":{"documents":[],"missing":[]}}`, "reply id 7, want 1"},
		{"no result", 200, `{"jsonrpc":"2.0","id":1}`, "neither result nor error"},
		{"result null", 200, `{"jsonrpc":"2.0","id":1,"result":null}`, "neither result nor error"},
		{"both", 200, `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, "both result and error"},
		{"no lists", 200, `{"jsonrpc":"2.0","id":1,"result":{"docs":[]}}`, "without documents or missing"},
		{"wrong types", 200, `{"jsonrpc":"2.0","id":1,"result":{"documents":"a","missing":[]}}`, "get result: json: cannot unmarshal"},
		{"says nothing of b", 200, `{"jsonrpc":"2.0","id":1,"result":{"documents":[],"missing":[]}}`, `reply says nothing of "b"`},
		{"not asked", 200, `{"jsonrpc":"2.0","id":1,"result":{"documents":[{"address":"x","id":"x"}],"missing":[{"address":"b","reason":"no_document"}]}}`, `reply answers "x", which was not asked`},
		{"twice", 200, `{"jsonrpc":"2.0","id":1,"result":{"documents":[{"address":"b","id":"b"}],"missing":[{"address":"b","reason":"no_document"}]}}`, `reply answers "b" twice`},
		{"bad reason", 200, `{"jsonrpc":"2.0","id":1,"result":{"documents":[],"missing":[{"address":"b","reason":"gone"}]}}`, `unknown reason "gone"`},
		{"malformed address", 200, `{"jsonrpc":"2.0","id":1,"result":{"documents":[{"address":"b c","id":"b"}],"missing":[]}}`, `reply names malformed address "b c"`},
		{"rpc error", 200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"disk on fire","data":{"code":"internal"}}}`, "answered error -32603 (internal): disk on fire"},
		{"http 500", 500, "oops", `HTTP 500: "oops"`},
		{"huge", 200, `{"jsonrpc":"2.0","id":1,"result":{"documents":[],"missing":[],"warnings":["` + strings.Repeat("x", MaxReply) + `"]}}`, "reply over 8388608 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			warnings := readBesidePeer(t, "junk", srv.URL, "")
			if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "peer junk: ") || !strings.Contains(warnings[0], tt.want) {
				t.Errorf("warnings %q, want one containing %q", warnings, tt.want)
			}
		})
	}
}

func TestHTTPPeerRefusedConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{httpPeerOf(t, "gone", url, "", 0)}})
	defer fed.Close()
	res, err := docir.Get(context.Background(), fed, mustParseAll(t, "b"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "peer gone: unreachable: ") || !strings.Contains(res.Warnings[0], "refused") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// A local store with nothing indexed and nothing to index (a config of
// peers only) answers as an empty store.
func TestPeersOnly(t *testing.T) {
	ctx := context.Background()
	emptyDir := t.TempDir()
	fed := New(Config{Local: openLocal(t, emptyDir), LocalDir: emptyDir, Peers: []*Peer{pathPeerOf(t, "team", makeStore(t, teamFiles))}})
	res, err := docir.Get(ctx, fed, mustParseAll(t, "a", "zz"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if docs, missing := summarize(res); len(docs) != 1 || docs[0].Store != "team" || missing[0].Reason != "no_document" {
		t.Errorf("got %v %v", docs, missing)
	}
	st, err := fed.Status(ctx)
	if err != nil || st.Store != emptyDir || st.Generation != 0 || st.Peers[0].Status != "ok" {
		t.Errorf("status %+v %v", st, err)
	}
	sr, err := fed.Search(ctx, docir.SearchParams{Query: "retry"})
	if err != nil || len(sr.Hits) != 1 || sr.Hits[0].Store != "team" {
		t.Errorf("search %+v %v", sr, err)
	}
}

// readBesidePeer gets "a", which the local store has, and "b", which only
// the HTTP peer at url could have, and checks that a comes from the local
// store and b is unavailable (the peer failed); it returns the warnings.
func readBesidePeer(t *testing.T, name, url, token string) []string {
	t.Helper()
	fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{httpPeerOf(t, name, url, token, 0)}})
	defer fed.Close()
	res, err := docir.Get(context.Background(), fed, mustParseAll(t, "a", "b"), 0)
	if err != nil {
		t.Fatal(err)
	}
	docs, missing := summarize(res)
	if len(docs) != 1 || docs[0].Store != "local" || cmp.Diff([]docir.Missing{{Address: "b", Reason: "unavailable"}}, missing) != "" {
		t.Errorf("got %v %v", docs, missing)
	}
	return res.Warnings
}
