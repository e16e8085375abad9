package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/faultfs"
)

// TestAuthenticateReadsSourcesBounded: a read batch's authentication
// re-reads a source file only when its mtime changed at the same size, and
// only through the refresh's reader: a regular file, opened without
// blocking, at most the size the manifest records. A source replaced by a
// link to /dev/zero (which took the server to 1.4 GB), a FIFO (which hung
// the session), or swapped for either between the stat and the read, is
// source_drift at once, with memory bounded; a touched file with the same
// bytes still authenticates, and one with other bytes of the same size
// does not.
func TestAuthenticateReadsSourcesBounded(t *testing.T) {
	const body = "# A\n\nversion one, about kestrels\n"
	tests := []struct {
		name  string
		setup func(t *testing.T, path string) // changes the source before the check
		swap  func(t *testing.T, path string) // replaces it just before the read
		drift string                          // "" for none; else a part of the message
	}{
		{name: "unchanged"},
		{name: "touched, same bytes", setup: touch},
		{name: "same size, other bytes", setup: func(t *testing.T, p string) {
			write(t, p, strings.Replace(body, "one", "two", 1))
		}, drift: "other bytes"},
		{name: "a link to /dev/zero", setup: func(t *testing.T, p string) { link(t, "/dev/zero", p) }, drift: "leads outside the source roots"},
		// A link out of the roots says nothing of what it leads to: not
		// its size (a review read /etc/shadow's so), nor whether it is.
		{name: "a link outside the roots", setup: func(t *testing.T, p string) {
			out := filepath.Join(t.TempDir(), "secret")
			write(t, out, strings.Repeat("s", 631))
			link(t, out, p)
		}, drift: "now a link that leads outside the source roots"},
		{name: "a link to nothing outside the roots", setup: func(t *testing.T, p string) {
			link(t, filepath.Join(t.TempDir(), "absent"), p)
		}, drift: "now a link that leads nowhere a refresh would read"},
		// A link to the same bytes inside the root is what a refresh reads.
		{name: "a link to a copy inside the root", setup: func(t *testing.T, p string) {
			copyPath := filepath.Join(filepath.Dir(p), "copy.txt")
			write(t, copyPath, body)
			link(t, copyPath, p)
		}},
		{name: "a FIFO", setup: fifo, drift: "a FIFO"},
		{name: "removed", setup: func(t *testing.T, p string) { os.Remove(p) }, drift: "no such file"},
		{name: "longer", setup: func(t *testing.T, p string) { write(t, p, body+"more\n") }, drift: "bytes, the manifest records"},
		{name: "swapped for a FIFO before the read", setup: touch, swap: fifo, drift: "not a regular file"},
		{name: "swapped for a link to /dev/zero before the read", setup: touch, swap: func(t *testing.T, p string) {
			link(t, "/dev/zero", p)
		}, drift: "symbolic link"},
		{name: "swapped for a larger file before the read", setup: touch, swap: func(t *testing.T, p string) {
			if err := os.Truncate(p, 1<<30); err != nil { // sparse: nothing allocated here
				t.Fatal(err)
			}
		}, drift: "bytes, the manifest records"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := t.TempDir()
			path := filepath.Join(src, "a.md")
			write(t, path, body)
			ctx := context.Background()
			v, log, _ := readRecorded(t, []store.Source{{Path: src}}, "a")
			if tt.setup != nil {
				tt.setup(t, path)
			}
			if tt.swap != nil {
				defer faultfs.Set(func(op faultfs.Op, p string) error {
					if op == faultfs.OpRead {
						tt.swap(t, path)
					}
					return nil
				})()
			}
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			done := make(chan error, 1)
			go func() { done <- v.Authenticate(ctx, log) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Authenticate hangs")
			}
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
				t.Errorf("Authenticate allocated %d bytes", grew)
			}
			switch {
			case tt.drift == "" && err != nil:
				t.Errorf("Authenticate: %v", err)
			case tt.drift != "" && (docir.CodeOf(err) != docir.CodeSourceDrift || !strings.Contains(err.Error(), tt.drift)):
				t.Errorf("Authenticate: %v (code %q); want source_drift saying %q", err, docir.CodeOf(err), tt.drift)
			case err != nil && strings.Contains(err.Error(), "631 bytes"):
				t.Errorf("Authenticate: %v: tells the size of a file outside the roots", err)
			}
		})
	}
}

// readRecorded indexes sources into a new store and reads the address a
// from its current generation, recording the read: the view (closed when
// the test ends), the read's log, and what it read.
func readRecorded(t *testing.T, sources []store.Source, a string) (*View, *docir.ReadLog, docir.Resolved) {
	t.Helper()
	ctx := context.Background()
	ws := New(Config{Dir: t.TempDir(), Sources: sources})
	t.Cleanup(func() { ws.Close() })
	if _, err := ws.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := ws.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	log := &docir.ReadLog{}
	res, err := v.Recording(log).Resolve(ctx, []address.Address{address.MustParse(a)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return v, log, res
}

func write(t *testing.T, p, body string) {
	t.Helper()
	tmp := p + ".new"
	if err := os.WriteFile(tmp, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}

// touch moves the file's mtime on, its bytes unchanged.
func touch(t *testing.T, p string) {
	t.Helper()
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, p string) {
	t.Helper()
	if err := errors.Join(os.Remove(p), os.Symlink(target, p)); err != nil {
		t.Fatal(err)
	}
}

func fifo(t *testing.T, p string) {
	t.Helper()
	if err := errors.Join(os.Remove(p), syscall.Mkfifo(p, 0o644)); err != nil {
		t.Fatal(err)
	}
}

// TestAuthenticateLinkIntoAnotherSource: a page that is a link into
// another source root is indexed (every source root is a root a link may
// lead under), and a read batch's authentication of it is no drift: the
// roots it checks a link against are every source's, not the page's own
// (a review found the first version of the check refusing it).
func TestAuthenticateLinkIntoAnotherSource(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	write(t, filepath.Join(b, "shared.md"), "# Shared\n\nabout kestrels\n")
	if err := os.Symlink(filepath.Join(b, "shared.md"), filepath.Join(a, "a.md")); err != nil {
		t.Fatal(err)
	}
	v, log, res := readRecorded(t, []store.Source{{Path: a}, {Path: b}}, "a")
	if len(res.Items) != 1 || res.Items[0].Document == nil {
		t.Fatalf("the linked page is not read: %+v", res)
	}
	if err := v.Authenticate(context.Background(), log); err != nil {
		t.Errorf("Authenticate: %v", err)
	}
}
