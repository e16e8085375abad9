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
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/render"
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
	// Stemming is the stemming searches use: "" none, "english" a query
	// word in its other English forms (fulltext.SetStemming). It changes
	// no index.
	Stemming string
	// Reload, when set, is called at the start of every refresh for the
	// sources and ingest options to index with, in place of Sources and
	// Ingest: a long-running server reads its configuration again, as a
	// refresh in a new process would. The refresh calls done once it has
	// published or failed (a lock on the configuration is let go there).
	// An error fails the refresh.
	Reload func(ctx context.Context) (s Settings, done func(), err error)
}

// Settings are what a refresh indexes, and how.
type Settings struct {
	Sources []store.Source
	Ingest  ingest.Options
}

// Service answers reads from one local store. It is safe for concurrent use.
//
// Reads run on a view of one generation. Each read through the Service
// first checks which generation is current (one small file read) and moves
// to a newer one when a refresh, in this process or another, has published
// it; a generation that reads still hold stays open until the last of them
// is done. Pin and Current return a View: an immutable view of one
// generation that never moves.
type Service struct {
	cfg Config
	st  *state
	// pin is set on the copy of a service that a View reads through: its
	// reads answer from that generation only.
	pin *view
}

// state is what a service and the views made from it share.
type state struct {
	mu       sync.Mutex
	cur      *view            // the newest generation opened; nil before the first read
	open     map[uint64]*view // every open generation, cur included
	stemming string           // Config.Stemming, for the views it opens
	// sources are the sources of the last refresh's settings (Config.Reload),
	// else Config.Sources; guarded by srcMu, not mu (a refresh runs
	// without mu).
	srcMu   sync.Mutex
	sources []store.Source
}

var _ docir.Reader = (*Service)(nil)

// New returns a service over the store cfg names. It opens nothing yet.
func New(cfg Config) *Service {
	return &Service{cfg: cfg, st: &state{open: map[uint64]*view{}, stemming: cfg.Stemming, sources: slices.Clone(cfg.Sources)}}
}

// Close releases the open generations. Reads still running, and views not
// yet closed, keep theirs until they finish.
func (s *Service) Close() error {
	st := s.st
	st.mu.Lock()
	defer st.mu.Unlock()
	var errs []error
	if v := st.cur; v != nil {
		st.cur = nil
		v.retired = true
		if v.refs == 0 {
			delete(st.open, v.snap.Generation())
			errs = append(errs, v.close())
		}
	}
	return errors.Join(errs...)
}

// release drops one hold on v; the last hold on a retired view closes it.
// Called with mu held.
func (st *state) release(v *view) error {
	v.refs--
	if v.retired && v.refs == 0 {
		if st.open[v.snap.Generation()] == v {
			delete(st.open, v.snap.Generation())
		}
		return v.close()
	}
	return nil
}

// ready opens the store's current generation if no read has yet (with
// AutoIndex and sources configured, an empty store is indexed first): an
// error says why the store cannot be read. It holds nothing; a read holds
// its generation with acquire, or a View.
func (s *Service) ready(ctx context.Context) error {
	_, release, err := s.acquire(ctx)
	if err != nil {
		return err
	}
	release()
	return nil
}

// Current returns a View of the current generation (opening the store on
// first use, as any read does). Close it when done.
func (s *Service) Current(ctx context.Context) (*View, error) {
	v, _, err := s.acquire(ctx) // the View keeps the hold
	if err != nil {
		return nil, err
	}
	return s.viewOf(v), nil
}

// Pin returns a View of generation revision, which must still be retained
// by the store: a generation that was pruned (or never published) is a
// stale_revision error naming the generations that are retained. Close the
// view when done.
func (s *Service) Pin(ctx context.Context, revision uint64) (*View, error) {
	if s.pin != nil {
		if s.pin.snap.Generation() != revision {
			return nil, docir.Errorf(docir.CodeStaleRevision, "this view reads generation %d, not %d", s.pin.snap.Generation(), revision)
		}
	}
	if revision == 0 {
		return nil, docir.Errorf(docir.CodeInvalidParams, "generation 0: generations are numbered from 1")
	}
	st := s.st
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if v := st.open[revision]; v != nil {
		v.refs++
		return s.viewOf(v), nil
	}
	snap, err := store.OpenGeneration(s.cfg.Dir, revision)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, s.notRetained(revision)
		}
		return nil, err
	}
	v := &view{snap: snap, stemming: st.stemming, refs: 1, retired: true} // closed with its last hold
	st.open[revision] = v
	return s.viewOf(v), nil
}

