package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/store"
)

// TestSkippedState: what writeSkippedState records (the files skipped for
// their bytes or as unreadable, and the touched ones, nothing else) reads
// back for its generation only.
func TestSkippedState(t *testing.T) {
	dir := t.TempDir()
	root := &store.Source{Path: "/src"}
	files := []*file{
		{root: root, rel: "bin.md", size: 3, mtime: 7, status: statusSkipped, warning: &warning{kind: KindBinary}},
		{root: root, rel: "a b/latin1.md", size: 9, mtime: -1, status: statusSkipped, warning: &warning{kind: KindNotUTF8}},
		{root: root, rel: "big.md", size: 1 << 30, mtime: 8, status: statusSkipped, warning: &warning{kind: KindTooLarge}},
		{root: root, rel: "deep.md", size: 6, mtime: 12, status: statusSkipped, warning: &warning{kind: KindParseBudget}, overLimit: true},
		{root: root, rel: "slow.md", size: 7, mtime: 13, status: statusSkipped, warning: &warning{kind: KindParseBudget}}, // over the time: may pass
		{root: root, rel: "touched.md", size: 4, mtime: 11, status: statusTouched},
		{root: root, rel: "closed.md", size: 2, mtime: 14, status: statusSkipped, warning: &warning{kind: KindUnreadable}},
		{root: root, rel: "gone.md", size: 2, mtime: 15, status: statusSkipped, warning: &warning{kind: KindChanged}}, // removed while read: may pass
		{root: root, rel: "ok.md", size: 5, mtime: 9, status: statusNew},
	}
	if err := writeSkippedState(dir, 4, files); err != nil {
		t.Fatal(err)
	}
	want := map[string]skippedEntry{
		store.FileKey("/src", "bin.md"):        {size: 3, mtime: 7},
		store.FileKey("/src", "a b/latin1.md"): {size: 9, mtime: -1},
		store.FileKey("/src", "deep.md"):       {size: 6, mtime: 12},
		store.FileKey("/src", "touched.md"):    {size: 4, mtime: 11, touched: true},
		store.FileKey("/src", "closed.md"):     {size: 2, mtime: 14, unreadable: true},
	}
	if diff := cmp.Diff(want, readSkippedState(dir, 4), cmp.AllowUnexported(skippedEntry{})); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	if got := readSkippedState(dir, 5); got != nil {
		t.Errorf("another generation's record read: %v", got)
	}
	// Nothing skipped: the record goes.
	if err := writeSkippedState(dir, 5, files[len(files)-1:]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, skippedStateFile)); !os.IsNotExist(err) {
		t.Errorf("record kept with nothing skipped: %v", err)
	}
}

// A damaged record is not an error and never a panic: status then lists
// those files as added.
func FuzzReadSkippedState(f *testing.F) {
	f.Add([]byte(skippedStateMagic + "\ngeneration 1\ns 3 7 \"/src\\x00bin.md\"\n"))
	f.Add([]byte(skippedStateMagic + "\ngeneration 1\nt 3 7 \"/src\\x00a.md\"\n"))
	f.Add([]byte(skippedStateMagic + "\ngeneration 1\nu 3 7 \"/src\\x00closed.md\"\n"))
	f.Add([]byte(skippedStateMagic + "\ngeneration 1\ns 3 7 /src\n"))
	f.Add([]byte(skippedStateMagic + "\ngeneration 1\nx -3 x \"\\xff\"\n"))
	f.Add([]byte(skippedStateMagic + "\ngeneration 18446744073709551616\n"))
	f.Add([]byte(skippedStateMagic + "\ngeneration 1\n" + strings.Repeat("9", 2<<20) + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, skippedStateFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		for key, e := range readSkippedState(dir, 1) {
			// What was read writes back to a record that reads the same.
			root, rel, ok := strings.Cut(key, "\x00")
			if !ok {
				continue
			}
			fl := &file{root: &store.Source{Path: root}, rel: rel, size: e.size, mtime: e.mtime, status: statusSkipped, warning: &warning{kind: KindBinary}}
			switch {
			case e.touched:
				fl.status, fl.warning = statusTouched, nil
			case e.unreadable:
				fl.warning.kind = KindUnreadable
			}
			if fl.key() != key {
				continue
			}
			if err := writeSkippedState(dir, 2, []*file{fl}); err != nil {
				t.Fatal(err)
			}
			if got := readSkippedState(dir, 2); len(got) != 1 || got[key] != e {
				t.Fatalf("%q %+v read back as %v", key, e, got)
			}
			return
		}
	})
}

// TestDiffSkippedAsBefore: files a refresh skipped for their bytes — binary,
// and a path that gives no valid id ("..md") without an id in its front
// matter — are not "added" in the next status while they stay as they
// were (status never reached "none since" on tldr, whose 39 "..md" pages
// have no id); once one changes, it is added again, to be read.
func TestDiffSkippedAsBefore(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n")
	writeFile(t, src, "..md", "# dot\n")
	writeFile(t, src, "bin.md", "# B\x00\n")
	srcs := []store.Source{{Path: src}}
	refresh(t, dir, srcs...)
	c, err := Diff(context.Background(), dir, srcs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Added)+len(c.Changed)+len(c.Removed) != 0 || c.Skipped != 2 {
		t.Errorf("after the refresh: added %v, changed %v, removed %v, skipped %d; want none, and 2 skipped", c.Added, c.Changed, c.Removed, c.Skipped)
	}
	writeFile(t, src, "..md", "---\nid: dot\n---\n# dot\n")
	if c, err = Diff(context.Background(), dir, srcs, Options{}); err != nil {
		t.Fatal(err)
	}
	if len(c.Added) != 1 || c.Skipped != 1 {
		t.Errorf("after ..md changed: added %v, skipped %d; want it added, 1 skipped", c.Added, c.Skipped)
	}
}
