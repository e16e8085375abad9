package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/store"
)

// TestProjectMoved: a project whose store moved with it (a checkout
// restored at another path with its cached store) refreshes as the same
// sources under new paths: not refused ("would drop" the old folder, which
// is gone), no unchanged file parsed again, one generation that records
// the new paths, then no-ops; status (Diff) lists no file added or
// removed. A source replaced by another folder is still refused.
func TestProjectMoved(t *testing.T) {
	tmp := t.TempDir()
	repo := filepath.Join(tmp, "repo")
	writeFile(t, repo, "docs/a.md", "# A\n\nalpha, [b](sub/b.md), [gone](missing.md)\n")
	writeFile(t, repo, "docs/sub/b.md", "# B\n\nbravo\n")
	writeFile(t, repo, "notes/n.md", "# N\n")
	srcs := func(base string) []store.Source {
		return []store.Source{{Path: filepath.Join(base, "docs")}, {Path: filepath.Join(base, "notes"), Prefix: "notes"}}
	}
	if _, err := Refresh(t.Context(), filepath.Join(repo, ".docir"), srcs(repo), Options{}); err != nil {
		t.Fatal(err)
	}

	moved := filepath.Join(tmp, "ci", "moved")
	if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(repo, moved); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(moved, ".docir")
	c, err := Diff(t.Context(), dir, srcs(moved), Options{})
	if err != nil || len(c.Added)+len(c.Removed)+len(c.Changed) != 0 || c.Unchanged != 3 || !c.SourcesChanged {
		t.Fatalf("Diff after the move: %+v, %v; want 3 unchanged, sources changed", c, err)
	}
	sum, err := Refresh(t.Context(), dir, srcs(moved), Options{})
	if err != nil || !sum.Published || countsOf(sum) != (counts{Unchanged: 3, Documents: 3}) {
		t.Fatalf("refresh after the move: %+v, %v", sum, err)
	}
	checkSummaryAgainstDiff(t, "move", dir, sum)
	checkKeysUnder(t, dir, moved)
	if sum, err := Refresh(t.Context(), dir, srcs(moved), Options{}); err != nil || sum.Published {
		t.Fatalf("refresh after the moved one: %+v, %v; want nothing published", sum, err)
	}
	// Links resolve under the new paths: a file added where a link led
	// to nothing resolves it.
	if n := brokenCount(t, dir); n != 1 {
		t.Fatalf("broken links after the move: %d, want 1 (to missing.md)", n)
	}
	writeFile(t, moved, "docs/missing.md", "# Missing no more\n")
	if _, err := Refresh(t.Context(), dir, srcs(moved), Options{}); err != nil {
		t.Fatal(err)
	}
	if n := brokenCount(t, dir); n != 0 {
		t.Fatalf("broken links once the file is there: %d, want 0", n)
	}
	if err := os.Remove(filepath.Join(moved, "docs/missing.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := Refresh(t.Context(), dir, srcs(moved), Options{}); err != nil {
		t.Fatal(err)
	}

	// Moved again, as a checkout gives it: every mtime new, one file
	// edited, one gone, one new.
	again := filepath.Join(tmp, "again")
	if err := os.Rename(moved, again); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	for _, f := range []string{"docs/a.md", "docs/sub/b.md", "notes/n.md"} {
		if err := os.Chtimes(filepath.Join(again, f), later, later); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, again, "docs/a.md", "# A\n\nalpha, edited\n")
	writeFile(t, again, "docs/c.md", "# C\n")
	if err := os.Remove(filepath.Join(again, "notes/n.md")); err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(again, ".docir")
	sum, err = Refresh(t.Context(), dir, srcs(again), Options{})
	if err != nil || countsOf(sum) != (counts{Added: 1, Changed: 1, Removed: 1, Unchanged: 1, Documents: 3}) {
		t.Fatalf("refresh of a checkout moved again: %+v, %v", sum, err)
	}
	checkSummaryAgainstDiff(t, "moved checkout", dir, sum)
	checkKeysUnder(t, dir, again)

	// Another folder in a source's place is no move.
	other := []store.Source{{Path: filepath.Join(again, "other")}, {Path: filepath.Join(again, "notes"), Prefix: "notes"}}
	writeFile(t, again, "other/o.md", "# O\n")
	if _, err := Refresh(t.Context(), dir, other, Options{}); err == nil || !strings.Contains(err.Error(), "would drop") {
		t.Fatalf("a source replaced: %v; want it refused", err)
	}
}

// brokenCount is the number of broken links of the current generation.
func brokenCount(t *testing.T, dir string) int {
	t.Helper()
	s, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, err := s.LinkCounts()
	if err != nil {
		t.Fatal(err)
	}
	return n.Broken
}

// TestNotAMove: sources replaced are refused as before, however alike
// their paths: a store given with --store outside the project, a source
// swapped for a folder of the same name above it. A copy of a project
// with its store (the old folder still there) is a move.
func TestNotAMove(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, "projA/docs/a.md", "# A from project A\n")
	writeFile(t, home, "docs/a.md", "# A from home docs\n")
	mt := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range []string{"projA/docs/a.md", "docs/a.md"} {
		if err := os.Chtimes(filepath.Join(home, f), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	refused := func(what, dir string, from, to string) {
		t.Helper()
		if _, err := Refresh(t.Context(), dir, []store.Source{{Path: filepath.Join(home, from)}}, Options{}); err != nil {
			t.Fatal(err)
		}
		if _, err := Refresh(t.Context(), dir, []store.Source{{Path: filepath.Join(home, to)}}, Options{}); err == nil || !strings.Contains(err.Error(), "would drop") {
			t.Errorf("%s: %v; want it refused", what, err)
		}
	}
	refused("a store outside the project", filepath.Join(home, ".cache", "docir-store"), "projA/docs", "docs")
	writeFile(t, home, "p/sub/docs/a.md", "# old\n")
	writeFile(t, home, "p/docs/a.md", "# other\n")
	refused("a source swapped for a folder above", filepath.Join(home, "p", ".docir"), "p/sub/docs", "p/docs")

	// A copy: the old project is still there.
	if _, err := Refresh(t.Context(), filepath.Join(home, "projA", ".docir"), []store.Source{{Path: filepath.Join(home, "projA/docs")}}, Options{}); err != nil {
		t.Fatal(err)
	}
	copyTree(t, filepath.Join(home, "projA"), filepath.Join(home, "projB"))
	sum, err := Refresh(t.Context(), filepath.Join(home, "projB", ".docir"), []store.Source{{Path: filepath.Join(home, "projB/docs")}}, Options{})
	if err != nil || countsOf(sum) != (counts{Unchanged: 1, Documents: 1}) {
		t.Errorf("a copy of the project with its store: %+v, %v", sum, err)
	}
}

// TestMovedRootsOfOlderStores: a generation that did not record its store
// folder is moved only when each moved source's old folder is gone.
func TestMovedRootsOfOlderStores(t *testing.T) {
	tmp := t.TempDir()
	writeFile(t, tmp, "b/repo/docs/a.md", "# A\n")
	writeFile(t, tmp, "old/repo/docs/a.md", "# A\n")
	old := []store.Source{{Path: filepath.Join(tmp, "a/repo/docs")}}
	now := []store.Source{{Path: filepath.Join(tmp, "b/repo/docs")}}
	dir := filepath.Join(tmp, "b/repo/.docir")
	if m := movedRoots(dir, storeWas{}, old, now); m[old[0].Path] != now[0].Path {
		t.Errorf("old folder gone: %v, want a move", m)
	}
	stillThere := []store.Source{{Path: filepath.Join(tmp, "old/repo/docs")}}
	if m := movedRoots(dir, storeWas{}, stillThere, now); m != nil {
		t.Errorf("old folder still there: %v, want no move", m)
	}
	if m := movedRoots(filepath.Join(tmp, "elsewhere/.docir"), storeWas{}, old, now); m != nil {
		t.Errorf("store outside the new folder: %v, want no move", m)
	}
}

// copyTree copies the folder from to to, files with their modes and times.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(dst, info.Mode().Perm()|0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, b, info.Mode().Perm()); err != nil {
			return err
		}
		return os.Chtimes(dst, info.ModTime(), info.ModTime())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkKeysUnder checks that every key of the current file table lies
// under base, and that the recorded sources do.
func checkKeysUnder(t *testing.T, dir, base string) {
	t.Helper()
	s, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var keys []string
	if err := s.EachFileFrom(nil, func(k []byte, _ store.FileEntry) error {
		keys = append(keys, string(k))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	srcs, err := s.Sources()
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range srcs {
		keys = append(keys, src.Path)
	}
	var outside []string
	for _, k := range keys {
		if !strings.HasPrefix(k, base+string(filepath.Separator)) {
			outside = append(outside, k)
		}
	}
	if diff := cmp.Diff([]string(nil), outside); diff != "" {
		t.Errorf("keys and sources outside %s (-want +got):\n%s", base, diff)
	}
}
