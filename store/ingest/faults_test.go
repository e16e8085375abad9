package ingest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/faultfs"
	"github.com/docir/docir/store/fulltext"
)

// Faults that lose or fake data (issue 28): every I/O error fails a refresh
// closed, and publishing is its commit point. Faults are injected through
// the store's file-operation seam (package faultfs).

// withFault installs h for the rest of the test.
func withFault(t *testing.T, h faultfs.Hook) {
	t.Helper()
	t.Cleanup(faultfs.Set(h))
}

// readFiles maps the path of every file under root to its content.
func readFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[strings.TrimPrefix(p, root)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestStoreOnlyInAFolderDocirMade: `--store` on a folder of the user's that
// has a gen/ subfolder used to be taken for a store: the user's gen/1 was
// removed and docir's generation 1 pruned at once. A folder is a store only
// if docir made it (its IDENTITY), and docir removes only names it made.
func TestStoreOnlyInAFolderDocirMade(t *testing.T) {
	src, proj := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n")
	for i := 1; i <= 4; i++ {
		writeFile(t, proj, fmt.Sprintf("gen/%d/notes.txt", i), fmt.Sprintf("my notes %d\n", i))
	}
	writeFile(t, proj, "lock", "my lock\n")
	before := readFiles(t, proj)
	_, err := Refresh(context.Background(), proj, []store.Source{{Path: src}}, Options{Retain: 1})
	if docir.CodeOf(err) != docir.CodeUsage || !strings.Contains(err.Error(), "not a docir store") {
		t.Fatalf("refresh into a folder of the user's: %v", err)
	}
	if diff := cmp.Diff(before, readFiles(t, proj)); diff != "" {
		t.Fatalf("the user's folder changed (-before +after):\n%s", diff)
	}

	// In a store docir made, names in gen/ that are not docir's stay, however
	// many generations are pruned.
	dir := filepath.Join(t.TempDir(), "store")
	refresh(t, dir, store.Source{Path: src})
	if b, err := os.ReadFile(filepath.Join(dir, ".gitignore")); err != nil || !strings.Contains(string(b), "\n*\n") {
		t.Errorf("the new store's .gitignore: %q, %v", b, err)
	}
	writeFile(t, dir, "gen/notes.txt", "mine\n")
	writeFile(t, dir, "gen/01/x", "mine\n")
	writeFile(t, dir, "gen/7.tmp-/x", "mine\n")
	for i := range 4 {
		writeFile(t, src, "a.md", fmt.Sprintf("# A\n\nversion %d\n", i))
		if _, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{Retain: 1}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"gen/notes.txt", "gen/01/x", "gen/7.tmp-/x"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestUnreadableFolderFailsTheRefresh: an EIO listing one source subfolder
// used to read as an empty folder: its documents were removed and the
// refresh published ("3 removed", exit 0). Now the refresh fails, names the
// folder, and publishes nothing.
func TestUnreadableFolderFailsTheRefresh(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	for _, name := range []string{"a.md", "sub/b.md", "sub/c.md", "sub/deeper/d.md"} {
		writeFile(t, src, name, "# "+name+"\n")
	}
	refresh(t, dir, store.Source{Path: src})
	writeFile(t, src, "e.md", "# E\n") // a change, so a refresh would publish
	sub := filepath.Join(src, "sub")
	withFault(t, func(op faultfs.Op, p string) error {
		if op == faultfs.OpReadDir && p == sub {
			return syscall.EIO
		}
		return nil
	})
	_, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{})
	if err == nil || !strings.Contains(err.Error(), sub) || !errors.Is(err, syscall.EIO) {
		t.Fatalf("refresh with an unreadable folder: %v", err)
	}
	if gen, err := store.CurrentGeneration(dir); err != nil || gen != 1 {
		t.Fatalf("generation %d, %v: the failed refresh published", gen, err)
	}
	if diff := cmp.Diff([]string{"a", "sub/b", "sub/c", "sub/deeper/d"}, ids(t, dir)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}

	// A file that cannot be read for an I/O error is not a removed file
	// either; one docir may not read is skipped with a warning.
	withFault(t, func(op faultfs.Op, p string) error {
		if op == faultfs.OpRead && strings.HasSuffix(p, "e.md") {
			return syscall.EIO
		}
		return nil
	})
	if _, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{}); !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "e.md") {
		t.Fatalf("refresh with an unreadable file: %v", err)
	}
	withFault(t, func(op faultfs.Op, p string) error {
		if op == faultfs.OpRead && strings.HasSuffix(p, "e.md") {
			return syscall.EACCES
		}
		return nil
	})
	sum, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{})
	if err != nil || sum.WarningCounts[KindUnreadable] != 1 {
		t.Fatalf("refresh with a file it may not read: %+v, %v", sum, err)
	}
	// docir status: skipped as before while it may not be read (before,
	// "added; run docir index" after every refresh), added once it may:
	// a chmod changes neither its size nor its mtime.
	c, err := Diff(context.Background(), dir, []store.Source{{Path: src}}, Options{})
	if err != nil || len(c.Added) != 0 || c.Skipped != 1 {
		t.Fatalf("status with a file it may not read: %+v, %v; want it skipped as before", c, err)
	}
	withFault(t, nil)
	c, err = Diff(context.Background(), dir, []store.Source{{Path: src}}, Options{})
	if err != nil || len(c.Added) != 1 || c.Skipped != 0 {
		t.Fatalf("status once the file may be read: %+v, %v; want it added", c, err)
	}
}