// Hold returns a View of generation revision, or of the current one when
// revision is 0.
func (s *Service) Hold(ctx context.Context, revision uint64) (*View, error) {
	if revision == 0 {
		return s.Current(ctx)
	}
	return s.Pin(ctx, revision)
}

// notRetained is the stale_revision error of a pin on a generation the
// store does not hold.
func (s *Service) notRetained(revision uint64) error {
	cur, err := store.CurrentGeneration(s.cfg.Dir)
	if err != nil {
		return err
	}
	if revision > cur {
		// Store state, as a pruned one is: a schema cannot know it, so it
		// is not invalid_params (which says the request's shape is wrong).
		return docir.Errorf(docir.CodeStaleRevision, "generation %d is not retained by the store in %s (current: %d): no refresh has made it yet", revision, s.cfg.Dir, cur)
	}
	// How many a refresh keeps is the config's of the process that
	// refreshed, not necessarily this service's: named, not counted.
	return docir.Errorf(docir.CodeStaleRevision, "generation %d is not retained by the store in %s (current: %d; a refresh keeps the newest few: retain in docir.yaml, %d by default)", revision, s.cfg.Dir, cur, ingest.DefaultRetain)
}

// viewOf wraps a held generation as a View.
func (s *Service) viewOf(v *view) *View {
	return &View{s: &Service{cfg: s.cfg, st: s.st, pin: v}}
}

// acquire returns the view a read answers from, held until release is
// called: the pinned generation on a View's service, else the current one.
func (s *Service) acquire(ctx context.Context) (*view, func(), error) {
	st := s.st
	st.mu.Lock()
	defer st.mu.Unlock()
	v := s.pin
	if v == nil {
		var err error
		if v, err = s.current(ctx); err != nil {
			return nil, nil, err
		}
	}
	v.refs++
	var once sync.Once
	return v, func() {
		once.Do(func() {
			st.mu.Lock()
			defer st.mu.Unlock()
			_ = st.release(v)
		})
	}, nil
}

// current returns the newest generation, opening the store on first use
// and moving to a generation published since. Called with mu held.
func (s *Service) current(ctx context.Context) (*view, error) {
	st := s.st
	if st.cur == nil {
		snap, err := s.open(ctx)
		if err != nil {
			return nil, err
		}
		st.cur = st.adopt(snap)
		return st.cur, nil
	}
	gen, err := store.CurrentGeneration(s.cfg.Dir)
	if err != nil || gen == st.cur.snap.Generation() {
		return st.cur, nil
	}
	// A newer generation is current: move to it. If it cannot be opened
	// (pruned in between, say), the held one still answers.
	next := st.open[gen]
	if next == nil {
		snap, err := store.OpenGeneration(s.cfg.Dir, gen)
		if err != nil {
			return st.cur, nil
		}
		next = st.adopt(snap)
	}
	next.retired = false
	old := st.cur
	st.cur = next
	old.retired = true
	if old.refs == 0 {
		delete(st.open, old.snap.Generation())
		_ = old.close()
	}
	return st.cur, nil
}

// adopt records a newly opened generation, or, when a pin opened the same
// generation already, keeps that one and closes snap. Called with mu held.
func (st *state) adopt(snap *store.Snapshot) *view {
	if v := st.open[snap.Generation()]; v != nil {
		_ = snap.Close()
		v.retired = false
		return v
	}
	v := &view{snap: snap, stemming: st.stemming}
	st.open[snap.Generation()] = v
	return v
}

// open opens the current generation, indexing first when the store is
// empty, AutoIndex is on and there are sources. Called with mu held.
func (s *Service) open(ctx context.Context) (*store.Snapshot, error) {
	snap, err := store.Open(s.cfg.Dir)
	if docir.CodeOf(err) == docir.CodeNoStore && s.cfg.AutoIndex && len(s.cfg.Sources) > 0 {
		s.notify(fmt.Sprintf("docir: nothing indexed yet in %s; indexing %d source folder(s) first", s.cfg.Dir, len(s.cfg.Sources)))
		if _, err := s.refreshReporting(ctx, nil, true); err != nil { // another process's first generation stands
			return nil, err
		}
		snap, err = store.Open(s.cfg.Dir)
	}
	if docir.CodeOf(err) == docir.CodeNoStore {
		why := "no sources to index"
		if len(s.cfg.Sources) > 0 {
			why = "nothing indexed yet"
		}
		return nil, &docir.Error{Code: docir.CodeNoStore, Message: fmt.Sprintf("no docir store in %s (%s); run `docir index DIR`", s.cfg.Dir, why), Err: err}
	}
	return snap, err
}

