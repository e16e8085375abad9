package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/markdown"
)

// The summary counts documents by id, as store.Snapshot.Diff (docir
// changes) lists them between the generation before and the one
// published: a file whose id changes is one document removed and one
// added; a file read again whose id and content stay is unchanged.
func TestSummaryCountsDocumentsByID(t *testing.T) {
	a, b, dir := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, a, "a.md", "# A\n")
	writeFile(t, a, "keep.md", "---\nid: keep\n---\n# Keep\n")
	writeFile(t, a, "old.md", "---\nid: moved\n---\n# Moved\n")
	writeFile(t, b, "b.md", "# B\n")
	step := func(what string, want counts, opt Options, srcs ...store.Source) {
		t.Helper()
		sum, err := Refresh(context.Background(), dir, srcs, opt)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if diff := cmp.Diff(want, countsOf(sum)); diff != "" || !sum.Published {
			t.Errorf("%s: %+v %s", what, sum, diff)
		}
		checkSummaryAgainstDiff(t, what, dir, sum)
	}
	step("first", counts{Added: 4, Documents: 4}, Options{}, store.Source{Path: a}, store.Source{Path: b})
	// a becomes rb/a; keep and moved name themselves.
	step("prefix", counts{Added: 1, Removed: 1, Unchanged: 3, Documents: 4}, Options{},
		store.Source{Path: a, Prefix: "rb"}, store.Source{Path: b})
	// moved's file is renamed, its bytes kept; b's bytes change.
	if err := os.Rename(filepath.Join(a, "old.md"), filepath.Join(a, "new.md")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, b, "b.md", "# B\n\nmore\n")
	step("rename", counts{Changed: 1, Unchanged: 3, Documents: 4}, Options{},
		store.Source{Path: a, Prefix: "rb"}, store.Source{Path: b})
	// Another front-matter list reads every file again: none changed.
	step("front matter", counts{Unchanged: 4, Documents: 4}, Options{FrontMatter: []string{"title"}},
		store.Source{Path: a, Prefix: "rb"}, store.Source{Path: b})
}

// checkSummaryAgainstDiff checks that sum counts what Diff lists between
// its generation and the one before, and that every document is added,
// changed or unchanged.
func checkSummaryAgainstDiff(t *testing.T, what, dir string, sum docir.IndexSummary) {
	t.Helper()
	if sum.Added+sum.Changed+sum.Unchanged != sum.Documents {
		t.Errorf("%s: added %d + changed %d + unchanged %d != documents %d", what, sum.Added, sum.Changed, sum.Unchanged, sum.Documents)
	}
	if sum.Generation < 2 {
		return
	}
	cur, err := store.OpenGeneration(dir, sum.Generation)
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close()
	old, err := store.OpenGeneration(dir, sum.Generation-1)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	added, changed, removed, err := cur.Diff(old)
	if err != nil {
		t.Fatal(err)
	}
	if len(added) != sum.Added || len(changed) != sum.Changed || len(removed) != sum.Removed {
		t.Errorf("%s: summary says added %d, changed %d, removed %d; Diff lists added %q, changed %q, removed %q",
			what, sum.Added, sum.Changed, sum.Removed, added, changed, removed)
	}
}

