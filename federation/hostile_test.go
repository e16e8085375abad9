package federation

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// A peer that redirects is not followed: the redirect is the peer's
// answer, a status other than 200, so the peer fails as data. Followed,
// the POST became a GET to wherever the peer pointed (another port of the
// same host got the bearer token too) and that host's reply was taken as
// the peer's.
func TestHTTPPeerRedirectNotFollowed(t *testing.T) {
	var elsewhere atomic.Int32
	var gotAuth atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		gotAuth.Store(r.Header.Get("Authorization"))
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"documents":[{"address":"b","id":"b","title":"from elsewhere"}],"missing":[]}}`))
	}))
	defer other.Close()
	for _, target := range []string{other.URL + "/rpc", "file:///etc/passwd"} {
		t.Run(target, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target, http.StatusFound)
			}))
			defer srv.Close()
			warnings := readBesidePeer(t, "moved", srv.URL, "s3cret")
			want := "peer moved: HTTP 302: redirects to " + target + "; redirects are not followed: set the peer's url to where the server answers; unavailable: b"
			if len(warnings) != 1 || warnings[0] != want {
				t.Errorf("warnings %q\nwant        %q", warnings, want)
			}
		})
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the redirect target was asked %d times (Authorization %q)", n, gotAuth.Load())
	}
}

// A peer's document must be the document asked for: its id is the id of
// the address it answers, and it names a section exactly when the address
// does. A peer answering every address with a document of its choosing
// (here one whose id escapes) answered garbage.
func TestHTTPPeerDocumentOfAnotherID(t *testing.T) {
	tests := []struct {
		name, asked, docs, want string
	}{
		{"escaping id", "b", `[{"address":"b","id":"../../etc/passwd","path":"/etc/passwd","body":"root:x:0:0"}]`,
			`document "b" has id "../../etc/passwd", not the id asked`},
		{"another id", "b", `[{"address":"b","id":"a","body":"x"}]`, `document "b" has id "a", not the id asked`},
		{"not a bundle's folder", "b/_index", `[{"address":"b/_index","id":"c"}]`, `document "b/_index" has id "c", not the id asked`},
		{"the root's bundle", "_index", `[{"address":"_index","id":""}]`, `document "_index" without an id`},
		{"section not asked", "b", `[{"address":"b","id":"b","section":{"slug":"x","heading":"X","level":2}}]`,
			`document "b" names a section, but the address names none`},
		{"no section", "b#x", `[{"address":"b#x","id":"b"}]`, `document "b#x" names no section`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","id":1,"result":{"documents":` + tt.docs + `,"missing":[]}}`
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = w.Write([]byte(body))
			}))
			defer srv.Close()
			fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{httpPeerOf(t, "junk", srv.URL, "", 0)}})
			defer fed.Close()
			res, err := docir.Get(context.Background(), fed, mustParseAll(t, "a", tt.asked), 0)
			if err != nil {
				t.Fatal(err)
			}
			docs, missing := summarize(res)
			if len(docs) != 1 || docs[0].Store != "local" || cmp.Diff([]docir.Missing{{Address: tt.asked, Reason: "unavailable"}}, missing) != "" {
				t.Errorf("got %v %v", docs, missing)
			}
			if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "peer junk: answered garbage: "+tt.want) {
				t.Errorf("warnings %q, want one containing %q", res.Warnings, tt.want)
			}
		})
	}
	// What a real store answers passes: a section by its heading's text,
	// a document, a bundle's page by its file's name.
	ok := docir.GetResult{Documents: []docir.Document{{Address: "b#X", ID: "b", Section: &docir.SectionRef{Slug: "x"}}, {Address: "c", ID: "c"},
		{Address: "s/_index", ID: "s"}, {Address: "t/u/index#y", ID: "t/u", Section: &docir.SectionRef{Slug: "y"}}}, Missing: []docir.Missing{}}
	if _, err := account(mustParseAll(t, "b#X", "c", "s/_index", "t/u/index#y"), ok); err != nil {
		t.Errorf("account: %v", err)
	}
}