// waitNote tells the user what a refresh waits for: another refresh, or
// a read that holds refreshes off (docir get --require-current).
func (s *Service) waitNote(by store.Holder) {
	s.notify("docir: waiting for " + by.String() + " of " + s.cfg.Dir + " to finish")
}

func (s *Service) notify(msg string) {
	if s.cfg.Notify != nil {
		s.cfg.Notify(msg)
	}
}

// Refresh ingests the sources into a new generation if anything changed;
// the next read moves to it. Reads go on while it runs.
func (s *Service) Refresh(ctx context.Context) (docir.IndexSummary, error) {
	if s.pin != nil {
		return docir.IndexSummary{}, docir.Errorf(docir.CodeInternal, "a view of generation %d cannot refresh", s.pin.snap.Generation())
	}
	return s.refresh(ctx)
}

func (s *Service) refresh(ctx context.Context) (docir.IndexSummary, error) {
	return s.refreshReporting(ctx, nil, false)
}

// RefreshFirst is a store's first index, for a read (or a server) that
// finds no generation: when another process has published one by the time
// the refresh holds the store's lock, that one stands, and the summary says
// so (Published false, its Generation), whatever sources this service
// would have indexed (ingest.Options.FirstOnly). report, when not nil, is
// told each step (beside the configured progress callback: a server's
// background index shows it to hosts).
func (s *Service) RefreshFirst(ctx context.Context, report func(stage string, done, total int)) (docir.IndexSummary, error) {
	if s.pin != nil {
		return docir.IndexSummary{}, docir.Errorf(docir.CodeInternal, "a view of generation %d cannot refresh", s.pin.snap.Generation())
	}
	return s.refreshReporting(ctx, report, true)
}

func (s *Service) refreshReporting(ctx context.Context, report func(stage string, done, total int), firstOnly bool) (docir.IndexSummary, error) {
	set, done, err := s.settings(ctx)
	if err != nil {
		return docir.IndexSummary{}, err
	}
	defer done()
	opt := set.Ingest
	if prev := opt.Progress; report != nil {
		opt.Progress = func(stage string, done, total int) {
			report(stage, done, total)
			if prev != nil {
				prev(stage, done, total)
			}
		}
	}
	if opt.Wait == nil {
		opt.Wait = s.waitNote
	}
	opt.FirstOnly = firstOnly
	return ingest.Refresh(ctx, s.cfg.Dir, set.Sources, opt)
}

// settings are what a refresh indexes: Config.Reload's answer, which the
// service's Sources then report, else the configured ones.
func (s *Service) settings(ctx context.Context) (Settings, func(), error) {
	if s.cfg.Reload == nil {
		return Settings{Sources: s.cfg.Sources, Ingest: s.cfg.Ingest}, func() {}, nil
	}
	set, done, err := s.cfg.Reload(ctx)
	if err != nil {
		return Settings{}, nil, err
	}
	s.st.srcMu.Lock()
	s.st.sources = slices.Clone(set.Sources)
	s.st.srcMu.Unlock()
	return set, done, nil
}

// Sources are the source folders the service indexes: those of the last
// refresh when Config.Reload reads them again.
func (s *Service) Sources() []store.Source {
	s.st.srcMu.Lock()
	defer s.st.srcMu.Unlock()
	return slices.Clone(s.st.sources)
}

