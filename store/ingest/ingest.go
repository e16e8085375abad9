// Package ingest refreshes a docir store from its source folders: it walks
// the roots, tells unchanged files from changed ones (size and mtime first,
// then the content digest), parses what changed with package markdown, and
// writes the next generation aside through store.Pending, body file and
// bleve index together, publishing it only when every write succeeded.
//
// It owns the id rule and the checks on outside files: only files whose
// real path lies under a source root are read (symbolic links included);
// reads cannot block or flood (non-blocking, fstat'ed, capped); each parse
// has a budget; .gitignore files and exclude patterns leave files out;
// oversized, binary and non-UTF-8 files are skipped with a warning naming
// the file; two files claiming one id fail the refresh, naming both. It is
// the only writer of a store. Diff and Stale tell, without reading files,
// what changed since the last refresh. docs/ingest.md has the rules.
package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/fulltext"
	"github.com/docir/docir/store/markdown"
	"github.com/docir/docir/store/passage"
)

// DefaultMaxFileBytes is the size cap on one markdown file; larger files are
// skipped with a warning.
const DefaultMaxFileBytes = 4 << 20

// DefaultRetain is how many generations a store keeps by default.
const DefaultRetain = 3

// Defaults of the parse budget of one file (markdown.DefaultLimits): far
// above what a page of documentation needs, low enough that a hostile
// 4 MiB file costs at most a few seconds of one core and about 100 MB.
const (
	DefaultParseTime   = 5 * time.Second // CPU time
	DefaultMaxHeadings = 10_000
	DefaultMaxBlocks   = 100_000
	DefaultMaxLines    = 200_000
)

// DropGuard is the least number of documents a store must hold before a
// refresh that would remove more than half of them needs Options.Force.
const DropGuard = 10

// Options tune a refresh. The zero value is usable.
type Options struct {
	// FrontMatter lists the front-matter fields the index holds as text
	// (nil: DefaultFrontMatter). A change of the list re-indexes every
	// document; the generation records the list, and searches of it use
	// the recorded one.
	FrontMatter []string
	// MaxFileBytes and Retain take 0 for their default; a negative value
	// fails Refresh and Diff (check), never stands for the default.
	MaxFileBytes int64 // 0: DefaultMaxFileBytes
	Retain       int   // 0: DefaultRetain
	// Links are the link rules (site base, ignore patterns; docs/links.md).
	// The generation records them; a change resolves every link again.
	Links store.LinkConfig

	// The parse budget of one file; a file over it is skipped with a
	// warning. 0: the default; a negative value: no limit.
	ParseTime   time.Duration // CPU time; 0: DefaultParseTime
	MaxHeadings int           // 0: DefaultMaxHeadings
	MaxBlocks   int           // 0: DefaultMaxBlocks
	MaxLines    int           // 0: DefaultMaxLines

	// AllowRoots are folders besides the source roots that symbolic links
	// under a source may lead into. A link whose real path lies under none
	// of them nor under a source root is skipped with a warning.
	AllowRoots []string
	// Exclude are patterns in .gitignore syntax, relative to each source
	// root, of files and folders to leave out. They win over .gitignore.
	Exclude []string
	// SourceExclude are more such patterns for one source each, by its
	// Path; they come after Exclude (a "!" negation in them can bring back
	// what Exclude left out).
	SourceExclude map[string][]string
	// NoGitignore turns off reading .gitignore files under the sources.
	NoGitignore bool
	// Force lets a refresh drop a source the store records, or remove
	// more than half of its documents (when it holds at least DropGuard).
	Force bool
	// FirstOnly makes the refresh a store's first index or nothing: when
	// the store has a generation once the refresh holds its lock (another
	// process published one since the caller looked), it is left as it
	// is, and Refresh returns at once, its summary's Generation that one
	// and Published false. A read that indexes a store with no generation
	// uses it, so that it reads what a concurrent `docir index` published
	// instead of refreshing that store with its own idea of the sources.
	FirstOnly bool

	// Progress, when set, is called as the refresh advances through its
	// stages ("reading" files, then "indexing" passages): done of total. It
	// is called from one goroutine.
	Progress func(stage string, done, total int)
	// Wait, when set, is called once if the store's refresh lock is held
	// (by another refresh, or by reads that hold refreshes off), with who
	// holds it.
	Wait func(by store.Holder)
	// BeforePublish, when set, is called once the refresh has succeeded,
	// just before it publishes (or, when nothing changed, before it
	// returns): the place for what must agree with the published
	// generation, such as the config that lists its sources. An error
	// fails the refresh, and nothing is published.
	BeforePublish func() error
}

