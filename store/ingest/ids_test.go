package ingest

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// TestDocumentID: the id rule, bundles included: a folder's index.md or
// _index.md has the folder's id (the prefix's, at the root of a prefixed
// source); a front-matter id wins over the path.
func TestDocumentID(t *testing.T) {
	for _, tt := range []struct {
		prefix, rel, fmID string
		want              string // "" when no valid id results
	}{
		{"", "a/b.md", "", "a/b"},
		{"", "my notes.md", "", "my-notes"},
		{"", "content-management/image-processing/index.md", "", "content-management/image-processing"},
		{"", "shortcodes/_index.md", "", "shortcodes"},
		{"", "index.md", "", "index"},
		{"", "_index.md", "", "_index"},
		{"api", "index.md", "", "api"},
		{"api/", "_index.md", "", "api"},
		{"api", "v1/index.md", "", "api/v1"},
		{"", "a/index.md", "custom/id", "custom/id"},
		{"", "a/reindex.md", "", "a/reindex"},
		{"", "a/index.markdown.md", "", "a/index.markdown"},
		{"", "a/index/b.md", "", "a/index/b"},
		{"", "c#/index.md", "", ""},
	} {
		got, _, ok := documentID(store.Source{Path: "/src", Prefix: tt.prefix}, tt.rel, tt.fmID)
		if !ok {
			got = ""
		}
		if got != tt.want {
			t.Errorf("documentID(prefix %q, %q, fm %q) = %q, want %q", tt.prefix, tt.rel, tt.fmID, got, tt.want)
		}
	}
}

// TestBundleIDs: a site's bundles index under their folders' ids, and a
// page beside a bundle of the same name is a clash that names both files.
func TestBundleIDs(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "_index.md", "# Home\n")
	writeFile(t, src, "shortcodes/_index.md", "# Shortcodes\n")
	writeFile(t, src, "shortcodes/ref.md", "# ref\n")
	writeFile(t, src, "images/processing/index.md", "# Image processing\n")
	refresh(t, dir, store.Source{Path: src})
	if diff := cmp.Diff([]string{"_index", "images/processing", "shortcodes", "shortcodes/ref"}, ids(t, dir)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	writeFile(t, src, "shortcodes.md", "# Shortcodes again\n")
	_, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{})
	if docir.CodeOf(err) != docir.CodeSource || !strings.Contains(err.Error(), "shortcodes.md") || !strings.Contains(err.Error(), "_index.md") {
		t.Errorf("a page and a bundle of one name: %v", err)
	}
}

// TestSourceExclude: Exclude applies to every source, SourceExclude to its
// own source only, after Exclude; patterns are relative to each source
// root, in .gitignore syntax.
func TestSourceExclude(t *testing.T) {
	a, b, dir := t.TempDir(), t.TempDir(), t.TempDir()
	for _, root := range []string{a, b} {
		writeFile(t, root, "page.md", "# Page\n")
		writeFile(t, root, "_common/fragment.md", "# Fragment\n")
		writeFile(t, root, "docs/_common/deep.md", "# Deep fragment\n")
		writeFile(t, root, "notes.draft.md", "# Draft\n")
	}
	srcs := []store.Source{{Path: a}, {Path: b, Prefix: "b"}}
	opt := Options{
		Exclude:       []string{"_common/"},
		SourceExclude: map[string][]string{b: {"*.draft.md", "!docs/_common/"}},
	}
	sum, err := Refresh(context.Background(), dir, srcs, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"b/docs/_common/deep", "b/page", "notes.draft", "page"}
	if diff := cmp.Diff(want, ids(t, dir)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if sum.Ignored != 4 { // a: _common/, docs/_common/; b: _common/, notes.draft.md
		t.Errorf("ignored %d, want 4", sum.Ignored)
	}
	// A pattern anchored with a leading slash matches at the root only.
	if _, err := Refresh(context.Background(), dir, srcs, Options{Exclude: []string{"/_common/"}, Force: true}); err != nil {
		t.Fatal(err)
	}
	want = []string{"b/docs/_common/deep", "b/notes.draft", "b/page", "docs/_common/deep", "notes.draft", "page"}
	if diff := cmp.Diff(want, ids(t, dir)); diff != "" {
		t.Errorf("ids with /_common/ (-want +got):\n%s", diff)
	}
}

// TestHashInPathReason: a path with a '#' gives no id, and the warning
// says it is the '#', wherever in a name it stands. Before, a '#' that
// opens a name (weird/#hash.md) was read as an address's heading part and
// the warning spoke of an empty path segment, suggesting "weird#hash".
func TestHashInPathReason(t *testing.T) {
	for _, rel := range []string{"a#b.md", "weird/#hash.md", "#hash.md", "a/b#/c.md", "c#/index.md"} {
		_, warning, ok := documentID(store.Source{Path: "/src"}, rel, "")
		if ok || !strings.Contains(warning, "'#' in the path") || strings.Contains(warning, "did you mean") {
			t.Errorf("documentID(%q): ok %v, warning %q; want none, for the '#'", rel, ok, warning)
		}
	}
}
