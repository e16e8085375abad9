package ingest

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/faultfs"
	"golang.org/x/sys/unix"
)

// folderStateFile, in the store folder, records what the last refresh saw
// of the source folders: every folder it read, its mtime and a digest of
// its names. It is written after every refresh that succeeds (published or
// not), atomically, and is read only by Stale, which every read runs, so
// it is lines that a read parses without reflection or copies (decoding
// 1,600 folders as JSON was a third of the check; its JSON head alone a
// tenth of it in a fresh process). It is not part of a generation: losing
// it only makes Stale answer true until the next refresh.
//
//	docir folders 3
//	generation <N>
//	settings <digest of the index settings (Options.settingsDigest)>
//	source <path, Go-quoted> <prefix, Go-quoted>[ <front_matter_id, Go-quoted>]
//	                                  (one per source, in order; the rule when set)
//	<mtime_ns> <names digest> <path, Go-quoted>      (one per folder)
//	...
const folderStateFile = "folders.state"

// legacyFolderStateFile is the JSON form earlier versions wrote; a refresh
// removes it. (The first line form, "docir folders 1", is rewritten by the
// next refresh; until then Stale answers true. The second, without the
// settings line, is read as it is: its settings are not known, and Stale
// says nothing of them.)
const legacyFolderStateFile = "folders.json"

const (
	folderStateMagic   = "docir folders 3"
	folderStateMagicV2 = "docir folders 2"
)

// folderHead is what the lines before the folders say: the generation the
// refresh left current, the digest of its index settings ("" when the
// file predates it), and the sources it read.
type folderHead struct {
	Generation uint64
	Settings   string
	Sources    []store.Source
}

// folderEntry is what a refresh saw of one folder: its mtime, and a digest
// of the names in it that a walk reads (markdown files and folders), so
// that a folder whose mtime moved for another file's sake (docir.yaml
// written beside the notes, an editor's swap file) is not taken for a
// changed source.
type folderEntry struct {
	ModTime int64
	Names   string
}

// StaleFolders is the most folders Stale stats: those a refresh saw
// change last (see byRecency). A stat costs 2–4 µs on these machines, so a
// read's check stays under a millisecond however many folders the sources
// have; at 1,982 folders (the 192k bench corpus) stating them all was a
// quarter of a search's wall time. Diff, and docir status, read them all.
const StaleFolders = 256

func writeFolderState(dir string, gen uint64, settings string, sources []store.Source, folders map[string]folderEntry) error {
	paths := byRecency(folders)
	b := make([]byte, 0, 128+len(sources)*128+len(paths)*128)
	b = append(b, folderStateMagic+"\ngeneration "...)
	b = strconv.AppendUint(b, gen, 10)
	b = append(b, "\nsettings "...)
	b = append(b, settings...)
	b = append(b, '\n')
	for _, src := range sources {
		b = append(b, "source "...)
		b = strconv.AppendQuote(b, src.Path)
		b = append(b, ' ')
		b = strconv.AppendQuote(b, src.Prefix)
		if src.FrontMatterID != "" {
			b = append(b, ' ')
			b = strconv.AppendQuote(b, src.FrontMatterID)
		}
		b = append(b, '\n')
	}
	for _, p := range paths {
		e := folders[p]
		b = strconv.AppendInt(b, e.ModTime, 10)
		b = append(b, ' ')
		b = append(b, e.Names...)
		b = append(b, ' ')
		b = strconv.AppendQuote(b, p)
		b = append(b, '\n')
	}
	_ = os.Remove(filepath.Join(dir, legacyFolderStateFile))
	return writeState(dir, folderStateFile, b)
}

