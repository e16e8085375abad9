package federation

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/ingest"
	"github.com/docir/docir/workspace"
	"github.com/docir/docir/workspace/session"
)

func TestMain(m *testing.M) {
	// bleve starts its analysis workers once per process, at init.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/blevesearch/bleve_index_api.AnalysisWorker"))
}

// makeStore writes files (name -> markdown) into a source folder and
// indexes them into a real store; it returns the store folder.
func makeStore(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	src, dir := filepath.Join(root, "src"), filepath.Join(root, "store")
	for name, text := range files {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ingest.Refresh(context.Background(), dir, []store.Source{{Path: src}}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// openLocal opens a store as the local reader, closed at the end of t.
func openLocal(t testing.TB, dir string) *workspace.Service {
	t.Helper()
	svc := workspace.New(workspace.Config{Dir: dir})
	t.Cleanup(func() { svc.Close() })
	return svc
}

// pathPeerOf is a real path peer of the store in dir.
func pathPeerOf(t testing.TB, name, dir string) *Peer {
	t.Helper()
	peers, err := OpenPeers([]PeerConfig{{Name: name, Path: dir}})
	if err != nil {
		t.Fatal(err)
	}
	return peers[0]
}

// counting wraps a reader and records every call made to it.
type counting struct {
	docir.Reader
	mu    sync.Mutex
	gets  [][]string // addresses of each Resolve call, as asked
	other int
}

func (c *counting) Resolve(ctx context.Context, addrs []address.Address, maxBytes int) (docir.Resolved, error) {
	c.mu.Lock()
	c.gets = append(c.gets, addrStrings(addrs))
	c.mu.Unlock()
	return c.Reader.Resolve(ctx, addrs, maxBytes)
}

func (c *counting) Search(ctx context.Context, p docir.SearchParams) (docir.SearchResult, error) {
	c.count()
	return c.Reader.Search(ctx, p)
}

func (c *counting) Query(ctx context.Context, p docir.QueryParams) (docir.SearchResult, error) {
	c.count()
	return c.Reader.Query(ctx, p)
}

func (c *counting) Context(ctx context.Context, p docir.ContextParams) (docir.ContextResult, error) {
	c.count()
	return c.Reader.Context(ctx, p)
}

func (c *counting) Status(ctx context.Context) (docir.Status, error) {
	c.count()
	return c.Reader.Status(ctx)
}

// Links is counted with the deep reads: it is asked per address too.
func (c *counting) Links(ctx context.Context, addrs []address.Address, maxBytes int) (docir.LinksResolved, error) {
	c.mu.Lock()
	c.gets = append(c.gets, addrStrings(addrs))
	c.mu.Unlock()
	return c.Reader.Links(ctx, addrs, maxBytes)
}

func (c *counting) LinksPage(ctx context.Context, a address.Address, p docir.Page, maxBytes int) (docir.LinksResolved, error) {
	c.mu.Lock()
	c.gets = append(c.gets, []string{a.String()})
	c.mu.Unlock()
	return c.Reader.LinksPage(ctx, a, p, maxBytes)
}

func (c *counting) Check(ctx context.Context, p docir.CheckParams) (docir.CheckResult, error) {
	c.count()
	return c.Reader.Check(ctx, p)
}

func (c *counting) Changes(ctx context.Context, p docir.ChangesParams) (docir.ChangesResult, error) {
	c.count()
	return c.Reader.Changes(ctx, p)
}

func (c *counting) count() {
	c.mu.Lock()
	c.other++
	c.mu.Unlock()
}

func (c *counting) calls() [][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]string(nil), c.gets...)
}

// rpcServer is the HTTP endpoint of `docir serve --http` (the real
// session engine) in front of a reader. A non-empty token is required as a
// bearer token.
func rpcServer(r docir.Reader, token string) http.Handler {
	return session.New(session.Config{Reader: r}).HTTPHandler(session.HTTPOptions{Token: token})
}

// docSummary is what the priority tests compare: who answered what.
type docSummary struct {
	Address, Store, Title string
}

func summarize(res docir.GetResult) (docs []docSummary, missing []docir.Missing) {
	for _, d := range res.Documents {
		docs = append(docs, docSummary{d.Address, d.Store, d.Title})
	}
	return docs, res.Missing
}

func mustParseAll(t testing.TB, raw ...string) []address.Address {
	t.Helper()
	addrs, err := address.ParseAll(raw)
	if err != nil {
		t.Fatal(err)
	}
	return addrs
}