// Text a peer supplies (its own warnings, its error message) is one line
// of a warning: a newline in it cannot start a line of its own on stderr
// ("docir: error: ..." forged by a peer), and control characters are
// escaped.
func TestHTTPPeerTextIsOneLine(t *testing.T) {
	for _, tt := range []struct{ name, body, want string }{
		{"warning", `{"jsonrpc":"2.0","id":1,"result":{"documents":[],"missing":[{"address":"b","reason":"no_document"}],"warnings":["two\nlines\rdocir: error: forged\u001b[2J"]}}`,
			`peer junk reports: two\nlines\rdocir: error: forged\x1b[2J`},
		{"rpc error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"bad\ndocir: error: forged\u0007"}}`,
			`peer junk: answered error -32000 (unavailable): bad\ndocir: error: forged\a; unavailable: b`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{httpPeerOf(t, "junk", srv.URL, "", 0)}})
			defer fed.Close()
			res, err := docir.Get(context.Background(), fed, mustParseAll(t, "b"), 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{tt.want}, res.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// A peer claiming a total near the largest int does not wrap the fused
// total around to a small number.
func TestFusedTotalSaturates(t *testing.T) {
	if got := fusedTotal([]int{4, math.MaxInt}, []int{1, 1}, 2); got != math.MaxInt {
		t.Errorf("fusedTotal = %d, want %d", got, math.MaxInt)
	}
	if got := fusedTotal([]int{4, 5}, []int{1, 1}, 1); got != 8 {
		t.Errorf("fusedTotal = %d, want 8", got)
	}
}

// A peer's token estimates cannot wrap the context budget: a read the
// peer says is near the largest int is over the whole budget, so it is
// passed over, and the plan ends where the budget does. (The sum of the
// planned tokens once wrapped around to a negative number, and every
// address was planned.)
func TestContextPeerTokensOverBudget(t *testing.T) {
	hit := func(id string, tokens int64) string {
		return fmt.Sprintf(`{"id":%q,"title":%[1]q,"path":"%[1]s.md","score":1,"matched_section":%[1]q,"tokens":5,`+
			`"outline":[{"address":%[1]q,"heading":%[1]q,"level":1,"tokens":%d}]}`, id, tokens)
	}
	body := `{"jsonrpc":"2.0","id":1,"result":{"query":"q","budget":1,"hits":[` +
		strings.Join([]string{hit("big", math.MaxInt64), hit("p1", 500), hit("p2", 500), hit("p3", 500)}, ",") +
		`],"addresses":["big","p1","p2","p3"],"tokens":0,"generation":7}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{httpPeerOf(t, "huge", srv.URL, "", 0)}})
	defer fed.Close()
	res, err := fed.Context(context.Background(), docir.ContextParams{Query: "retry budget", Budget: 600})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tokens < 0 || res.Tokens > res.Budget {
		t.Errorf("tokens %d, budget %d", res.Tokens, res.Budget)
	}
	var peers []string
	for _, a := range res.Addresses {
		if a == "big" || strings.HasPrefix(a, "p") {
			peers = append(peers, a)
		}
	}
	if diff := cmp.Diff([]string{"p1"}, peers); diff != "" {
		t.Errorf("the peer's planned addresses (-want +got):\n%s\nall: %q", diff, res.Addresses)
	}
}

// A peer that lists one document several times (to add its fused score
// once a listing and push it to the top) answered garbage: a store ranks
// a document once. So does a context plan that lists one address twice.
func TestPeerRepeatedHits(t *testing.T) {
	evil := `{"id":"evil","title":"E","path":"evil.md","score":1,"matched_section":"evil"}`
	body := `{"jsonrpc":"2.0","id":1,"result":{"query":"q","hits":[` + strings.Repeat(evil+",", 49) + evil + `],"total":50}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{httpPeerOf(t, "dup", srv.URL, "", 0)}})
	defer fed.Close()
	res, err := fed.Search(context.Background(), docir.SearchParams{Query: "retry budget"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].Store != "local" {
		t.Errorf("hits %+v", res.Hits)
	}
	want := `answered garbage: hit 1: document "evil" is ranked again (hit 0)`
	if res.Stores[1].Status != StatusFailed || res.Stores[1].Error != want {
		t.Errorf("peer %+v, want failed: %s", res.Stores[1], want)
	}

	hit := docir.ContextHit{Hit: docir.Hit{ID: "x", MatchedSection: "x"}}
	for _, tt := range []struct {
		name string
		r    docir.ContextResult
		want string
	}{
		{"hit", docir.ContextResult{Hits: []docir.ContextHit{hit, hit}, Addresses: []string{"x"}}, `hit 1: document "x" is ranked again (hit 0)`},
		{"address", docir.ContextResult{Hits: []docir.ContextHit{hit}, Addresses: []string{"x", "x"}}, `address "x" is listed again`},
		{"also", docir.ContextResult{Hits: []docir.ContextHit{{Hit: docir.Hit{ID: "x", MatchedSection: "x", Also: []string{"y#z", "../etc"}}}}, Addresses: []string{"x"}}, `hit 0: also 1: `},
		{"also bound", docir.ContextResult{Hits: []docir.ContextHit{{Hit: docir.Hit{ID: "x", MatchedSection: "x", Also: make([]string, docir.MaxLimit+1)}}}, Addresses: []string{"x"}}, `hit 0: also lists 1001 sections, over 1000`},
	} {
		if err := checkContext(tt.r); err == nil || !strings.HasPrefix(err.Error(), "answered garbage: "+tt.want) {
			t.Errorf("%s: %v, want %s", tt.name, err, tt.want)
		}
	}
}

// A url's credentials are never printed, whatever else is wrong with the
// url: not by the checks after the one that refuses them, and not in Go's
// parse error, which quotes the url whole. The error names the entry and
// what is wrong.
func TestPeerURLCredentialsNeverShown(t *testing.T) {
	for raw, want := range map[string]string{
		"ftp://alice:s3cret@host/x":         `url "ftp://…@host/x": credentials in a url are refused; name an environment variable in token_env`,
		"http://alice:s3cret@host:badport/": `url "http://…@host:badport/": invalid port ":badport" after host`,
		"http://alice:s3cret@host/x?y=1":    `url "http://…@host/x?y=1": credentials in a url are refused; name an environment variable in token_env`,
		"http://alice:s3%zzret@host/":       `url "http://…@host/": credentials in a url are refused; name an environment variable in token_env`,
		"http://alice:s3cret/x@host:1/":     `url "http://…@host:1/": credentials in a url are refused; name an environment variable in token_env`,
		"http://alice:s3cret?x@host:1/":     `url "http://…@host:1/": credentials in a url are refused; name an environment variable in token_env`,
		"alice:s3cret@host":                 `url "…@host": want http:// or https://`,
		"http://host:badport/":              `url "http://host:badport/": invalid port ":badport" after host`,
	} {
		err := Check([]PeerConfig{{Name: "p", URL: raw}})
		if err == nil || err.Error() != "peers[0] (p): "+want {
			t.Errorf("%s: %v\nwant peers[0] (p): %s", raw, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "s3") {
			t.Errorf("%s: the password shows: %v", raw, err)
		}
	}
}

// fakePeer is an HTTP peer that answers each request, to its id, with the
// result reply gives for its method; it ends with t.
func fakePeer(t *testing.T, reply func(method string) string) *httptest.Server {
	return fakePeerParams(t, func(method, _ string) string { return reply(method) })
}

// servedRead posts one request to a `docir serve --http` over fed (the
// real session engine) and decodes its reply's result into result,
// failing the test on an error reply: what a host of the served
// federation gets.
func servedRead(t *testing.T, fed *Reader, method, params string, result any) {
	t.Helper()
	srv := httptest.NewServer(rpcServer(fed, ""))
	defer srv.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
	resp, err := http.Post(srv.URL+"/rpc", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r wire.Response
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.Error != nil {
		t.Fatalf("%s: error %d: %s", method, r.Error.Code, r.Error.Message)
	}
	if err := json.Unmarshal(r.Result, result); err != nil {
		t.Fatal(err)
	}
}

// A peer's own warnings are passed on up to MaxPeerWarnings, then counted
// in one more. A peer that said 150,000 short ones (a reply well under
// MaxReply) made the served read's warnings pass its 1 MiB reply bound:
// the read failed whole (reply_too_large), the local document lost.
func TestPeerWarningsBounded(t *testing.T) {
	const n = 150_000
	ws := make([]string, n)
	for i := range ws {
		ws[i] = fmt.Sprintf("w%d", i)
	}
	list, _ := json.Marshal(ws)
	srv := fakePeer(t, func(method string) string {
		if method == wire.MethodGet {
			return `{"documents":[],"missing":[{"address":"b","reason":"no_document"}],"warnings":` + string(list) + `}`
		}
		return `{"query":"q","hits":[],"total":0,"warnings":` + string(list) + `}`
	})
	fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{httpPeerOf(t, "chatty", srv.URL, "", 0)}})
	defer fed.Close()
	var want []string
	for i := range MaxPeerWarnings {
		want = append(want, fmt.Sprintf("peer chatty reports: w%d", i))
	}
	want = append(want, fmt.Sprintf("peer chatty: … and %d more warnings", n-MaxPeerWarnings))

	var get docir.GetResult
	servedRead(t, fed, wire.MethodGet, `{"doc_ids":["a","b"]}`, &get)
	if len(get.Documents) != 1 || get.Documents[0].Store != "local" {
		t.Errorf("documents %+v; want a from local", get.Documents)
	}
	if diff := cmp.Diff(want, get.Warnings); diff != "" {
		t.Errorf("get warnings (-want +got):\n%s", diff)
	}
	var sr docir.SearchResult
	servedRead(t, fed, wire.MethodSearch, `{"query":"retry budget"}`, &sr)
	if len(sr.Hits) != 1 || sr.Hits[0].Store != "local" {
		t.Errorf("hits %+v; want local's", sr.Hits)
	}
	if diff := cmp.Diff(want, sr.Warnings); diff != "" {
		t.Errorf("search warnings (-want +got):\n%s", diff)
	}
}

// A peer's hits' titles and paths are clipped to MaxHitText: three hits
// with titles and paths of 200,000 bytes made the served read pass its
// reply bound and fail whole (reply_too_large), the local hit lost. The
// hits stay, their ids whole.
func TestPeerHitTextClipped(t *testing.T) {
	long := strings.Repeat("t", 200_000)
	var hits []string
	for _, id := range []string{"big1", "big2", "big3"} {
		hits = append(hits, `{"id":"`+id+`","title":"`+long+`","path":"`+long+`.md","score":1,"matched_section":"`+id+`"}`)
	}
	srv := fakePeer(t, func(string) string {
		return `{"query":"q","hits":[` + strings.Join(hits, ",") + `],"total":3}`
	})
	fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{httpPeerOf(t, "wordy", srv.URL, "", 0)}})
	defer fed.Close()
	for method, params := range map[string]string{wire.MethodSearch: `{"query":"retry budget"}`, wire.MethodQuery: `{"expr":"title:A*"}`} {
		var sr docir.SearchResult
		servedRead(t, fed, method, params, &sr)
		var got []string
		for _, h := range sr.Hits {
			got = append(got, h.ID+"@"+h.Store)
			if h.Store == "wordy" && (h.Title != long[:MaxHitText]+"…" || h.Path != long[:MaxHitText]+"…") {
				t.Errorf("%s: the peer's hit %s has a title of %d bytes and a path of %d", method, h.ID, len(h.Title), len(h.Path))
			}
		}
		if !slices.Contains(got, "big1@wordy") || !slices.Contains(got, "a@local") {
			t.Errorf("%s: hits %q; want local's a and the peer's", method, got)
		}
	}
}

