// Package ingest refreshes a docir store from its source folders: it walks
// the roots, tells unchanged files from changed ones (size and mtime first,
// then the content digest), parses what changed with package markdown, and
// writes the next generation aside through store.Pending, body file and
// bleve index together, publishing it only when every write succeeded.
//
// It owns the id rule and the checks on outside files (size cap, binary and
// non-UTF-8 files are skipped with a warning naming the file; two files
// claiming one id fail the refresh, naming both). It is the only writer of a
// store.
package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/fulltext"
	"github.com/docir/docir/store/markdown"
)

// DefaultMaxFileBytes is the size cap on one markdown file; larger files are
// skipped with a warning.
const DefaultMaxFileBytes = 4 << 20

// DefaultRetain is how many generations a store keeps by default.
const DefaultRetain = 3

// Options tune a refresh. The zero value is usable.
type Options struct {
	MaxFileBytes int64 // 0: DefaultMaxFileBytes
	Retain       int   // 0: DefaultRetain
	// Progress, when set, is called as the refresh advances through its
	// stages ("reading" files, then "indexing" passages): done of total. It
	// is called from one goroutine.
	Progress func(stage string, done, total int)
	// Wait, when set, is called once if another refresh holds the store.
	Wait func()
}

// file is one markdown file found under a root.
type file struct {
	root  store.Source
	rel   string // '/'-separated, below root
	abs   string
	size  int64
	mtime int64
	key   string

	// filled while reading
	prev    *store.FileEntry
	status  status
	digest  [32]byte
	parsed  markdown.Parsed
	body    []byte
	id      string
	warning string
}

type status int

const (
	statusNew status = iota
	statusUnchanged
	statusTouched // stat changed, bytes did not
	statusChanged
	statusSkipped
)

