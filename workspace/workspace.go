// Package workspace is the service over one local store: it opens the
// current generation on first use (indexing first when sources are known but
// nothing is indexed yet), answers deep reads and skeleton reads from it, and
// runs refreshes. Every transport (the CLI, `docir serve` over NDJSON, HTTP
// and MCP) and the federation layer call the same methods here.
//
// It must not import cobra, viper or anything under cmd/; it receives plain
// structs. Subpackages hold the transports' shared session code.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/ingest"
)

// Config says where the store is and what feeds it.
type Config struct {
	Dir     string         // the store folder
	Sources []store.Source // the source roots, absolute
	Ingest  ingest.Options
	// AutoIndex makes the first read index the sources when the store has
	// no generation yet, so a new user needs no set-up step.
	AutoIndex bool
	// Notify, when set, receives one-line human messages (auto-indexing,
	// waiting on a lock); the CLI prints them on stderr.
	Notify func(msg string)
}

// Service answers reads from one local store. It is safe for concurrent use.
//
// Reads run on a view of one generation. Each read first checks which
// generation is current (one small file read) and moves to a newer one
// when a refresh, in this process or another, has published it; a view
// that reads still hold stays open until the last of them is done.
type Service struct {
	cfg Config

	mu  sync.Mutex
	cur *view // the newest generation opened; nil before the first read
}

// New returns a service over the store cfg names. It opens nothing yet.
func New(cfg Config) *Service {
	return &Service{cfg: cfg}
}

// Close releases the open generation, if any. Reads still running keep
// their view until they finish.
func (s *Service) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil {
		return nil
	}
	v := s.cur
	s.cur = nil
	return v.retire()
}

// Snapshot returns the current generation, opening it on first use (with
// AutoIndex and sources configured, an empty store is indexed first). The
// snapshot stays valid until the service moves to a newer generation;
// reads that may run beside a refresh go through acquire instead.
func (s *Service) Snapshot(ctx context.Context) (*store.Snapshot, error) {
	v, release, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	release()
	return v.snap, nil
}

// acquire returns the view of the current generation, held until release
// is called.
func (s *Service) acquire(ctx context.Context) (*view, func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil {
		snap, err := s.open(ctx)
		if err != nil {
			return nil, nil, err
		}
		s.cur = &view{snap: snap}
	} else if gen, err := store.CurrentGeneration(s.cfg.Dir); err == nil && gen != s.cur.snap.Generation() {
		// A newer generation is current: move to it. If it cannot be
		// opened (pruned in between, say), the held one still answers.
		if snap, err := store.OpenGeneration(s.cfg.Dir, gen); err == nil {
			old := s.cur
			s.cur = &view{snap: snap}
			_ = old.retire()
		}
	}
	v := s.cur
	v.refs++
	var once sync.Once
	return v, func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			_ = v.release()
		})
	}, nil
}

// open opens the current generation, indexing first when the store is
// empty, AutoIndex is on and there are sources. Called with s.mu held.
func (s *Service) open(ctx context.Context) (*store.Snapshot, error) {
	snap, err := store.Open(s.cfg.Dir)
	if docir.CodeOf(err) == docir.CodeNoStore && s.cfg.AutoIndex && len(s.cfg.Sources) > 0 {
		s.notify(fmt.Sprintf("docir: nothing indexed yet in %s; indexing %d source folder(s) first", s.cfg.Dir, len(s.cfg.Sources)))
		if _, err := s.refresh(ctx); err != nil {
			return nil, err
		}
		snap, err = store.Open(s.cfg.Dir)
	}
	if docir.CodeOf(err) == docir.CodeNoStore {
		return nil, &docir.Error{Code: docir.CodeNoStore, Message: fmt.Sprintf("no docir store in %s and no sources to index; run `docir index DIR`", s.cfg.Dir), Err: err}
	}
	return snap, err
}

func (s *Service) notify(msg string) {
	if s.cfg.Notify != nil {
		s.cfg.Notify(msg)
	}
}

// Refresh ingests the sources into a new generation if anything changed;
// the next read moves to it. Reads go on while it runs.
func (s *Service) Refresh(ctx context.Context) (docir.IndexSummary, error) {
	return s.refresh(ctx)
}

