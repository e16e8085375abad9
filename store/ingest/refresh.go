package ingest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/fulltext"
	"github.com/docir/docir/store/passage"
)

// refresher is one run of Refresh, step by step: plan (a stat walk against
// the current generation), read (parse what changed; from scratch, written
// as it is read), edit (what the next generation puts and deletes), write
// (the generation aside) and publish. Each step leaves in it what the next
// one takes.
type refresher struct {
	ctx     context.Context
	dir     string
	sources []store.Source
	opt     Options
	start   time.Time
	sum     docir.IndexSummary

	// prev is the current generation, nil for a new store. It is closed
	// before the new generation is published: a reader's hold (this one's
	// too) keeps prune off a generation.
	prev        *store.Snapshot
	prevSources []store.Source
	prevDocs    int
	// moves maps the recorded source paths to the configured ones when
	// the project moved as a whole (movedRoots); rekeyed maps the key a
	// moved file has now to the one the file table holds (movedTable).
	moves   map[string]string
	rekeyed map[string]string
	// prevRules: the markdown rules prev's records were made by.
	prevRules int

	walked *walkResult
	pc     passage.Config
	plan   plan

	// From scratch, documents go to the generation aside as they are
	// read: its index (early) and its body file (bodies). Both are nil
	// once the write step has taken them.
	pending *store.Pending
	early   *streamIndex
	bodies  *bodyStream
	// streamed: documents were written as they were read, so the edit
	// holds neither their records and bodies nor their passages.
	streamed bool

	// edits counts the files read as new or changed and the files gone:
	// with none, and no setting changed, nothing is published. The
	// summary counts documents by id instead (tally, oldPassages).
	edits int
	// wiki and links count the wikilinks and the other links of the
	// files read (wikilinkHint).
	wiki, links int
	change      store.Change
	adds        []fulltext.Passage // passages to index (not streamed)
	deletes     []string           // passage ids to delete from the index
}

func (r *refresher) warn(wn warning) {
	r.sum.Warnings = append(r.sum.Warnings, wn.text)
	r.sum.WarningCounts[wn.kind]++
}

func (r *refresher) closePrev() {
	if r.prev != nil {
		_ = r.prev.Close()
		r.prev = nil
	}
}

// fail removes what the refresh wrote aside, then returns err: once
// Refresh returns, nothing of a failed or cancelled refresh is left.
func (r *refresher) fail(err error) (docir.IndexSummary, error) {
	if r.early != nil {
		err = errors.Join(err, r.early.finish())
	}
	if r.bodies != nil {
		err = errors.Join(err, r.bodies.finish())
	}
	if r.pending != nil {
		err = errors.Join(err, r.pending.Abort())
	}
	if r.ctx.Err() != nil {
		return r.sum, r.ctx.Err()
	}
	return r.sum, err
}

// openPrev opens the current generation, if any, and checks that the
// sources it records are kept (or opt.Force).
func (r *refresher) openPrev() error {
	if err := store.Tidy(r.dir, folderStateFile, skippedStateFile); err != nil {
		return err
	}
	prev, err := store.Open(r.dir)
	if err != nil && docir.CodeOf(err) != docir.CodeNoStore {
		return err
	}
	if prev == nil {
		return nil
	}
	r.prev = prev
	if r.prevSources, err = prev.Sources(); err != nil {
		return err
	}
	if r.prevDocs, err = prev.Count(); err != nil {
		return err
	}
	// A project that moved as a whole keeps its sources under new paths.
	was, err := storeWasOf(prev)
	if err != nil {
		return err
	}
	r.moves = movedRoots(r.dir, was, r.prevSources, r.sources)
	return checkSourcesKept(r.dir, r.prevSources, r.sources, r.opt.Force || r.moves != nil)
}