// Refresh brings the store in dir up to date with sources and returns what
// it did. It publishes a new generation only when a document was added,
// changed or removed, or the source list changed.
func Refresh(ctx context.Context, dir string, sources []store.Source, opt Options) (docir.IndexSummary, error) {
	start := time.Now()
	if opt.MaxFileBytes <= 0 {
		opt.MaxFileBytes = DefaultMaxFileBytes
	}
	if opt.Retain <= 0 {
		opt.Retain = DefaultRetain
	}
	sum := docir.IndexSummary{Warnings: []string{}}
	if err := checkSources(sources); err != nil {
		return sum, err
	}

	unlock, err := store.Lock(dir, opt.Wait)
	if err != nil {
		return sum, err
	}
	defer unlock()

	prev, err := store.Open(dir)
	if err != nil && docir.CodeOf(err) != docir.CodeNoStore {
		return sum, err
	}
	var prevFiles map[string]store.FileEntry
	var prevSources []store.Source
	if prev != nil {
		defer prev.Close()
		if prevFiles, err = prev.Files(); err != nil {
			return sum, err
		}
		if prevSources, err = prev.Sources(); err != nil {
			return sum, err
		}
	}

	files, warnings, err := walk(sources)
	if err != nil {
		return sum, err
	}
	sum.Warnings = append(sum.Warnings, warnings...)
	for _, f := range files {
		if e, ok := prevFiles[f.key]; ok {
			f.prev = &e
		}
	}
	// From scratch there is nothing to delete first, so passages go to the
	// index while the files are still being read: parsing and indexing
	// share the cores instead of taking turns.
	var pending *store.Pending
	var early *streamIndex
	if prev == nil {
		// A from-scratch build allocates for seconds and keeps little; let
		// the heap grow to three times the live data between collections
		// (GOGC=200) unless the user set GOGC: on the 39k corpus, 10.0 →
		// 8.9 s for 470 → 690 MB peak.
		if os.Getenv("GOGC") == "" {
			defer debug.SetGCPercent(debug.SetGCPercent(200))
		}
		if pending, err = store.Begin(dir, nil); err != nil {
			return sum, err
		}
		if early, err = startStreamIndex(pending.FullTextPath()); err != nil {
			return sum, errors.Join(err, pending.Abort())
		}
	}
	fail := func(err error) (docir.IndexSummary, error) {
		if early != nil {
			err = errors.Join(err, early.finish())
		}
		if pending != nil {
			err = errors.Join(err, pending.Abort())
		}
		return sum, err
	}
	var parsed func(*file)
	if early != nil {
		parsed = func(f *file) {
			if f.status == statusNew {
				early.add(Passages(&f.parsed.Record, f.body))
			}
		}
	}
	if err := read(ctx, files, opt, parsed); err != nil {
		return fail(err)
	}

	// Tally, check ids, and work out the edit.
	seen := make(map[string]bool, len(files))
	owner := make(map[string]*file, len(files))
	var change store.Change
	change.Files = make(map[string]*store.FileEntry)
	var adds []fulltext.Passage
	var deletes []string
	for _, f := range files {
		if f.warning != "" {
			sum.Warnings = append(sum.Warnings, f.warning)
		}
		if f.status == statusSkipped {
			continue
		}
		seen[f.key] = true
		if other, dup := owner[f.id]; dup {
			return fail(docir.Errorf(docir.CodeSource, "two files claim the id %q: %s and %s", f.id, other.abs, f.abs))
		}
		owner[f.id] = f
	}
	for _, f := range files {
		switch f.status {
		case statusUnchanged:
			sum.Unchanged++
		case statusTouched:
			sum.Unchanged++
			e := entry(f)
			change.Files[f.key] = &e
		case statusNew, statusChanged:
			if f.status == statusNew {
				sum.Added++
			} else {
				sum.Changed++
			}
			e := entry(f)
			change.Files[f.key] = &e
			change.Put = append(change.Put, store.PutDoc{Record: f.parsed.Record, Body: f.body})
			if early == nil {
				adds = append(adds, Passages(&f.parsed.Record, f.body)...)
			}
		}
	}
	// What leaves: files gone (or now skipped), and the old version of every
	// changed file. Their old passages are deleted from the index first.
	for key, e := range prevFiles {
		if !seen[key] {
			change.Files[key] = nil
			if _, reused := owner[e.ID]; !reused {
				change.Delete = append(change.Delete, e.ID)
			}
			sum.Removed++
		}
	}
	for _, f := range files {
		if f.status == statusChanged && f.prev != nil && f.prev.ID != f.id {
			if _, reused := owner[f.prev.ID]; !reused {
				change.Delete = append(change.Delete, f.prev.ID)
			}
		}
	}
	if prev != nil {
		oldIDs := append([]string(nil), change.Delete...)
		for _, p := range change.Put {
			oldIDs = append(oldIDs, p.Record.ID)
		}
		for _, id := range oldIDs {
			rec, ok, err := prev.Record(id)
			if err != nil {
				return sum, err
			}
			if ok {
				for _, p := range Passages(&rec, nil) {
					deletes = append(deletes, p.ID)
				}
			}
		}
	}
	sort.Strings(change.Delete)
	sum.Documents = len(owner)

	sourcesChanged := !sameSources(prevSources, sources)
	if prev != nil && sum.Added+sum.Changed+sum.Removed == 0 && !sourcesChanged {
		sum.Generation = prev.Generation()
		sum.Seconds = time.Since(start).Seconds()
		return sum, nil
	}
	change.Sources = sources
	if change.Sources == nil {
		change.Sources = []store.Source{}
	}

	if early != nil {
		err := early.finish()
		early = nil
		if err != nil {
			return fail(err)
		}
	} else {
		if pending, err = store.Begin(dir, prev); err != nil {
			return sum, err
		}
		if err := writeIndex(ctx, pending.FullTextPath(), deletes, adds, opt.Progress); err != nil {
			return fail(err)
		}
	}
	if err := writeBodies(ctx, pending, change); err != nil {
		return fail(err)
	}
	if err := pending.Publish(opt.Retain); err != nil {
		return sum, err
	}
	sum.Generation = pending.Generation()
	sum.Published = true
	sum.Seconds = time.Since(start).Seconds()
	return sum, nil
}

// writeIndex applies an incremental change to the pending generation's
// index (a clone of the previous one): deletes first, so that a changed
// passage is replaced, then adds.
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
	return ft.Close()
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
		if err := p.Apply(store.Change{Put: c.Put[:perTx]}); err != nil {
			return err
		}
		c.Put = c.Put[perTx:]
	}
	c.Files = files
	return p.Apply(c)
}

// streamIndex indexes passages on its own goroutine as they are handed to
// it, in slices of a few batches.
type streamIndex struct {
	ft   *fulltext.Index
	in   chan []fulltext.Passage
	done chan error
}

func startStreamIndex(path string) (*streamIndex, error) {
	ft, err := fulltext.Create(path)
	if err != nil {
		return nil, err
	}
	s := &streamIndex{ft: ft, in: make(chan []fulltext.Passage, 64), done: make(chan error, 1)}
	go s.run()
	return s, nil
}

func (s *streamIndex) run() {
	const slice = 4 * fulltext.BatchSize
	var buf []fulltext.Passage
	var err error
	for ps := range s.in {
		if err != nil {
			continue // drain: the refresh has failed and will abort
		}
		buf = append(buf, ps...)
		if len(buf) >= slice {
			err = s.ft.Apply(nil, buf)
			buf = nil
		}
	}
	if err == nil && len(buf) > 0 {
		err = s.ft.Apply(nil, buf)
	}
	s.done <- errors.Join(err, s.ft.Close())
}

// add hands passages to the index.
func (s *streamIndex) add(ps []fulltext.Passage) { s.in <- ps }