// An HTTP peer's "did you mean" comes through, as a path peer's does: the
// suggestions of its no_document misses, each parsed as an address, at
// most 3 a miss and for the first 5 distinct addresses of a read, as the
// local store bounds its own. A suggestion that is not an address is
// garbage. (They were dropped: account and accountAll kept a miss's
// reason only.)
func TestHTTPPeerSuggestions(t *testing.T) {
	ctx := context.Background()
	files := maps.Clone(teamFiles)
	files["runbook.md"] = "# Runbook\n\nwhat to do\n"
	team := openLocal(t, makeStore(t, files))
	srv := httptest.NewServer(rpcServer(team, ""))
	defer srv.Close()
	fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{httpPeerOf(t, "team", srv.URL, "", 0)}})
	defer fed.Close()
	res, err := docir.Get(ctx, fed, mustParseAll(t, "a", "runbok"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]docir.Missing{{Address: "runbok", Reason: "no_document", Suggestions: []string{"runbook"}}}, res.Missing); diff != "" {
		t.Errorf("get: missing (-want +got):\n%s", diff)
	}
	links, err := docir.GetLinks(ctx, fed, mustParseAll(t, "runbok"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]docir.Missing{{Address: "runbok", Reason: "no_document", Suggestions: []string{"runbook"}}}, links.Missing); diff != "" {
		t.Errorf("links: missing (-want +got):\n%s", diff)
	}

	// A peer that suggests more than a store does.
	many := []string{"s1", "s2#Intro", "s3", "s4"}
	suggest := func(method, params string) string {
		var p struct {
			DocIDs []string `json:"doc_ids"`
		}
		_ = json.Unmarshal([]byte(params), &p)
		var miss []docir.Missing
		for _, id := range p.DocIDs {
			miss = append(miss, docir.Missing{Address: id, Reason: docir.ReasonNoDocument, Suggestions: many})
		}
		m, _ := json.Marshal(miss)
		if method == wire.MethodLinks {
			return `{"links":[],"missing":` + string(m) + `}`
		}
		return `{"documents":[],"missing":` + string(m) + `}`
	}
	lavish := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{httpPeerOf(t, "lavish", fakePeerParams(t, suggest).URL, "", 0)}})
	defer lavish.Close()
	asked := []string{"m1", "m2", "m3", "m4", "m5", "m6", "m1"}
	res, err = docir.Get(ctx, lavish, mustParseAll(t, asked...), 0)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, m := range res.Missing {
		got = append(got, m.Suggestions)
	}
	three := many[:3]
	if diff := cmp.Diff([][]string{three, three, three, three, three, nil, three}, got); diff != "" || len(res.Warnings) != 0 {
		t.Errorf("suggestions by miss (-want +got):\n%s\nwarnings %q", diff, res.Warnings)
	}

	many = []string{"s1", "not an address"}
	res, err = docir.Get(ctx, lavish, mustParseAll(t, "m1"), 0)
	if err != nil || res.Missing[0].Reason != docir.ReasonUnavailable || len(res.Warnings) != 1 ||
		!strings.Contains(res.Warnings[0], `answered garbage: miss "m1": suggestion 1: `) {
		t.Errorf("a malformed suggestion: %+v, %v", res, err)
	}
}

