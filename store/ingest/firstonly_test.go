package ingest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/docir/docir/store"
)

// TestFirstOnly: a refresh with FirstOnly indexes a store that has no
// generation as any refresh does, and leaves one that has a generation as
// it is, whatever sources it was given: the read that found no store and
// waited for the lock while a `docir index` of another folder published
// reads that store (before, it refreshed it with its own sources and was
// refused, "would drop", asking for a --force that reads do not take).
func TestFirstOnly(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a/a.md", "# A\n\nalpha\n")
	writeFile(t, root, "b.md", "# B\n\nbeta\n")
	dir := filepath.Join(root, ".docir")
	a := []store.Source{{Path: filepath.Join(root, "a")}}
	whole := []store.Source{{Path: root}}

	first, err := Refresh(t.Context(), dir, a, Options{FirstOnly: true})
	if err != nil || !first.Published || first.Generation != 1 || first.Documents != 1 {
		t.Fatalf("a first index with FirstOnly: %+v, %v; want generation 1 published, 1 document", first, err)
	}
	if _, err := Refresh(t.Context(), dir, whole, Options{}); err == nil || !strings.Contains(err.Error(), "would drop") {
		t.Fatalf("a refresh of other sources: %v; want it refused", err)
	}
	sum, err := Refresh(t.Context(), dir, whole, Options{FirstOnly: true})
	if err != nil || sum.Published || sum.Generation != 1 || sum.Added+sum.Changed+sum.Removed != 0 {
		t.Fatalf("FirstOnly on a store with a generation: %+v, %v; want generation 1 left as it is, no error", sum, err)
	}
	if g, err := store.CurrentGeneration(dir); err != nil || g != 1 {
		t.Fatalf("current generation %d, %v; want 1", g, err)
	}
	s, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srcs, err := s.Sources()
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 1 || srcs[0].Path != a[0].Path {
		t.Errorf("sources %+v; want the first index's, %s", srcs, a[0].Path)
	}
}
