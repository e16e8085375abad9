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
)

func TestLookalikeExt(t *testing.T) {
	for name, want := range map[string]string{
		"intro.mdx": ".mdx", "A.MDX": ".MDX", "b.Markdown": ".Markdown", "c.mdown": ".mdown",
		"d.mkd": ".mkd", "e.mkdn": ".mkdn", "f.mdwn": ".mdwn", "README.MD": ".MD", "g.Md": ".Md",
		".mdx": ".mdx", "a.md.bak": "", "a.mdxx": "", "a.markdowns": "", "a": "", "a.txt": "",
		"a.m": "", "mdx": "", "a.png": "",
		// Pages in another markup beside markdown ones.
		"conf.rst": ".rst", "nb.ipynb": ".ipynb", "guide.adoc": ".adoc", "a.rst.txt": "",
	} {
		if got := LookalikeExt(name); got != want {
			t.Errorf("LookalikeExt(%q) = %q, want %q", name, got, want)
		}
	}
}

// refreshWarnings refreshes dir from srcs and checks the summary's
// warnings and their counts.
func refreshWarnings(t *testing.T, what, dir string, opt Options, want []string, wantCounts map[string]int, srcs ...store.Source) docir.IndexSummary {
	t.Helper()
	sum, err := Refresh(context.Background(), dir, srcs, opt)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if diff := cmp.Diff(want, sum.Warnings); diff != "" {
		t.Errorf("%s: warnings (-want +got):\n%s", what, diff)
	}
	if diff := cmp.Diff(wantCounts, sum.WarningCounts); diff != "" {
		t.Errorf("%s: warning counts (-want +got):\n%s", what, diff)
	}
	return sum
}

// Files that look like markdown but are not *.md are not read, and one
// warning per source says so: how many, of which extensions, one of them,
// and that docir reads *.md files only. The ignore rules leave files out
// of the count (and lookalikes out of Ignored); hidden folders are not
// walked. It says so again on a refresh that changes nothing: the files
// are still not read.
func TestLookalikeFilesWarnOncePerSource(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n")
	writeFile(t, src, "guide/intro.mdx", "# Intro\n")
	writeFile(t, src, "guide/setup.mdx", "# Setup\n")
	writeFile(t, src, "notes.markdown", "# Notes\n")
	writeFile(t, src, "api/index.rst", "API\n===\n")
	writeFile(t, src, "tour.ipynb", "{}")
	writeFile(t, src, "README.MD", "# Readme\n")
	writeFile(t, src, "img.png", "png")
	writeFile(t, src, "x.mdx.bak", "old")
	writeFile(t, src, "drafts/d.mdx", "# Draft\n")  // excluded folder
	writeFile(t, src, "skip.mdown", "# Skip\n")     // excluded file
	writeFile(t, src, "gen/out.mkd", "# Gen\n")     // .gitignore'd
	writeFile(t, src, ".gitignore", "*.mkd\n")      //
	writeFile(t, src, ".docusaurus/h.mdx", "# H\n") // hidden folder
	if err := os.Symlink("guide/intro.mdx", filepath.Join(src, "link.mdx")); err != nil {
		t.Fatal(err)
	}
	opt := Options{Exclude: []string{"drafts/"}, SourceExclude: map[string][]string{src: {"*.mdown"}}}
	want := []string{src + ": 7 files were not read (3 .mdx, 1 .MD, 1 .ipynb, 1 .markdown, 1 .rst): docir reads *.md files only (e.g. " +
		filepath.Join(src, "README.MD") + ")"}
	counts := map[string]int{KindOtherExtension: 1}
	sum := refreshWarnings(t, "first", dir, opt, want, counts, store.Source{Path: src})
	if sum.Documents != 1 || sum.Ignored != 1 {
		t.Errorf("documents %d, ignored %d; want 1 and 1 (the drafts folder)", sum.Documents, sum.Ignored)
	}
	sum = refreshWarnings(t, "no-op", dir, opt, want, counts, store.Source{Path: src})
	if sum.Published || sum.Unchanged != 1 {
		t.Errorf("no-op refresh: %+v", sum)
	}
	// Excluded, they are not counted: no warning.
	opt.Exclude = append(opt.Exclude, "*.mdx", "*.MD", "*.markdown", "*.rst", "*.ipynb")
	refreshWarnings(t, "all excluded", dir, opt, []string{}, map[string]int{}, store.Source{Path: src})
}

// A source with no *.md file is a warning naming it; when it holds
// lookalike files, one warning says both. The sources' warnings come
// first, in the sources' order, before the files' warnings.
func TestSourceWithoutMarkdownWarns(t *testing.T) {
	docs, empty, excl, good, dir := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, docs, "intro.mdx", "# Intro\n")
	writeFile(t, empty, "img.png", "png")
	writeFile(t, excl, "internal/a.md", "# A\n")
	writeFile(t, good, "a.md", "# A\n")
	writeFile(t, good, "bin.md", "a\x00b")
	opt := Options{SourceExclude: map[string][]string{excl: {"internal/"}}}
	srcs := []store.Source{{Path: docs, Prefix: "docs"}, {Path: empty, Prefix: "empty"}, {Path: excl, Prefix: "excl"}, {Path: good}}
	want := []string{
		docs + ": holds no *.md file, and 1 .mdx file was not read: docir reads *.md files only (e.g. " + filepath.Join(docs, "intro.mdx") + ")",
		empty + ": holds no *.md file: nothing of this source is indexed (docir reads *.md files only)",
		excl + ": holds no *.md file (once its exclude and .gitignore rules are applied): nothing of this source is indexed (docir reads *.md files only)",
		filepath.Join(good, "bin.md") + ": skipped: binary file (NUL bytes)",
	}
	counts := map[string]int{KindNoMarkdown: 3, KindBinary: 1}
	sum := refreshWarnings(t, "first", dir, opt, want, counts, srcs...)
	if sum.Documents != 1 {
		t.Errorf("documents %d, want 1", sum.Documents)
	}
	refreshWarnings(t, "no-op", dir, opt, want, counts, srcs...)
}

// TestLookalikeCountsAcrossFolders: the extensions are counted under
// keys of their own, not views of a folder's buffer of names, which the
// next folder overwrites (a Docusaurus tree of 89 .mdx files in 14
// folders was counted "52 .mdx, 0 cusa, 0 d:X0, 0 exam").
func TestLookalikeCountsAcrossFolders(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n")
	for i := range 40 {
		folder := fmt.Sprintf("f%02d", i)
		// Names of other lengths in each folder: the bytes where one
		// folder's ".mdx" stood are another's letters.
		writeFile(t, src, filepath.Join(folder, strings.Repeat("p", i+1)+".mdx"), "# P\n")
		writeFile(t, src, filepath.Join(folder, strings.Repeat("q", 40-i)+"-x.txt"), "text")
		writeFile(t, src, filepath.Join(folder, strings.Repeat("r", i+3)+".mdx"), "# R\n")
	}
	want := []string{src + ": 80 .mdx files were not read: docir reads *.md files only (e.g. " +
		filepath.Join(src, "f00", "p.mdx") + ")"}
	refreshWarnings(t, "refresh", dir, Options{}, want, map[string]int{KindOtherExtension: 1}, store.Source{Path: src})
}
