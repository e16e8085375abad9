package ingest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readDirents lists what os.ReadDir lists, with the same kinds: regular
// files, folders, links, a FIFO, hidden names, names with spaces and
// non-ASCII, and enough long names that the buffer must grow.
func TestReadDirentsMatchesReadDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3000 {
		write(fmt.Sprintf("page-%04d-%s.md", i, strings.Repeat("long", 10)))
	}
	for _, n := range []string{"..md", ".hidden.md", "a b.md", "日本.md", "notes.txt", ".gitignore"} {
		write(n)
	}
	for _, d := range []string{"sub", ".git", "ü"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("sub", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}

	want := map[string]fs.FileMode{}
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		m := e.Type()
		if m&^(fs.ModeDir|fs.ModeSymlink) != 0 {
			m = fs.ModeIrregular
		}
		want[e.Name()] = m
	}
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var buf []byte
	got, err := readDirents(int(d.Fd()), &buf)
	if err != nil {
		t.Fatal(err)
	}
	gotMap := map[string]fs.FileMode{}
	for _, e := range got {
		gotMap[strings.Clone(e.Name())] = e.Type()
	}
	if diff := cmp.Diff(want, gotMap); diff != "" {
		t.Errorf("readDirents differs from os.ReadDir (-want +got):\n%s", diff)
	}
	if cap(buf) <= 64<<10 {
		t.Errorf("buffer did not grow past its first 64 KiB (cap %d): the test does not cover growth", cap(buf))
	}
	names := make([]string, len(got))
	for i, e := range got {
		names[i] = e.Name()
	}
	if slices.Contains(names, ".") || slices.Contains(names, "..") {
		t.Error(`"." or ".." listed`)
	}
}