// makePlan walks the sources and sorts what it found against the current
// generation's file table: every file is read again when the front-matter
// list changed, or the current generation's records were made by other
// markdown rules (markdown.RulesVersion) than this docir's; a source's
// files are when its front_matter_id changed.
func (r *refresher) makePlan() error {
	var err error
	if r.walked, err = walk(r.ctx, r.sources, r.opt); err != nil {
		return err
	}
	r.sum.Ignored = r.walked.ignored
	for _, wn := range r.walked.warnings {
		r.warn(wn)
	}
	r.pc = r.opt.passages()
	var prevFiles fileTable
	reparse := false
	if r.prev != nil {
		prevFiles = r.prev.EachFileFrom
		if r.moves != nil {
			var err error
			if prevFiles, r.rekeyed, err = movedTable(prevFiles, r.moves); err != nil {
				return err
			}
		}
		recorded, ok, err := r.prev.FrontMatter()
		if err != nil {
			return err
		}
		if !ok {
			recorded = passage.DefaultFrontMatter
		}
		if r.prevRules, err = r.prev.ParseRules(); err != nil {
			return err
		}
		reparse = !slices.Equal(recorded, r.pc.Fields()) || r.prevRules != rulesVersion
		if r.moves == nil { // a move keeps each source's rule (movedRoots)
			rereadIDRuleChanged(r.walked.files, r.prevSources)
		}
	}
	r.plan, err = makePlan(r.walked.files, prevFiles, reparse, fileCap(r.opt))
	for i, g := range r.plan.removed {
		if old, ok := r.rekeyed[g.key]; ok {
			r.plan.removed[i].key = old // the table holds it under its old root
		}
	}
	return err
}

// startStreaming begins the generation aside when the store is new: from
// scratch there is nothing to delete first, so passages go to the index
// while the files are still being read, and parsing and indexing share
// the cores instead of taking turns.
func (r *refresher) startStreaming() error {
	if r.prev != nil {
		return nil
	}
	// The collector runs at Go's default (GOGC=100): GOGC=200 once
	// bought ~10% of wall time, but with documents streamed to disk
	// the live heap is small and GOGC=200 costs a third more peak RSS
	// (tldr 38k: 166 → 229 MiB) for no measurable CPU.
	var markdown int64
	for _, f := range r.plan.toRead {
		markdown += f.size
	}
	var err error
	if r.pending, err = store.BeginSized(r.dir, nil, markdown); err != nil {
		return err
	}
	if r.early, err = startStreamIndex(r.ctx, r.pending.FullTextPath()); err != nil {
		return errors.Join(err, r.pending.Abort())
	}
	r.bodies = startBodyStream(r.ctx, r.pending)
	r.streamed = true
	return nil
}

// read parses the files the plan must read; from scratch, each new
// document goes to the generation aside as soon as it is parsed, and
// neither its passages nor its record and body are kept past that.
func (r *refresher) read() error {
	var parsed func(*file)
	if r.streamed {
		parsed = func(f *file) {
			if f.status == statusNew {
				r.early.add(f.passages)
				r.bodies.add(store.PutDoc{Record: f.parsed.Record, Body: f.body, Pairs: f.pairs}, f.key(), entry(f))
				f.parsed, f.body, f.passages, f.pairs = nil, nil, nil, nil
			}
		}
	}
	return read(r.ctx, r.plan.toRead, r.plan.owner, r.opt, r.walked.roots, parsed)
}

// wikilinkHint says, when the files this refresh read hold more
// wikilinks than other links and links.wikilinks is off, that the corpus
// reads as a vault whose links are unchecked, and what resolves them: a
// vault without its .obsidian/ folder (a copy of its notes) is not told
// apart otherwise.
func (r *refresher) wikilinkHint() {
	if r.opt.Links.Wikilinks || r.wiki == 0 || r.wiki <= r.links {
		return
	}
	r.warn(warning{kind: KindWikilinks, text: fmt.Sprintf("the files read hold %d [[wikilinks]] and %d other links: a vault's, whose wikilinks are unchecked while links.wikilinks is off; links: {wikilinks: true} in docir.yaml resolves them as Obsidian does (docs/links.md)", r.wiki, r.links)})
}

