package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"golang.org/x/sys/unix"
)

// folderStateFile, in the store folder, records what the last refresh saw
// of the source folders: every folder it read, its mtime and a digest of
// its names. It is written after every refresh that succeeds (published or
// not), atomically, and is read only by Stale, which every read runs: it
// is a line per folder, not JSON (decoding 1,600 folders as JSON was a
// third of the check). It is not part of a generation: losing it only
// makes Stale answer true until the next refresh.
//
//	docir folders 1
//	{"generation":N,"sources":[...]}
//	<mtime_ns> <names digest> <path, Go-quoted>
//	...
const folderStateFile = "folders.state"

// legacyFolderStateFile is the JSON form earlier versions wrote; a refresh
// removes it.
const legacyFolderStateFile = "folders.json"

const folderStateMagic = "docir folders 1"

// folderHead is the second line of folderStateFile.
type folderHead struct {
	Generation uint64         `json:"generation"`
	Sources    []store.Source `json:"sources"`
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

func writeFolderState(dir string, gen uint64, sources []store.Source, folders map[string]folderEntry) error {
	if sources == nil {
		sources = []store.Source{}
	}
	head, err := json.Marshal(folderHead{Generation: gen, Sources: sources})
	if err != nil {
		return err
	}
	paths := slices.Sorted(maps.Keys(folders))
	b := make([]byte, 0, 64+len(head)+len(paths)*128)
	b = append(b, folderStateMagic+"\n"...)
	b = append(append(b, head...), '\n')
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
	name := filepath.Join(dir, folderStateFile)
	if old, err := os.ReadFile(name); err == nil && bytes.Equal(old, b) {
		return nil
	}
	tmp, err := os.CreateTemp(dir, folderStateFile+".tmp-*")
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
	return os.Rename(tmp.Name(), name)
}

// readFolderState parses folderStateFile; ok is false when it is missing
// or not in this form (then Stale answers true).
func readFolderState(dir string) (head folderHead, paths []string, entries []folderEntry, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, folderStateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return head, nil, nil, false, nil
	}
	if err != nil {
		return head, nil, nil, false, err
	}
	line := func() []byte {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			l := b
			b = nil
			return l
		}
		l := b[:i]
		b = b[i+1:]
		return l
	}
	if string(line()) != folderStateMagic {
		return head, nil, nil, false, nil
	}
	if json.Unmarshal(line(), &head) != nil {
		return head, nil, nil, false, nil
	}
	for len(b) > 0 {
		l := line()
		i := bytes.IndexByte(l, ' ')
		if i < 0 {
			return head, nil, nil, false, nil
		}
		mtime, perr := strconv.ParseInt(string(l[:i]), 10, 64)
		rest := l[i+1:]
		j := bytes.IndexByte(rest, ' ')
		if perr != nil || j < 0 {
			return head, nil, nil, false, nil
		}
		p, perr2 := unquotePath(rest[j+1:])
		if perr2 != nil {
			return head, nil, nil, false, nil
		}
		paths = append(paths, p)
		entries = append(entries, folderEntry{ModTime: mtime, Names: view(rest[:j])})
	}
	return head, paths, entries, true, nil
}

// view is b as a string without a copy: b is the folder state file's
// content, which is never written after it is read.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// unquotePath reads a Go-quoted path: a view of q when it holds no escape
// (every path of a plain tree), else strconv.Unquote's copy.
func unquotePath(q []byte) (string, error) {
	if len(q) >= 2 && q[0] == '"' && q[len(q)-1] == '"' && bytes.IndexByte(q, '\\') < 0 && bytes.IndexByte(q[1:len(q)-1], '"') < 0 && utf8.Valid(q) {
		return view(q[1 : len(q)-1]), nil
	}
	return strconv.Unquote(string(q))
}

// Stale reports whether the source folders may have changed since the
// store in dir was last refreshed from sources: a file added, removed or
// renamed in any folder changes that folder's mtime. It stats the folders
// the last refresh read, on a few goroutines, and reads no file (1,600
// folders: a few milliseconds). A file rewritten in place (not through a
// rename, as most editors save) leaves its folder's mtime alone and is not
// seen: Diff is the full check.
//
// It answers true when the store was never refreshed by this version, the
// current generation is not the one last refreshed, or sources differ from
// the ones last refreshed.
func Stale(dir string, sources []store.Source) (bool, error) {
	head, paths, entries, ok, err := readFolderState(dir)
	if err != nil {
		return false, err
	}
	if !ok {
		return true, nil
	}
	gen, err := store.CurrentGeneration(dir)
	if docir.CodeOf(err) == docir.CodeNoStore {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if gen != head.Generation || !sameSources(head.Sources, sources) {
		return true, nil
	}
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
	var changed atomic.Bool
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(4, len(paths)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var st unix.Stat_t
			for !changed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(paths) {
					return
				}
				if stat(paths[i], &st) != nil {
					changed.Store(true)
					return
				}
				if st.Mtim.Nano() == entries[i].ModTime {
					continue
				}
				// Something in the folder was added, removed or renamed:
				// only the names a walk reads decide.
				if names, err := folderNames(paths[i]); err != nil || names != entries[i].Names {
					changed.Store(true)
					return
				}
			}
		}()
	}
	wg.Wait()
	return changed.Load(), nil
}

// folderNames is a digest of the names in folder p that a walk reads (see
// entriesDigest).
func folderNames(p string) (string, error) {
	d, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer d.Close()
	var buf []byte
	entries, err := readDirents(int(d.Fd()), &buf)
	if err != nil {
		return "", err
	}
	return entriesDigest(p, entries), nil
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
