package ingest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/docir/docir/store"
)

// TestUnreadFile: the file a missed id would be read from, were its
// extension *.md, under the source's prefix; never a *.md file, never a
// name outside the source.
func TestUnreadFile(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"docs/charts.mdx", "docs/guide/index.markdown", "read.md", "UP.MD", "dir.mdx/x"} {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("# x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := store.Source{Path: root}
	pre := store.Source{Path: root, Prefix: "site/"}
	for _, c := range []struct {
		src      store.Source
		id, want string
	}{
		{src, "docs/charts", "docs/charts.mdx"},
		{src, "docs/guide", "docs/guide/index.markdown"},
		{src, "read", ""}, // read: a miss of it has another cause
		{src, "UP", "UP.MD"},
		{src, "dir", ""}, // a folder named like a file is no file
		{src, "../docs/charts", ""},
		{src, "nope", ""},
		{pre, "site/docs/charts", "docs/charts.mdx"},
		{pre, "docs/charts", ""}, // not under the prefix
	} {
		got := UnreadFile(c.src, c.id)
		if got != "" {
			rel, _ := filepath.Rel(root, got)
			got = filepath.ToSlash(rel)
		}
		if got != c.want {
			t.Errorf("UnreadFile(%+v, %q) = %q, want %q", c.src.Prefix, c.id, got, c.want)
		}
	}
}
