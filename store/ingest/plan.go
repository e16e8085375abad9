package ingest

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// plan is what a refresh must do, worked out from a stat walk and the
// current generation's file table without reading a file.
type plan struct {
	unchanged []*file // size, mtime and prefix as recorded: id and digest reused
	toRead    []*file // new, or size, mtime or prefix differ
	removed   []gone  // entries the generation records and the walk did not find, by key
	clashes   []clash // two files whose ids, known or derived from the path, agree
	// owner maps the id of every unchanged file to it: the ids a file
	// read next may not claim. It is nil when there is no file to read.
	owner map[string]*file
}

// gone is a file-table entry to remove: its key and the id it held.
type gone struct {
	key, id string
}

// clash is two files that would claim one id. For a file still to read,
// the id is the one its path gives; its front matter may yet name another.
type clash struct {
	id   string
	a, b string // paths as reached from the source folders
}

// fileTable is a generation's file table read in key order from the first
// key at or after from (store.Snapshot.EachFileFrom); nil is an empty table.
type fileTable func(from []byte, fn func(key []byte, e store.FileEntry) error) error

// makePlan sorts the walked files against the previous file table. It
// sets every file's status; for unchanged files, id and digest; for the
// others the table has, prev.
//
// The table is merged with the walk in key order rather than loaded into a
// map: on a no-op refresh of 192k files, building that map cost more than
// reading the table.
//
// With reparse, no file is taken as unchanged (the index's passages change
// for every document: a new front-matter list), so every file is read and
// parsed again. Nor is a file larger than
// maxBytes: the cap is the configuration's, and a lower one than the file
// was indexed under leaves it out as a refresh from scratch would (read, it
// is skipped, and its document goes).
func makePlan(files []*file, prev fileTable, reparse bool, maxBytes int64) (plan, error) {
	var p plan
	byKey := files
	keyOrder := func(a, b *file) int {
		return cmp.Or(strings.Compare(a.root.Path, b.root.Path), strings.Compare(a.rel, b.rel))
	}
	if !slices.IsSortedFunc(byKey, keyOrder) {
		byKey = slices.Clone(files)
		slices.SortFunc(byKey, keyOrder)
	}
	if prev != nil {
		// A large table is merged in two halves side by side, each from
		// its own cursor: on a no-op refresh of 192k files the merge was a
		// fifth of the time, all on one core.
		var err error
		if len(byKey) < planSplitMin {
			p.removed, err = mergeTable(byKey, prev, nil, nil, reparse, maxBytes)
		} else {
			mid := len(byKey) / 2
			midKey := []byte(byKey[mid].key())
			var g errgroup.Group
			var after []gone
			g.Go(func() (err error) {
				after, err = mergeTable(byKey[mid:], prev, midKey, nil, reparse, maxBytes)
				return err
			})
			p.removed, err = mergeTable(byKey[:mid], prev, nil, midKey, reparse, maxBytes)
			err = errors.Join(err, g.Wait())
			p.removed = append(p.removed, after...)
		}
		if err != nil {
			return p, err
		}
	}
	for _, f := range files {
		if f.status == statusUnchanged {
			p.unchanged = append(p.unchanged, f)
		} else {
			f.status = statusNew
			if f.prev != nil {
				f.status = statusChanged
			}
			p.toRead = append(p.toRead, f)
		}
	}
	if len(p.toRead) == 0 {
		// Nothing is read: no id can clash with another (the table's ids
		// are distinct), and no owner is asked for.
		return p, nil
	}
	// Ids in walk order, so the first of two clashing files is named first.
	// Every unchanged file owns its id, also when a file to read that comes
	// first in the walk derives the same id from its path: the read of that
	// file must find the id taken (foo.md beside foo/index.md).
	p.owner = make(map[string]*file, len(p.unchanged))
	derived := make(map[string]*file, len(p.toRead))
	for _, f := range files {
		if f.status == statusUnchanged {
			if other, dup := derived[f.id]; dup {
				p.clashes = append(p.clashes, clash{id: f.id, a: other.path(), b: f.path()})
			}
			p.owner[f.id] = f
			continue
		}
		id, _, _ := documentID(*f.root, f.rel, "")
		if id == "" {
			continue
		}
		other, dup := p.owner[id]
		if !dup {
			other, dup = derived[id]
		}
		if dup {
			p.clashes = append(p.clashes, clash{id: id, a: other.path(), b: f.path()})
			continue
		}
		derived[id] = f
	}
	return p, nil
}

