package ingest

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// TestDocumentIDFrontMatterRule: a source's front_matter_id says how a
// front-matter `id:` makes the id: whole (the default), the file's name
// with its folder and the prefix kept (Docusaurus), or not at all.
func TestDocumentIDFrontMatterRule(t *testing.T) {
	for _, tt := range []struct {
		rule, prefix, rel, fmID string
		want                    string // "" when no valid id results
	}{
		{"", "", "guide/hello.md", "part1", "part1"},
		{FrontMatterIDWhole, "v1", "guide/hello.md", "part1", "part1"},
		{FrontMatterIDName, "", "guide/hello.md", "part1", "guide/part1"},
		{FrontMatterIDName, "", "hello.md", "part1", "part1"},
		{FrontMatterIDName, "v1", "guide/hello.md", "part1", "v1/guide/part1"},
		{FrontMatterIDName, "", "version-1.0/intro.md", "intro", "version-1.0/intro"},
		{FrontMatterIDName, "", "version-2.0/intro.md", "intro", "version-2.0/intro"},
		{FrontMatterIDName, "", "usage/index.md", "index", "usage"},     // Redux: a bundle's page
		{FrontMatterIDName, "", "usage/other.md", "index", "usage"},     // names the bundle's page, as its file would
		{FrontMatterIDName, "", "guide/hello.md", "a/b", "guide/hello"}, // a '/' is no file name: the path
		{FrontMatterIDName, "", "guide/hello.md", "a#b", "guide/hello"},
		{FrontMatterIDOff, "", "guide/hello.md", "part1", "guide/hello"},
		{FrontMatterIDOff, "v1", "index.md", "intro", "v1"},
	} {
		src := store.Source{Path: "/src", Prefix: tt.prefix, FrontMatterID: tt.rule}
		got, _, ok := documentID(src, tt.rel, tt.fmID)
		if !ok {
			got = ""
		}
		if got != tt.want {
			t.Errorf("documentID(%q, prefix %q, %q, fm %q) = %q, want %q", tt.rule, tt.prefix, tt.rel, tt.fmID, got, tt.want)
		}
	}
}

func TestCheckFrontMatterID(t *testing.T) {
	for _, ok := range []string{"", "whole", "name", "off"} {
		if err := CheckFrontMatterID(ok); err != nil {
			t.Errorf("CheckFrontMatterID(%q) = %v", ok, err)
		}
	}
	err := CheckFrontMatterID("docusaurus")
	if docir.CodeOf(err) != docir.CodeConfig || !strings.Contains(err.Error(), `"docusaurus"`) {
		t.Errorf("CheckFrontMatterID(docusaurus) = %v (code %q), want a config error naming the value", err, docir.CodeOf(err))
	}
	_, err = Refresh(context.Background(), t.TempDir(), []store.Source{{Path: t.TempDir(), FrontMatterID: "Name"}}, Options{})
	if docir.CodeOf(err) != docir.CodeConfig || !strings.Contains(err.Error(), `"Name"`) {
		t.Errorf("Refresh with front_matter_id Name: %v, want a config error naming the value", err)
	}
}

// Versioned Docusaurus docs repeat every `id:`: under front_matter_id
// name they index, each under its folder; a change of the rule re-ids the
// source's files on the next refresh, as a change of prefix does.
func TestFrontMatterIDRuleChangeReIDs(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "version-1.0/intro.md", "---\nid: intro\n---\n# Intro 1\n")
	writeFile(t, src, "version-2.0/intro.md", "---\nid: intro\n---\n# Intro 2\n")
	writeFile(t, src, "guide/hello.md", "---\nid: part1\n---\n# Hello\n")
	named := store.Source{Path: src, FrontMatterID: FrontMatterIDName}
	refresh(t, dir, named)
	if diff := cmp.Diff([]string{"guide/part1", "version-1.0/intro", "version-2.0/intro"}, ids(t, dir)); diff != "" {
		t.Errorf("ids under name (-want +got):\n%s", diff)
	}
	if st, err := Stale(dir, []store.Source{named}, Options{}); err != nil || st.Sources {
		t.Errorf("Stale after a refresh with the same rule: %+v %v, want nothing stale", st, err)
	}
	if st, err := Stale(dir, []store.Source{{Path: src}}, Options{}); err != nil || !st.Sources {
		t.Errorf("Stale once the rule changed: %+v %v, want the sources changed", st, err)
	}
	off := store.Source{Path: src, FrontMatterID: FrontMatterIDOff}
	c, err := Diff(context.Background(), dir, []store.Source{off}, Options{})
	if err != nil || len(c.Changed) != 3 {
		t.Errorf("Diff once the rule changed: %d changed (%v), want 3", len(c.Changed), err)
	}
	sum := refresh(t, dir, off)
	if sum.Added != 1 || sum.Removed != 1 || sum.Unchanged != 2 {
		t.Errorf("refresh once the rule changed: %+v, want guide/part1 re-id'd as guide/hello", sum)
	}
	if diff := cmp.Diff([]string{"guide/hello", "version-1.0/intro", "version-2.0/intro"}, ids(t, dir)); diff != "" {
		t.Errorf("ids under off (-want +got):\n%s", diff)
	}
	if sum := refresh(t, dir, off); sum.Changed != 0 || sum.Unchanged != 3 {
		t.Errorf("refresh with the rule kept: %+v, want every file unchanged", sum)
	}
}