// fakePeerParams is fakePeer whose reply sees the request's params too.
func fakePeerParams(t *testing.T, reply func(method, params string) string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage
			Method string
			Params json.RawMessage
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + reply(req.Method, string(req.Params)) + `}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A peer's hits are at most half a served reply (MaxPeerHitBytes): twenty
// search hits of 100 also addresses of ~500 bytes, or ten context hits of
// 100 outline entries with 2,000-byte headings, made the served read
// reply_too_large, the local hit lost. Their also lists and outlines are
// left out (and, for search, the last hits), with a warning naming the
// peer; the local hit stays.
func TestPeerHitsWithinHalfAReply(t *testing.T) {
	addr := strings.Repeat("x", 500)
	var also []string
	for i := range 100 {
		also = append(also, fmt.Sprintf(`"%s%d"`, addr, i))
	}
	heading := strings.Repeat("h", 2000)
	var outline []string
	for i := range 100 {
		outline = append(outline, fmt.Sprintf(`{"address":"p%%d#s%d","heading":"%s","level":2,"tokens":10}`, i, heading))
	}
	var searchHits, contextHits []string
	for i := range 20 {
		searchHits = append(searchHits, fmt.Sprintf(`{"id":"p%d","title":"P","path":"p%d.md","score":1,"matched_section":"p%d","also":[%s]}`, i, i, i, strings.Join(also, ",")))
	}
	for i := range 10 {
		contextHits = append(contextHits, fmt.Sprintf(`{"id":"p%d","title":"P","path":"p%d.md","score":1,"matched_section":"p%d","tokens":10,"outline":[%s]}`,
			i, i, i, strings.ReplaceAll(strings.Join(outline, ","), "%d", fmt.Sprint(i))))
	}
	srv := fakePeer(t, func(method string) string {
		if method == wire.MethodContext {
			return `{"query":"q","budget":4000,"hits":[` + strings.Join(contextHits, ",") + `],"addresses":[],"tokens":0,"generation":1}`
		}
		return `{"query":"q","hits":[` + strings.Join(searchHits, ",") + `],"total":20}`
	})
	fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{httpPeerOf(t, "bulky", srv.URL, "", 0)}})
	defer fed.Close()
	var sr docir.SearchResult
	servedRead(t, fed, wire.MethodSearch, `{"query":"retry budget","limit":20}`, &sr)
	if !slices.ContainsFunc(sr.Hits, func(h docir.Hit) bool { return h.Store == "local" }) ||
		!slices.ContainsFunc(sr.Warnings, func(w string) bool { return strings.HasPrefix(w, "peer bulky: its hits passed") }) {
		t.Errorf("search: %d hits, warnings %q; want the local hit and a warning naming bulky", len(sr.Hits), sr.Warnings)
	}
	var cr docir.ContextResult
	servedRead(t, fed, wire.MethodContext, `{"query":"retry budget"}`, &cr)
	if !slices.ContainsFunc(cr.Hits, func(h docir.ContextHit) bool { return h.Store == "local" }) ||
		!slices.ContainsFunc(cr.Warnings, func(w string) bool { return strings.HasPrefix(w, "peer bulky: its hits passed") }) {
		t.Errorf("context: %d hits, warnings %q; want the local hit and a warning naming bulky", len(cr.Hits), cr.Warnings)
	}
}

// The local store's own warnings come through a deep read with peers, as
// they do without: a get of a heading two of its sections share says
// which it read (they were dropped once a peer was declared).
func TestLocalWarningsWithPeers(t *testing.T) {
	files := map[string]string{"s.md": "# S\n\n## Setup\n\none\n\n## Setup\n\ntwo\n"}
	fed := New(Config{Local: openLocal(t, makeStore(t, files)), Peers: []*Peer{pathPeerOf(t, "team", makeStore(t, teamFiles))}})
	defer fed.Close()
	res, err := docir.Get(context.Background(), fed, mustParseAll(t, "s#Setup", "b"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Documents) != 2 || !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, `2 sections are headed "Setup"`) }) {
		t.Errorf("documents %d, warnings %q; want s's and b, and the local warning of the shared heading", len(res.Documents), res.Warnings)
	}
}

// A no_section miss with peers names the nearest sections, as without
// them: the local store's suggestions of a section it lacks were dropped
// once a peer was declared (only no_document misses kept theirs).
func TestSectionSuggestionsWithPeers(t *testing.T) {
	files := map[string]string{"s.md": "# S\n\n## Setup\n\none\n"}
	solo := openLocal(t, makeStore(t, files))
	want, err := docir.Get(context.Background(), solo, mustParseAll(t, "s#setu"), 0)
	if err != nil || len(want.Missing) != 1 || len(want.Missing[0].Suggestions) == 0 {
		t.Fatalf("without peers: %+v %v; want a no_section miss with suggestions", want.Missing, err)
	}
	fed := New(Config{Local: openLocal(t, makeStore(t, files)), Peers: []*Peer{pathPeerOf(t, "team", makeStore(t, teamFiles))}})
	defer fed.Close()
	got, err := docir.Get(context.Background(), fed, mustParseAll(t, "s#setu"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Missing, got.Missing); diff != "" {
		t.Errorf("with a peer, the miss (-without +with):\n%s", diff)
	}
}

// BenchmarkFitPeerHits is what fitPeerHits adds to a federated search when
// nothing is cut: one JSON encoding of each of ten peer hits of the usual
// size, to count them against MaxPeerHitBytes.
func BenchmarkFitPeerHits(b *testing.B) {
	hits := make([]docir.Hit, 10)
	for i := range hits {
		hits[i] = docir.Hit{ID: fmt.Sprintf("guides/page-%d", i), Title: "A page of the guides", Path: fmt.Sprintf("guides/page-%d.md", i),
			Store: "team", Score: 0.5, MatchedSection: fmt.Sprintf("guides/page-%d#a-section", i), Snippet: strings.Repeat("words of a snippet ", 12)}
	}
	for b.Loop() {
		if _, cut := fitPeerHits(hits); cut != nil {
			b.Fatal(cut)
		}
	}
}