// Resolve reads each address from the generation the read holds, in
// order. A malformed address never reaches here: callers parse first. A
// miss is data; an error means the store itself could not be read. It
// stops, with reply_too_large, as soon as the documents and misses
// gathered pass maxBytes (<= 0: no bound; docir.Tally), so that a long list
// of addresses that name nothing is bounded as one of documents is.
func (s *Service) Resolve(ctx context.Context, addrs []address.Address, maxBytes int) (docir.Resolved, error) {
	v, release, err := s.acquire(ctx)
	if err != nil {
		return docir.Resolved{}, err
	}
	defer release()
	snap := v.snap
	out := make([]docir.Resolution, len(addrs))
	tally := &docir.Tally{Bound: maxBytes}
	docs := newDocCache(snap, true)
	sugg := newSuggester(snap)
	var warnings []string
	for i, a := range addrs {
		if err := ctx.Err(); err != nil {
			return docir.Resolved{}, err
		}
		doc, reason, err := resolveOne(snap, docs, a)
		if err != nil {
			return docir.Resolved{}, err
		}
		if doc != nil {
			if w := sugg.sameHeading(docs, a, doc); w != "" {
				warnings = append(warnings, w)
			}
			if err := tally.Add(doc, i+1, len(addrs)); err != nil {
				return docir.Resolved{}, err
			}
			out[i] = docir.Resolution{Document: doc}
			continue
		}
		out[i] = docir.Resolution{Reason: reason}
		if out[i].Suggestions, err = sugg.forMiss(a, reason); err != nil {
			return docir.Resolved{}, err
		}
		if w := sugg.unread(s.Sources, a, reason); w != "" {
			warnings = append(warnings, w)
		}
		if err := tally.AddMiss(a.String(), reason, out[i].Suggestions, i+1, len(addrs)); err != nil {
			return docir.Resolved{}, err
		}
	}
	return docir.Resolved{Items: out, Warnings: warnings}, nil
}

// sameHeading says, when a names a section by its heading text and other
// sections of the document are headed the same ("Kubernetes CRD Provider"
// under each release of a migration guide), which one was read and the
// slugs that name the others; else "". A slug names one section: a read
// by slug says nothing, nor one by another anchor of the section (an HTML
// id, a heading inside a list item). Only the first maxSuggested distinct addresses
// are told, so a read's warnings stay bounded as its misses are.
func (s *suggester) sameHeading(docs *docCache, a address.Address, doc *docir.Document) string {
	// By slug, or by an anchor of the section (an HTML id, a list item's
	// heading), says nothing; a heading whose text is its slug
	// (`#### ebs_config`) is read by its text too, and says so.
	if doc.Section == nil || a.Heading == doc.Section.Slug && a.Heading != doc.Section.Heading ||
		address.Slug(a.Heading) != address.Slug(doc.Section.Heading) || !s.first(a.String()) {
		return ""
	}
	d, err := docs.get(a.ID)
	if err != nil || !d.ok {
		return ""
	}
	var others []string
	n, cased := 0, false
	slug := address.Slug(doc.Section.Heading)
	for _, sec := range d.rec.Sections {
		// The same heading, or the same in another case ("Interface
		// definition" beside "Interface Definition": the OpenTelemetry
		// spec), which a heading typed in another case may mean.
		if sec.Slug != doc.Section.Slug && (sec.Heading == doc.Section.Heading || address.Slug(sec.Heading) == slug) {
			cased = cased || sec.Heading != doc.Section.Heading
			if n++; len(others) < maxSameHeading {
				others = append(others, "#"+sec.Slug)
			}
		}
	}
	if n == 0 {
		return ""
	}
	if n > len(others) {
		others = append(others, fmt.Sprintf("and %d more", n-len(others)))
	}
	headed := fmt.Sprintf("%q", doc.Section.Heading)
	if cased {
		headed += " (in one case or another)"
	}
	return fmt.Sprintf("%s: %d sections are headed %s; this read is #%s; the others are %s (a slug names one section)",
		a, n+1, headed, doc.Section.Slug, strings.Join(others, ", "))
}

// maxSameHeading bounds the other sections sameHeading names.
const maxSameHeading = 5

// unread says, for a no_document miss of one of the first maxSuggested
// distinct addresses, that a file of the sources would have its id were
// it read (ingest.UnreadFile: docs/charts.mdx for "docs/charts"), or "".
func (s *suggester) unread(sources func() []store.Source, a address.Address, reason string) string {
	if reason != docir.ReasonNoDocument || !s.first("unread "+a.ID) {
		return ""
	}
	for _, src := range sources() {
		if f := ingest.UnreadFile(src, a.ID); f != "" {
			if rel, err := filepath.Rel(src.Path, f); err == nil {
				f = filepath.ToSlash(rel) // the server's folders are not the reader's
			}
			if !ingest.IsMarkdownExt(filepath.Ext(f)) {
				return fmt.Sprintf("%s: the file %s of a source is not read: docir reads markdown, *.md files, only (docs/ingest.md)", a.ID, f)
			}
			return fmt.Sprintf("%s: the file %s of a source is not read: docir reads *.md files only (rename it to .md, or leave it out with exclude; docs/ingest.md)", a.ID, f)
		}
	}
	return ""
}

