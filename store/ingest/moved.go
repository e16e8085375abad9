package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/docir/docir/store"
)

// A project that moved as a whole (a checkout restored at another path
// with its cached store, a folder renamed) keeps its store: the store
// records its sources as absolute paths, and the same sources now lie
// below another folder. movedRoots finds such a move; a refresh then reads
// the recorded file table under the new roots (movedTable), so that a file
// whose bytes did not change is not parsed again, and publishes the
// generation that records the new paths. Nothing else is taken for a move:
// a source added, dropped or replaced is still refused (checkSourcesKept)
// unless --force.

// movedRoots returns the recorded source paths mapped to the configured
// ones when the project holding the store in dir moved with it, nil
// otherwise. The sources must be as many, pairwise with the same prefix
// and front_matter_id,
// each either the same folder (a source outside the project) or moved.
// What tells a move from sources replaced:
//   - a generation that recorded its store folder (Snapshot.StoreDir, the
//     real path): the store moved too, and each moved source lies where
//     it lay from the store (the same relative path from the store folder
//     before and now). A store that did not move (one given with --store
//     outside the project, or the project's own, a source swapped for its
//     parent) is no move;
//   - an older generation, which did not: each moved source's old folder
//     is gone, the old and new paths share their last elements below one
//     old and one new folder, and the store lies below the new one.
func movedRoots(dir string, was storeWas, recorded, sources []store.Source) map[string]string {
	if len(recorded) != len(sources) || len(sources) == 0 {
		return nil
	}
	now := realDir(dir)
	if was.recorded && was.dir == now {
		return nil
	}
	var oldBase, newBase string
	moves := map[string]string{}
	for i, r := range recorded {
		s := sources[i]
		switch {
		case r.Prefix != s.Prefix || !sameIDRule(r.FrontMatterID, s.FrontMatterID):
			return nil
		case r.Path == s.Path:
			continue
		case was.recorded:
			before, err1 := filepath.Rel(was.dir, r.Path)
			after, err2 := filepath.Rel(now, s.Path)
			if err1 != nil || err2 != nil || before != after {
				return nil
			}
		default:
			ob, nb, ok := commonTail(r.Path, s.Path)
			if _, err := os.Stat(r.Path); !ok || err == nil || (oldBase != "" && (ob != oldBase || nb != newBase)) {
				return nil
			}
			oldBase, newBase = ob, nb
		}
		moves[r.Path] = s.Path
	}
	if len(moves) == 0 || (!was.recorded && !within(newBase, now)) {
		return nil
	}
	return moves
}

// storeWas is where a generation says its store folder was
// (Snapshot.StoreDir).
type storeWas struct {
	dir      string
	recorded bool
}

// storeWasOf reads where the generation says its store folder was.
func storeWasOf(s *store.Snapshot) (storeWas, error) {
	dir, recorded, err := s.StoreDir()
	return storeWas{dir: dir, recorded: recorded}, err
}

// realDir is dir with symbolic links resolved, dir itself when that
// fails (a folder not made yet).
func realDir(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return filepath.Clean(dir)
}

// commonTail splits two different absolute paths into the folders above
// their longest common tail of whole elements ("/a/repo/docs" and
// "/b/moved/docs": "/a/repo" and "/b/moved"); ok is false when they share
// no tail.
func commonTail(a, b string) (aBase, bBase string, ok bool) {
	for {
		da, ea := filepath.Split(a)
		db, eb := filepath.Split(b)
		if ea == "" || ea != eb {
			break
		}
		a, b, ok = filepath.Clean(da), filepath.Clean(db), true
	}
	return a, b, ok && a != b
}

// within reports whether path lies in folder base or below it.
func within(base, path string) bool {
	rel, err := filepath.Rel(base, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// movedTable is the file table prev read as if its moved roots (old path
// to new) had always had their new paths, in key order; rekeyed maps each
// key it gives a moved entry to the key the table holds it under, so that
// the refresh removes the old key.
func movedTable(prev fileTable, moves map[string]string) (table fileTable, rekeyed map[string]string, err error) {
	type row struct {
		key []byte
		e   store.FileEntry
	}
	var rows []row
	rekeyed = map[string]string{}
	err = prev(nil, func(k []byte, e store.FileEntry) error {
		key := bytes.Clone(k)
		if root, rel, ok := bytes.Cut(k, []byte{0}); ok {
			if to, moved := moves[string(root)]; moved {
				key = []byte(store.FileKey(to, string(rel)))
				rekeyed[string(key)] = string(k)
			}
		}
		rows = append(rows, row{key, e})
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	slices.SortFunc(rows, func(a, b row) int { return bytes.Compare(a.key, b.key) })
	table = func(from []byte, fn func([]byte, store.FileEntry) error) error {
		i, _ := slices.BinarySearchFunc(rows, from, func(r row, k []byte) int { return bytes.Compare(r.key, k) })
		for _, r := range rows[i:] {
			if err := fn(r.key, r.e); err != nil {
				return err
			}
		}
		return nil
	}
	return table, rekeyed, nil
}
