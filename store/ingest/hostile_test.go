package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// hasWarning reports whether one warning names path (quoted, when it
// holds characters that are not graphic) and says frag.
func hasWarning(sum docir.IndexSummary, path, frag string) bool {
	for _, w := range sum.Warnings {
		if strings.HasPrefix(w, shown(path)+":") && strings.Contains(w, frag) {
			return true
		}
	}
	return false
}

// TestLinksStayUnderTheRoots: a symbolic link is followed only when its
// real path lies under a source root (or an allowed root); a link out, to a
// file or a folder, is skipped with a warning naming it. Before, a link
// notes.md -> /etc/shadow was indexed and served.
func TestLinksStayUnderTheRoots(t *testing.T) {
	src, secret, extra, dir := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, secret, "shadow", "# root:$6$secret\n")
	writeFile(t, secret, "sub/inner.md", "# Inner secret\n")
	writeFile(t, extra, "shared.md", "# Shared\n")
	writeFile(t, src, "a/b/c/deep.md", "# Deep\n")
	writeFile(t, src, ".hidden/x.md", "# Hidden\n")
	writeFile(t, src, "real/page.md", "# Page\n")
	symlink(t, filepath.Join(secret, "shadow"), filepath.Join(src, "notes.md"))
	symlink(t, filepath.Join(secret, "sub"), filepath.Join(src, "linkdir"))
	symlink(t, filepath.Join(extra, "shared.md"), filepath.Join(src, "shared.md"))
	symlink(t, filepath.Join(src, "real", "page.md"), filepath.Join(src, "inside.md")) // inside: followed
	symlink(t, filepath.Join(src, "real"), filepath.Join(src, "alias"))                // inside: followed
	symlink(t, "../real/../../"+filepath.Base(secret)+"/shadow", filepath.Join(src, "a", "rel.md"))
	symlink(t, filepath.Join(src, "nope.md"), filepath.Join(src, "broken.md"))

	sum, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a/b/c/deep", "alias/page", "inside", "real/page"}, ids(t, dir)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	for _, name := range []string{"notes.md", "linkdir", "shared.md", "a/rel.md"} {
		if !hasWarning(sum, filepath.Join(src, name), "outside the source roots") {
			t.Errorf("no warning names %s: %q", name, sum.Warnings)
		}
	}
	if !hasWarning(sum, filepath.Join(src, "broken.md"), "broken symbolic link") {
		t.Errorf("no warning for the broken link: %q", sum.Warnings)
	}
	if sum.WarningCounts[KindOutsideRoots] != 4 || sum.WarningCounts[KindBrokenLink] != 1 {
		t.Errorf("warning counts %v", sum.WarningCounts)
	}
	snap, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, body, ok, _ := snap.Lookup("notes"); ok || strings.Contains(string(body), "secret") {
		t.Errorf("the secret was indexed")
	}
	snap.Close()

	// An allowed root widens the rule to the links into it.
	sum, err = Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{AllowRoots: []string{extra}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a/b/c/deep", "alias/page", "inside", "real/page", "shared"}, ids(t, dir)); diff != "" {
		t.Errorf("ids with an allowed root (-want +got):\n%s", diff)
	}
}

// TestFolderLinkLoops: links to a folder that holds them are warned about
// and the walk ends.
func TestFolderLinkLoops(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a/x.md", "# X\n")
	writeFile(t, src, "b/y.md", "# Y\n")
	symlink(t, src, filepath.Join(src, "a", "up")) // to the root
	symlink(t, filepath.Join(src, "a"), filepath.Join(src, "a", "self"))
	symlink(t, filepath.Join(src, "b"), filepath.Join(src, "a", "tob")) // a -> b
	symlink(t, filepath.Join(src, "a"), filepath.Join(src, "b", "toa")) // b -> a: a loop through two links
	sum, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a/tob/y", "a/x", "b/toa/x", "b/y"}, ids(t, dir)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if sum.WarningCounts[KindLinkLoop] != 6 { // up, self and the second link of a -> b -> a, from a and from b
		t.Errorf("loop warnings %v: %q", sum.WarningCounts, sum.Warnings)
	}
}

// TestFileLinkLoops: a *.md link that loops (to itself, or through
// another) is skipped with a link_loop warning naming it, and the rest
// indexes. Before, EvalSymlinks' "too many links" read as an I/O error
// and failed the whole refresh.
func TestFileLinkLoops(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "ok.md", "# OK\n")
	symlink(t, "self.md", filepath.Join(src, "self.md"))
	symlink(t, "b.md", filepath.Join(src, "a.md"))
	symlink(t, "a.md", filepath.Join(src, "b.md"))
	sum, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ok"}, ids(t, dir)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	for _, name := range []string{"self.md", "a.md", "b.md"} {
		if !hasWarning(sum, filepath.Join(src, name), "loops") {
			t.Errorf("no warning names %s: %q", name, sum.Warnings)
		}
	}
	if sum.WarningCounts[KindLinkLoop] != 3 {
		t.Errorf("warning counts %v", sum.WarningCounts)
	}
}

