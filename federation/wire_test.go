package federation

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
)

// TestRequestFrames pins what an HTTP peer is sent: one JSON-RPC 2.0
// frame per POST to /rpc, with the bearer token and a JSON content type,
// ids counting up.
func TestRequestFrames(t *testing.T) {
	type seen struct {
		Path, Auth, ContentType, Body string
	}
	var (
		mu  sync.Mutex
		got []seen
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, seen{r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), string(b)})
		mu.Unlock()
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer srv.Close()
	peers, err := OpenPeers([]PeerConfig{{Name: "p", URL: srv.URL + "/", TokenEnv: "T", Token: "tk"}})
	if err != nil {
		t.Fatal(err)
	}
	hp := peers[0].r.(*httpPeer)
	defer hp.closeIdle()
	ctx := context.Background()
	_, _ = docir.Get(ctx, hp, mustParseAll(t, "a", "b#x y"), 0)
	_, _ = docir.GetOne(ctx, hp, address.MustParse("a"), 0)
	_, _ = hp.Search(ctx, docir.SearchParams{Query: "q", Limit: 3})
	_, _ = hp.Query(ctx, docir.QueryParams{Expr: "kind:adr", Sort: "-date"})
	_, _ = hp.Context(ctx, docir.ContextParams{Query: "q", Budget: 100})
	_, _ = hp.Status(ctx)
	body := func(s string) seen { return seen{"/rpc", "Bearer tk", "application/json", s} }
	want := []seen{
		body(`{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_ids":["a","b#x y"]}}`),
		body(`{"jsonrpc":"2.0","id":2,"method":"docir/get","params":{"doc_ids":["a"]}}`), // a peer is always asked in one batch
		body(`{"jsonrpc":"2.0","id":3,"method":"docir/search","params":{"query":"q","limit":3}}`),
		body(`{"jsonrpc":"2.0","id":4,"method":"docir/query","params":{"expr":"kind:adr","sort":"-date"}}`),
		body(`{"jsonrpc":"2.0","id":5,"method":"docir/context","params":{"query":"q","budget":100}}`),
		body(`{"jsonrpc":"2.0","id":6,"method":"workspace/status","params":{}}`),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
}

func TestEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:7420":          "http://127.0.0.1:7420/rpc",
		"http://127.0.0.1:7420/":         "http://127.0.0.1:7420/rpc",
		"http://127.0.0.1:7420/rpc":      "http://127.0.0.1:7420/rpc",
		"https://docs.example/team/":     "https://docs.example/team/rpc",
		"https://docs.example/team/rpc/": "https://docs.example/team/rpc/rpc",
	} {
		u, err := endpoint(in)
		if err != nil || u.String() != want {
			t.Errorf("endpoint(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
}

func TestCheckPeers(t *testing.T) {
	ok := PeerConfig{Name: "team", Path: "/x"}
	tests := []struct {
		name  string
		peers []PeerConfig
		want  string // "" for valid
	}{
		{"path", []PeerConfig{ok}, ""},
		{"url with token", []PeerConfig{{Name: "t-2.b_c", URL: "https://h:1/rpc", TokenEnv: "TEAM_TOKEN", Timeout: 1}}, ""},
		{"no name", []PeerConfig{{Path: "/x"}}, "peers[0]: no name"},
		{"bad name", []PeerConfig{{Name: "a b", Path: "/x"}}, `peers[0] (a b): name "a b": use letters, digits, '.', '_' and '-', starting with a letter or digit`},
		{"local", []PeerConfig{{Name: "Local", Path: "/x"}}, `peers[0] (Local): name "Local" is reserved for the local store`},
		{"duplicate", []PeerConfig{ok, {Name: "TEAM", URL: "http://h"}}, `peers[1] (TEAM): name "TEAM" is already used by peers[0]; peer names must be unique`},
		{"neither", []PeerConfig{{Name: "x"}}, "peers[0] (x): needs either path (a store folder) or url (a docir serve --http endpoint)"},
		{"both", []PeerConfig{{Name: "x", Path: "/x", URL: "http://h"}}, "peers[0] (x): has both path and url; a peer is one or the other"},
		{"token on path", []PeerConfig{{Name: "x", Path: "/x", TokenEnv: "T"}}, "peers[0] (x): token_env is for url peers; a path peer is read from disk"},
		{"scheme", []PeerConfig{{Name: "x", URL: "ftp://h"}}, `peers[0] (x): url "ftp://h": want http:// or https://`},
		{"no host", []PeerConfig{{Name: "x", URL: "http:///rpc"}}, `peers[0] (x): url "http:///rpc": no host`},
		{"credentials", []PeerConfig{{Name: "x", URL: "http://u:pw@h/"}}, `peers[0] (x): url "http://…@h/": credentials in a url are refused; name an environment variable in token_env`},
		{"query", []PeerConfig{{Name: "x", URL: "http://h/?a=1"}}, `peers[0] (x): url "http://h/?a=1": no query or fragment, please`},
		{"env name", []PeerConfig{{Name: "x", URL: "http://h", TokenEnv: "A-B"}}, `peers[0] (x): token_env "A-B" is not an environment variable name`},
		{"timeout", []PeerConfig{{Name: "x", Path: "/x", Timeout: MaxTimeout + 1}}, "peers[0] (x): timeout 10m0.000000001s: want more than 0 and at most 10m0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.peers)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Errorf("error %v, want %q", err, tt.want)
			case err != nil && docir.CodeOf(err) != docir.CodeConfig:
				t.Errorf("code %s, want config", docir.CodeOf(err))
			}
		})
	}
}