// TestFailureAfterPublishIsAWarning: a failure past the commit point (the
// folder state's rename, a prune's unlink) used to fail the refresh (exit
// 1) while the new generation was current. Now the refresh succeeds with a
// cleanup warning, and the next refresh finishes the job.
func TestFailureAfterPublishIsAWarning(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n")
	opt := Options{Retain: 1}
	if _, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, opt); err != nil {
		t.Fatal(err)
	}
	writeFile(t, src, "b.md", "# B\n")
	withFault(t, func(op faultfs.Op, p string) error {
		switch {
		case op == faultfs.OpRemove && strings.HasSuffix(p, ".tmp-pruned"),
			op == faultfs.OpRename && filepath.Base(p) == folderStateFile:
			return syscall.EIO
		}
		return nil
	})
	committed := false
	opt.BeforePublish = func() error { committed = true; return nil }
	sum, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, opt)
	if err != nil || !sum.Published || sum.Generation != 2 || !committed {
		t.Fatalf("refresh failing after its commit point: %+v, %v", sum, err)
	}
	if sum.WarningCounts[KindCleanup] != 2 {
		t.Errorf("warnings %q", sum.Warnings)
	}
	if diff := cmp.Diff([]string{"a", "b"}, ids(t, dir)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	faultfs.Set(nil)
	if sum := refresh(t, dir, store.Source{Path: src}); sum.Published || len(sum.Warnings) != 0 {
		t.Errorf("the next refresh: %+v", sum)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "gen"))
	if len(entries) != 1 {
		t.Errorf("gen/ holds %v; want generation 2 alone", entries)
	}
}

// TestCleanupWarningWhenNothingPublished: a refresh that finds nothing to
// publish and then cannot record the folder state (the disk is full) warns
// without claiming to have published. Before, its warnings began
// "published, but could not ..." beside "published": false.
func TestCleanupWarningWhenNothingPublished(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n")
	refresh(t, dir, store.Source{Path: src})
	writeFile(t, src, "skip.md", "# x\x00") // recorded in skipped.state
	withFault(t, func(op faultfs.Op, p string) error {
		if op == faultfs.OpRename && (filepath.Base(p) == folderStateFile || filepath.Base(p) == skippedStateFile) {
			return syscall.ENOSPC
		}
		return nil
	})
	sum, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{})
	if err != nil || sum.Published || sum.Generation != 1 {
		t.Fatalf("refresh with nothing to publish: %+v, %v", sum, err)
	}
	if sum.WarningCounts[KindCleanup] != 2 {
		t.Errorf("warnings %q, want 2 cleanup", sum.Warnings)
	}
	for _, w := range sum.Warnings {
		if strings.Contains(w, "could not") && (strings.HasPrefix(w, "published") || !strings.HasPrefix(w, "nothing to publish")) {
			t.Errorf("warning %q: want one that says nothing was published", w)
		}
	}
}

