package workspace

import (
	"context"
	"errors"
	"sync"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/fulltext"
)

// view is one open generation: its body file, and its bleve index once a
// search asks for it (deep reads never open bleve). Reads hold it while
// they run; it is closed once it is retired (no longer the service's
// current generation) and nothing holds it. refs and retired are guarded
// by the owning service's mu.
type view struct {
	snap *store.Snapshot

	ftOnce sync.Once
	ft     *fulltext.Index
	ftErr  error

	refs    int
	retired bool
}

// fullText opens the generation's bleve index read-only, once.
func (v *view) fullText() (*fulltext.Index, error) {
	v.ftOnce.Do(func() {
		v.ft, v.ftErr = fulltext.Open(v.snap.FullTextPath(), true)
	})
	return v.ft, v.ftErr
}

func (v *view) close() error {
	var err error
	v.ftOnce.Do(func() {}) // no open can start after this
	if v.ft != nil {
		err = v.ft.Close()
	}
	return errors.Join(err, v.snap.Close())
}

// View is an immutable view of one generation of the store: every read on
// it answers from that generation and never moves to a newer one, whatever
// is published meanwhile (by this process or another). It holds the
// generation open until Close; reads still running then keep it open until
// the last of them ends. A View is safe for concurrent use and implements
// docir.Reader.
type View struct {
	s    *Service // a copy of the service pinned to one generation
	once sync.Once
}

var _ docir.Reader = (*View)(nil)

// Generation is the number of the generation the view reads.
func (v *View) Generation() uint64 { return v.s.pin.snap.Generation() }

// Snapshot is the view's generation as the store opened it.
func (v *View) Snapshot() *store.Snapshot { return v.s.pin.snap }

// Close releases the view's hold on its generation. It is idempotent.
func (v *View) Close() error {
	var err error
	v.once.Do(func() {
		st := v.s.st
		st.mu.Lock()
		defer st.mu.Unlock()
		err = st.release(v.s.pin)
	})
	return err
}

// Resolve reads addresses from the view's generation.
func (v *View) Resolve(ctx context.Context, addrs []address.Address) (docir.Resolved, error) {
	return v.s.Resolve(ctx, addrs)
}

// Search ranks documents of the view's generation.
func (v *View) Search(ctx context.Context, p docir.SearchParams) (docir.SearchResult, error) {
	return v.s.Search(ctx, p)
}

// Query filters documents of the view's generation.
func (v *View) Query(ctx context.Context, p docir.QueryParams) (docir.SearchResult, error) {
	return v.s.Query(ctx, p)
}

// Context plans a read of the view's generation.
func (v *View) Context(ctx context.Context, p docir.ContextParams) (docir.ContextResult, error) {
	return v.s.Context(ctx, p)
}

// Status describes the view's generation.
func (v *View) Status(ctx context.Context) (docir.Status, error) {
	return v.s.Status(ctx)
}
