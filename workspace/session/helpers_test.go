package session

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/store"
	"github.com/docir/docir/workspace"
)

// corpusDir is the fixture corpus every session test reads.
const corpusDir = "../../testdata/corpus"

// testStore copies the fixture corpus (leaving out hidden folders such as a
// .docir left by trying the README), adds extra files (path → content),
// indexes it into a new store and returns the service over it and the
// store folder.
func testStore(tb testing.TB, extra map[string]string) (*workspace.Service, string) {
	tb.Helper()
	root := tb.TempDir()
	src := filepath.Join(root, "corpus")
	if err := corpustest.CopyTree(corpusDir, src); err != nil {
		tb.Fatal(err)
	}
	dir := filepath.Join(root, "store")
	ws := workspace.New(workspace.Config{Dir: dir, Sources: []store.Source{{Path: src}}})
	tb.Cleanup(func() { ws.Close() })
	if _, err := ws.Refresh(context.Background()); err != nil {
		tb.Fatal(err)
	}
	for name, content := range extra {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return ws, dir
}

// checkLeaks fails t if goroutines started during it are still running
// once it and its cleanups (servers, stores) are done.
func checkLeaks(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

// newTestEngine is an engine over a fresh fixture store with the given
// policy (nil: default). It returns the folder holding the store ("store")
// and its source ("corpus").
func newTestEngine(tb testing.TB, p *Policy, extra map[string]string) (*Engine, string) {
	tb.Helper()
	ws, dir := testStore(tb, extra)
	return New(Config{Reader: ws, Refresh: ws.Refresh, Policy: p, Version: "test", Hold: holdOf(ws), Bindings: ws.Bindings()}), filepath.Dir(dir)
}

// repeatReader is an endless stream of one byte.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// holdOf is the Hold of a session over ws alone.
func holdOf(ws *workspace.Service) func(context.Context, uint64) (Held, error) {
	return func(ctx context.Context, rev uint64) (Held, error) {
		v, err := ws.Hold(ctx, rev)
		if err != nil {
			return nil, err
		}
		return v, nil
	}
}