// TestClashErrorSaysWhatHelps: a clash of two path-derived ids in one
// source suggests an `id:` or a new name, not a prefix, which would rename
// both (TestClashAdviceFitsTheSources has two sources); one a front-matter
// `id:` made names the file whose front matter
// set it, and the source's front_matter_id or an edit, never a prefix
// (which does not change such an id).
func TestClashErrorSaysWhatHelps(t *testing.T) {
	for _, tt := range []struct {
		name          string
		rule          string
		a, b          string // the files' contents (a.md, sub/b.md)
		aFM, bFM      bool
		want, wantNot []string
	}{
		{"paths", "", "# A\n", "", false, false,
			[]string{"an `id:` of its own in its front matter", "rename it"}, []string{"--prefix", "front_matter_id"}},
		{"both front matter", "", "---\nid: x\n---\n", "---\nid: x\n---\n", true, true,
			[]string{"front matter of both", "front_matter_id: name", "--front-matter-id name"}, []string{"--prefix"}},
		{"one front matter", "", "# A\n", "---\nid: sub/a\n---\n", false, true,
			[]string{"front matter of %B", "front_matter_id: name"}, []string{"--prefix", "front matter of both"}},
		{"name rule", FrontMatterIDName, "---\nid: x\n---\n", "---\nid: x\n---\n", true, true,
			[]string{"front matter of both", "front_matter_id: off"}, []string{"--prefix", "front_matter_id: name"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src, dir := t.TempDir(), t.TempDir()
			if tt.b == "" { // two paths that give one id: a page beside its bundle
				writeFile(t, src, "a.md", tt.a)
				writeFile(t, src, "a/index.md", "# A again\n")
			} else {
				writeFile(t, src, "sub/a.md", tt.a)
				writeFile(t, src, "sub/b.md", tt.b)
			}
			_, err := Refresh(context.Background(), dir, []store.Source{{Path: src, FrontMatterID: tt.rule}}, Options{})
			var claim *ClaimError
			if !errors.As(err, &claim) {
				t.Fatalf("error %v: want a *ClaimError", err)
			}
			// The files are read side by side: either may claim first.
			aFM, bFM := claim.AFrontMatter, claim.BFrontMatter
			if tt.b != "" && claim.A == filepath.Join(src, "sub", "b.md") {
				aFM, bFM = bFM, aFM
			}
			if aFM != tt.aFM || bFM != tt.bFM {
				t.Errorf("front matter made the claims (%s, %s): %v, %v; want %v, %v (a.md, b.md)", claim.A, claim.B, claim.AFrontMatter, claim.BFrontMatter, tt.aFM, tt.bFM)
			}
			msg := err.Error()
			for _, w := range tt.want {
				w = strings.ReplaceAll(w, "%B", filepath.Join(src, "sub", "b.md"))
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not say %q", msg, w)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(msg, w) {
					t.Errorf("error %q says %q", msg, w)
				}
			}
		})
	}
}

// TestClashNameRuleAcrossSources: under `front_matter_id: name` an `id:` is
// a file's name below its source's prefix, so two sources whose files
// name themselves alike are parted by a prefix, and the error says so (it
// said to edit the `id:` or turn the rule off).
func TestClashNameRuleAcrossSources(t *testing.T) {
	s1, s2, dir := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, s1, "a.md", "---\nid: intro\n---\n")
	writeFile(t, s2, "b.md", "---\nid: intro\n---\n")
	srcs := []store.Source{{Path: s1, FrontMatterID: FrontMatterIDName}, {Path: s2, FrontMatterID: FrontMatterIDName}}
	_, err := Refresh(context.Background(), dir, srcs, Options{})
	var claim *ClaimError
	if !errors.As(err, &claim) {
		t.Fatalf("error %v: want a *ClaimError", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "--prefix NAME DIR") || !strings.Contains(msg, "front_matter_id: off") {
		t.Errorf("error %q: want a prefix, and the rule off, suggested", msg)
	}
	srcs[1].Prefix = "v2"
	if _, err := Refresh(context.Background(), dir, srcs, Options{}); err != nil {
		t.Errorf("with a prefix on the second source: %v", err)
	}
}

// TestClashFrontMatterIDEqualToPath: an `id:` that is the same as the one
// the file's path gives in its source (s2/a.md, `id: a`, source s2) still
// set the id, so the clash with s1/a.md names that front matter and does
// not suggest a prefix, which does not change such an id (code review:
// the id was compared with the path's, and a prefix was suggested).
func TestClashFrontMatterIDEqualToPath(t *testing.T) {
	s1, s2, dir := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, s1, "a.md", "# A\n")
	writeFile(t, s2, "a.md", "---\nid: a\n---\n# A2\n")
	_, err := Refresh(context.Background(), dir, []store.Source{{Path: s1}, {Path: s2}}, Options{})
	var claim *ClaimError
	if !errors.As(err, &claim) {
		t.Fatalf("error %v: want a *ClaimError", err)
	}
	// The files are read side by side: either may claim first.
	second := filepath.Join(s2, "a.md")
	if claim.AFrontMatter != (claim.A == second) || claim.BFrontMatter != (claim.B == second) {
		t.Errorf("%+v: want only %s's front matter to have made its claim", claim, second)
	}
	if msg := err.Error(); strings.Contains(msg, "--prefix") {
		t.Errorf("error %q suggests a prefix", msg)
	}
}