// tally counts what the walk and the read found and works out the edit:
// the files and documents to put, and the documents that leave (files
// gone or now skipped, and the old id of a changed file no file keeps).
// The summary's unchanged counts the files not read again, removed the
// ids that leave, and added, from scratch, every document read; of a
// refresh on a generation, oldPassages counts the documents put.
func (r *refresher) tally() {
	r.change.Files = make(map[string]*store.FileEntry)
	for _, f := range r.walked.files {
		if f.warning != nil {
			r.warn(*f.warning)
		}
		if old, ok := r.rekeyed[f.key()]; ok {
			// A file of a moved root: its entry leaves its old key, and
			// one unchanged is put under its new key (the others are
			// below, as any file read).
			r.change.Files[old] = nil
			if f.status == statusUnchanged {
				e := entry(f)
				r.change.Files[f.key()] = &e
			}
		}
		switch f.status {
		case statusUnchanged:
			r.sum.Unchanged++
		case statusTouched:
			r.sum.Unchanged++
			e := entry(f)
			r.change.Files[f.key()] = &e
		case statusNew, statusChanged:
			r.wiki, r.links = r.wiki+f.wiki, r.links+f.links
			r.edits++
			if r.streamed { // written with its document
				r.sum.Added++
			} else {
				e := entry(f)
				r.change.Files[f.key()] = &e
				r.change.Put = append(r.change.Put, store.PutDoc{Record: f.parsed.Record, Body: f.body, Pairs: f.pairs})
				r.adds = append(r.adds, f.passages...)
				f.passages, f.pairs = nil, nil
			}
		case statusSkipped:
			if f.prev != nil {
				// A file now skipped leaves the store like a removed one.
				r.plan.removed = append(r.plan.removed, gone{key: f.key(), id: f.prev.ID})
			}
		}
	}
	owner := r.plan.owner
	for _, g := range r.plan.removed {
		r.change.Files[g.key] = nil
		if _, reused := owner[g.id]; !reused {
			r.change.Delete = append(r.change.Delete, g.id)
		}
		r.edits++
	}
	for _, f := range r.walked.files {
		if f.status == statusChanged && f.prev != nil && f.prev.ID != f.id {
			if _, reused := owner[f.prev.ID]; !reused {
				r.change.Delete = append(r.change.Delete, f.prev.ID)
			}
		}
	}
	slices.Sort(r.change.Delete)
	r.change.Delete = slices.Compact(r.change.Delete)
	r.sum.Removed = len(r.change.Delete)
	r.sum.Documents = len(owner)
	if owner == nil {
		r.sum.Documents = len(r.plan.unchanged)
	}
}

// oldPassages lists the index's passages of every document that leaves or
// is put again: they are deleted from the index first. It counts the
// documents put by id, as store.Snapshot.Diff (docir changes) sees them
// between the current generation and the next: added when the current
// one lacks the id, changed when it holds another document
// (store.SameDocument: another digest, or other title, fields or sections
// of the same bytes, made by other markdown rules), else unchanged (a file renamed, re-prefixed
// under a front-matter id, or read again for a new front-matter list).
func (r *refresher) oldPassages() error {
	if r.prev == nil {
		return nil
	}
	for _, id := range r.change.Delete {
		if _, _, err := r.oldRecord(id); err != nil {
			return err
		}
	}
	for _, put := range r.change.Put {
		rec, ok, err := r.oldRecord(put.Record.ID)
		switch {
		case err != nil:
			return err
		case !ok:
			r.sum.Added++
		case !store.SameDocument(rec, put.Record):
			r.sum.Changed++
		default:
			r.sum.Unchanged++
		}
	}
	return nil
}

// oldRecord reads the current generation's record of id, if any, and
// lists its passages for deletion from the index.
func (r *refresher) oldRecord(id string) (docir.Record, bool, error) {
	rec, ok, err := r.prev.Record(id)
	if err != nil || !ok {
		return rec, ok, err
	}
	for _, ps := range passage.Passages(&rec, nil) {
		r.deletes = append(r.deletes, ps.ID)
	}
	return rec, true, nil
}

