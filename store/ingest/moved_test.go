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