// TestFIFOAndDeviceDoNotHang: a FIFO named *.md (open() would block
// forever) and a link to /dev/zero (a read would never end) are skipped
// with a warning; the refresh finishes.
func TestFIFOAndDeviceDoNotHang(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "ok.md", "# OK\n")
	if err := syscall.Mkfifo(filepath.Join(src, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{AllowRoots: []string{"/dev"}})
	if err != nil {
		t.Fatal(err)
	}
	if !hasWarning(sum, filepath.Join(src, "fifo.md"), "not a regular file") {
		t.Errorf("warnings %q", sum.Warnings)
	}

	// A link to a device, even under an allowed root, is not a file.
	symlink(t, "/dev/zero", filepath.Join(src, "zero.md"))
	sum, err = Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{AllowRoots: []string{"/dev"}})
	if err != nil {
		t.Fatal(err)
	}
	if !hasWarning(sum, filepath.Join(src, "zero.md"), "not a regular file") {
		t.Errorf("warnings %q", sum.Warnings)
	}
	if diff := cmp.Diff([]string{"ok"}, ids(t, dir)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

// TestSwappedUnderTheWalk: a file the walk listed that became a FIFO, a
// link to /dev/zero or a link out of the roots before it was read is
// skipped, not hung on, flooded by or leaked.
func TestSwappedUnderTheWalk(t *testing.T) {
	src, secret := t.TempDir(), t.TempDir()
	writeFile(t, secret, "key", "# secret\n")
	cases := map[string]func(p string){
		"fifo": func(p string) { os.Remove(p); syscall.Mkfifo(p, 0o644) },
		"zero": func(p string) { os.Remove(p); os.Symlink("/dev/zero", p) },
		"out":  func(p string) { os.Remove(p); os.Symlink(filepath.Join(secret, "key"), p) },
	}
	for name, swap := range cases {
		t.Run(name, func(t *testing.T) {
			writeFile(t, src, name+".md", "# "+name+"\n")
			w, err := walk(context.Background(), []store.Source{{Path: src}}, Options{}.withDefaults())
			if err != nil {
				t.Fatal(err)
			}
			var f *file
			for _, g := range w.files {
				if g.rel == name+".md" {
					f = g
				}
			}
			if f == nil {
				t.Fatal("not walked")
			}
			swap(f.path())
			done := make(chan struct{})
			go func() {
				defer close(done)
				readOne(context.Background(), nil, f, Options{}.withDefaults(), []string{src})
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the read hung")
			}
			if f.status != statusSkipped || f.warning.kind != KindChanged {
				t.Errorf("status %v, warning %+v", f.status, f.warning)
			}
		})
	}
}

// TestCancelPublishesNothing: a refresh whose ctx ends returns the ctx's
// error, soon, and publishes nothing; the next refresh works.
func TestCancelPublishesNothing(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	for i := range 200 {
		writeFile(t, src, "d"+string(rune('a'+i%26))+"/"+strings.Repeat("x", i%7+1)+string(rune('a'+i/26))+".md", "# T\n\nsome words\n")
	}
	// A file goldmark takes long on keeps a worker busy when the ctx ends.
	writeFile(t, src, "slow.md", strings.Repeat("- a\n  ", 40_000))
	refresh(t, dir, store.Source{Path: src})
	writeFile(t, src, "new.md", "# New\n")
	writeFile(t, src, "slow.md", strings.Repeat("- b\n  ", 40_000))

	ctx, cancel := context.WithCancel(context.Background())
	opt := Options{Progress: func(stage string, done, total int) {
		cancel() // as soon as the first file is read
	}}
	start := time.Now()
	_, err := Refresh(ctx, dir, []store.Source{{Path: src}}, opt)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	t.Logf("returned %v after the start", time.Since(start))
	if gen, err := store.CurrentGeneration(dir); err != nil || gen != 1 {
		t.Fatalf("generation %d, %v: a cancelled refresh published", gen, err)
	}
	// Cancelled before it starts: nothing at all, not even a lock wait.
	_, err = Refresh(ctx, t.TempDir(), []store.Source{{Path: src}}, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if sum := refresh(t, dir, store.Source{Path: src}); !sum.Published || sum.Generation != 2 {
		t.Fatalf("after a cancel: %+v", sum)
	}
}

// TestParseBudgetSkipsTheFileOnly: a file over the parse budget is skipped
// with a warning; the others index.
func TestParseBudgetSkipsTheFileOnly(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "ok.md", "# OK\n")
	writeFile(t, src, "lists.md", strings.Repeat("- ", 100_000)+"x")
	writeFile(t, src, "links.md", "# "+strings.Repeat("[a](", 100_000)+"\n")
	writeFile(t, src, "headings.md", strings.Repeat("# h\n", 30))
	sum, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{MaxHeadings: 20})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"links", "ok"}, ids(t, dir)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if !hasWarning(sum, filepath.Join(src, "lists.md"), "nested more than") || !hasWarning(sum, filepath.Join(src, "headings.md"), "more than 20 headings") {
		t.Errorf("warnings %q", sum.Warnings)
	}
	if sum.WarningCounts[KindParseBudget] != 2 {
		t.Errorf("counts %v", sum.WarningCounts)
	}
}

