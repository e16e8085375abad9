package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/fulltext"
	"github.com/docir/docir/store/ingest"
)

// view is one open generation: its body file, and its bleve index once a
// search asks for it (deep reads never open bleve). Reads hold it while
// they run; it is closed once it is retired (no longer the service's
// current generation) and nothing holds it. refs and retired are guarded
// by the owning service's mu.
type view struct {
	snap     *store.Snapshot
	stemming string // the searches' stemming (Config.Stemming)

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
		if v.ftErr == nil {
			if v.ftErr = v.ft.SetStemming(v.stemming); v.ftErr != nil {
				_ = v.ft.Close()
				v.ft = nil
			}
		}
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
func (v *View) Resolve(ctx context.Context, addrs []address.Address, maxBytes int) (docir.Resolved, error) {
	return v.s.Resolve(ctx, addrs, maxBytes)
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

// Recording returns the view as a reader whose reads record, in log, every
// document they read (a deep read's documents, the documents of search,
// query and context hits, whose text the snippets show, and the documents
// a links read reads links of), so that Authenticate(ctx, log) can check
// their sources afterwards. The view keeps its hold: close the view, not
// the reader.
func (v *View) Recording(log *docir.ReadLog) docir.Reader {
	return recording{View: v, log: log}
}

// Pinned is the view as a read pinned to it answers: the view, or, with a
// log, the view recording in it (Recording).
func (v *View) Pinned(log *docir.ReadLog) docir.Reader {
	if log != nil {
		return v.Recording(log)
	}
	return v
}

// Local is the view itself: a view reads the local store only. (A held
// generation federated with peers answers its bare view here; evidence
// reads it, since evidence covers the local store only.)
func (v *View) Local() docir.Reader { return v }

// recording is a View whose reads record what they read in log.
type recording struct {
	*View
	log *docir.ReadLog
}

func (r recording) Resolve(ctx context.Context, addrs []address.Address, maxBytes int) (docir.Resolved, error) {
	res, err := r.View.Resolve(ctx, addrs, maxBytes)
	for _, it := range res.Items {
		if it.Document != nil {
			r.log.Add(it.Document.ID)
		}
	}
	return res, err
}

func (r recording) Search(ctx context.Context, p docir.SearchParams) (docir.SearchResult, error) {
	res, err := r.View.Search(ctx, p)
	r.hits(res.Hits)
	return res, err
}

func (r recording) Query(ctx context.Context, p docir.QueryParams) (docir.SearchResult, error) {
	res, err := r.View.Query(ctx, p)
	r.hits(res.Hits)
	return res, err
}

func (r recording) Context(ctx context.Context, p docir.ContextParams) (docir.ContextResult, error) {
	res, err := r.View.Context(ctx, p)
	for _, h := range res.Hits {
		r.log.Add(h.ID)
	}
	return res, err
}

// Links records the documents it read links of: the ones asked and the
// sources of their incoming links.
func (r recording) Links(ctx context.Context, addrs []address.Address, maxBytes int) (docir.LinksResolved, error) {
	res, err := r.View.Links(ctx, addrs, maxBytes)
	r.linkSets(res)
	return res, err
}

// linkSets records the documents of link sets read: each set's, and the
// sources of its incoming links.
func (r recording) linkSets(res docir.LinksResolved) {
	for _, it := range res.Items {
		if it.Set == nil {
			continue
		}
		r.log.Add(it.Set.ID)
		for _, l := range it.Set.Incoming {
			if a, err := address.Parse(l.From); err == nil {
				r.log.Add(a.ID)
			}
		}
	}
}

// LinksPage records what Links records, for the page read.
func (r recording) LinksPage(ctx context.Context, a address.Address, p docir.Page, maxBytes int) (docir.LinksResolved, error) {
	res, err := r.View.LinksPage(ctx, a, p, maxBytes)
	r.linkSets(res)
	return res, err
}

func (r recording) hits(hits []docir.Hit) {
	for _, h := range hits {
		r.log.Add(h.ID)
	}
}

// Authenticate checks that the view's generation is still the store's
// source of truth for what the reads recorded in log read (see
// Recording; nil: none): the store's current generation is the view's,
// with the same manifest digest
// (a store removed and indexed again restarts its numbers), and every
// source file of a document read is still a regular file with the size and
// mtime its manifest records (or, when only the mtime changed, the same
// sha256: see sameSource). Any difference is a source_drift error that
// names it.
func (v *View) Authenticate(ctx context.Context, log *docir.ReadLog) error {
	snap := v.Snapshot()
	held := snap.Generation()
	cur, err := store.CurrentGeneration(v.s.cfg.Dir)
	if err != nil {
		return err
	}
	if cur != held {
		return docir.Errorf(docir.CodeSourceDrift, "the store's current generation is %d, not the held %d: a refresh ran; refresh or bind again", cur, held)
	}
	if err := v.sameManifest(); err != nil {
		return err
	}
	roots := ingest.SourceRoots(v.s.cfg.Sources, v.s.cfg.Ingest.AllowRoots)
	for _, id := range log.IDs() {
		if err := ctx.Err(); err != nil {
			return err
		}
		e, ok, err := snap.ManifestEntry(id)
		if err != nil {
			return err
		}
		if !ok {
			return docir.Errorf(docir.CodeSourceDrift, "document %s is not in the manifest of generation %d", id, held)
		}
		if err := sameSource(e, roots); err != nil {
			return docir.Errorf(docir.CodeSourceDrift, "the source of %s (%s) changed since generation %d was built (%w): refresh or bind again", id, e.Abs(), held, err)
		}
	}
	return nil
}

// sameSource checks that the source file of a manifest entry still holds
// the bytes the generation read: the same size and mtime, or, when only
// the mtime changed (a checkout, a save without edits), the same sha256.
// The file is opened as a refresh opens one (ingest.OpenSource): a link on
// the way followed as the refresh followed it, the last one not; a
// regular file, opened without blocking, read only when its mtime changed
// and at most the size the manifest records; a FIFO or a device is
// refused unread. Its size and mtime are the opened file's.
//
// Only a file under roots (the real paths of the source roots, and of any
// allowed beside them) is looked at, as only such a file is indexed: one
// now reached outside them, through a link or a folder swapped for one,
// is drift said without a word of it (its size, or whether it is, would
// tell of a file outside the roots: a review read /etc/shadow's size so).
func sameSource(e store.ManifestEntry, roots []string) error {
	path := e.Abs()
	if _, err := os.Lstat(path); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return errors.New("now a link that leads nowhere a refresh would read")
	}
	f, err := ingest.OpenSource(real, roots)
	var notRegular *ingest.NotRegularError
	switch {
	case errors.Is(err, ingest.ErrOutside):
		return errors.New("now a link that leads outside the source roots")
	case errors.As(err, &notRegular):
		return fmt.Errorf("now %s, not a regular file", fileKind(notRegular.Mode))
	case err != nil:
		return err
	}
	defer f.Close()
	switch {
	case f.Size != e.Size:
		return fmt.Errorf("%d bytes, the manifest records %d", f.Size, e.Size)
	case f.ModTime == e.ModTime:
		return nil
	}
	data, err := f.Read(e.Size)
	if err != nil {
		return err
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != e.SHA256 {
		return errors.New("other bytes")
	}
	return nil
}

// fileKind names what a non-regular file is, for messages.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a folder"
	}
	return "something else"
}

// sameManifest checks that the store's current generation, which has the
// view's number, is the view's generation: the same manifest digest.
func (v *View) sameManifest() error {
	snap := v.Snapshot()
	held, err := snap.ManifestDigest()
	if err != nil {
		return err
	}
	cur, err := store.OpenGeneration(v.s.cfg.Dir, snap.Generation())
	if err != nil {
		return docir.Errorf(docir.CodeSourceDrift, "generation %d can no longer be opened: %w", snap.Generation(), err)
	}
	defer cur.Close()
	d, err := cur.ManifestDigest()
	if err != nil {
		return err
	}
	if d != held {
		return docir.Errorf(docir.CodeSourceDrift, "the store's generation %d has manifest %s, not the held %s: the store was rebuilt", snap.Generation(), d, held)
	}
	return nil
}

// Status describes the view's generation.
func (v *View) Status(ctx context.Context) (docir.Status, error) {
	return v.s.Status(ctx)
}
