package workspace

import (
	"errors"
	"sync"

	"github.com/docir/docir/store"
	"github.com/docir/docir/store/fulltext"
)

// view is one open generation: its body file, and its bleve index once a
// search asks for it (deep reads never open bleve). Reads hold it while
// they run; it is closed once it is retired and no read holds it. refs and
// retired are guarded by the owning Service's mu.
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

// release drops one read's hold; the last one out of a retired view closes
// it.
func (v *view) release() error {
	v.refs--
	if v.retired && v.refs == 0 {
		return v.close()
	}
	return nil
}

// retire marks the view as no longer current; it closes now if no read
// holds it.
func (v *view) retire() error {
	v.retired = true
	if v.refs == 0 {
		return v.close()
	}
	return nil
}

func (v *view) close() error {
	var err error
	v.ftOnce.Do(func() {}) // no open can start after this
	if v.ft != nil {
		err = v.ft.Close()
	}
	return errors.Join(err, v.snap.Close())
}