// TestEveryFaultFailsClosed injects EIO into each rename, unlink, fsync,
// link and mkdir of an incremental refresh in turn. Each refresh either
// fails and publishes nothing, or (a fault past its commit point) publishes
// with a cleanup warning; either way the store opens, the current
// generation is whole and searchable, and the next refresh succeeds.
func TestEveryFaultFailsClosed(t *testing.T) {
	src := t.TempDir()
	for i := range 20 {
		writeFile(t, src, fmt.Sprintf("d%02d.md", i), fmt.Sprintf("# Doc %d\n\nversion 0 words %d\n", i, i))
	}
	base := t.TempDir()
	refresh(t, base, store.Source{Path: src})
	for i := range 5 { // version 1 changes every other document, and adds one
		writeFile(t, src, fmt.Sprintf("d%02d.md", 2*i), fmt.Sprintf("# Doc %d\n\nversion 1 words %d\n", 2*i, 2*i))
	}
	writeFile(t, src, "new.md", "# New\n\nversion 1\n")
	opt := Options{Retain: 1}

	// Count the operations of one clean refresh from the same state.
	var ops []string
	dir := copyStore(t, base)
	withFault(t, func(op faultfs.Op, p string) error {
		if op != faultfs.OpReadDir && op != faultfs.OpRead {
			ops = append(ops, op.String()+" "+strings.TrimPrefix(p, dir))
		}
		return nil
	})
	if _, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, opt); err != nil {
		t.Fatal(err)
	}
	if len(ops) < 10 {
		t.Fatalf("only %d operations counted: %q", len(ops), ops)
	}
	t.Logf("%d operations: %q", len(ops), ops)
	for k := range ops {
		dir := copyStore(t, base)
		n := 0
		faultfs.Set(func(op faultfs.Op, p string) error {
			if op == faultfs.OpReadDir || op == faultfs.OpRead {
				return nil
			}
			if n++; n == k+1 {
				return syscall.EIO
			}
			return nil
		})
		sum, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, opt)
		faultfs.Set(nil)
		switch {
		case err != nil:
			if !errors.Is(err, syscall.EIO) {
				t.Errorf("EIO at %s: error %v does not say so", ops[k], err)
			}
		case !sum.Published:
			t.Errorf("EIO at %s: neither failed nor published: %+v", ops[k], sum)
			continue
		case sum.WarningCounts[KindCleanup] == 0 && !strings.HasPrefix(ops[k], "link "):
			// (A link that fails falls back to a copy.)
			t.Errorf("EIO at %s: published without a word: %+v", ops[k], sum)
		}
		checkWhole(t, dir, "EIO at "+ops[k], err == nil)
		if _, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, opt); err != nil {
			t.Errorf("after EIO at %s: the next refresh: %v", ops[k], err)
			continue
		}
		checkWhole(t, dir, "EIO at "+ops[k]+", then a refresh", true)
	}
}

// copyStore copies the store folder from to a new folder.
func copyStore(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "store")
	if err := corpustest.CopyAll(from, to); err != nil {
		t.Fatal(err)
	}
	return to
}

// checkWhole checks that the store in dir opens, that its current
// generation is version 0 of the corpus TestEveryFaultFailsClosed writes,
// or (changed) version 1, whole, and that its index answers for every
// document.
func checkWhole(t *testing.T, dir, what string, changed bool) {
	t.Helper()
	snap, err := store.Open(dir)
	if err != nil {
		t.Errorf("%s: the store does not open: %v", what, err)
		return
	}
	defer snap.Close()
	want := map[string]string{}
	for i := range 20 {
		want[fmt.Sprintf("d%02d", i)] = fmt.Sprintf("version 0 words %d", i)
	}
	if changed {
		for i := range 5 {
			want[fmt.Sprintf("d%02d", 2*i)] = fmt.Sprintf("version 1 words %d", 2*i)
		}
		want["new"] = "version 1"
	}
	got := map[string]string{}
	err = snap.Records(func(r docir.Record) error {
		_, body, _, err := snap.Lookup(r.ID)
		_, text, _ := strings.Cut(string(body), "\n\n")
		got[r.ID] = strings.TrimSpace(text)
		return err
	})
	if err != nil {
		t.Errorf("%s: %v", what, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: generation %d (-want +got):\n%s", what, snap.Generation(), diff)
	}
	ft, err := fulltext.Open(snap.FullTextPath(), true)
	if err != nil {
		t.Errorf("%s: the index does not open: %v", what, err)
		return
	}
	defer ft.Close()
	if m, _, err := ft.Search(context.Background(), "version", 100); err != nil || len(m) != len(want) {
		t.Errorf("%s: the index finds %d of %d documents (%v)", what, len(m), len(want), err)
	}
}

// TestHeldGenerationKeepsItsIndex: with retain 1, searches used to fail
// ("no mapping stored in the index") when a refresh pruned the generation
// whose bodies a reader had open before it opened that generation's index.
// A reader's hold keeps the whole generation until it lets go.
func TestHeldGenerationKeepsItsIndex(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n\nversion kestrel\n")
	opt := Options{Retain: 1}
	if _, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, opt); err != nil {
		t.Fatal(err)
	}
	snap, err := store.Open(dir) // bodies open; the index not yet
	if err != nil {
		t.Fatal(err)
	}
	for _, word := range []string{"heron", "egret"} {
		writeFile(t, src, "a.md", "# A\n\nversion "+word+"\n")
		if _, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, opt); err != nil {
			t.Fatal(err)
		}
	}
	ft, err := fulltext.Open(snap.FullTextPath(), true)
	if err != nil {
		t.Fatalf("the held generation's index: %v", err)
	}
	if m, _, err := ft.Search(context.Background(), "kestrel", 5); err != nil || len(m) != 1 {
		t.Errorf("search of the held generation: %v %v", m, err)
	}
	ft.Close()
	snap.Close()
	if _, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, opt); err != nil {
		t.Fatal(err)
	}
	if got, err := store.Retained(dir); err != nil || !cmp.Equal([]uint64{3}, got) {
		t.Errorf("retained once let go: %v %v", got, err)
	}
}