// Every wire shape a peer reply is read into keeps its JSON names.
func TestReplyShapes(t *testing.T) {
	raw := `{"documents":[{"address":"a#x","id":"a","title":"T","path":"a.md","store":"local","generation":3,"section":{"slug":"x","heading":"X","level":2},"body":"## X\n"}],"missing":[{"address":"b","reason":"no_document"}],"warnings":["w"]}`
	res, err := decodeGetResult(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	want := docir.GetResult{
		Documents: []docir.Document{{Address: "a#x", ID: "a", Title: "T", Path: "a.md", Store: "local", Generation: 3, Section: &docir.SectionRef{Slug: "x", Heading: "X", Level: 2}, Body: "## X\n"}},
		Missing:   []docir.Missing{{Address: "b", Reason: "no_document"}},
		Warnings:  []string{"w"},
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("get (-want +got):\n%s", diff)
	}
	sr, err := decodeSearchResult(json.RawMessage(`{"query":"q","hits":[{"id":"a","title":"T","path":"a.md","store":"local","score":1.5,"matched_section":"a#x","snippet":"s"}],"total":7}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(docir.SearchResult{Query: "q", Total: 7, Hits: []docir.Hit{{ID: "a", Title: "T", Path: "a.md", Store: "local", Score: 1.5, MatchedSection: "a#x", Snippet: "s"}}}, sr); diff != "" {
		t.Errorf("search (-want +got):\n%s", diff)
	}
	cr, err := decodeContextResult(json.RawMessage(`{"query":"q","budget":9,"hits":[{"id":"a","matched_section":"a","tokens":4,"outline":[{"address":"a#x","heading":"X","level":2,"tokens":3}]}],"addresses":["a#x"],"tokens":3,"generation":2}`))
	if err != nil {
		t.Fatal(err)
	}
	wantCR := docir.ContextResult{Query: "q", Budget: 9, Addresses: []string{"a#x"}, Tokens: 3, Generation: 2,
		Hits: []docir.ContextHit{{Hit: docir.Hit{ID: "a", MatchedSection: "a"}, Tokens: 4, Outline: []docir.OutlineEntry{{Address: "a#x", Heading: "X", Level: 2, Tokens: 3}}}}}
	if diff := cmp.Diff(wantCR, cr); diff != "" {
		t.Errorf("context (-want +got):\n%s", diff)
	}
	st, err := decodeStatus(json.RawMessage(`{"store":"/s","format":1,"generation":4,"documents":9,"sources":[]}`))
	if err != nil || st.Generation != 4 || st.Documents != 9 {
		t.Errorf("status %+v %v", st, err)
	}
}

var getReplySeeds = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"documents":[{"address":"a","id":"a","body":"x"}],"missing":[{"address":"b#c","reason":"no_section"}]}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"documents":[{"address":"a","id":"../x","body":"x"},{"address":"b#c","id":"b"}],"missing":[]}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"documents":[],"missing":[{"address":"a","reason":"unavailable"},{"address":"b#c","reason":"no_document"}],"warnings":["x"]}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"documents":[],"missing":[{"address":"a","reason":"no_document","suggestions":["ab","b#c","c","d"]},{"address":"b#c","reason":"no_section","suggestions":["b#d e"]}]}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"documents":[],"missing":[{"address":"a","reason":"no_document","suggestions":["a b"]},{"address":"b#c","reason":"no_document"}]}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"m","data":{"code":"not_found"}}}`,
	`{"jsonrpc":"2.0","id":1,"result":null}`,
	`{"jsonrpc":"2.0","id":"1","result":{}}`,
	`[]`, `{`, ``,
}

// FuzzGetReply: whatever a peer answers to a `doc_ids` read, decoding
// either fails or accounts for every address asked exactly once, each
// document being the one asked (its id, and a section when asked for one),
// each miss's suggestions at most maxSuggestions addresses as Parse prints
// them.
func FuzzGetReply(f *testing.F) {
	for _, s := range getReplySeeds {
		f.Add([]byte(s))
	}
	asked := []address.Address{address.MustParse("a"), address.MustParse("b#c")}
	f.Fuzz(func(t *testing.T, body []byte) {
		raw, err := decodeResponse(body, 1)
		if err != nil {
			return
		}
		res, err := decodeGetResult(raw)
		if err != nil {
			return
		}
		got, err := account(asked, res)
		if err != nil {
			return
		}
		if len(got) != len(asked) {
			t.Fatalf("accounted for %d of %d", len(got), len(asked))
		}
		for i, a := range asked {
			o := got[i]
			if o.Document != nil && (o.Document.Address != a.String() || o.Document.ID != a.ID || (o.Document.Section != nil) != a.HasHeading()) {
				t.Fatalf("document %+v for %s", o.Document, a)
			}
			if o.Document == nil && o.Reason != docir.ReasonNoDocument && o.Reason != docir.ReasonNoSection && o.Reason != docir.ReasonUnavailable {
				t.Fatalf("reason %q", o.Reason)
			}
			checkSuggestions(t, o.Suggestions)
		}
	})
}

// checkSuggestions fails t unless sugg are at most maxSuggestions
// addresses, each as Parse prints it.
func checkSuggestions(t *testing.T, sugg []string) {
	t.Helper()
	if len(sugg) > maxSuggestions {
		t.Fatalf("%d suggestions, over %d", len(sugg), maxSuggestions)
	}
	for _, s := range sugg {
		if a, err := address.Parse(s); err != nil || a.String() != s {
			t.Fatalf("suggestion %q passed (%v)", s, err)
		}
	}
}

// FuzzSkeletonReply: a search or context reply either fails to decode or
// holds only hits whose matched_section is an address of the hit's
// document, and (context) addresses of ranked documents.
func FuzzSkeletonReply(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"query":"q","hits":[{"id":"a","matched_section":"a#x","score":1}],"total":1}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"query":"q","hits":[{"id":"a","matched_section":"a","tokens":4,"outline":[{"address":"a#x","tokens":3}]}],"addresses":["a#x"]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"hits":[{"id":"a","matched_section":"b"}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"hits":null}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		raw, err := decodeResponse(body, 1)
		if err != nil {
			return
		}
		check := func(hits []docir.Hit) {
			for _, h := range hits {
				a, err := address.Parse(h.MatchedSection)
				if err != nil || a.ID != h.ID {
					t.Fatalf("hit %+v passed the check", h)
				}
			}
		}
		if sr, err := decodeSearchResult(raw); err == nil && searchCheck(sr) == nil {
			check(sr.Hits)
		}
		if cr, err := decodeContextResult(raw); err == nil && checkContext(cr) == nil {
			ids := map[string]bool{}
			for _, h := range cr.Hits {
				check([]docir.Hit{h.Hit})
				ids[h.ID] = true
			}
			for _, s := range cr.Addresses {
				if a, err := address.Parse(s); err != nil || !ids[a.ID] {
					t.Fatalf("address %q passed the check", s)
				}
			}
		}
		if st, err := decodeStatus(raw); err == nil && st.Documents < 0 {
			t.Fatalf("status %+v passed", st)
		}
	})
}

