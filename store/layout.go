package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/docir/docir/docir"
)

const (
	currentFile  = "CURRENT"
	identityFile = "IDENTITY"
	lockFile     = "lock"
	genDir       = "gen"
	bodyFile     = "docs.bolt"
	fulltextDir  = "fulltext"
	tmpMarker    = ".tmp-"
	currentPerms = 0o644
)

// ErrNoStore is returned when a folder holds no published generation.
var ErrNoStore = errors.New("no docir store here yet")

// current is the content of CURRENT.
type current struct {
	Format     int    `json:"format"`
	Generation uint64 `json:"generation"`
}

func genPath(dir string, gen uint64) string {
	return filepath.Join(dir, genDir, strconv.FormatUint(gen, 10))
}

// readCurrent reads CURRENT: which generation readers should open.
func readCurrent(dir string) (current, error) {
	b, err := os.ReadFile(filepath.Join(dir, currentFile))
	if errors.Is(err, fs.ErrNotExist) {
		return current{}, &docir.Error{Code: docir.CodeNoStore, Message: fmt.Sprintf("%s: %v", dir, ErrNoStore), Err: ErrNoStore}
	}
	if err != nil {
		return current{}, err
	}
	var c current
	if err := json.Unmarshal(b, &c); err != nil || c.Generation == 0 {
		return current{}, docir.Errorf(docir.CodeStoreFormat, "%s: unreadable %s (%q); remove the folder and index again", dir, currentFile, strings.TrimSpace(string(b)))
	}
	if c.Format != FormatVersion {
		return current{}, docir.Errorf(docir.CodeStoreFormat, "%s: store format %d, this docir reads format %d; remove the folder and index again", dir, c.Format, FormatVersion)
	}
	return c, nil
}

// writeCurrent publishes gen as the current generation, atomically.
func writeCurrent(dir string, gen uint64) error {
	b, err := json.Marshal(current{Format: FormatVersion, Generation: gen})
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, currentFile), append(b, '\n'))
}

// writeFileAtomic writes data to a temporary file beside name, syncs it, and
// renames it over name, then syncs the folder: readers see the old bytes or
// the new ones, never a mix, and a crash keeps one of them.
func writeFileAtomic(name string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(name), filepath.Base(name)+tmpMarker+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(currentPerms); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, name); err != nil {
		return err
	}
	return syncDir(filepath.Dir(name))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// cloneTree copies the folder src to dst (which must not exist). Files named
// by link are hard-linked instead of copied: they are immutable once written,
// so two generations may share them. A failed link falls back to a copy.
func cloneTree(src, dst string, link func(name string) bool) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if link(d.Name()) {
			if err := os.Link(p, target); err == nil {
				return nil
			}
		}
		return copyFile(p, target)
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// syncTree fsyncs every file and folder below root, so a rename that
// publishes root publishes bytes that are on disk.
func syncTree(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Sync()
	})
}

// generations lists the published generation numbers under dir, ascending,
// and the names of unfinished builds.
func generations(dir string) (gens []uint64, tmps []string, err error) {
	entries, err := os.ReadDir(filepath.Join(dir, genDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), tmpMarker) {
			tmps = append(tmps, e.Name())
			continue
		}
		if n, err := strconv.ParseUint(e.Name(), 10, 64); err == nil {
			gens = append(gens, n)
		}
	}
	slices.Sort(gens)
	return gens, tmps, nil
}

// CheckSourceDir reports a clear error when dir is not a readable folder.
func CheckSourceDir(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return docir.Errorf(docir.CodeSource, "source %s: %w", dir, err)
	}
	if !info.IsDir() {
		return docir.Errorf(docir.CodeSource, "source %s: not a folder", dir)
	}
	return nil
}

// CurrentGeneration reads which generation is current in dir: one small
// file read, for a long-running reader to notice a newer generation.
func CurrentGeneration(dir string) (uint64, error) {
	c, err := readCurrent(dir)
	return c.Generation, err
}

// Retained lists the generations of the store in dir that a binding may
// select, ascending: every published generation up to the current one (a
// folder past CURRENT, left by a crash before the swap, was never current).
// A refresh keeps the newest retain of them (ingest's Options.Retain,
// default 3: the current generation and the two before it).
func Retained(dir string) ([]uint64, error) {
	c, err := readCurrent(dir)
	if err != nil {
		return nil, err
	}
	gens, _, err := generations(dir)
	if err != nil {
		return nil, err
	}
	out := gens[:0]
	for _, g := range gens {
		if g <= c.Generation {
			out = append(out, g)
		}
	}
	return out, nil
}