func (o Options) withDefaults() Options {
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.Retain <= 0 {
		o.Retain = DefaultRetain
	}
	return o
}

// check refuses the options no refresh can honour: a negative Retain or
// MaxFileBytes (0 is the default; a caller that reads a config where 0
// is written refuses it there, where it knows the key was set).
func (o Options) check() error {
	if o.Retain < 0 {
		return docir.Errorf(docir.CodeConfig, "ingest: Retain %d: want the number of generations to keep, 1 or more (0: the default, %d)", o.Retain, DefaultRetain)
	}
	if o.MaxFileBytes < 0 {
		return docir.Errorf(docir.CodeConfig, "ingest: MaxFileBytes %d: want a size cap in bytes, 1 or more (0: the default, %d)", o.MaxFileBytes, DefaultMaxFileBytes)
	}
	return nil
}

// rulesVersion is markdown.RulesVersion: the version a refresh records
// and compares (a variable, so that a test can play an older docir).
var rulesVersion = markdown.RulesVersion

// settingsDigest is a digest of what in the options decides the index a
// refresh makes of the same files: the front-matter fields, the size cap,
// the link rules, the exclude patterns and .gitignore, the folders links
// may lead into, the parse budget (defaults filled in), the markdown
// rules (markdown.RulesVersion) and what the alias index holds
// (store.AliasIndexVersion). A refresh
// records it beside the generations (folderStateFile), and a read that
// finds another says that docir.yaml changed since (Stale). Retain,
// Force and the callbacks change no index, and are not in it.
func (o Options) settingsDigest() string {
	o = o.withDefaults()
	l := o.limits()
	b, err := json.Marshal(struct {
		FrontMatter   []string
		MaxFileBytes  int64
		Links         store.LinkConfig
		Exclude       []string
		SourceExclude map[string][]string
		NoGitignore   bool
		AllowRoots    []string
		Limits        markdown.Limits
		Rules         int
		AliasIndex    string
	}{o.passages().Fields(), o.MaxFileBytes, o.Links, o.Exclude, o.SourceExclude, o.NoGitignore, o.AllowRoots, l, rulesVersion, store.AliasIndexVersion})
	if err != nil {
		panic(fmt.Sprintf("ingest: settings digest: %v", err)) // plain values: cannot fail
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// passages is how the options cut a document into passages: the
// refresh's config, and the reading goroutines' (readOne).
func (o Options) passages() passage.Config {
	return passage.Config{FrontMatter: o.FrontMatter}
}

// limits is the markdown parse budget the options set.
func (o Options) limits() markdown.Limits {
	pick := func(v, def int) int {
		switch {
		case v < 0:
			return 0
		case v == 0:
			return def
		}
		return v
	}
	l := markdown.Limits{
		Time:     o.ParseTime,
		Headings: pick(o.MaxHeadings, DefaultMaxHeadings),
		Blocks:   pick(o.MaxBlocks, DefaultMaxBlocks),
		Lines:    pick(o.MaxLines, DefaultMaxLines),
	}
	switch {
	case l.Time < 0:
		l.Time = 0
	case l.Time == 0:
		l.Time = DefaultParseTime
	}
	return l
}

// Refresh brings the store in dir up to date with sources and returns what
// it did. It publishes a new generation only when a document was added,
// changed or removed, or the source list changed.
//
// It runs in two steps: a plan from a stat walk (which files are new,
// changed, unchanged, removed), then reading what changed, writing the next
// generation aside, checking its index, and publishing it. Any I/O error
// before publishing fails the refresh and publishes nothing. Publishing
// (the swap of CURRENT) is the commit point: what fails after it (pruning
// old generations, recording the folder state) is a KindCleanup warning,
// never the refresh's error.
//
// ctx is honoured throughout: a cancelled refresh publishes nothing,
// removes what it wrote aside, and returns ctx's error, within a second or
// two (the index batch under way ends first).
//
// A refresh that made the store (claimed a new or empty folder) and
// fails or is cancelled removes the store again, as it holds the lock:
// it leaves no trace (store.Claimed.Undo has the rule).
func Refresh(ctx context.Context, dir string, sources []store.Source, opt Options) (docir.IndexSummary, error) {
	r := &refresher{ctx: ctx, dir: dir, sources: sources, opt: opt.withDefaults(), start: time.Now(),
		sum: docir.IndexSummary{Warnings: []string{}, WarningCounts: map[string]int{}}}
	if err := opt.check(); err != nil {
		return r.sum, err
	}
	if err := checkSources(sources); err != nil {
		return r.sum, err
	}
	if err := ctx.Err(); err != nil {
		return r.sum, err
	}
	claim, unlock, err := lock(ctx, dir, opt.Wait)
	if err != nil {
		return r.sum, err
	}
	defer unlock()
	if opt.FirstOnly {
		if g, err := store.CurrentGeneration(dir); err == nil {
			r.sum.Generation = g
			r.sum.Seconds = time.Since(r.start).Seconds()
			return r.sum, nil
		} else if docir.CodeOf(err) != docir.CodeNoStore {
			return r.sum, errors.Join(err, claim.Undo())
		}
	}
	sum, err := r.run()
	if err != nil {
		// A first index that publishes nothing leaves no store behind:
		// what the claim made goes, under the lock (store.Claimed.Undo).
		err = errors.Join(err, claim.Undo())
	}
	return sum, err
}

// run is Refresh once the store is claimed and locked: plan, read, work
// out the edit, write and publish.
func (r *refresher) run() (docir.IndexSummary, error) {
	defer r.closePrev()
	dir, sources := r.dir, r.sources
	// Plan.
	if err := r.openPrev(); err != nil {
		return r.sum, err
	}
	if err := r.makePlan(); err != nil {
		return r.sum, err
	}
	// Read.
	if err := r.startStreaming(); err != nil {
		return r.sum, err
	}
	if err := r.read(); err != nil {
		return r.fail(err)
	}
	// Work out the edit.
	r.tally()
	r.wikilinkHint()
	if err := checkDrop(dir, r.prevDocs, r.change.Delete, r.opt.Force); err != nil {
		return r.fail(err)
	}
	if err := r.oldPassages(); err != nil {
		return r.sum, err
	}
	links := r.opt.Links.Normalize()
	roots := make([]string, len(sources))
	for i, s := range sources {
		roots[i] = s.Path
	}
	links.ReadmeFirst = store.PlainRepository(roots)
	changed, err := r.settingsChanged(links)
	if err != nil {
		return r.sum, err
	}
	if r.prev != nil && r.edits == 0 && !changed {
		return r.keep()
	}
	r.change.Sources = sources
	if r.change.Sources == nil {
		r.change.Sources = []store.Source{}
	}
	r.change.FrontMatter = slices.Clone(r.pc.Fields())
	r.change.ParseRules = rulesVersion
	r.change.StoreDir = realDir(r.dir)
	r.change.Links = &links
	// Write, then publish.
	if err := r.write(); err != nil {
		return r.fail(err)
	}
	return r.publish()
}

// partlyIndexed adds to f's warning what of it the index leaves out
// (passages past their bound, links past the record's): the file's one
// warning, of kind KindPartlyIndexed when it had none.
func (f *file) partlyIndexed(text string) { f.addWarning(KindPartlyIndexed, text) }

// addWarning adds text to f's one warning, which is of kind when it had
// none.
func (f *file) addWarning(kind, text string) {
	if f.warning == nil {
		f.warning = &warning{kind: kind, text: shown(f.path()) + ": " + text}
		return
	}
	f.warning.text += "; " + text
}

// filePassages cuts the record of the file f, read, into passages, and
// warns on f of those the index holds in part: a passage's first
// fulltext.MaxTextBytes are analyzed, no more.
func filePassages(pc passage.Config, f *file) []fulltext.Passage {
	ps := pc.Passages(&f.parsed.Record, f.body)
	var long []string
	for _, p := range ps {
		if len(p.Text) > fulltext.MaxTextBytes {
			long = append(long, p.ID)
		}
	}
	if len(long) > 0 {
		text := fmt.Sprintf("%d passage(s) over %d KiB (%s) are searchable by their first %d KiB only; split them with headings", len(long), fulltext.MaxTextBytes>>10, strings.Join(long[:min(3, len(long))], ", "), fulltext.MaxTextBytes>>10)
		f.partlyIndexed(text)
	}
	return ps
}

// beforePublish runs opt.BeforePublish, if any.
func beforePublish(opt Options) error {
	if opt.BeforePublish == nil {
		return nil
	}
	return opt.BeforePublish()
}

// cleanupWarning is the warning of a tidying step that failed past the
// point where the refresh succeeded: after the commit point (published), or
// after finding nothing to publish (the current generation stays). It
// says which, so that it never claims a publish that did not happen.
func cleanupWarning(published bool, what string, err error) warning {
	done := "published"
	if !published {
		done = "nothing to publish"
	}
	return warning{kind: KindCleanup, text: fmt.Sprintf("%s, but could not %s (the next refresh tries again): %v", done, what, err)}
}

// lock claims the store folder and takes its refresh lock
// (store.LockClaimed), giving up when ctx ends first.
func lock(ctx context.Context, dir string, wait func(store.Holder)) (store.Claimed, func() error, error) {
	type locked struct {
		claim  store.Claimed
		unlock func() error
		err    error
	}
	got := make(chan locked, 1)
	go func() {
		c, u, err := store.LockClaimed(dir, wait)
		got <- locked{c, u, err}
	}()
	select {
	case l := <-got:
		return l.claim, l.unlock, l.err
	case <-ctx.Done():
		// The lock may yet be granted to the goroutine: undo its claim
		// (nothing was published) and release it then.
		abandoned.Add(1)
		go func() {
			defer abandoned.Done()
			if l := <-got; l.err == nil {
				_ = l.claim.Undo()
				_ = l.unlock()
			}
		}()
		return store.Claimed{}, nil, ctx.Err()
	}
}

// abandoned counts the lock waits a cancelled refresh left behind (see
// lock): each takes the lock when it is let go, undoes its claim and lets
// it go. A test that removes the store folder waits for them first.
var abandoned sync.WaitGroup

// checkSourcesKept refuses, unless force, a refresh that drops a source the
// store records.
func checkSourcesKept(dir string, recorded, sources []store.Source, force bool) error {
	if force {
		return nil
	}
	for _, r := range recorded {
		if !slices.ContainsFunc(sources, func(s store.Source) bool { return s.Path == r.Path }) {
			return docir.Errorf(docir.CodeConfig, "the store %s holds sources %s; indexing %s would drop %s; add it to the sources, or use --force to replace them", dir, sourceList(recorded), sourceList(sources), r.Path)
		}
	}
	return nil
}

func sourceList(ss []store.Source) string {
	if len(ss) == 0 {
		return "[]"
	}
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = s.Path
		if s.Prefix != "" {
			parts[i] += " (prefix " + s.Prefix + ")"
		}
		if s.FrontMatterID != "" {
			parts[i] += " (front_matter_id " + s.FrontMatterID + ")"
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// checkDrop refuses, unless force, a refresh that removes more than half of
// the documents of a store of at least DropGuard: most often a mistake in
// the config (a prefix, an exclude pattern, a folder that is not mounted).
func checkDrop(dir string, had int, removed []string, force bool) error {
	if force || had < DropGuard || 2*len(removed) <= had {
		return nil
	}
	return docir.Errorf(docir.CodeConfig, "this refresh would remove %d of the %d documents in %s (%s, ...); check the sources, prefixes, front_matter_id and exclude patterns, or use --force if it is meant", len(removed), had, dir, strings.Join(removed[:min(3, len(removed))], ", "))
}

// writeIndex applies an incremental change to the pending generation's
// index (a clone of the previous one, whose count of passages its open
// checks): deletes first, so that a changed passage is replaced, then
// adds; then seals it (fulltext.Index.Seal), so that the generation
// publishes only an index whose disk holds what was written.
func writeIndex(ctx context.Context, path string, deletes []string, adds []fulltext.Passage, progress func(string, int, int)) error {
	ft, err := openOrCreate(path)
	if err != nil {
		return err
	}
	if err := ft.Apply(deletes, nil); err != nil {
		ft.Close()
		return err
	}
	// Index in slices of a few batches, so progress can be told and a
	// cancelled refresh stops soon.
	const slice = 4 * fulltext.BatchSize
	for done := 0; done < len(adds); {
		next := min(done+slice, len(adds))
		if err := ft.Apply(nil, adds[done:next]); err != nil {
			ft.Close()
			return err
		}
		done = next
		if progress != nil {
			progress("indexing", done, len(adds))
		}
		if err := ctx.Err(); err != nil {
			ft.Close()
			return err
		}
	}
	// A refresh that wrote most of the index anew (every file parsed again
	// after a change of the markdown rules or of front_matter) leaves it
	// as a build from scratch does, one segment (fulltext.Index.Compact):
	// else every later search reads each word in each of the segments its
	// batches made (21 at 192k documents: 1.11× a search's instructions).
	n, err := ft.Count()
	if err != nil {
		ft.Close()
		return err
	}
	if len(adds) > 0 && uint64(len(adds))*2 >= n {
		if err := ft.Compact(ctx); err != nil {
			ft.Close()
			return err
		}
	}
	return ft.Seal()
}

// writeBodies applies the change to the pending generation's body file, in
// transactions of bounded size.
func writeBodies(ctx context.Context, p *store.Pending, c store.Change) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	const perTx = 2000
	files := c.Files
	c.Files = nil
	for len(c.Put) > perTx {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := p.Apply(store.Change{Put: c.Put[:perTx]}); err != nil {
			return err
		}
		c.Put = c.Put[perTx:]
	}
	c.Files = files
	if err := ctx.Err(); err != nil {
		return err
	}
	return p.Apply(c)
}

// bodyStream writes the documents of a from-scratch build to the pending
// generation's body file as they are read, in transactions of bounded size
// on its own goroutine, so that a document's record and body are released
// once written. Nothing is published until the refresh succeeds: the
// generation is built aside.
type bodyStream struct {
	ctx   context.Context // once it ends, nothing more is written
	p     *store.Pending
	batch store.Change // being filled: documents and their file entries
	bytes int          // bodies in batch
	in    chan store.Change
	done  chan error
}

// A batch goes to the body file at bodyBatchDocs documents or
// bodyBatchBytes of bodies, whichever comes first: large enough that the
// transactions cost little, small enough to bound what is held (at most
// three batches: one filling, one queued, one being written).
const (
	bodyBatchDocs  = 2000
	bodyBatchBytes = 8 << 20
)

func startBodyStream(ctx context.Context, p *store.Pending) *bodyStream {
	s := &bodyStream{ctx: ctx, p: p, in: make(chan store.Change, 1), done: make(chan error, 1)}
	go s.run()
	return s
}

func (s *bodyStream) run() {
	var err error
	for batch := range s.in {
		if err == nil {
			err = s.ctx.Err()
		}
		if err != nil {
			continue // drain: the refresh has failed and will abort
		}
		// In key order: bbolt inserts into a page's sorted slice.
		slices.SortFunc(batch.Put, func(a, b store.PutDoc) int { return strings.Compare(a.Record.ID, b.Record.ID) })
		err = s.p.Apply(batch)
	}
	if err == nil {
		err = s.ctx.Err()
	}
	s.done <- err
}

// add queues one document and the file-table entry of its file, handing a full batch to the writer (waiting
// while it writes the one before); once the refresh is cancelled, it drops
// them.
func (s *bodyStream) add(d store.PutDoc, key string, e store.FileEntry) {
	if s.batch.Files == nil {
		s.batch.Files = make(map[string]*store.FileEntry, bodyBatchDocs)
	}
	s.batch.Put = append(s.batch.Put, d)
	s.batch.Files[key] = &e
	s.bytes += len(d.Body)
	if len(s.batch.Put) >= bodyBatchDocs || s.bytes >= bodyBatchBytes {
		s.flush()
	}
}

func (s *bodyStream) flush() {
	if len(s.batch.Put) == 0 {
		return
	}
	select {
	case s.in <- s.batch:
	case <-s.ctx.Done():
	}
	s.batch, s.bytes = store.Change{}, 0
}

// finish writes what is left and reports the first error.
func (s *bodyStream) finish() error {
	s.flush()
	close(s.in)
	return <-s.done
}

// streamIndex indexes passages on its own goroutine as they are handed to
// it, in slices of a few batches.
type streamIndex struct {
	ctx   context.Context // once it ends, nothing more is indexed
	ft    *fulltext.Index
	in    chan []fulltext.Passage
	ended bool // in is closed
	done  chan error
}

func startStreamIndex(ctx context.Context, path string) (*streamIndex, error) {
	ft, err := fulltext.Create(path)
	if err != nil {
		return nil, err
	}
	s := &streamIndex{ctx: ctx, ft: ft, in: make(chan []fulltext.Passage, 64), done: make(chan error, 1)}
	go s.run()
	return s, nil
}

func (s *streamIndex) run() {
	const slice = 4 * fulltext.BatchSize
	var buf []fulltext.Passage
	var err error
	for ps := range s.in {
		if err == nil {
			err = s.ctx.Err()
		}
		if err != nil {
			continue // drain: the refresh has failed and will abort
		}
		buf = append(buf, ps...)
		if len(buf) >= slice {
			// Whole batches only: the rest waits for the next slice
			// instead of making a small segment of its own, which would
			// put the index over the merge planner's budget (see
			// fulltext's mergePlan) and have it merged again at once.
			n := len(buf) - len(buf)%fulltext.BatchSize
			err = s.ft.Apply(nil, buf[:n])
			buf = append([]fulltext.Passage(nil), buf[n:]...)
		}
	}
	if err == nil {
		err = s.ctx.Err()
	}
	if err == nil && len(buf) > 0 {
		err = s.ft.Apply(nil, buf)
	}
	if err != nil {
		_ = s.ft.Close() // its error is err, again
		s.done <- err
		return
	}
	// A from-scratch index is one segment: see fulltext.Index.Compact.
	if err := s.ft.Compact(s.ctx); err != nil {
		_ = s.ft.Close()
		s.done <- err
		return
	}
	s.done <- s.ft.Seal()
}

// add hands passages to the index; once the refresh is cancelled, it
// drops them.
func (s *streamIndex) add(ps []fulltext.Passage) {
	select {
	case s.in <- ps:
	case <-s.ctx.Done():
	}
}

// end tells the index that no more passages come: it indexes what is
// left and closes. finish waits for that.
func (s *streamIndex) end() {
	if !s.ended {
		s.ended = true
		close(s.in)
	}
}

// finish indexes what is left, closes the index, and reports the first
// error.
func (s *streamIndex) finish() error {
	s.end()
	return <-s.done
}

func openOrCreate(path string) (*fulltext.Index, error) {
	if _, err := os.Stat(path); err == nil {
		return fulltext.Open(path, false)
	}
	return fulltext.Create(path)
}

func entry(f *file) store.FileEntry {
	return store.FileEntry{ID: f.id, Prefix: f.root.Prefix, Size: f.size, ModTime: f.mtime, Digest: f.digest}
}

func checkSources(sources []store.Source) error {
	seen := map[string]bool{}
	for _, s := range sources {
		if !filepath.IsAbs(s.Path) {
			return fmt.Errorf("source %q: path must be absolute", s.Path)
		}
		if seen[s.Path] {
			return docir.Errorf(docir.CodeConfig, "source %s is listed twice", s.Path)
		}
		seen[s.Path] = true
		if err := store.CheckSourceDir(s.Path); err != nil {
			return err
		}
		if err := CheckFrontMatterID(s.FrontMatterID); err != nil {
			return docir.Errorf(docir.CodeConfig, "source %s: %w", s.Path, err)
		}
		if err := CheckPrefix(s.Prefix); err != nil {
			return docir.Errorf(docir.CodeConfig, "source %s: %w", s.Path, err)
		}
	}
	return nil
}

func sameSources(a, b []store.Source) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// How a source reads a front-matter `id:` (store.Source.FrontMatterID).
const (
	// FrontMatterIDWhole: the `id:` is the whole id; the prefix is not put
	// before it (the default, also "").
	FrontMatterIDWhole = "whole"
	// FrontMatterIDName: the `id:` replaces the file's name, its folder and
	// the prefix kept, as Docusaurus reads it: guide/hello.md with
	// `id: part1` is guide/part1.
	FrontMatterIDName = store.FrontMatterIDName
	// FrontMatterIDOff: the `id:` is not read; ids come from paths only.
	FrontMatterIDOff = "off"
)

// CheckPrefix refuses an id prefix that is not an id ("a b", "../x", "a#b");
// "" (no prefix) passes. A trailing '/' is allowed.
func CheckPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	a, err := address.Parse(strings.TrimSuffix(prefix, "/"))
	if err == nil && a.HasHeading() {
		err = errors.New("'#' in an id prefix")
	}
	if err != nil {
		return fmt.Errorf("prefix %q is not a valid id prefix: %w", prefix, err)
	}
	return nil
}

// CheckFrontMatterID is nil when s is a front_matter_id value ("" is the
// default), else a config error naming it and the values.
func CheckFrontMatterID(s string) error {
	switch s {
	case "", FrontMatterIDWhole, FrontMatterIDName, FrontMatterIDOff:
		return nil
	}
	return docir.Errorf(docir.CodeConfig, "front_matter_id %q is not one of %s (the default: the `id:` is the whole id), %s (it replaces the file's name, as Docusaurus reads it), %s (ids from paths only)", s, FrontMatterIDWhole, FrontMatterIDName, FrontMatterIDOff)
}

// sameIDRule reports whether two front_matter_id values make the same ids
// ("" and "whole" are one).
func sameIDRule(a, b string) bool {
	return strings.TrimPrefix(a, FrontMatterIDWhole) == strings.TrimPrefix(b, FrontMatterIDWhole)
}

// documentID applies the id rule: the front matter's id when it is a valid
// document id (read as root.FrontMatterID says: the whole id, the file's
// name, or not at all), else the root's prefix and the path below the root
// without ".md", whitespace turned into '-', in Unicode normal form C (as
// address.Parse gives a typed address); a bundle's page (index.md or
// _index.md in a folder, as Hugo's page bundles and section pages are) has
// its folder's path. ok is false when no valid id results.
func documentID(root store.Source, rel, fmID string) (id, warning string, ok bool) {
	if fmID != "" && root.FrontMatterID != FrontMatterIDOff {
		a, err := address.Parse(fmID)
		switch {
		case err == nil && a.HasHeading():
			err = errors.New("'#' in an id")
		case err == nil && root.FrontMatterID == FrontMatterIDName && strings.Contains(a.ID, "/"):
			err = errors.New("'/' in an id read as a file's name (front_matter_id: name)")
		}
		switch {
		case err != nil:
			warning = fmt.Sprintf("front-matter id %q is not a valid document id; using the path", fmID)
		case root.FrontMatterID == FrontMatterIDName:
			rel = path.Join(path.Dir(rel), a.ID) + ".md"
		default:
			return a.ID, "", true
		}
	}
	id = address.Hyphenated(strings.TrimSuffix(rel, ".md"))
	p := strings.TrimSuffix(root.Prefix, "/")
	if folder, ok := BundleFolder(id); ok && (folder != "" || p != "") {
		// The root's own index.md is the prefix's page; with no prefix it
		// keeps its name (an empty id names nothing).
		id = folder
	}
	if p != "" {
		id = strings.TrimSuffix(p+"/"+id, "/")
	}
	// A '#' is told before the id is parsed: Parse reads what follows it
	// as a heading and would complain of what is left ("weird/" of
	// weird/#hash.md), or of an empty heading (c#/index.md).
	var a address.Address
	err := errors.New("'#' in the path")
	if !strings.Contains(id, "#") {
		a, err = address.Parse(id)
	}
	if err != nil {
		return "", strings.TrimPrefix(warning+"; ", "; ") + fmt.Sprintf("path gives no valid id (%v); set an id in the front matter", err), false
	}
	return a.ID, warning, true
}

// BundleFolder reports whether the path-derived id id (a path without
// ".md") names a bundle's page, index or _index, and returns its folder's
// path: "a/b/index" → "a/b"; "index" → "" (the root's). Such a document's
// id is its folder's; the id that names the page itself ("a/b/index")
// resolves to it too.
func BundleFolder(id string) (folder string, ok bool) {
	dir, base := "", id
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		dir, base = id[:i], id[i+1:]
	}
	if base != "index" && base != "_index" {
		return "", false
	}
	return dir, true
}
