package session

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/workspace"
)

// Gate is a docir.Reader in front of another that answers only once the
// store behind it is ready: a server starts at once and indexes in the
// background, and reads that come meanwhile wait, at most Wait, then
// answer an indexing error. A gate opened with an error answers that
// error to every read (a server started where there is nothing to serve).
type Gate struct {
	r  docir.Reader
	st *gateState
}

// gateState is what the gates over several readers of one store share.
type gateState struct {
	wait  time.Duration
	ready chan struct{}
	once  sync.Once
	err   error // set before ready is closed
	since time.Time
}

var _ docir.Reader = (*Gate)(nil)

// NewGate returns a closed gate in front of r: reads wait for Open, at
// most wait each.
func NewGate(r docir.Reader, wait time.Duration) *Gate {
	return &Gate{r: r, st: &gateState{wait: wait, ready: make(chan struct{}), since: time.Now()}}
}

// Over returns a gate in front of r that opens with g.
func (g *Gate) Over(r docir.Reader) *Gate { return &Gate{r: r, st: g.st} }

// Open lets reads through; with a non-nil err every read answers it.
// Later calls do nothing.
func (g *Gate) Open(err error) {
	st := g.st
	st.once.Do(func() {
		st.err = err
		close(st.ready)
	})
}

// Ready reports whether the gate is open.
func (g *Gate) Ready() bool {
	select {
	case <-g.st.ready:
		return true
	default:
		return false
	}
}

// Wait blocks until the gate is open (then returns its error), at most
// the gate's wait: after it, an indexing error.
func (g *Gate) Wait(ctx context.Context) error {
	st := g.st
	select {
	case <-st.ready:
		return st.err
	default:
	}
	t := time.NewTimer(st.wait)
	defer t.Stop()
	select {
	case <-st.ready:
		return st.err
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return docir.Errorf(docir.CodeIndexing, "the store is being indexed in the background (for %s so far); try again in a few seconds",
			time.Since(st.since).Round(time.Second))
	}
}

// gated is read's answer once the gate is open, or why it is not.
func gated[T any](g *Gate, ctx context.Context, read func() (T, error)) (T, error) {
	if err := g.Wait(ctx); err != nil {
		var zero T
		return zero, err
	}
	return read()
}

// Resolve implements docir.Reader.
func (g *Gate) Resolve(ctx context.Context, addrs []address.Address, maxBytes int) (docir.Resolved, error) {
	return gated(g, ctx, func() (docir.Resolved, error) { return g.r.Resolve(ctx, addrs, maxBytes) })
}

// Search implements docir.Reader.
func (g *Gate) Search(ctx context.Context, p docir.SearchParams) (docir.SearchResult, error) {
	return gated(g, ctx, func() (docir.SearchResult, error) { return g.r.Search(ctx, p) })
}

// Query implements docir.Reader.
func (g *Gate) Query(ctx context.Context, p docir.QueryParams) (docir.SearchResult, error) {
	return gated(g, ctx, func() (docir.SearchResult, error) { return g.r.Query(ctx, p) })
}

// Context implements docir.Reader.
func (g *Gate) Context(ctx context.Context, p docir.ContextParams) (docir.ContextResult, error) {
	return gated(g, ctx, func() (docir.ContextResult, error) { return g.r.Context(ctx, p) })
}

// Links implements docir.Reader.
func (g *Gate) Links(ctx context.Context, addrs []address.Address, maxBytes int) (docir.LinksResolved, error) {
	return gated(g, ctx, func() (docir.LinksResolved, error) { return g.r.Links(ctx, addrs, maxBytes) })
}

// Check implements docir.Reader.
func (g *Gate) Check(ctx context.Context, p docir.CheckParams) (docir.CheckResult, error) {
	return gated(g, ctx, func() (docir.CheckResult, error) { return g.r.Check(ctx, p) })
}

// Changes implements docir.Reader.
func (g *Gate) Changes(ctx context.Context, p docir.ChangesParams) (docir.ChangesResult, error) {
	return gated(g, ctx, func() (docir.ChangesResult, error) { return g.r.Changes(ctx, p) })
}

// Status implements docir.Reader.
func (g *Gate) Status(ctx context.Context) (docir.Status, error) {
	return gated(g, ctx, func() (docir.Status, error) { return g.r.Status(ctx) })
}

// Watch refreshes s whenever a markdown file (or a folder) under its
// sources changes, once the changes have been quiet for debounce, until
// ctx is done. Hidden folders are not watched, as the indexer does not
// read them. onRefresh, when set, gets each refresh's outcome.
func Watch(ctx context.Context, s *workspace.Service, debounce time.Duration, onRefresh func(docir.IndexSummary, error)) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	for _, src := range s.Sources() {
		if err := addTree(w, src.Path); err != nil {
			w.Close()
			return err
		}
	}
	go func() {
		defer w.Close()
		var timer *time.Timer
		var fire <-chan time.Time
		for {
			select {
			case <-ctx.Done():
				if timer != nil {
					timer.Stop()
				}
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if !relevant(ev) {
					continue
				}
				if ev.Has(fsnotify.Create) {
					if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
						_ = addTree(w, ev.Name)
					}
				}
				if timer == nil {
					timer = time.NewTimer(debounce)
				} else {
					timer.Reset(debounce)
				}
				fire = timer.C
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
			case <-fire:
				fire = nil
				sum, err := s.Refresh(ctx)
				if onRefresh != nil && ctx.Err() == nil {
					onRefresh(sum, err)
				}
			}
		}
	}()
	return nil
}

// relevant reports whether ev may change what the indexer reads: a
// markdown file, or something without an extension (a folder).
func relevant(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	base := filepath.Base(ev.Name)
	if strings.HasPrefix(base, ".") {
		return false
	}
	return strings.HasSuffix(base, ".md") || filepath.Ext(base) == ""
}

// addTree watches dir and every folder under it that the indexer reads.
func addTree(w *fsnotify.Watcher, dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir
		}
		if err := w.Add(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
}

// Progress is how far a background index has come: the indexer's stage
// and its count of done out of total. Safe for concurrent use.
type Progress struct {
	mu                 sync.Mutex
	stage              string
	done, total        int
	started, completed bool
}

// Report records one step; it has the shape of ingest.Options.Progress.
func (p *Progress) Report(stage string, done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stage, p.done, p.total, p.started = stage, done, total, true
}

// Finish records that the index is done.
func (p *Progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.completed = true
}

// Now returns the stage and counts, and whether indexing is still under
// way (started or not, and not finished).
func (p *Progress) Now() (stage string, done, total int, running bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stage, p.done, p.total, !p.completed
}

// RefreshReporting refreshes s with each step also reported to p (beside
// the service's configured progress callback), and p finished at the end:
// a server's background index.
func RefreshReporting(ctx context.Context, s *workspace.Service, p *Progress) (docir.IndexSummary, error) {
	defer p.Finish()
	return s.RefreshReporting(ctx, p.Report)
}
