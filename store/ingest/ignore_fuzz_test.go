package ingest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// FuzzIgnoreFile: any .gitignore a source holds is read without a panic,
// and its patterns match any path without one.
func FuzzIgnoreFile(f *testing.F) {
	for _, s := range []string{"node_modules/\n", "*.md\n!keep.md\n", "# c\n\n/a/**/b\n", "\\#x\n[a-\n", "**\n***\n/\n", "a\\\n\r\n"} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	p := filepath.Join(dir, ".gitignore")
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ps, err := readIgnoreFile(p, []string{"sub"})
		if err != nil {
			return
		}
		m := gitignore.NewMatcher(ps)
		for _, path := range [][]string{{"sub", "a.md"}, {"sub", "x", "y", "b.md"}, {"other", "a.md"}, {"sub", string(b)}} {
			m.Match(path, false)
			m.Match(path, true)
		}
	})
}