// TestStoreModesAndLeftovers: generation folders were 0700 (os.MkdirTemp)
// and bleve's files 0600 where the docs say 0755 and 0644 (less the
// umask); CURRENT.tmp-* and folders.state.tmp-* that a kill left were
// never removed.
func TestStoreModesAndLeftovers(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n")
	refresh(t, dir, store.Source{Path: src})
	umask := syscall.Umask(0)
	syscall.Umask(umask)
	wantDir, wantFile := fs.FileMode(0o755&^umask), fs.FileMode(0o644&^umask)
	err := filepath.WalkDir(filepath.Join(dir, "gen"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := wantFile
		if d.IsDir() {
			want = wantDir
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, info.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	leftovers := []string{"CURRENT.tmp-123", "folders.state.tmp-456", "IDENTITY.tmp-7", ".gitignore.tmp-8", "gen/9.tmp-1/x", "gen/1.tmp-pruned/y"}
	for _, p := range leftovers {
		writeFile(t, dir, p, "left by a kill\n")
	}
	writeFile(t, dir, "notes.tmp-1", "not docir's\n")
	refresh(t, dir, store.Source{Path: src}) // changes nothing
	for _, p := range leftovers {
		if _, err := os.Stat(filepath.Join(dir, p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.tmp-1")); err != nil {
		t.Errorf("a file docir did not make: %v", err)
	}
}

// TestIndexingOneFileIsBounded: one 4 MB file of a single token peaked at
// 510 MB when indexed (bleve's term dictionary keeps ~130 bytes per byte
// of a term), and 4 MB of Han text or of distinct words at 440 MB (a few
// hundred bytes per word in analysis, as much per distinct term in bleve's
// segment builder). Each shape is indexed by a process of its own, whose
// peak resident memory must stay within 64 MiB beside the file's size.
func TestIndexingOneFileIsBounded(t *testing.T) {
	if shape := os.Getenv("DOCIR_TEST_SHAPE"); shape != "" {
		indexOneShape(t, shape)
		return
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory is not the indexer's")
	}
	const size = 4 << 20
	for _, shape := range []string{"token", "dotted", "han", "thai", "distinct"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestIndexingOneFileIsBounded$")
		cmd.Env = append(os.Environ(), "DOCIR_TEST_SHAPE="+shape, "DOCIR_TEST_DIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", shape, err, out)
		}
		peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
		t.Logf("%-8s peak %3d MiB", shape, peak>>20)
		if peak > 64<<20+size {
			t.Errorf("indexing a 4 MB file of %s peaked at %d MiB, over 64 MiB beside the file", shape, peak>>20)
		}
	}
}

// indexOneShape indexes one 4 MB file of the shape named, in
// DOCIR_TEST_DIR; the text is made as it is written, not held.
func indexOneShape(t *testing.T, shape string) {
	dir := os.Getenv("DOCIR_TEST_DIR")
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(src, "big.md"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString("# Big\n\n")
	rnd := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 4<<20-16; {
		var piece string
		switch shape {
		case "token":
			piece = "a"
		case "dotted":
			piece = "a."
		case "han":
			piece = "检索命令返回"
		case "thai":
			piece = "คำสั่งนี้"
		case "distinct":
			b := make([]byte, 3+rnd.IntN(8), 12)
			for i := range b {
				b[i] = byte('a' + rnd.IntN(26))
			}
			piece = string(append(b, ' '))
		}
		w.WriteString(piece)
		n += len(piece)
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		t.Fatal(err)
	}
	sum, err := Refresh(context.Background(), filepath.Join(dir, "store"), []store.Source{{Path: src}}, Options{})
	if err != nil || sum.Documents != 1 || sum.WarningCounts[KindPartlyIndexed] != 1 {
		t.Fatalf("%+v, %v", sum, err)
	}
}

// TestDiskFullFailsCleanly: ENOSPC while bleve wrote a segment panicked in
// scorch's persister, 3 of 3 runs ("assignment to entry in nil map" in
// zapx's invertedIndexCache.insertLOCKED). On a full disk the refresh now
// fails with the error, and leaves nothing behind. It needs a small
// filesystem to fill: a tmpfs it mounts, so it runs where the test may
// mount one (as root) and is skipped elsewhere.
func TestDiskFullFailsCleanly(t *testing.T) {
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=2m"); err != nil {
		t.Skipf("cannot mount a 2 MB tmpfs to fill (%v)", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, 0) })
	src := t.TempDir()
	rnd := rand.New(rand.NewPCG(3, 4))
	for i := range 150 {
		var b strings.Builder
		fmt.Fprintf(&b, "# Page %d\n\n", i)
		for range 1500 {
			for range 3 + rnd.IntN(7) {
				b.WriteByte(byte('a' + rnd.IntN(26)))
			}
			b.WriteByte(' ')
		}
		writeFile(t, src, fmt.Sprintf("p%03d.md", i), b.String())
	}
	dir := filepath.Join(mnt, "store")
	_, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{})
	if err == nil || !strings.Contains(err.Error(), syscall.ENOSPC.Error()) { // scorch's own errors carry it as text
		t.Fatalf("a refresh onto a full disk: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "gen")); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
	if _, err := store.Open(dir); docir.CodeOf(err) != docir.CodeNoStore {
		t.Errorf("after the failure: %v", err)
	}
}

// TestFrontMatterOverBudgetWarns: front matter with 80,000 keys held the
// refresh lock for 14 s (yaml.v3's pairwise check for repeated keys), and a
// deeply nested value failed the whole corpus with no file named. Front
// matter is inside the parse budget: one over it is a warning naming its
// file, the file indexes without its fields, and the rest of the corpus
// indexes.
func TestFrontMatterOverBudgetWarns(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	var keys strings.Builder
	for i := range 80_000 {
		fmt.Fprintf(&keys, "k%d: v\n", i)
	}
	writeFile(t, src, "keys.md", "---\n"+keys.String()+"---\n# Keys\n")
	writeFile(t, src, "deep.md", "---\na: "+strings.Repeat("[", 9_998)+strings.Repeat("]", 9_998)+"\n---\n# Deep\n")
	writeFile(t, src, "ok.md", "---\ntitle: Fine\n---\nbody\n")
	sum := refresh(t, dir, store.Source{Path: src})
	if diff := cmp.Diff([]string{"deep", "keys", "ok"}, ids(t, dir)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if !hasWarning(sum, filepath.Join(src, "keys.md"), "over the parse budget") || !hasWarning(sum, filepath.Join(src, "deep.md"), "nested more than 32 deep") || sum.WarningCounts[KindFrontMatter] != 2 {
		t.Errorf("warnings %q", sum.Warnings)
	}
}

// TestFileRemovedWhileRead: a file removed between the walk and the read
// is skipped as changed, not as unreadable, and its document goes.
func TestFileRemovedWhileRead(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n")
	writeFile(t, src, "b.md", "# B\n")
	refresh(t, dir, store.Source{Path: src})
	writeFile(t, src, "b.md", "# B again\n")
	withFault(t, func(op faultfs.Op, p string) error {
		if op == faultfs.OpRead && strings.HasSuffix(p, "b.md") {
			return os.Remove(p) // gone before the open
		}
		return nil
	})
	sum, err := Refresh(t.Context(), dir, []store.Source{{Path: src}}, Options{})
	if err != nil || sum.WarningCounts[KindChanged] != 1 || sum.WarningCounts[KindUnreadable] != 0 || !hasWarning(sum, filepath.Join(src, "b.md"), "removed while being read") {
		t.Fatalf("refresh with a file removed while read: %+v, %v", sum, err)
	}
	if diff := cmp.Diff([]string{"a"}, ids(t, dir)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

// TestFailedFirstIndexLeavesNoStore: a first index that failed (two files
// claiming one id) used to leave a half-made store behind, IDENTITY,
// .gitignore, lock and gen/, though it said nothing was published. Now a
// refresh that made the store in this run and publishes nothing removes
// what it made: the folder too when it made it (and the folders above it
// that it made), never a folder that was there before, nor a file of the
// user's in it. A cancelled first index leaves nothing either.
func TestFailedFirstIndexLeavesNoStore(t *testing.T) {
	src := t.TempDir()
	writeFile(t, src, "a.md", "# A\n")
	writeFile(t, src, "a/index.md", "# Also A\n")
	clash := func(dir string) {
		t.Helper()
		_, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{})
		if err == nil || !strings.Contains(err.Error(), "two files claim the id") {
			t.Fatalf("refresh: %v", err)
		}
	}

	// A store folder this refresh made, and the folder above it.
	proj := t.TempDir()
	clash(filepath.Join(proj, "made", ".docir"))
	if entries, _ := os.ReadDir(proj); len(entries) != 0 {
		t.Errorf("a failed first index left %v in %s", entries, proj)
	}

	// A folder that was there, holding a dotfile of the user's: it stays,
	// as it was.
	dir := t.TempDir()
	writeFile(t, dir, ".gitignore", "mine\n")
	before := readFiles(t, dir)
	clash(dir)
	if diff := cmp.Diff(before, readFiles(t, dir)); diff != "" {
		t.Errorf("the folder changed (-before +after):\n%s", diff)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("a failed first index left %v", entries)
	}

	// A first index cancelled while it reads leaves nothing either.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	empty := t.TempDir()
	os.Remove(filepath.Join(src, "a", "index.md"))
	opt := Options{Progress: func(string, int, int) { cancel() }}
	if _, err := Refresh(ctx, filepath.Join(empty, ".docir"), []store.Source{{Path: src}}, opt); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled refresh: %v", err)
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("a cancelled first index left %v", entries)
	}

	// The same folders index once the clash is gone; a later failure
	// leaves the store as it was.
	refresh(t, dir, store.Source{Path: src})
	writeFile(t, src, "a/index.md", "# Also A\n")
	clash(dir)
	if diff := cmp.Diff([]string{"a"}, ids(t, dir)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

// TestFailedFirstIndexBesideAnother: two first indexes of one new store
// folder at once: the one that holds the lock fails and removes the store
// it made while the other waits for the lock; the other then makes the
// store anew and publishes in it, and the store reads.
func TestFailedFirstIndexBesideAnother(t *testing.T) {
	bad, good := t.TempDir(), t.TempDir()
	writeFile(t, bad, "a.md", "# A\n")
	writeFile(t, bad, "a/index.md", "# Also A\n")
	writeFile(t, good, "b.md", "# B\n")
	dir := filepath.Join(t.TempDir(), ".docir")
	started, waiting := make(chan struct{}), make(chan struct{})
	var once sync.Once
	opt := Options{Progress: func(string, int, int) {
		once.Do(func() {
			close(started)
			<-waiting
		})
	}}
	failed := make(chan error, 1)
	go func() {
		_, err := Refresh(context.Background(), dir, []store.Source{{Path: bad}}, opt)
		failed <- err
	}()
	<-started // the failing one holds the lock
	sum, err := Refresh(context.Background(), dir, []store.Source{{Path: good}}, Options{Wait: func(store.Holder) { close(waiting) }})
	if err != nil || !sum.Published {
		t.Fatalf("the first index beside a failed one: %+v %v", sum, err)
	}
	if err := <-failed; err == nil || !strings.Contains(err.Error(), "two files claim the id") {
		t.Fatalf("the failing first index: %v", err)
	}
	if diff := cmp.Diff([]string{"b"}, ids(t, dir)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	refresh(t, dir, store.Source{Path: good})
}
