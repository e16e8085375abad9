package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// folderStateFile, in the store folder, records what the last refresh saw
// of the source folders: every folder it read and its mtime. It is written
// after every refresh that succeeds (published or not), atomically, and is
// read only by Stale. It is not part of a generation: losing it only makes
// Stale answer true until the next refresh.
const folderStateFile = "folders.json"

// folderState is the content of folderStateFile.
type folderState struct {
	Generation uint64                 `json:"generation"`
	Sources    []store.Source         `json:"sources"`
	Folders    map[string]folderEntry `json:"folders"` // by path
}

// folderEntry is what a refresh saw of one folder: its mtime, and a digest
// of the names in it that a walk reads (markdown files and folders), so
// that a folder whose mtime moved for another file's sake (docir.yaml
// written beside the notes, an editor's swap file) is not taken for a
// changed source.
type folderEntry struct {
	ModTime int64  `json:"mtime_ns"`
	Names   string `json:"names"`
}

func writeFolderState(dir string, gen uint64, sources []store.Source, folders map[string]folderEntry) error {
	if sources == nil {
		sources = []store.Source{}
	}
	b, err := json.Marshal(folderState{Generation: gen, Sources: sources, Folders: folders})
	if err != nil {
		return err
	}
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

// Stale reports whether the source folders may have changed since the
// store in dir was last refreshed from sources: a file added, removed or
// renamed in any folder changes that folder's mtime. It stats the folders
// the last refresh read and reads no file, so it is cheap enough for every
// read (a few milliseconds for thousands of folders). A file rewritten in
// place (not through a rename, as most editors save) leaves its folder's
// mtime alone and is not seen: Diff is the full check.
//
// It answers true when the store was never refreshed by this version, the
// current generation is not the one last refreshed, or sources differ from
// the ones last refreshed.
func Stale(dir string, sources []store.Source) (bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, folderStateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	var st folderState
	if err := json.Unmarshal(b, &st); err != nil {
		return true, nil
	}
	gen, err := store.CurrentGeneration(dir)
	if docir.CodeOf(err) == docir.CodeNoStore {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if gen != st.Generation || !sameSources(st.Sources, sources) {
		return true, nil
	}
	for p, e := range st.Folders {
		info, err := os.Stat(p)
		if err != nil {
			return true, nil
		}
		if info.ModTime().UnixNano() == e.ModTime {
			continue
		}
		// Something in the folder was added, removed or renamed: only the
		// names a walk reads decide.
		if names, err := folderNames(p); err != nil || names != e.Names {
			return true, nil
		}
	}
	return false, nil
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
