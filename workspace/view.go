package workspace

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
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

	filesOnce sync.Once
	files     map[string]sourceFile // doc id -> its source file, as the generation recorded it
	filesErr  error
}

// sourceFile is where a document of a generation came from and the size
// and mtime the generation recorded for it.
type sourceFile struct {
	path    string
	size    int64
	modTime int64
	digest  [32]byte
}

// sources maps the generation's documents to their source files, once.
func (v *view) sources() (map[string]sourceFile, error) {
	v.filesOnce.Do(func() {
		files, err := v.snap.Files()
		if err != nil {
			v.filesErr = err
			return
		}
		v.files = make(map[string]sourceFile, len(files))
		for key, e := range files {
			root, rel, _ := strings.Cut(key, "\x00")
			v.files[e.ID] = sourceFile{path: filepath.Join(root, filepath.FromSlash(rel)), size: e.Size, modTime: e.ModTime, digest: e.Digest}
		}
	})
	return v.files, v.filesErr
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

// Resolve reads addresses from the view's generation. Every document read
// is recorded in the context's read log (docir.WithReadLog).
func (v *View) Resolve(ctx context.Context, addrs []address.Address) (docir.Resolved, error) {
	res, err := v.s.Resolve(ctx, addrs)
	if log := docir.ReadLogOf(ctx); log != nil {
		for _, it := range res.Items {
			if it.Document != nil {
				log.Add(it.Document.ID)
			}
		}
	}
	return res, err
}

// Search ranks documents of the view's generation; the documents of its
// hits (whose text the snippets show) go to the context's read log.
func (v *View) Search(ctx context.Context, p docir.SearchParams) (docir.SearchResult, error) {
	res, err := v.s.Search(ctx, p)
	logHits(ctx, res.Hits)
	return res, err
}

// Query filters documents of the view's generation; its hits go to the
// context's read log.
func (v *View) Query(ctx context.Context, p docir.QueryParams) (docir.SearchResult, error) {
	res, err := v.s.Query(ctx, p)
	logHits(ctx, res.Hits)
	return res, err
}

// Context plans a read of the view's generation; its hits go to the
// context's read log.
func (v *View) Context(ctx context.Context, p docir.ContextParams) (docir.ContextResult, error) {
	res, err := v.s.Context(ctx, p)
	if log := docir.ReadLogOf(ctx); log != nil {
		for _, h := range res.Hits {
			log.Add(h.ID)
		}
	}
	return res, err
}

func logHits(ctx context.Context, hits []docir.Hit) {
	if log := docir.ReadLogOf(ctx); log != nil {
		for _, h := range hits {
			log.Add(h.ID)
		}
	}
}

// Authenticate checks that the view's generation is still the store's
// source of truth for what the reads with ctx read (its read log): the
// store's current generation is the view's, and every source file of a
// document read still has the size and mtime the generation recorded (or,
// when only those changed, the same sha256). Any difference is a
// source_drift error that names it.
func (v *View) Authenticate(ctx context.Context) error {
	held := v.Generation()
	cur, err := store.CurrentGeneration(v.s.cfg.Dir)
	if err != nil {
		return err
	}
	if cur != held {
		return docir.Errorf(docir.CodeSourceDrift, "the store's current generation is %d, not the held %d: a refresh ran; refresh or bind again", cur, held)
	}
	ids := docir.ReadLogOf(ctx).IDs()
	if len(ids) == 0 {
		return nil
	}
	files, err := v.s.pin.sources()
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		f, ok := files[id]
		if !ok {
			return docir.Errorf(docir.CodeSourceDrift, "document %s has no source file in generation %d", id, held)
		}
		info, err := os.Stat(f.path)
		if err != nil {
			return docir.Errorf(docir.CodeSourceDrift, "the source of %s changed: %v", id, err)
		}
		if info.Size() == f.size && info.ModTime().UnixNano() == f.modTime {
			continue
		}
		// A touched file (a checkout, a save without edits) still holds
		// the bytes that were read: only its content decides.
		if data, err := os.ReadFile(f.path); err != nil || sha256.Sum256(data) != f.digest {
			return docir.Errorf(docir.CodeSourceDrift, "the source of %s (%s) changed since generation %d was built: refresh or bind again", id, f.path, held)
		}
	}
	return nil
}

// Status describes the view's generation.
func (v *View) Status(ctx context.Context) (docir.Status, error) {
	return v.s.Status(ctx)
}