func (s *Service) refresh(ctx context.Context) (docir.IndexSummary, error) {
	opt := s.cfg.Ingest
	if opt.Wait == nil {
		opt.Wait = func() { s.notify("docir: waiting for another refresh of " + s.cfg.Dir + " to finish") }
	}
	return ingest.Refresh(ctx, s.cfg.Dir, s.cfg.Sources, opt)
}

// Resolution is the outcome of one address of a deep read.
type Resolution struct {
	Document *docir.Document // nil when it did not resolve
	Reason   string          // docir.Reason* when Document is nil
}

// Resolve reads each address from the current generation, in order. A
// malformed address never reaches here: callers parse first. A miss is data;
// an error means the store itself could not be read.
func (s *Service) Resolve(ctx context.Context, addrs []address.Address) ([]Resolution, error) {
	v, release, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	snap := v.snap
	out := make([]Resolution, len(addrs))
	for i, a := range addrs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		doc, reason, err := resolveOne(snap, a)
		if err != nil {
			return nil, err
		}
		out[i] = Resolution{Document: doc, Reason: reason}
	}
	return out, nil
}

func resolveOne(snap *store.Snapshot, a address.Address) (*docir.Document, string, error) {
	rec, body, ok, err := snap.Lookup(a.ID)
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, docir.ReasonNoDocument, nil
	}
	doc := &docir.Document{
		Address:    a.String(),
		ID:         rec.ID,
		Title:      rec.Title,
		Path:       rec.Path,
		Store:      docir.StoreLocal,
		Generation: snap.Generation(),
	}
	if !a.HasHeading() {
		doc.Body = string(body[min(rec.BodyStart, len(body)):])
		return doc, "", nil
	}
	sec, ok := rec.FindSection(a.Heading)
	if !ok {
		return nil, docir.ReasonNoSection, nil
	}
	if sec.End > len(body) || sec.Start > sec.End {
		return nil, "", fmt.Errorf("document %s: section %s out of range; the store is damaged, index again", rec.ID, sec.Slug)
	}
	doc.Section = &docir.SectionRef{Slug: sec.Slug, Heading: sec.Heading, Level: sec.Level}
	doc.Body = string(body[sec.Start:sec.End])
	return doc, "", nil
}

// Assemble turns resolutions into the `doc_ids` reply.
func Assemble(addrs []address.Address, res []Resolution) docir.GetResult {
	out := docir.GetResult{Documents: []docir.Document{}, Missing: []docir.Missing{}}
	for i, r := range res {
		if r.Document != nil {
			out.Documents = append(out.Documents, *r.Document)
		} else {
			out.Missing = append(out.Missing, docir.Missing{Address: addrs[i].String(), Reason: r.Reason})
		}
	}
	return out
}

// NotFound is the error of a single-address read that found nothing.
func NotFound(a address.Address, reason string) error {
	what := "no document " + a.ID
	if reason == docir.ReasonNoSection {
		what = "document " + a.ID + " has no section " + a.Heading
	} else if reason == docir.ReasonUnavailable {
		what = "no store that might hold " + a.ID + " could answer"
	}
	return &docir.Error{Code: docir.CodeNotFound, Message: fmt.Sprintf("%s: %s (%s)", a, what, reason), Err: errors.New(reason)}
}

// Status describes the local store's current generation.
func (s *Service) Status(ctx context.Context) (docir.Status, error) {
	v, release, err := s.acquire(ctx)
	if err != nil {
		return docir.Status{}, err
	}
	defer release()
	snap := v.snap
	n, err := snap.Count()
	if err != nil {
		return docir.Status{}, err
	}
	srcs, err := snap.Sources()
	if err != nil {
		return docir.Status{}, err
	}
	st := docir.Status{Store: s.cfg.Dir, Format: store.FormatVersion, Generation: snap.Generation(), Documents: n, Sources: []docir.SourceInfo{}}
	for _, src := range srcs {
		st.Sources = append(st.Sources, docir.SourceInfo{Path: src.Path, Prefix: src.Prefix})
	}
	return st, nil
}
