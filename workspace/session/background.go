package session

import (
	"context"
	"sync"
	"time"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/workspace"
)

// Gate is a docir.Reader in front of another that answers only once the
// store behind it is ready: a server starts at once and indexes in the
// background, and reads that come meanwhile wait, at most Wait, then
// answer an indexing error. A gate opened with an error answers that
// error to every read (a server started where there is nothing to serve)
// until its Recheck, asked at each read, says the store is there now
// (another process published one).
type Gate struct {
	r  docir.Reader
	st *gateState
}

// gateState is what the gates over several readers of one store share.
type gateState struct {
	wait  time.Duration
	ready chan struct{}
	once  sync.Once
	since time.Time

	mu        sync.Mutex
	err       error       // set before ready is closed; cleared by recheck
	recheck   func() bool // whether the store is readable now
	recovered func()      // run once, when recheck clears err
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
		st.mu.Lock()
		st.err = err
		st.mu.Unlock()
		close(st.ready)
	})
}

// Recheck makes a gate opened with an error ask check, at each read,
// whether the store can be read now (a cheap check: a stat of the store's
// current generation); the first time it can, the error is gone for good
// and recovered (if set) runs, on a goroutine of its own.
func (g *Gate) Recheck(check func() bool, recovered func()) {
	st := g.st
	st.mu.Lock()
	defer st.mu.Unlock()
	st.recheck, st.recovered = check, recovered
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

// answer is the open gate's error, nil once its recheck has passed.
func (st *gateState) answer() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.err == nil || st.recheck == nil || !st.recheck() {
		return st.err
	}
	st.err = nil
	if f := st.recovered; f != nil {
		st.recovered = nil
		go f()
	}
	return nil
}

// Wait blocks until the gate is open (then returns its error), at most
// the gate's wait: after it, an indexing error.
func (g *Gate) Wait(ctx context.Context) error {
	st := g.st
	select {
	case <-st.ready:
		return st.answer()
	default:
	}
	t := time.NewTimer(st.wait)
	defer t.Stop()
	select {
	case <-st.ready:
		return st.answer()
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

// LinksPage implements docir.Reader.
func (g *Gate) LinksPage(ctx context.Context, a address.Address, p docir.Page, maxBytes int) (docir.LinksResolved, error) {
	return gated(g, ctx, func() (docir.LinksResolved, error) { return g.r.LinksPage(ctx, a, p, maxBytes) })
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

// FirstIndex makes s's first generation with each step also reported to p
// (beside the service's configured progress callback), and p finished at
// the end: a server's background index of a store with none. A generation
// another process published meanwhile stands (workspace.RefreshFirst).
func FirstIndex(ctx context.Context, s *workspace.Service, p *Progress) (docir.IndexSummary, error) {
	defer p.Finish()
	return s.RefreshFirst(ctx, p.Report)
}
