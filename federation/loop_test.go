package federation

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/workspace/session"
)

// server is a `docir serve --http` over a federation of its own store and
// the given peer urls, as the binary builds it; the handler is set once
// every url is known.
type server struct {
	srv      *httptest.Server
	handler  atomic.Pointer[http.Handler]
	requests atomic.Int64
}

func newServer(t *testing.T) *server {
	s := &server{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		(*s.handler.Load()).ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *server) federate(t *testing.T, dir string, peerURLs map[string]string) *Reader {
	local := openLocal(t, dir)
	var cfgs []PeerConfig
	for name, url := range peerURLs {
		cfgs = append(cfgs, PeerConfig{Name: name, URL: url})
	}
	peers, err := OpenPeers(cfgs)
	if err != nil {
		t.Fatal(err)
	}
	// Each server is a process of its own, with its own instance id.
	id := s.srv.URL
	fed := New(Config{Local: local, Peers: peers, Instance: id})
	t.Cleanup(func() { fed.Close() })
	var h http.Handler = session.New(session.Config{Reader: fed, Local: local}).HTTPHandler(session.HTTPOptions{Loopback: true, Instance: id})
	s.handler.Store(&h)
	return fed
}

// Two servers that name each other as peers answer each read with one
// request each way: a request from a peer is answered from the local store
// and never federated again (before the hop marker they fanned out until
// the machine ran out of file descriptors).
func TestPeersNamingEachOtherDoNotLoop(t *testing.T) {
	a, b := newServer(t), newServer(t)
	fedA := a.federate(t, makeStore(t, map[string]string{"a.md": "# A\n\nkestrel notes\n"}), map[string]string{"b": b.srv.URL})
	b.federate(t, makeStore(t, map[string]string{"b.md": "# B\n\nkestrel sightings\n"}), map[string]string{"a": a.srv.URL})
	ctx := context.Background()
	res, err := docir.Get(ctx, fedA, mustParseAll(t, "a", "b", "zz"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Documents) != 2 || len(res.Missing) != 1 || res.Missing[0].Reason != docir.ReasonNoDocument {
		t.Fatalf("get across the pair: %+v", res)
	}
	hits, err := fedA.Search(ctx, docir.SearchParams{Query: "kestrel"})
	if err != nil || len(hits.Hits) != 2 {
		t.Fatalf("search across the pair: %+v %v", hits, err)
	}
	if n := b.requests.Load(); n != 2 {
		t.Errorf("server b answered %d requests for one get and one search, want 2", n)
	}
	if n := a.requests.Load(); n != 0 {
		t.Errorf("server a was asked %d times by its own peer, want 0", n)
	}
}

// A peer entry that names the server itself fails as data, with a warning
// that says so, and the local store still answers.
func TestPeerThatIsThisServer(t *testing.T) {
	a := newServer(t)
	fed := a.federate(t, makeStore(t, map[string]string{"a.md": "# A\n\ntext\n"}), map[string]string{"self": a.srv.URL})
	res, err := docir.Get(context.Background(), fed, mustParseAll(t, "a", "zz"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Documents) != 1 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "is the peer itself") {
		t.Fatalf("self peer: %+v", res)
	}
	if res.Missing[0].Reason != docir.ReasonUnavailable {
		t.Errorf("miss reason %q, want unavailable", res.Missing[0].Reason)
	}
}