// planSplitMin is the least number of walked files whose merge with the
// file table is split in two.
var planSplitMin = 16384

// errStop ends a walk of the file table early.
var errStop = errors.New("stop")

// mergeTable merges the files byKey (in key order) with the entries of the
// table from key from up to, not including, key to (nil: to the end): it
// marks the files the table has unchanged, or points them at their entry,
// and returns the entries no file matched, in key order. The files must be
// all the walked files whose keys lie in that range.
func mergeTable(byKey []*file, table fileTable, from, to []byte, reparse bool, maxBytes int64) ([]gone, error) {
	var removed []gone
	i := 0
	err := table(from, func(k []byte, e store.FileEntry) error {
		if to != nil && bytes.Compare(k, to) >= 0 {
			return errStop
		}
		for i < len(byKey) && byKey[i].cmpKey(k) < 0 {
			i++ // new: not in the table
		}
		// Two walked files never share a key (one root, one path);
		// should they, the first takes the entry.
		if i < len(byKey) && byKey[i].cmpKey(k) == 0 {
			f := byKey[i]
			if !reparse && !f.reparse && f.size <= maxBytes && e.Size == f.size && e.ModTime == f.mtime && e.Prefix == f.root.Prefix {
				// Unchanged: all it needs of the entry (most files of a
				// refresh, so no copy of the entry is kept).
				f.status = statusUnchanged
				f.id, f.digest = e.ID, e.Digest
			} else {
				f.prev = &e
				f.reparse = f.reparse || reparse
			}
			i++
			return nil
		}
		removed = append(removed, gone{key: string(k), id: e.ID})
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return removed, err
}

// key is the file's files-table key (store.FileKey).
func (f *file) key() string { return store.FileKey(f.root.Path, f.rel) }

// cmpKey compares f's files-table key with the key k, as bytes, without
// building f's: a walk of 192k files would allocate each. Keys order by
// root, then path below it: a root that is a proper prefix of another
// sorts first, as its "\x00" separator sorts before any byte of a path.
func (f *file) cmpKey(k []byte) int {
	root, rel, ok := bytes.Cut(k, []byte{0})
	if !ok { // not a key store.FileKey makes: order it by its bytes
		return strings.Compare(f.key(), string(k))
	}
	// Comparison operators on string(b) do not copy b.
	switch {
	case f.root.Path < string(root):
		return -1
	case f.root.Path > string(root):
		return 1
	case f.rel < string(rel):
		return -1
	case f.rel > string(rel):
		return 1
	}
	return 0
}

// Changes is how the source folders differ from the current generation,
// as a stat walk sees them: no file is read, so a file whose mtime or size
// changed is "changed" even if its bytes did not.
type Changes struct {
	Generation uint64 `json:"generation"` // the current generation; 0 when there is none
	// Added, Changed and Removed are file paths as reached from the source
	// folders, sorted.
	Added     []string `json:"added"`
	Changed   []string `json:"changed"`
	Removed   []string `json:"removed"`
	Unchanged int      `json:"unchanged"`
	Ignored   int      `json:"ignored"` // files and folders left out by ignore rules
	// Skipped counts the new files a refresh would skip again: the last
	// one skipped them for their bytes (binary, not UTF-8, no id; skippedStateFile)
	// and they are as it saw them, or as files docir may not read, and
	// they still are. They are not in Added.
	Skipped int `json:"skipped"`
	// Clashes names pairs of files that would claim one id (the id their
	// path gives, or the one recorded), "id: path and path".
	Clashes []string `json:"clashes"`
	// SourcesChanged is true when sources differ from the ones the
	// generation was built from.
	SourcesChanged bool `json:"sources_changed"`
	// SettingsChanged is true when the index settings (front matter,
	// links, exclude patterns, size cap, parse budget) differ from the
	// ones the refresh that left the generation used, as it recorded them
	// (Stale's Settings); false when it recorded none.
	SettingsChanged bool `json:"settings_changed"`
}

// Diff tells what a refresh of the store in dir from sources would find
// added, changed and removed, from a stat walk: it reads no file and takes
// no lock. A store that does not exist yet has every file added.
func Diff(ctx context.Context, dir string, sources []store.Source, opt Options) (Changes, error) {
	c := Changes{Added: []string{}, Changed: []string{}, Removed: []string{}, Clashes: []string{}}
	if err := opt.check(); err != nil {
		return c, err
	}
	opt = opt.withDefaults()
	if err := checkSources(sources); err != nil {
		return c, err
	}
	var prevFiles fileTable
	var prevSources []store.Source
	snap, err := store.Open(dir)
	switch {
	case docir.CodeOf(err) == docir.CodeNoStore:
		c.SourcesChanged = len(sources) > 0
	case err != nil:
		return c, err
	default:
		defer snap.Close()
		c.Generation = snap.Generation()
		prevFiles = snap.EachFileFrom
		if prevSources, err = snap.Sources(); err != nil {
			return c, err
		}
		c.SourcesChanged = !sameSources(prevSources, sources)
		was, err := storeWasOf(snap)
		if err != nil {
			return c, err
		}
		if moves := movedRoots(dir, was, prevSources, sources); moves != nil {
			// The project moved: its files are compared under their new
			// roots, as the refresh will (it records the new paths).
			if prevFiles, _, err = movedTable(prevFiles, moves); err != nil {
				return c, err
			}
		}
		if st, ok, err := openFolderState(dir); err == nil && ok {
			c.SettingsChanged = st.head.Generation == c.Generation && st.head.Settings != "" && st.head.Settings != opt.settingsDigest()
			st.close()
		}
	}
	w, err := walk(ctx, sources, opt)
	if err != nil {
		return c, err
	}
	rereadIDRuleChanged(w.files, prevSources)
	p, err := makePlan(w.files, prevFiles, false, fileCap(opt))
	if err != nil {
		return c, err
	}
	c.Unchanged, c.Ignored = len(p.unchanged), w.ignored
	var skipped map[string]skippedEntry
	if snap != nil {
		skipped = readSkippedState(dir, snap.Generation())
	}
	var tooLarge []string
	for _, f := range p.toRead {
		if e, ok := skipped[f.key()]; ok && e.unreadable && f.prev == nil && !readable(f.openPath()) {
			c.Skipped++ // one docir may not read, as the last refresh found it
			continue
		}
		if e, ok := skipped[f.key()]; ok && !e.unreadable && e.size == f.size && e.mtime == f.mtime {
			switch {
			case f.prev == nil && !e.touched:
				c.Skipped++ // skipped by the last refresh for its bytes, and as it saw it
				continue
			case f.prev != nil && e.touched:
				c.Unchanged++ // read by the last refresh, as it is, and the same bytes
				continue
			}
		}
		if f.size > fileCap(opt) {
			// A refresh skips it (too_large) and drops its document,
			// if it has one: the stat walk knows that much.
			if f.prev != nil {
				tooLarge = append(tooLarge, f.path())
			}
			continue
		}
		if f.prev == nil {
			c.Added = append(c.Added, f.path())
		} else {
			c.Changed = append(c.Changed, f.path())
		}
	}
	for _, g := range p.removed {
		root, rel, _ := strings.Cut(g.key, "\x00")
		c.Removed = append(c.Removed, filepath.Join(root, filepath.FromSlash(rel)))
	}
	if len(tooLarge) > 0 {
		c.Removed = append(c.Removed, tooLarge...)
		slices.Sort(c.Removed)
	}
	for _, cl := range p.clashes {
		c.Clashes = append(c.Clashes, cl.id+": "+cl.a+" and "+cl.b)
	}
	return c, nil
}

// rereadIDRuleChanged marks to be parsed again the files of each source
// whose front_matter_id differs from the one recorded: their ids may
// change, as a changed prefix re-ids its files (the file table records
// the prefix of each entry, not the rule).
func rereadIDRuleChanged(files []*file, recorded []store.Source) {
	was := make(map[string]string, len(recorded))
	for _, s := range recorded {
		was[s.Path] = s.FrontMatterID
	}
	for _, f := range files {
		if rule, ok := was[f.root.Path]; ok && !sameIDRule(rule, f.root.FrontMatterID) {
			f.reparse = true
		}
	}
}