// The federation's additions to the reply shapes keep their JSON names:
// stores and warnings beside hits, warnings beside documents, peers in a
// status.
func TestFederatedShapesJSON(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{docir.SearchResult{Query: "q", Hits: []docir.Hit{}, Stores: []docir.StoreStatus{{Store: "local", Status: StatusOK}, {Store: "team", Status: StatusFailed, Error: "timed out after 5s"}}, Warnings: []string{"w"}},
			`{"query":"q","hits":[],"total":0,"stores":[{"store":"local","status":"ok"},{"store":"team","status":"failed","error":"timed out after 5s"}],"warnings":["w"]}`},
		{docir.GetResult{Documents: []docir.Document{}, Missing: []docir.Missing{{Address: "b", Reason: docir.ReasonUnavailable}}, Warnings: []string{"peer team: x; unavailable: b"}},
			`{"documents":[],"missing":[{"address":"b","reason":"unavailable"}],"warnings":["peer team: x; unavailable: b"]}`},
		{docir.GetResult{Documents: []docir.Document{}, Missing: []docir.Missing{}},
			`{"documents":[],"missing":[]}`},
		{[]docir.PeerStatus{{Name: "t", Kind: KindPath, Location: "/x", Status: StatusFailed, Error: "e"}, {Name: "u", Kind: KindURL, Location: "http://h", Status: StatusOK, Generation: 3, Documents: 9}},
			`[{"name":"t","kind":"path","location":"/x","status":"failed","error":"e"},{"name":"u","kind":"url","location":"http://h","status":"ok","generation":3,"documents":9}]`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.want {
			t.Errorf("got  %s\nwant %s", b, tt.want)
		}
	}
}
