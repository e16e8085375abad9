package corpustest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCopyTreeLeavesOutReadmeLeftovers: a reader who runs the README's
// commands in testdata/corpus leaves a store, a docir.yaml and a receipt
// there; a test's copy of the fixture holds none of them (else `go test`
// fails after `docir index .`, as it did until 2026-12-04).
func TestCopyTreeLeavesOutReadmeLeftovers(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	for _, f := range []string{"a.md", "docir.yaml", "task.receipt", ".docir/gen/1", "sub/b.md", "sub/docir.yaml.md"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(src, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := CopyTree(src, dst); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dst, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{"a.md", "sub/b.md", "sub/docir.yaml.md"}; !slices.Equal(got, want) {
		t.Errorf("copied %q, want %q", got, want)
	}
}