// first says whether key is new to this read and within the first
// maxSuggested keys it has asked about (warnings beside its misses and
// reads: one each, and a few in all).
func (s *suggester) first(key string) bool {
	if s.said[key] || len(s.said) >= maxSuggested {
		return false
	}
	if s.said == nil {
		s.said = map[string]bool{}
	}
	s.said[key] = true
	return true
}

// suggester gives the misses of one read their suggestions: the nearest
// ids for no_document, the nearest sections of the document for
// no_section (none for another reason). Each costs a scan of the ids, so
// only the first maxSuggested distinct addresses that miss get them, each
// looked up once: a repeat of one of those carries the same suggestions
// without a second scan, a repeat of any other carries none.
type suggester struct {
	snap *store.Snapshot
	seen map[address.Address][]string // at most maxSuggested
	said map[string]bool              // what unread and sameHeading have told of (see first): at most maxSuggested
}

func newSuggester(snap *store.Snapshot) *suggester {
	return &suggester{snap: snap, seen: map[address.Address][]string{}}
}

// forMiss returns the suggestions of a miss of a with reason.
func (s *suggester) forMiss(a address.Address, reason string) ([]string, error) {
	if reason != docir.ReasonNoDocument && reason != docir.ReasonNoSection {
		return nil, nil
	}
	if got, ok := s.seen[a]; ok || len(s.seen) >= maxSuggested {
		return got, nil
	}
	var got []string
	var err error
	if reason == docir.ReasonNoDocument {
		got, err = Suggest(s.snap, a, 3)
	} else {
		got, err = SuggestSections(s.snap, a, 3)
	}
	if err != nil {
		return nil, err
	}
	s.seen[a] = got
	return got, nil
}

// maxSuggested bounds the distinct addresses of one read that get
// suggestions: each costs a scan of the ids.
const maxSuggested = 5

// resolveOne reads address a, its document from docs (decoded once per
// read).
func resolveOne(snap *store.Snapshot, docs *docCache, a address.Address) (*docir.Document, string, error) {
	d, err := docs.get(a.ID)
	if err != nil {
		return nil, "", err
	}
	if !d.ok {
		return nil, docir.ReasonNoDocument, nil
	}
	rec, body := &d.rec, d.body
	doc := &docir.Document{
		Address:    a.String(),
		ID:         rec.ID,
		Title:      rec.Title,
		Path:       rec.Path,
		Store:      docir.StoreLocal,
		Generation: snap.Generation(),
	}
	var sec *docir.Section // nil: the document
	if a.HasHeading() {
		var ok bool
		if sec, ok, err = d.findSection(snap, a.Heading); err != nil {
			return nil, "", err
		} else if !ok {
			return nil, docir.ReasonNoSection, nil
		}
	}
	if sec == nil {
		doc.Body = string(body[min(rec.BodyStart, len(body)):])
		return doc, "", nil
	}
	if sec.End > len(body) || sec.Start > sec.End {
		return nil, "", fmt.Errorf("document %s: section %s out of range; the store is damaged, index again", rec.ID, sec.Slug)
	}
	doc.Section = &docir.SectionRef{Slug: sec.Slug, Heading: sec.Heading, Level: sec.Level}
	doc.Body = string(body[sec.Start:sec.End])
	md := min(rec.MarkdownStart, sec.Start) // front matter is no markdown
	doc.Definitions = render.Definitions(string(body[md:]), sec.Start-md, sec.End-md)
	return doc, "", nil
}

// lookupBundlePage reads the document a bundle's page is by the name of
// its file, "a/b/index" or "a/b/_index" (ids were so before store format
// 7): the document of its folder, "a/b", when that document is the file
// a/b/index.md (or _index.md).
func lookupBundlePage(snap *store.Snapshot, id string) (docir.Record, []byte, bool, error) {
	folder, ok := ingest.BundleFolder(id)
	if !ok || folder == "" {
		return docir.Record{}, nil, false, nil
	}
	rec, body, ok, err := snap.Lookup(folder)
	if err != nil || !ok || path.Base(rec.Path) != path.Base(id)+".md" {
		return docir.Record{}, nil, false, err
	}
	return rec, body, true, nil
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
		st.Sources = append(st.Sources, docir.SourceInfo{Path: src.Path, Prefix: src.Prefix, FrontMatterID: src.FrontMatterID})
	}
	return st, nil
}