// settingsChanged reports whether what the generation records besides its
// documents changed: the source list, the link rules, or the version of
// its alias index (store.Snapshot.AliasIndexCurrent).
func (r *refresher) settingsChanged(links store.LinkConfig) (bool, error) {
	changed := !sameSources(r.prevSources, r.sources)
	if r.prev == nil {
		return changed, nil
	}
	recorded, err := r.prev.LinkConfig()
	if err != nil {
		return false, err
	}
	aliases, err := r.prev.AliasIndexCurrent()
	if err != nil {
		return false, err
	}
	return changed || r.prevRules != rulesVersion || !recorded.Normalize().Equal(links.Normalize()) || !aliases, nil
}

// keep ends a refresh that changed nothing: the current generation stays
// published, and what an earlier refresh could not tidy is tried again.
func (r *refresher) keep() (docir.IndexSummary, error) {
	if err := beforePublish(r.opt); err != nil {
		return r.sum, err
	}
	r.sum.Generation = r.prev.Generation()
	r.closePrev()
	if err := store.Prune(r.dir, r.opt.Retain); err != nil { // what an earlier refresh could not
		r.warn(cleanupWarning(false, "prune", err))
	}
	r.sum.Seconds = time.Since(r.start).Seconds()
	r.recordState()
	return r.sum, nil
}

// write writes the next generation aside: from scratch, it ends the
// streams the read fed (both told the input has ended before either is
// waited for: the index's last batches build while the body file takes its
// last documents); else it begins the generation on the current one and
// applies the index's deletes and adds. Then the edit goes to the body
// file.
func (r *refresher) write() error {
	if r.streamed {
		e, b := r.early, r.bodies
		r.early, r.bodies = nil, nil
		e.end()
		if err := errors.Join(b.finish(), e.finish()); err != nil {
			return err
		}
	} else {
		p, err := store.Begin(r.dir, r.prev)
		if err != nil {
			return err
		}
		r.pending = p
		if err := writeIndex(r.ctx, p.FullTextPath(), r.deletes, r.adds, r.opt.Progress); err != nil {
			return err
		}
	}
	return writeBodies(r.ctx, r.pending, r.change)
}

// publish makes the generation written aside the current one: the commit
// point. What fails after it (finishing the swap, recording the folder
// state) is a KindCleanup warning, never the refresh's error.
func (r *refresher) publish() (docir.IndexSummary, error) {
	r.closePrev()
	// The last moment to stop: past it the generation is published.
	if err := r.ctx.Err(); err != nil {
		return r.fail(err)
	}
	if err := beforePublish(r.opt); err != nil {
		return r.fail(err)
	}
	after, err := r.pending.Publish(r.opt.Retain)
	if err != nil {
		r.pending = nil // Publish cleaned up what it could
		return r.fail(err)
	}
	r.sum.Generation = r.pending.Generation()
	r.sum.Published = true
	if after != nil {
		r.warn(cleanupWarning(true, "finish publishing", after))
	}
	r.sum.Seconds = time.Since(r.start).Seconds()
	r.recordState()
	return r.sum, nil
}

// recordState writes, after a refresh that succeeded (published or not),
// what Stale and Diff read beside the generations: the folders it read
// and the files it skipped for their bytes. A failure is a cleanup
// warning: the generation stands either way.
func (r *refresher) recordState() {
	if err := writeFolderState(r.dir, r.sum.Generation, r.opt.settingsDigest(), r.sources, r.walked.folders); err != nil {
		r.warn(cleanupWarning(r.sum.Published, "record the folder state", err))
	}
	if err := writeSkippedState(r.dir, r.sum.Generation, r.walked.files); err != nil {
		r.warn(cleanupWarning(r.sum.Published, "record the skipped files", err))
	}
}