// finish indexes what is left, closes the index, and reports the first
// error.
func (s *streamIndex) finish() error {
	close(s.in)
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
		if s.Prefix != "" {
			if _, err := address.Parse(strings.TrimSuffix(s.Prefix, "/")); err != nil {
				return docir.Errorf(docir.CodeConfig, "source %s: prefix %q is not a valid id prefix: %w", s.Path, s.Prefix, err)
			}
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

// read decides each file's status, reading and parsing the ones whose size
// or mtime changed, on every core. parsed, when set, is called with each
// file as it is read, from the calling goroutine.
func read(ctx context.Context, files []*file, opt Options, parsed func(*file)) error {
	var todo []*file
	for _, f := range files {
		if f.prev != nil && f.prev.Size == f.size && f.prev.ModTime == f.mtime && f.prev.Prefix == f.root.Prefix {
			f.status = statusUnchanged
			f.id = f.prev.ID
			f.digest = f.prev.Digest
			continue
		}
		todo = append(todo, f)
	}
	if len(todo) == 0 {
		return nil
	}
	work := make(chan *file)
	done := make(chan *file, len(todo))
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := markdown.NewParser()
			for f := range work {
				readOne(p, f, opt.MaxFileBytes)
				done <- f
			}
		}()
	}
	go func() {
		defer close(work)
		for _, f := range todo {
			select {
			case work <- f:
			case <-ctx.Done():
				return
			}
		}
	}()
	for n := range len(todo) {
		select {
		case f := <-done:
			if parsed != nil {
				parsed(f)
			}
		case <-ctx.Done():
			wg.Wait()
			return ctx.Err()
		}
		if opt.Progress != nil {
			opt.Progress("reading", n+1, len(todo))
		}
	}
	wg.Wait()
	return nil
}

func readOne(p *markdown.Parser, f *file, maxBytes int64) {
	skip := func(format string, args ...any) {
		f.status = statusSkipped
		f.warning = f.abs + ": skipped: " + fmt.Sprintf(format, args...)
	}
	if f.size > maxBytes {
		skip("%d bytes, over the %d-byte cap", f.size, maxBytes)
		return
	}
	body, err := os.ReadFile(f.abs)
	if err != nil {
		skip("%v", err)
		return
	}
	if int64(len(body)) > maxBytes {
		skip("%d bytes, over the %d-byte cap", len(body), maxBytes)
		return
	}
	f.size = int64(len(body))
	if bytes.IndexByte(body, 0) >= 0 {
		skip("binary file (NUL bytes)")
		return
	}
	if !utf8.Valid(body) {
		skip("not valid UTF-8")
		return
	}
	f.digest = sha256.Sum256(body)
	if f.prev != nil && f.prev.Digest == f.digest && f.prev.Prefix == f.root.Prefix {
		f.status = statusTouched
		f.id = f.prev.ID
		return
	}
	f.status = statusNew
	if f.prev != nil {
		f.status = statusChanged
	}
	f.parsed = p.Parse(f.rel, body)
	f.body = body
	var warn []string
	if f.parsed.Warning != "" {
		warn = append(warn, f.parsed.Warning)
	}
	id, idWarn, ok := documentID(f.root, f.rel, f.parsed.FrontMatterID)
	if idWarn != "" {
		warn = append(warn, idWarn)
	}
	if !ok {
		skip("%s", strings.Join(warn, "; "))
		return
	}
	if len(warn) > 0 {
		f.warning = f.abs + ": " + strings.Join(warn, "; ")
	}
	f.id = id
	rec := &f.parsed.Record
	rec.ID = id
	rec.Path = f.rel
	rec.Size = f.size
	rec.Digest = hex.EncodeToString(f.digest[:])
}

// documentID applies the id rule: the front matter's id when it is a valid
// document id, else the root's prefix and the path below the root without
// ".md", whitespace turned into '-'. ok is false when no valid id results.
func documentID(root store.Source, rel, fmID string) (id, warning string, ok bool) {
	if fmID != "" {
		a, err := address.Parse(fmID)
		if err == nil && !a.HasHeading() {
			return fmID, "", true
		}
		warning = fmt.Sprintf("front-matter id %q is not a valid document id; using the path", fmID)
	}
	id = strings.TrimSuffix(rel, ".md")
	id = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return '-'
		}
		return r
	}, id)
	if p := root.Prefix; p != "" {
		id = strings.TrimSuffix(p, "/") + "/" + id
	}
	a, err := address.Parse(id)
	if err != nil || a.HasHeading() {
		if err == nil {
			err = errors.New("'#' in the path")
		}
		return "", strings.TrimPrefix(warning+"; ", "; ") + fmt.Sprintf("path gives no valid id (%v); set an id in the front matter", err), false
	}
	return id, warning, true
}
