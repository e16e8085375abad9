package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// shownPlan is a plan as TestMakePlan compares it: file keys shown as
// root|rel.
type shownPlan struct {
	Unchanged, ToRead, Removed []string
	Clashes                    []clash
}

func showPlan(p plan) shownPlan {
	var w shownPlan
	name := func(key string) string { return strings.Replace(key, "\x00", "|", 1) }
	for _, f := range p.unchanged {
		w.Unchanged = append(w.Unchanged, name(f.key()))
	}
	for _, f := range p.toRead {
		w.ToRead = append(w.ToRead, name(f.key()))
	}
	for _, g := range p.removed {
		w.Removed = append(w.Removed, name(g.key))
	}
	w.Clashes = p.clashes
	return w
}

// TestMakePlan: which files are new, changed, unchanged, removed and
// clashing, from stats alone.
func TestMakePlan(t *testing.T) {
	a := store.Source{Path: "/src/a"}
	b := store.Source{Path: "/src/b"}
	bp := store.Source{Path: "/src/b", Prefix: "team"}
	f := func(root store.Source, rel string, size, mtime int64) *file {
		return &file{root: &root, rel: rel, size: size, mtime: mtime}
	}
	e := func(id, prefix string, size, mtime int64) store.FileEntry {
		return store.FileEntry{ID: id, Prefix: prefix, Size: size, ModTime: mtime}
	}
	type want = shownPlan
	tests := []struct {
		name  string
		files []*file
		prev  map[string]store.FileEntry
		want  want
	}{
		{
			name:  "from scratch",
			files: []*file{f(a, "x.md", 10, 1), f(a, "y/z.md", 20, 2)},
			want:  want{ToRead: []string{"/src/a|x.md", "/src/a|y/z.md"}},
		},
		{
			name:  "unchanged, changed size, changed mtime, removed",
			files: []*file{f(a, "same.md", 10, 1), f(a, "size.md", 11, 1), f(a, "time.md", 10, 2)},
			prev: map[string]store.FileEntry{
				store.FileKey("/src/a", "same.md"): e("same", "", 10, 1),
				store.FileKey("/src/a", "size.md"): e("size", "", 10, 1),
				store.FileKey("/src/a", "time.md"): e("time", "", 10, 1),
				store.FileKey("/src/a", "gone.md"): e("gone", "", 10, 1),
			},
			want: want{
				Unchanged: []string{"/src/a|same.md"},
				ToRead:    []string{"/src/a|size.md", "/src/a|time.md"},
				Removed:   []string{"/src/a|gone.md"},
			},
		},
		{
			name:  "a new prefix re-reads the root",
			files: []*file{f(bp, "x.md", 10, 1)},
			prev:  map[string]store.FileEntry{store.FileKey("/src/b", "x.md"): e("x", "", 10, 1)},
			want:  want{ToRead: []string{"/src/b|x.md"}},
		},
		{
			name:  "two roots, one path: a clash by path",
			files: []*file{f(a, "README.md", 10, 1), f(b, "README.md", 10, 1)},
			want: want{
				ToRead:  []string{"/src/a|README.md", "/src/b|README.md"},
				Clashes: []clash{{id: "README", a: "/src/a/README.md", b: "/src/b/README.md"}},
			},
		},
		{
			name:  "a new file's path against an unchanged file's recorded id",
			files: []*file{f(a, "old.md", 10, 1), f(a, "new.md", 10, 1)},
			prev:  map[string]store.FileEntry{store.FileKey("/src/a", "old.md"): e("new", "", 10, 1)},
			want: want{
				Unchanged: []string{"/src/a|old.md"},
				ToRead:    []string{"/src/a|new.md"},
				Clashes:   []clash{{id: "new", a: "/src/a/old.md", b: "/src/a/new.md"}},
			},
		},
		{
			// The walk lists roots in the order given; the table is in key
			// order. Each file still meets its own entry.
			name:  "roots given out of key order",
			files: []*file{f(b, "x.md", 10, 1), f(b, "z.md", 10, 1), f(a, "x.md", 10, 1), f(a, "y.md", 10, 1)},
			prev: map[string]store.FileEntry{
				store.FileKey("/src/a", "x.md"): e("x", "", 10, 1),
				store.FileKey("/src/a", "w.md"): e("w", "", 10, 1),
				store.FileKey("/src/b", "z.md"): e("b/z", "", 10, 9),
				store.FileKey("/src/b", "x.md"): e("b/x", "", 10, 1),
				store.FileKey("/src/c", "q.md"): e("q", "", 10, 1),
			},
			want: want{
				Unchanged: []string{"/src/b|x.md", "/src/a|x.md"},
				ToRead:    []string{"/src/b|z.md", "/src/a|y.md"},
				Removed:   []string{"/src/a|w.md", "/src/c|q.md"},
			},
		},
		{
			name:  "with a prefix, no clash",
			files: []*file{f(a, "README.md", 10, 1), f(bp, "README.md", 10, 1)},
			want:  want{ToRead: []string{"/src/a|README.md", "/src/b|README.md"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := makePlan(tt.files, tableOf(tt.prev), false, math.MaxInt64)
			if err != nil {
				t.Fatal(err)
			}
			got := showPlan(p)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(clash{})); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDiffAndStale: after edits, Diff names what was added, changed and
// removed without reading a file, and Stale notices from folder mtimes.
func TestDiffAndStale(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n")
	writeFile(t, src, "sub/b.md", "# B\n")
	writeFile(t, src, "sub/c.md", "# C\n")
	srcs := []store.Source{{Path: src}}
	ctx := context.Background()

	if stale, err := staleSources(dir, srcs); err != nil || !stale {
		t.Fatalf("Stale before any refresh = %v, %v", stale, err)
	}
	refresh(t, dir, srcs...)
	if stale, err := staleSources(dir, srcs); err != nil || stale {
		t.Fatalf("Stale after a refresh = %v, %v", stale, err)
	}
	if stale, _ := staleSources(dir, []store.Source{{Path: src, Prefix: "p"}}); !stale {
		t.Error("Stale with other sources = false")
	}

	// Let the folder mtimes move past the clock's granularity.
	time.Sleep(20 * time.Millisecond)
	writeFile(t, src, "sub/new.md", "# New\n")
	if err := os.Remove(filepath.Join(src, "sub", "c.md")); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(src, "a.md"), later, later); err != nil {
		t.Fatal(err)
	}
	if stale, err := staleSources(dir, srcs); err != nil || !stale {
		t.Fatalf("Stale after edits = %v, %v", stale, err)
	}
	got, err := Diff(ctx, dir, srcs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := Changes{
		Generation: 1,
		Added:      []string{filepath.Join(src, "sub", "new.md")},
		Changed:    []string{filepath.Join(src, "a.md")},
		Removed:    []string{filepath.Join(src, "sub", "c.md")},
		Unchanged:  1,
		Clashes:    []string{},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}
	refresh(t, dir, srcs...)
	if stale, err := staleSources(dir, srcs); err != nil || stale {
		t.Fatalf("Stale after the second refresh = %v, %v", stale, err)
	}
	// A file a walk does not read (docir.yaml written beside the notes,
	// an editor's swap file) moves its folder's mtime but is not a change.
	writeFile(t, src, "notes.txt", "x")
	if stale, err := staleSources(dir, srcs); err != nil || stale {
		t.Errorf("Stale after a new .txt file = %v, %v; want false", stale, err)
	}
	// Nor is a new folder that holds no markdown (a scratch folder beside
	// the notes), however deep; until a markdown file is written in it.
	writeFile(t, src, "scratch/out/log.txt", "x")
	if err := os.Mkdir(filepath.Join(src, "sub", "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if stale, err := staleSources(dir, srcs); err != nil || stale {
		t.Errorf("Stale after new folders without markdown = %v, %v; want false", stale, err)
	}
	writeFile(t, src, "scratch/out/found.md", "# Found\n")
	if stale, _ := staleSources(dir, srcs); !stale {
		t.Error("Stale after a markdown file in a new folder = false")
	}
	if err := os.Remove(filepath.Join(src, "scratch/out/found.md")); err != nil {
		t.Fatal(err)
	}
	// A symbolic link in a new folder may lead to markdown: it is a change.
	if err := os.Symlink(filepath.Join(src, "sub"), filepath.Join(src, "sub", "empty", "link")); err != nil {
		t.Fatal(err)
	}
	if stale, _ := staleSources(dir, srcs); !stale {
		t.Error("Stale after a symbolic link in a new folder = false")
	}
	if err := os.Remove(filepath.Join(src, "sub", "empty", "link")); err != nil {
		t.Fatal(err)
	}
	// A new markdown file is.
	writeFile(t, src, "new2.md", "# New\n")
	if stale, _ := staleSources(dir, srcs); !stale {
		t.Error("Stale after a new markdown file = false")
	}
	if sum := refresh(t, dir, srcs...); !sum.Published {
		t.Fatalf("not published for a new markdown file: %+v", sum)
	}
	if stale, err := staleSources(dir, srcs); err != nil || stale {
		t.Fatalf("Stale after the refresh = %v, %v", stale, err)
	}
}

// TestIgnoreRules: .gitignore files under a source are honoured (unless
// NoGitignore), Exclude patterns win over them, and the summary counts
// what was left out.
func TestIgnoreRules(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, ".gitignore", "node_modules/\n# a comment\n\n*.draft.md\n")
	writeFile(t, src, "a.md", "# A\n")
	writeFile(t, src, "b.draft.md", "# Draft\n")
	writeFile(t, src, "node_modules/pkg/README.md", "# pkg\n")
	writeFile(t, src, "docs/.gitignore", "private.md\n!keep.draft.md\n")
	writeFile(t, src, "docs/private.md", "# Private\n")
	writeFile(t, src, "docs/keep.draft.md", "# Kept draft\n")
	writeFile(t, src, "docs/guide.md", "# Guide\n")
	writeFile(t, src, "vendor/x/README.md", "# vendored\n")
	srcs := []store.Source{{Path: src}}

	sum, err := Refresh(context.Background(), dir, srcs, Options{Exclude: []string{"vendor/"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "docs/guide", "docs/keep.draft"}, ids(t, dir)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if sum.Ignored != 4 { // node_modules/, b.draft.md, docs/private.md, vendor/
		t.Errorf("ignored %d, want 4", sum.Ignored)
	}
	// Exclude wins over a .gitignore negation.
	_, err = Refresh(context.Background(), dir, srcs, Options{Exclude: []string{"vendor/", "*.draft.md"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "docs/guide"}, ids(t, dir)); diff != "" {
		t.Errorf("ids with an exclude (-want +got):\n%s", diff)
	}
	// NoGitignore reads everything but the excluded.
	_, err = Refresh(context.Background(), dir, srcs, Options{NoGitignore: true, Exclude: []string{"vendor"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "b.draft", "docs/guide", "docs/keep.draft", "docs/private", "node_modules/pkg/README"}, ids(t, dir)); diff != "" {
		t.Errorf("ids without .gitignore (-want +got):\n%s", diff)
	}
}

// TestNotAStoreFolder: a store folder that holds other files is refused
// before anything is written into it.
func TestNotAStoreFolder(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n")
	writeFile(t, dir, "passwd", "root:x:0:0\n")
	_, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{})
	if docir.CodeOf(err) != docir.CodeUsage || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "not a docir store") {
		t.Fatalf("error %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder was written into: %v", entries)
	}
	// An empty folder, or a store, is fine.
	refresh(t, filepath.Join(dir, "new"), store.Source{Path: src})
	refresh(t, filepath.Join(dir, "new"), store.Source{Path: src})
}

// TestMassRemovalNeedsForce: a refresh that would remove more than half of
// a store's documents refuses without Force and publishes nothing.
func TestMassRemovalNeedsForce(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	for i := range 12 {
		writeFile(t, src, "docs/"+string(rune('a'+i))+".md", "# Doc\n")
	}
	srcs := []store.Source{{Path: src}}
	refresh(t, dir, srcs...)
	_, err := Refresh(context.Background(), dir, srcs, Options{Exclude: []string{"docs"}})
	if docir.CodeOf(err) != docir.CodeConfig || !strings.Contains(err.Error(), "remove 12 of the 12 documents") {
		t.Fatalf("error %v", err)
	}
	if gen, _ := store.CurrentGeneration(dir); gen != 1 {
		t.Fatalf("generation %d published", gen)
	}
	// A prefix change that re-ids every document is caught the same way.
	if _, err := Refresh(context.Background(), dir, []store.Source{{Path: src, Prefix: "x"}}, Options{}); docir.CodeOf(err) != docir.CodeConfig {
		t.Fatalf("prefix change: %v", err)
	}
	// Removing a few is fine; so is Force.
	os.Remove(filepath.Join(src, "docs", "a.md"))
	if sum := refresh(t, dir, srcs...); sum.Removed != 1 {
		t.Fatalf("%+v", sum)
	}
	sum, err := Refresh(context.Background(), dir, srcs, Options{Exclude: []string{"docs"}, Force: true})
	if err != nil || sum.Removed != 11 || sum.Documents != 0 {
		t.Fatalf("with Force: %+v %v", sum, err)
	}
}

// TestBadPrefixesAndIDs: a prefix with '#' is refused like any bad prefix;
// ids with bidirectional controls are not valid; a non-string front-matter
// id warns.
func TestBadPrefixesAndIDs(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	for _, prefix := range []string{"a#b", "a b", "/a", "a\u202Eb"} {
		_, err := Refresh(context.Background(), dir, []store.Source{{Path: src, Prefix: prefix}}, Options{})
		if docir.CodeOf(err) != docir.CodeConfig || !strings.Contains(err.Error(), "not a valid id prefix") {
			t.Errorf("prefix %q: %v", prefix, err)
		}
	}
	writeFile(t, src, "evil\u202Etxt.md", "# Evil\n")
	writeFile(t, src, "fm.md", "---\nid: \"x\u2066y\"\n---\n# FM\n")
	writeFile(t, src, "num.md", "---\nid: 42\n---\n# Num\n")
	sum := refresh(t, dir, store.Source{Path: src})
	if diff := cmp.Diff([]string{"fm", "num"}, ids(t, dir)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if !hasWarning(sum, filepath.Join(src, "evil\u202Etxt.md"), "bidirectional") ||
		!hasWarning(sum, filepath.Join(src, "fm.md"), "not a valid document id") ||
		!hasWarning(sum, filepath.Join(src, "num.md"), "front-matter id 42 is a number, not a string") {
		t.Errorf("warnings %q", sum.Warnings)
	}
}

// TestClashFoundAsFilesAreRead: two files claiming one id end the read
// when the second is read, not after every file is parsed, and the error
// says how to fix it (their front matter set the id: not a prefix).
func TestClashFoundAsFilesAreRead(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a/one.md", "---\nid: same\n---\n# One\n")
	writeFile(t, src, "a/two.md", "---\nid: same\n---\n# Two\n")
	for i := range 400 {
		writeFile(t, src, "z/"+strings.Repeat("p", i%9+1)+string(rune('a'+i%26))+string(rune('a'+i/26))+".md", "# Page\n")
	}
	read := 0
	_, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{Progress: func(stage string, done, total int) {
		if stage == "reading" {
			read = done
		}
	}})
	if docir.CodeOf(err) != docir.CodeSource || !strings.Contains(err.Error(), "front_matter_id: name") || !strings.Contains(err.Error(), "id:") {
		t.Fatalf("error %v", err)
	}
	if read > 200 {
		t.Errorf("%d of 402 files were read before the clash ended the read", read)
	}
	if _, err := store.CurrentGeneration(dir); docir.CodeOf(err) != docir.CodeNoStore {
		t.Errorf("something was published: %v", err)
	}
}

// tableOf serves a file table from a map, in key order, as
// store.Snapshot.EachFile does; nil for a nil map.
func tableOf(m map[string]store.FileEntry) fileTable {
	if m == nil {
		return nil
	}
	return func(from []byte, fn func(key []byte, e store.FileEntry) error) error {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if k < string(from) {
				continue
			}
			if err := fn([]byte(k), m[k]); err != nil {
				return err
			}
		}
		return nil
	}
}

// TestCmpKey: comparing a file with a files-table key agrees with
// comparing the keys themselves.
func TestCmpKey(t *testing.T) {
	roots := []string{"/src/a", "/src/a-b", "/src/ab", "/src/a/b", "/"}
	rels := []string{"x.md", "a/x.md", "a-b/x.md", "a.md", "z/y.md"}
	var keys []string
	for _, r := range roots {
		for _, rel := range rels {
			keys = append(keys, store.FileKey(r, rel))
		}
	}
	keys = append(keys, "no separator", "")
	for _, r := range roots {
		for _, rel := range rels {
			f := &file{root: &store.Source{Path: r}, rel: rel}
			for _, k := range keys {
				if got, want := f.cmpKey([]byte(k)), strings.Compare(store.FileKey(r, rel), k); got != want {
					t.Errorf("(%q, %q) against %q: %d, want %d", r, rel, k, got, want)
				}
			}
		}
	}
}

// TestMakePlanSplit: a plan whose merge with the table runs in two halves
// is the plan of one merge, wherever the halves meet.
func TestMakePlanSplit(t *testing.T) {
	roots := []*store.Source{{Path: "/src/a"}, {Path: "/src/a-b"}, {Path: "/src/b", Prefix: "p"}}
	rng := rand.New(rand.NewPCG(1, 2))
	walkFiles := func() []*file {
		var fs []*file
		for _, r := range roots {
			for i := range 300 {
				if rng.IntN(5) == 0 {
					continue // only in the table: removed
				}
				fs = append(fs, &file{root: r, rel: fmt.Sprintf("d%d/f%03d.md", i%7, i), size: 10, mtime: int64(1 + rng.IntN(2))})
			}
		}
		return fs
	}
	table := map[string]store.FileEntry{}
	for _, r := range roots {
		for i := range 330 { // 30 more than walked: new files are only walked
			table[store.FileKey(r.Path, fmt.Sprintf("d%d/f%03d.md", i%7, i))] = store.FileEntry{ID: fmt.Sprint(i), Prefix: r.Prefix, Size: 10, ModTime: 1}
		}
	}
	type outcome struct {
		Status  []status
		Prev    []bool
		Removed []gone
	}
	run := func(files []*file, splitMin int) outcome {
		defer func(old int) { planSplitMin = old }(planSplitMin)
		planSplitMin = splitMin
		for _, f := range files {
			f.status, f.prev, f.id = 0, nil, ""
		}
		p, err := makePlan(files, tableOf(table), false, math.MaxInt64)
		if err != nil {
			t.Fatal(err)
		}
		var o outcome
		for _, f := range files {
			o.Status = append(o.Status, f.status)
			o.Prev = append(o.Prev, f.prev != nil)
		}
		o.Removed = p.removed
		return o
	}
	for range 20 {
		files := walkFiles()
		one := run(files, len(files)+1)
		for _, min := range []int{1, 2, len(files) / 3, len(files)} {
			if diff := cmp.Diff(one, run(files, min), cmp.AllowUnexported(gone{})); diff != "" {
				t.Fatalf("split at %d of %d files (-one merge +two halves):\n%s", min, len(files), diff)
			}
		}
		if len(one.Removed) == 0 {
			t.Fatal("the table should have entries the walk did not find")
		}
	}
}

// TestChangesShape pins the fields of Changes, the "changes" of `docir
// status --format json` (docs/cli.md).
func TestChangesShape(t *testing.T) {
	b, err := json.Marshal(Changes{})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	want := []string{"added", "changed", "clashes", "generation", "ignored", "removed", "settings_changed", "skipped", "sources_changed", "unchanged"}
	if got := slices.Sorted(maps.Keys(m)); !slices.Equal(got, want) {
		t.Errorf("Changes has the fields %v, want %v", got, want)
	}
}
