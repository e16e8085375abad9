package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/fulltext"
	"github.com/docir/docir/store/passage"
)

func writeFile(t testing.TB, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func refresh(t *testing.T, dir string, srcs ...store.Source) docir.IndexSummary {
	t.Helper()
	sum, err := Refresh(context.Background(), dir, srcs, Options{})
	if err != nil {
		t.Fatalf("Refresh: %v", err)
	}
	return sum
}

type counts struct{ Added, Changed, Removed, Unchanged, Documents int }

func countsOf(s docir.IndexSummary) counts {
	return counts{s.Added, s.Changed, s.Removed, s.Unchanged, s.Documents}
}

func ids(t *testing.T, dir string) []string {
	t.Helper()
	snap, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	var out []string
	if err := snap.Records(func(r docir.Record) error { out = append(out, r.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestIncremental(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n\nalpha\n")
	writeFile(t, src, "sub/b.md", "# B\n\nbravo\n")
	writeFile(t, src, ".git/x.md", "# hidden folder, skipped\n")
	s := store.Source{Path: src}

	sum := refresh(t, dir, s)
	if diff := cmp.Diff(counts{Added: 2, Documents: 2}, countsOf(sum)); diff != "" || sum.Generation != 1 || !sum.Published {
		t.Fatalf("first refresh: %+v %s", sum, diff)
	}

	// Nothing changed: no new generation.
	sum = refresh(t, dir, s)
	if diff := cmp.Diff(counts{Unchanged: 2, Documents: 2}, countsOf(sum)); diff != "" || sum.Generation != 1 || sum.Published {
		t.Fatalf("no-op refresh: %+v %s", sum, diff)
	}

	// Touched but same bytes: still nothing to publish.
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(src, "a.md"), future, future); err != nil {
		t.Fatal(err)
	}
	sum = refresh(t, dir, s)
	if sum.Published || sum.Unchanged != 2 {
		t.Fatalf("touch refresh: %+v", sum)
	}
	// And status (Diff) no longer lists it as changed: the refresh read it.
	if c, err := Diff(t.Context(), dir, []store.Source{s}, Options{}); err != nil || len(c.Changed) != 0 || c.Unchanged != 2 {
		t.Fatalf("Diff after the touch refresh: %+v, %v; want nothing changed", c, err)
	}

	// Change one, add one, remove one.
	writeFile(t, src, "a.md", "# A\n\nalpha changed\n")
	writeFile(t, src, "c.md", "# C\n")
	if err := os.Remove(filepath.Join(src, "sub/b.md")); err != nil {
		t.Fatal(err)
	}
	sum = refresh(t, dir, s)
	if diff := cmp.Diff(counts{Added: 1, Changed: 1, Removed: 1, Documents: 2}, countsOf(sum)); diff != "" || sum.Generation != 2 {
		t.Fatalf("change refresh: %+v %s", sum, diff)
	}
	if diff := cmp.Diff([]string{"a", "c"}, ids(t, dir)); diff != "" {
		t.Fatal(diff)
	}

	// The index followed: b's passages left, a's new text is found.
	snap, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	ft, err := fulltext.Open(snap.FullTextPath(), true)
	if err != nil {
		t.Fatal(err)
	}
	defer ft.Close()
	for q, want := range map[string]int{"bravo": 0, "changed": 1} {
		m, _, err := ft.Search(context.Background(), q, 10)
		if err != nil || len(m) != want {
			t.Errorf("search %q: %v %v, want %d hits", q, m, err, want)
		}
	}
}

// Two files whose names differ only in Unicode normalization (café.md
// as NFC and as NFD) claim one id; the error shows them apart, quoted
// with their non-ASCII runes escaped. Before, it named two paths that
// looked the same.
func TestNormalizationClashShownApart(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	nfc, nfd := "caf\u00e9.md", "cafe\u0301.md"
	writeFile(t, src, nfc, "# x\n")
	writeFile(t, src, nfd, "# x\n")
	_, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{})
	var claim *ClaimError
	if !errors.As(err, &claim) {
		t.Fatalf("error %v: want a *ClaimError", err)
	}
	for _, want := range []string{`caf\u00e9.md"`, `cafe\u0301.md"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not show %s", err, want)
		}
	}
}

// TestClashAdviceFitsTheSources: two files whose paths give one id are
// parted by a prefix only when they are in two sources; in one source the
// error does not suggest one (it would rename both), and the ClaimError
// carries the files' own paths and the source that holds both, so that a
// caller can tell which fix to give. Before, a clash of names shown quoted
// (café.md in NFC and NFD, or names that are not valid UTF-8) carried the
// quoted forms, the CLI could not find them in one source, and it advised
// the prefix, whose refresh failed the same way with the same advice.
func TestClashAdviceFitsTheSources(t *testing.T) {
	nfc, nfd := "caf\u00e9.md", "cafe\u0301.md"
	for _, tt := range []struct {
		name   string
		a, b   string // the two files, below the sources
		apart  bool   // in two sources (the second is b's)
		prefix bool   // the error suggests a prefix
	}{
		{"one source, normalization", nfc, nfd, false, false},
		{"one source, plain names", "s.md", "s/_index.md", false, false},
		{"two sources, normalization", nfc, nfd, true, true},
		{"two sources, plain names", "README.md", "README.md", true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src, other, dir := t.TempDir(), t.TempDir(), t.TempDir()
			srcs := []store.Source{{Path: src}}
			bRoot := src
			if tt.apart {
				srcs, bRoot = append(srcs, store.Source{Path: other}), other
			}
			writeFile(t, src, tt.a, "# a\n")
			writeFile(t, bRoot, tt.b, "# b\n")
			_, err := Refresh(context.Background(), dir, srcs, Options{})
			var claim *ClaimError
			if !errors.As(err, &claim) {
				t.Fatalf("error %v: want a *ClaimError", err)
			}
			paths := []string{claim.A, claim.B}
			slices.Sort(paths)
			want := []string{filepath.Join(src, tt.a), filepath.Join(bRoot, tt.b)}
			slices.Sort(want)
			if diff := cmp.Diff(want, paths); diff != "" {
				t.Errorf("the claim's paths (-want +got):\n%s", diff)
			}
			if wantSrc := map[bool]string{false: src, true: ""}[tt.apart]; claim.Source != wantSrc {
				t.Errorf("the claim's source %q, want %q", claim.Source, wantSrc)
			}
			if got := strings.Contains(err.Error(), "prefix"); got != tt.prefix {
				t.Errorf("error %q: suggests a prefix %v, want %v", err, got, tt.prefix)
			}
			if !strings.Contains(err.Error(), "`id:`") {
				t.Errorf("error %q does not suggest an `id:`", err)
			}
		})
	}
}

func TestDuplicateIDPublishesNothing(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n")
	refresh(t, dir, store.Source{Path: src})
	writeFile(t, src, "b.md", "---\nid: a\n---\n# B\n")
	_, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{})
	if err == nil {
		t.Fatal("want an error for two files claiming one id")
	}
	var claim *ClaimError
	if !errors.As(err, &claim) || docir.CodeOf(err) != docir.CodeSource {
		t.Errorf("error %v (code %q): want a source error caused by a *ClaimError", err, docir.CodeOf(err))
	} else if want := (ClaimError{ID: "a", A: filepath.Join(src, "a.md"), B: filepath.Join(src, "b.md"), Source: src, BFrontMatter: true}); *claim != want {
		t.Errorf("claim %+v, want %+v", *claim, want)
	}
	for _, want := range []string{`"a"`, filepath.Join(src, "a.md"), filepath.Join(src, "b.md")} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	snap, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	if snap.Generation() != 1 {
		t.Errorf("generation %d published after a failed refresh", snap.Generation())
	}
}

func TestBadFilesWarnAndTheRestIndexes(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "good.md", "# Good\n")
	writeFile(t, src, "binary.md", "# x\x00\x01\x02")
	writeFile(t, src, "latin1.md", "# caf\xe9\n")
	writeFile(t, src, "big.md", "# Big\n"+strings.Repeat("x", 2000))
	writeFile(t, src, "space name.md", "# Spaced\n")
	writeFile(t, src, "..md", "# dot\n")
	writeFile(t, src, "badfm.md", "---\nid: [x\n---\n# Bad front matter\n")
	writeFile(t, src, "badid.md", "---\nid: has space\n---\n# Bad id\n")
	sum, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{MaxFileBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"badfm", "badid", "good", "space-name"}, ids(t, dir)); diff != "" {
		t.Errorf("indexed ids (-want +got):\n%s", diff)
	}
	wantWarn := map[string]string{
		"binary.md": "binary",
		"latin1.md": "UTF-8",
		"big.md":    "cap",
		"..md":      "no valid id",
		"badfm.md":  "YAML",
		"badid.md":  "not a valid document id",
	}
	for file, frag := range wantWarn {
		found := false
		for _, w := range sum.Warnings {
			if strings.Contains(w, filepath.Join(src, file)+":") && strings.Contains(w, frag) {
				found = true
			}
		}
		if !found {
			t.Errorf("no warning naming %s with %q in %q", file, frag, sum.Warnings)
		}
	}
}

func TestPrefixAndSeveralRoots(t *testing.T) {
	a, b, dir := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, a, "x.md", "# X\n")
	writeFile(t, b, "x.md", "# X too\n")
	refresh(t, dir, store.Source{Path: a}, store.Source{Path: b, Prefix: "team"})
	if diff := cmp.Diff([]string{"team/x", "x"}, ids(t, dir)); diff != "" {
		t.Fatal(diff)
	}
	// Changing a prefix re-ids the root's files: team/x leaves, other/x
	// comes.
	sum := refresh(t, dir, store.Source{Path: a}, store.Source{Path: b, Prefix: "other/"})
	if sum.Added != 1 || sum.Removed != 1 || sum.Changed != 0 || !sum.Published {
		t.Fatalf("prefix change: %+v", sum)
	}
	if diff := cmp.Diff([]string{"other/x", "x"}, ids(t, dir)); diff != "" {
		t.Fatal(diff)
	}
	// Dropping a root the store records needs Force, and names both lists.
	_, err := Refresh(context.Background(), dir, []store.Source{{Path: a}}, Options{})
	if docir.CodeOf(err) != docir.CodeConfig || !strings.Contains(err.Error(), b) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("dropping a root without Force: %v", err)
	}
	// With it, the root's documents go.
	sum, err = Refresh(context.Background(), dir, []store.Source{{Path: a}}, Options{Force: true})
	if err != nil || sum.Removed != 1 {
		t.Fatalf("dropped root: %+v %v", sum, err)
	}
	// Adding a root needs no Force.
	if _, err := Refresh(context.Background(), dir, []store.Source{{Path: a}, {Path: b, Prefix: "b"}}, Options{}); err != nil {
		t.Fatalf("adding a root: %v", err)
	}
}

// A reader holding a generation keeps reading it, whole, while refreshes
// publish new ones and prune the old: its generation is kept (index and
// all) until it lets go.
func TestReaderNeverWaitsOnWriter(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n\nversion one\n")
	refresh(t, dir, store.Source{Path: src})
	old, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	oldFT, err := fulltext.Open(old.FullTextPath(), true)
	if err != nil {
		old.Close()
		t.Fatal(err)
	}

	unlock, err := store.Lock(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	// While the refresh lock is held, a new reader opens and reads at once.
	done := make(chan error, 1)
	go func() {
		s, err := store.Open(dir)
		if err == nil {
			_, _, _, err = s.Lookup("a")
			s.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a reader waited on the refresh lock")
	}
	unlock()

	for i := range 4 {
		writeFile(t, src, "a.md", "# A\n\nversion "+strings.Repeat("x", i+2)+"\n")
		refresh(t, dir, store.Source{Path: src})
	}
	_, body, ok, err := old.Lookup("a")
	if err != nil || !ok || !strings.Contains(string(body), "version one") {
		t.Fatalf("old snapshot read %q %v %v", body, ok, err)
	}
	if m, _, err := oldFT.Search(context.Background(), "one", 5); err != nil || len(m) != 1 {
		t.Fatalf("old index search: %v %v", m, err)
	}
	gens, err := os.ReadDir(filepath.Join(dir, "gen"))
	if err != nil {
		t.Fatal(err)
	}
	if len(gens) != DefaultRetain+1 {
		t.Errorf("%d generations kept while one is held, want %d", len(gens), DefaultRetain+1)
	}
	oldFT.Close()
	old.Close()
	writeFile(t, src, "a.md", "# A\n\nversion last\n")
	refresh(t, dir, store.Source{Path: src})
	if gens, _ = os.ReadDir(filepath.Join(dir, "gen")); len(gens) != DefaultRetain {
		t.Errorf("%d generations kept once let go, want %d", len(gens), DefaultRetain)
	}
}

// A refresh that dies before publishing leaves the previous generation
// current and whole, and the next refresh cleans up after it. A
// generation folder renamed into place but never named by CURRENT does
// not open, and its number is never used again.
func TestCrashLeavesPreviousGeneration(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n")
	refresh(t, dir, store.Source{Path: src})

	prev, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := store.Begin(dir, prev)
	prev.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Apply(store.Change{Delete: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	// Crash: the pending generation is never published nor aborted. A
	// generation folder renamed into place without CURRENT swapped is a
	// crash too.
	if err := os.MkdirAll(filepath.Join(dir, "gen", "2"), 0o755); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a"}, ids(t, dir)); diff != "" {
		t.Fatalf("after crash: %s", diff)
	}
	if _, err := store.OpenGeneration(dir, 2); !errors.Is(err, store.ErrNotPublished) {
		t.Fatalf("the unpublished generation 2 opened: %v", err)
	}
	writeFile(t, src, "b.md", "# B\n")
	sum := refresh(t, dir, store.Source{Path: src})
	if sum.Generation != 3 || sum.Added != 1 {
		t.Fatalf("refresh after crash: %+v, want generation 3", sum)
	}
	if _, err := os.Stat(filepath.Join(dir, "gen", "2")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the unpublished generation 2 is still there: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "gen"))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("leftover %s not cleaned", e.Name())
		}
	}
	if diff := cmp.Diff([]string{"a", "b"}, ids(t, dir)); diff != "" {
		t.Fatal(diff)
	}
}

func TestUnknownFormatIsClearError(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n")
	refresh(t, dir, store.Source{Path: src})
	if err := os.WriteFile(filepath.Join(dir, "CURRENT"), []byte(`{"format":99,"generation":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := store.Open(dir)
	if docir.CodeOf(err) != docir.CodeStoreFormat || !strings.Contains(err.Error(), "format 99") {
		t.Fatalf("err = %v", err)
	}
	_, err = Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{})
	if docir.CodeOf(err) != docir.CodeStoreFormat {
		t.Fatalf("refresh over an unknown format: %v", err)
	}
}

// A from-scratch build indexes while it reads; when it then fails (two
// files claiming one id) it publishes nothing and leaves nothing behind.
func TestFromScratchFailureLeavesNoStore(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	for i := range 50 {
		writeFile(t, src, fmt.Sprintf("doc%02d.md", i), fmt.Sprintf("# Doc %d\n\nwords %d\n", i, i))
	}
	writeFile(t, src, "zz.md", "---\nid: doc07\n---\n# Claims doc07\n")
	_, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{})
	if err == nil || !strings.Contains(err.Error(), `"doc07"`) {
		t.Fatalf("err = %v", err)
	}
	if _, err := store.Open(dir); docir.CodeOf(err) != docir.CodeNoStore {
		t.Fatalf("a store was published: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "gen"))
	if len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}

	// Cancelled while reading: the same.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := os.Remove(filepath.Join(src, "zz.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := Refresh(ctx, dir, []store.Source{{Path: src}}, Options{}); err == nil {
		t.Fatal("a cancelled refresh succeeded")
	}
	if _, err := store.Open(dir); docir.CodeOf(err) != docir.CodeNoStore {
		t.Fatalf("a store was published: %v", err)
	}
	sum := refresh(t, dir, store.Source{Path: src})
	if sum.Documents != 50 || sum.Generation != 1 {
		t.Fatalf("%+v", sum)
	}
}

// Every document is stored with the pair filters of its passages, as the
// index analyzed them, on a build from scratch (passages streamed to the
// index) and on a refresh that changes one file.
func TestPairFiltersStored(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "---\ntitle: Front matter dates\ndescription: How dates are read\n---\nThe lead, before `code` headings.\n\n# Dates\n\nfront matter dates\n\n## Formats\n\n```\nfenced code\n```\nafter the fence\n")
	writeFile(t, src, "b.md", "no heading at all, one passage")
	writeFile(t, src, "c.md", "# C\n")
	s := store.Source{Path: src}
	check := func(step string) {
		t.Helper()
		snap, err := store.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer snap.Close()
		for _, id := range []string{"a", "b", "c"} {
			rec, body, ok, err := snap.Lookup(id)
			if err != nil || !ok {
				t.Fatalf("%s: %s: %v %v", step, id, ok, err)
			}
			want, err := fulltext.Pairs(id, passage.Config{}.Passages(&rec, body))
			if err != nil {
				t.Fatal(err)
			}
			doc, _, err := snap.LookupSpans(id)
			if err != nil {
				t.Fatal(err)
			}
			got, err := doc.Pairs()
			if err != nil || len(got) == 0 || string(got) != string(want) {
				t.Errorf("%s: %s is stored with pair filters %x (%v), want %x", step, id, got, err, want)
			}
		}
	}
	refresh(t, dir, s)
	check("from scratch")
	writeFile(t, src, "b.md", "no heading at all, one passage, changed")
	refresh(t, dir, s)
	check("after a change")
}

// TestLowerCapLeavesOutUnchangedFiles: a refresh under a lower
// max_file_bytes leaves out a file over it that did not change, as a
// refresh from scratch under that cap would: it is read, skipped with a
// warning, and its document goes; a higher cap takes it back.
func TestLowerCapLeavesOutUnchangedFiles(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "small.md", "# Small\n\nhi\n")
	writeFile(t, src, "big.md", "# Big\n\n"+strings.Repeat("word ", 100)+"\n")
	srcs := []store.Source{{Path: src}}
	for _, step := range []struct {
		cap  int64
		want []string
	}{{0, []string{"big", "small"}}, {100, []string{"small"}}, {100, []string{"small"}}, {0, []string{"big", "small"}}} {
		sum, err := Refresh(context.Background(), dir, srcs, Options{MaxFileBytes: step.cap})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(t, dir); !slices.Equal(got, step.want) {
			t.Errorf("cap %d: documents %q, want %q", step.cap, got, step.want)
		}
		fresh := t.TempDir()
		if _, err := Refresh(context.Background(), fresh, srcs, Options{MaxFileBytes: step.cap}); err != nil {
			t.Fatal(err)
		}
		if got, want := ids(t, dir), ids(t, fresh); !slices.Equal(got, want) {
			t.Errorf("cap %d: documents %q, from scratch %q", step.cap, got, want)
		}
		if step.cap == 100 && !slices.ContainsFunc(sum.Warnings, func(w string) bool { return strings.Contains(w, "big.md") && strings.Contains(w, "cap") }) {
			t.Errorf("cap %d: no warning names big.md: %q", step.cap, sum.Warnings)
		}
	}
}

// TestUnclosedFenceWarns: a file whose last code fence is never closed,
// swallowing its headings, indexes (as CommonMark reads it) with an
// unclosed_fence warning that names the file and the fence's line.
func TestUnclosedFenceWarns(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n\n```go\ncode\n\n## B\n")
	writeFile(t, src, "b.md", "# B\n\n```go\ncode\n```\n")
	sum, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{})
	if err != nil || sum.Documents != 2 || sum.WarningCounts[KindUnclosedFence] != 1 {
		t.Fatalf("%+v, %v", sum, err)
	}
	if w := strings.Join(sum.Warnings, "\n"); !strings.Contains(w, "a.md") || !strings.Contains(w, "line 3 is never closed") {
		t.Errorf("warnings %q", sum.Warnings)
	}
}

// TestRefreshThatRewritesCompacts: a refresh that writes most of the index
// anew (every file parsed again, as after a change of the markdown rules)
// leaves one segment, as a build from scratch does (without the merge, the
// segments of its batches: 6 here, 21 at 192k documents).
func TestRefreshThatRewritesCompacts(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	for i := range 1500 {
		writeFile(t, src, fmt.Sprintf("p%04d.md", i), fmt.Sprintf("# P%d\n\nlead %d\n\n## A\n\none\n\n## B\n\ntwo\n\n## C\n\nthree\n", i, i))
	}
	srcs := []store.Source{{Path: src}}
	segments := func() int {
		t.Helper()
		gen, err := store.CurrentGeneration(dir)
		if err != nil {
			t.Fatal(err)
		}
		zaps, err := filepath.Glob(filepath.Join(dir, "gen", strconv.FormatUint(gen, 10), "fulltext", "store", "*.zap"))
		if err != nil {
			t.Fatal(err)
		}
		return len(zaps)
	}
	refresh(t, dir, srcs...)
	if n := segments(); n != 1 {
		t.Fatalf("from scratch: %d segments", n)
	}
	current := rulesVersion
	rulesVersion = current + 1 // a docir whose rules read every file again
	sum, err := Refresh(t.Context(), dir, srcs, Options{})
	rulesVersion = current
	if err != nil || sum.Changed != 1500 && sum.Unchanged != 1500 {
		t.Fatalf("every file again: %+v, %v", sum, err)
	}
	if n := segments(); n != 1 {
		t.Errorf("after a refresh that wrote every passage anew: %d segments, want 1", n)
	}
}