// byRecency is the paths of folders, the folder whose subtree changed last
// first (the newest mtime of the folder and the folders below it among
// folders), then by path, so that a folder comes before the folders below
// it: where a corpus is being edited, and the folders above that, where a
// new folder beside the edited ones would be made. Stale checks the first
// StaleFolders of them.
func byRecency(folders map[string]folderEntry) []string {
	recent := make(map[string]int64, len(folders))
	for p, e := range folders {
		// Up to the file system's root: a folder the walk did not record
		// (one of mtime 0) may stand between two it did.
		for q := p; ; q = filepath.Dir(q) {
			if _, ok := folders[q]; ok {
				if r, ok := recent[q]; !ok || r < e.ModTime {
					recent[q] = e.ModTime
				}
			}
			if filepath.Dir(q) == q {
				break
			}
		}
	}
	paths := slices.Collect(maps.Keys(folders))
	slices.SortFunc(paths, func(a, b string) int {
		if c := cmp.Compare(recent[b], recent[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return paths
}

// writeState replaces the file base of the store folder dir with b by an
// atomic rename (a temporary base.tmp-*, which store.Tidy removes if a kill
// leaves it), unless it holds b already.
func writeState(dir, base string, b []byte) error {
	name := filepath.Join(dir, base)
	if old, err := os.ReadFile(name); err == nil && bytes.Equal(old, b) {
		return nil
	}
	tmp, err := os.CreateTemp(dir, base+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return faultfs.Rename(tmp.Name(), name)
}

// folderState is folderStateFile mapped into memory: its head, and its
// folder lines unparsed (each is parsed where it is checked). Strings it
// gives are views of the mapping: valid until close.
type folderState struct {
	head    folderHead
	folders []byte // the folder lines
	mapped  []byte
}

// openFolderState maps and reads the head of folderStateFile; ok is false
// when it is missing or not in this form (then Stale answers true). It is
// mapped, not read: in a fresh process a read's buffer is fresh memory,
// whose page faults cost more than parsing it (1 ms for 236 KB).
func openFolderState(dir string) (st folderState, ok bool, err error) {
	f, err := os.Open(filepath.Join(dir, folderStateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return st, false, nil
	}
	if err != nil {
		return st, false, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return st, false, err
	}
	if info.Size() == 0 || info.Size() > 1<<30 {
		return st, false, nil
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(info.Size()), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return st, false, fmt.Errorf("%s: %w", f.Name(), err)
	}
	st.mapped = b
	if st.head, st.folders, ok = parseFolderHead(b); !ok {
		st.close()
		return folderState{}, false, nil
	}
	return st, true, nil
}

func (st *folderState) close() {
	if st.mapped != nil {
		_ = unix.Munmap(st.mapped)
		st.mapped = nil
	}
}

// parseFolderHead reads the lines before the folders; rest is the folder
// lines.
func parseFolderHead(b []byte) (head folderHead, rest []byte, ok bool) {
	l, b := cutLine(b)
	v3 := string(l) == folderStateMagic
	if !v3 && string(l) != folderStateMagicV2 {
		return head, nil, false
	}
	l, b = cutLine(b)
	g, found := bytes.CutPrefix(l, []byte("generation "))
	if !found {
		return head, nil, false
	}
	gen, err := strconv.ParseUint(string(g), 10, 64)
	if err != nil {
		return head, nil, false
	}
	head.Generation = gen
	if v3 {
		l, b = cutLine(b)
		d, found := bytes.CutPrefix(l, []byte("settings "))
		if !found || len(d) == 0 || bytes.ContainsAny(d, " \t\r") {
			return head, nil, false
		}
		head.Settings = string(d)
	}
	head.Sources = []store.Source{}
	for bytes.HasPrefix(b, []byte("source ")) {
		l, b = cutLine(b)
		l = l[len("source "):]
		path, l, ok1 := cutQuoted(l)
		if !ok1 || len(l) == 0 || l[0] != ' ' {
			return head, nil, false
		}
		prefix, l, ok2 := cutQuoted(l[1:])
		var rule string
		if ok2 && len(l) > 0 && l[0] == ' ' {
			rule, l, ok2 = cutQuoted(l[1:])
		}
		if !ok2 || len(l) != 0 {
			return head, nil, false
		}
		head.Sources = append(head.Sources, store.Source{Path: strings.Clone(path), Prefix: strings.Clone(prefix), FrontMatterID: strings.Clone(rule)})
	}
	return head, b, true
}

// cutLine splits b after its first line (the newline dropped).
func cutLine(b []byte) (line, rest []byte) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i], b[i+1:]
	}
	return b, nil
}

// cutQuoted reads a Go-quoted string at the start of b: a view of b when
// it holds no escape (every path of a plain tree), else strconv.Unquote's
// copy.
func cutQuoted(b []byte) (s string, rest []byte, ok bool) {
	q, err := strconv.QuotedPrefix(view(b))
	if err != nil || len(q) < 2 || q[0] != '"' {
		return "", nil, false
	}
	rest = b[len(q):]
	if strings.IndexByte(q, '\\') < 0 {
		return q[1 : len(q)-1], rest, true
	}
	s, err = strconv.Unquote(q)
	return s, rest, err == nil
}

// parseFolderLine reads one folder line.
func parseFolderLine(l []byte) (path string, e folderEntry, ok bool) {
	i := bytes.IndexByte(l, ' ')
	if i < 0 {
		return "", e, false
	}
	mtime, err := strconv.ParseInt(view(l[:i]), 10, 64)
	rest := l[i+1:]
	j := bytes.IndexByte(rest, ' ')
	if err != nil || j < 0 {
		return "", e, false
	}
	path, after, ok := cutQuoted(rest[j+1:])
	if !ok || len(after) != 0 {
		return "", e, false
	}
	return path, folderEntry{ModTime: mtime, Names: view(rest[:j])}, true
}

// eachFolderLine calls fn with each folder line of b until it returns false.
func eachFolderLine(b []byte, fn func(line []byte) bool) {
	for len(b) > 0 {
		var l []byte
		l, b = cutLine(b)
		if !fn(l) {
			return
		}
	}
}

// view is b as a string without a copy: b is the mapped folder state,
// which is never written while it is mapped.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// Staleness is what Stale found.
type Staleness struct {
	// Sources: the source folders may have changed since the last refresh
	// (or it is not known what that refresh read).
	Sources bool
	// Settings: the index settings differ from the ones the last refresh
	// used (Options.settingsDigest): docir.yaml's front_matter, links,
	// exclude or max_file_bytes changed since, and the index still has the
	// old ones.
	Settings bool
}

// Stale reports whether the source folders may have changed since the
// store in dir was last refreshed from sources, and whether opt's index
// settings differ from that refresh's. A file added, removed or renamed
// in a folder changes that folder's mtime. It stats the StaleFolders
// folders the last refresh saw change last, with the folders above them
// (byRecency: every folder, in a store of no more), and reads no file. A
// change in a folder past them, or a file rewritten in place (not through
// a rename, as most editors save), is not seen: Diff is the full check.
//
// Sources is true when the store was never refreshed by this version, the
// current generation is not the one last refreshed, or sources differ from
// the ones last refreshed; Settings is then false (the settings compared
// are those of the refresh that left the current generation; a state
// written before they were recorded says nothing of them).
//
// In a fresh process (every read) the stats are most of it: a syscall
// costs 1–2 µs on this kind of virtual machine, so each line is parsed and
// stat'ed in place in the mapped file, and nothing is built per folder.
func Stale(dir string, sources []store.Source, opt Options) (Staleness, error) {
	st, ok, err := openFolderState(dir)
	if err != nil {
		return Staleness{}, err
	}
	if !ok {
		return Staleness{Sources: true}, nil
	}
	defer st.close()
	gen, err := store.CurrentGeneration(dir)
	if docir.CodeOf(err) == docir.CodeNoStore {
		return Staleness{Sources: true}, nil
	}
	if err != nil {
		return Staleness{}, err
	}
	if gen != st.head.Generation || !sameSources(st.head.Sources, sources) {
		return Staleness{Sources: true}, nil
	}
	settings := st.head.Settings != "" && st.head.Settings != opt.settingsDigest()
	// Each folder is stat'ed relative to its source root, open once: the
	// kernel then walks only the part of the path below the root.
	roots := make([]int, len(sources))
	for i, src := range sources {
		roots[i] = -1
		if fd, err := unix.Open(src.Path, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
			roots[i] = fd
			defer unix.Close(fd)
		}
	}
	stat := func(p string, st *unix.Stat_t) error {
		best := -1
		for i, src := range sources {
			if roots[i] >= 0 && strings.HasPrefix(p, src.Path) && (best < 0 || len(src.Path) > len(sources[best].Path)) {
				if rest := p[len(src.Path):]; rest == "" || rest[0] == filepath.Separator {
					best = i
				}
			}
		}
		if best < 0 {
			return unix.Stat(p, st)
		}
		rel := strings.TrimPrefix(p[len(sources[best].Path):], string(filepath.Separator))
		if rel == "" {
			rel = "."
		}
		return unix.Fstatat(roots[best], rel, st, 0)
	}
	// The folders the last refresh read, for a folder whose names moved
	// (rare: built once, when first needed).
	recorded := sync.OnceValue(func() map[string]bool {
		m := map[string]bool{}
		eachFolderLine(st.folders, func(l []byte) bool {
			if p, _, ok := parseFolderLine(l); ok {
				m[p] = true
			}
			return true
		})
		return m
	})
	changed, checked := false, 0
	var sb unix.Stat_t
	eachFolderLine(st.folders, func(l []byte) bool {
		if checked++; checked > StaleFolders {
			return false
		}
		p, e, ok := parseFolderLine(l)
		if !ok || stat(p, &sb) != nil {
			changed = true // a damaged line, or a folder gone
			return false
		}
		if sb.Mtim.Nano() == e.ModTime {
			return true
		}
		// Something in the folder was added, removed or renamed: only the
		// names a walk reads decide, and a folder made since that holds no
		// markdown adds none (a scratch folder beside the notes is not a
		// change, as Diff says).
		if same, err := sameNames(p, e.Names, recorded); err != nil || !same {
			changed = true
			return false
		}
		return true
	})
	return Staleness{Sources: changed, Settings: settings}, nil
}

// sameNames reports whether the names in folder p that a walk reads have
// the digest want (see entriesDigest), read once: as they are, else with
// each folder in p that the last refresh did not read (recorded: its
// folders, built when first needed) and that holds no markdown
// (holdsMarkdown) left out, as if it were not there: it adds nothing a
// refresh would read, and its own later changes are seen through it, since
// p's mtime stays moved until the next refresh.
func sameNames(p, want string, recorded func() map[string]bool) (bool, error) {
	d, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer d.Close()
	var buf []byte
	entries, err := readDirents(int(d.Fd()), &buf)
	if err != nil {
		return false, err
	}
	if entriesDigest(p, entries) == want {
		return true, nil
	}
	rec := recorded()
	entries = slices.DeleteFunc(entries, func(e dirent) bool {
		sub := joinClean(p, e.name) // as the walk names a subfolder
		return e.IsDir() && !strings.HasSuffix(e.name, ".md") && !rec[sub] && !holdsMarkdown(sub)
	})
	return entriesDigest(p, entries) == want, nil
}

// maxProbe bounds holdsMarkdown's walk: a folder tree of more entries is
// taken to hold markdown, so a read that finds a large new tree in a
// source (a dependency folder) costs a bounded walk and says the sources
// changed, as it did before it looked.
const maxProbe = 1000

// holdsMarkdown reports whether a markdown file may lie under folder dir,
// in a folder a walk reads (hidden folders are not): true at the first
// *.md file, and also at a symbolic link (not followed), a folder it cannot
// read, or past maxProbe entries.
func holdsMarkdown(dir string) bool {
	n, found := 0, false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		n++
		switch {
		case err != nil, n > maxProbe, d.Type()&fs.ModeSymlink != 0, strings.HasSuffix(d.Name(), ".md"):
			found = true
			return fs.SkipAll
		case d.IsDir() && p != dir && strings.HasPrefix(d.Name(), "."):
			return fs.SkipDir
		}
		return nil
	})
	return found
}

// entriesDigest is the digest of the names a walk reads among the entries
// of folder p: markdown files, and folders that are not hidden (a symbolic
// link counts as a folder when it leads to one), in name order, each
// followed by "\n", a folder's by "/\n". The walk computes it from the
// entries it read; Stale, from a fresh read of a folder whose mtime moved.
func entriesDigest(p string, entries []dirent) string {
	type named struct {
		name string
		dir  bool
	}
	names := make([]named, 0, len(entries))
	for _, e := range entries {
		n := e.name
		switch {
		case strings.HasSuffix(n, ".md"):
			names = append(names, named{n, false})
		case strings.HasPrefix(n, "."):
		case e.IsDir():
			names = append(names, named{n, true})
		case e.mode&os.ModeSymlink != 0:
			if info, err := os.Stat(filepath.Join(p, n)); err == nil && info.IsDir() {
				names = append(names, named{n, true})
			}
		}
	}
	slices.SortFunc(names, func(a, b named) int { return strings.Compare(a.name, b.name) })
	h := sha256.New()
	for _, n := range names {
		h.Write(unsafe.Slice(unsafe.StringData(n.name), len(n.name))) // no copy: Write only reads
		if n.dir {
			h.Write([]byte("/\n"))
		} else {
			h.Write([]byte("\n"))
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