// Options.Retain and Options.MaxFileBytes take 0 for the default and no
// value below it: a negative one is refused, naming the field, not
// replaced by the default.
func TestNegativeRetainOrSizeCapRefused(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n")
	srcs := []store.Source{{Path: src}}
	for field, opt := range map[string]Options{"Retain": {Retain: -1}, "MaxFileBytes": {MaxFileBytes: -1}} {
		_, err := Refresh(context.Background(), dir, srcs, opt)
		if docir.CodeOf(err) != docir.CodeConfig || !strings.Contains(err.Error(), field+" -1") {
			t.Errorf("Refresh with %s -1: %v; want a config error naming it", field, err)
		}
		if _, err := Diff(context.Background(), dir, srcs, opt); docir.CodeOf(err) != docir.CodeConfig {
			t.Errorf("Diff with %s -1: %v; want a config error", field, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "CURRENT")); err == nil {
		t.Error("a refused refresh published")
	}
}

// TestDefinitionBudgetReparses: markdown rules version 2 put a paragraph
// of over markdown.MaxDefinitionLines lines opening with a link reference
// definition over the parse budget. A store made by version 1 rules holds
// a record of such a file, and the file, unchanged (size and mtime), was
// not read again: the record stayed until the file changed. Played here
// with a file whose long paragraph opened with text when version 1 read it
// and opens with a definition now, of the same size and mtime (the parse
// of this docir is version 2's either way). The refresh after the upgrade
// parses every file again: that file leaves the store with a
// parse_budget warning, and the other is read again, unchanged.
func TestDefinitionBudgetReparses(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	var defs strings.Builder
	for i := range markdown.MaxDefinitionLines + 1 {
		fmt.Fprintf(&defs, "[d%06d]: /x\n", i)
	}
	long := filepath.Join(src, "refs.md")
	writeFile(t, src, "refs.md", "# Refs\n\ntext, no link\n"+defs.String()[len("[d000000]: /x\n"):])
	writeFile(t, src, "b.md", "# B\n")
	srcs := []store.Source{{Path: src}}
	current := rulesVersion
	rulesVersion = 1 // the docir before the rule
	sum, err := Refresh(t.Context(), dir, srcs, Options{})
	rulesVersion = current
	if err != nil || sum.Documents != 2 {
		t.Fatalf("version 1: %+v, %v", sum, err)
	}
	info, err := os.Stat(long)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, src, "refs.md", "# Refs\n\n"+defs.String())
	if err := os.Chtimes(long, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if now, err := os.Stat(long); err != nil || now.Size() != info.Size() {
		t.Fatalf("the file's size changed: %v", err)
	}
	if st, err := Stale(dir, srcs, Options{}); err != nil || !st.Settings {
		t.Errorf("Stale on a version 1 store: %+v, %v; want settings changed", st, err)
	}
	sum, err = Refresh(t.Context(), dir, srcs, Options{})
	if err != nil || !sum.Published || countsOf(sum) != (counts{Removed: 1, Unchanged: 1, Documents: 1}) || sum.WarningCounts[KindParseBudget] != 1 {
		t.Fatalf("refresh after the upgrade: %+v, %v", sum, err)
	}
	if diff := cmp.Diff([]string{"b"}, ids(t, dir)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

// TestParseRulesUpgrade: a store whose records were made by other markdown
// rules (an older docir's, which recorded none) reads as it is, reads
// warn that the index settings changed, and one refresh parses every file
// again and publishes, though no file changed; the next refresh is a
// no-op.
func TestParseRulesUpgrade(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "{\"title\": \"JSON title\"}\n# A\n")
	writeFile(t, src, "b.md", "# B\n")
	srcs := []store.Source{{Path: src}}
	rules := func(gen uint64) int {
		t.Helper()
		s, err := store.OpenGeneration(dir, gen)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		v, err := s.ParseRules()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	current := rulesVersion
	rulesVersion = 0 // an older docir
	sum, err := Refresh(t.Context(), dir, srcs, Options{})
	rulesVersion = current
	if err != nil || rules(sum.Generation) != 0 {
		t.Fatalf("older docir: %+v, %v", sum, err)
	}
	if st, err := Stale(dir, srcs, Options{}); err != nil || !st.Settings || st.Sources {
		t.Errorf("Stale after an older docir's refresh: %+v, %v; want settings changed", st, err)
	}
	sum, err = Refresh(t.Context(), dir, srcs, Options{})
	if err != nil || !sum.Published || sum.Generation != 2 || countsOf(sum) != (counts{Unchanged: 2, Documents: 2}) || rules(2) != current {
		t.Fatalf("upgrade: %+v, %v; rules %d", sum, err, rules(sum.Generation))
	}
	checkSummaryAgainstDiff(t, "upgrade", dir, sum)
	if sum, err := Refresh(t.Context(), dir, srcs, Options{}); err != nil || sum.Published {
		t.Errorf("refresh after the upgrade: %+v, %v; want nothing published", sum, err)
	}
	if st, err := Stale(dir, srcs, Options{}); err != nil || st.Settings || st.Sources {
		t.Errorf("Stale after the upgrade: %+v, %v", st, err)
	}
}