// TestCancelWhileWaitingForTheLock: a refresh waiting for another's lock
// stops waiting when its ctx ends.
func TestCancelWhileWaitingForTheLock(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n")
	if _, err := store.Claim(dir); err != nil {
		t.Fatal(err)
	}
	unlock, err := store.Lock(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	waiting := make(chan struct{})
	go func() {
		<-waiting
		cancel()
	}()
	_, err = Refresh(ctx, dir, []store.Source{{Path: src}}, Options{Wait: func(store.Holder) { close(waiting) }})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	// The refresh's wait goes on until the lock is let go, then undoes
	// its claim: done before the folder is removed (it once ran into the
	// test's cleanup, under -race: "directory not empty").
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	abandoned.Wait()
}

// TestStoreBoundOverridesMaxFileBytes: max_file_bytes cannot raise the
// size of a document past what the store keeps (store.MaxValueBytes). A
// larger file is skipped with a warning naming it and the bound, and the
// rest indexes and reads. Before, a 70 MB file indexed under a raised
// max_file_bytes, and then every read said the store was corrupt.
func TestStoreBoundOverridesMaxFileBytes(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "ok.md", "# OK\n")
	writeFile(t, src, "huge.md", "# Huge\n"+strings.Repeat("word ", store.MaxValueBytes/5))
	sum, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{MaxFileBytes: 100 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ok"}, ids(t, dir)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if !hasWarning(sum, filepath.Join(src, "huge.md"), fmt.Sprintf("over the %d-byte bound on one document the store keeps", store.MaxValueBytes)) {
		t.Errorf("no warning names huge.md and the bound: %q", sum.Warnings)
	}
	snap, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	if _, _, ok, err := snap.Lookup("ok"); !ok || err != nil {
		t.Errorf("Lookup(ok) = %v, %v", ok, err)
	}
}

// TestNamesNotUTF8AreSkipped: a file or folder whose name is not valid
// UTF-8 is skipped with a no_id warning naming it escaped; the rest
// indexes. No id, and no path in a reply (JSON text is UTF-8), could
// hold its bytes. Before, a\xffx.md was indexed as a\ufffdx with the path
// "a\ufffdx.md", a file that does not exist, and beside a\xfex.md (the
// same id) the whole refresh failed.
func TestNamesNotUTF8AreSkipped(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "ok.md", "# ok\n")
	writeFile(t, src, "a\xffx.md", "# one\n")
	writeFile(t, src, "a\xfex.md", "# two\n")
	writeFile(t, src, "d\xff/inner.md", "# inner\n")
	writeFile(t, src, "d\xff/deeper/more.md", "# more\n")
	writeFile(t, src, "notes\xff.txt", "not markdown: no warning\n")
	symlink(t, filepath.Join(src, "ok.md"), filepath.Join(src, "l\xff.md"))
	sum, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ok"}, ids(t, dir)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	for _, name := range []string{"a\xffx.md", "a\xfex.md", "d\xff", "l\xff.md"} {
		if !hasWarning(sum, filepath.Join(src, name), "not valid UTF-8") {
			t.Errorf("no warning names %q: %q", name, sum.Warnings)
		}
	}
	if sum.WarningCounts[KindNoID] != 4 || len(sum.Warnings) != 4 {
		t.Errorf("warnings %q, counts %v; want 4 no_id (the folder once)", sum.Warnings, sum.WarningCounts)
	}
	for _, w := range sum.Warnings {
		if !strings.Contains(w, `\xff`) && !strings.Contains(w, `\xfe`) || !utf8.ValidString(w) {
			t.Errorf("warning %q does not show the name's bytes escaped", w)
		}
	}
}
