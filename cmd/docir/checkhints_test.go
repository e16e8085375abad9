package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/store/links"
)

// writeTree writes files (path -> text) below dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(name)), text)
	}
}

// indexAndCheck indexes dir and checks it: the exit code, the resolves_with
// of each broken link by its target, and the lines of stderr.
func indexAndCheck(t *testing.T, dir string) (int, map[string][]string, []string) {
	t.Helper()
	if r := runDocir(t, dir, nil, "index", "--format", "json", "."); r.code != 0 {
		t.Fatalf("index: exit %d: %s", r.code, r.stderr)
	}
	r := runDocir(t, dir, nil, "check", "--format", "json")
	var res struct {
		Broken []struct {
			Target       string   `json:"target"`
			ResolvesWith []string `json:"resolves_with"`
		} `json:"broken"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("check: exit %d, %v: %s %s", r.code, err, r.stdout, r.stderr)
	}
	got := map[string][]string{}
	for _, l := range res.Broken {
		got[l.Target] = l.ResolvesWith
	}
	return r.code, got, strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
}

// TestCheckHintsBase: a site whose docs folder is served at /docs/ writes
// /docs/editor/b.md for editor/b.md; check names links.base: /docs/ on
// each root-relative link that resolves with it, found by resolving the
// link again with that base, and its footer says how many it resolves and
// how many more (root-relative links outside /docs/) it leaves
// unchecked. links.ignore is suggested for a target no setting resolves
// only. With the base set, exactly the links the footer left are broken.
func TestCheckHintsBase(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"editor/a.md": "# A\n\n[b](/docs/editor/b.md) [u](/docs/editor/b.md#usage) [py](/docs/python/intro.md)\n" +
			"[gone](/docs/editor/gone.md) [dl](/download) [img](/docs/images/x.png) [case](B.md)\n",
		"editor/b.md":     "# B\n\n## Usage\n\n[a](/docs/editor/a.md)\n",
		"python/intro.md": "# Intro\n\n[a](/docs/editor/a.md#a) [m](/docs/python/missing.md) [m](/docs/python/missing.md) [m](/docs/python/missing.md)\n",
	})
	code, got, stderr := indexAndCheck(t, dir)
	base := []string{"links.base: /docs/"}
	want := map[string][]string{
		"/docs/editor/b.md": base, "/docs/editor/b.md#usage": base, "/docs/python/intro.md": base,
		"/docs/editor/a.md": base, "/docs/editor/a.md#a": base,
		"/docs/editor/gone.md": nil, "/download": nil, "/docs/python/missing.md": nil,
		"B.md": {"links.ignore_case"},
	}
	if diff := cmp.Diff(want, got); code != 1 || diff != "" {
		t.Errorf("check: exit %d; broken links and what they resolve with (-want +got):\n%s", code, diff)
	}
	wantErr := []string{
		"docir: 1 of the broken links resolve with link rules this store has off (docir.yaml; docs/links.md): links.ignore_case: true for 1",
		"docir: 5 of the broken links are root-relative and resolve with links.base: /docs/, the URL path the sources are served at (docir.yaml; docs/links.md); it leaves 1 more, outside it, unchecked (outside_base)",
		`docir: 3 of the broken links are to "/docs/python/missing.md"; links.ignore leaves a target out of the check`,
		"docir: 11 broken link(s) in 3 document(s)",
	}
	if diff := cmp.Diff(wantErr, stderr); diff != "" {
		t.Errorf("check's stderr (-want +got):\n%s", diff)
	}

	// 11 - 5 resolved - 1 outside the base: 5 left.
	writeTree(t, dir, map[string]string{"docir.yaml": "sources:\n  - path: .\nlinks:\n  base: /docs/\n"})
	code, got, stderr = indexAndCheck(t, dir)
	want = map[string][]string{"/docs/editor/gone.md": nil, "/docs/python/missing.md": nil, "B.md": {"links.ignore_case"}}
	if diff := cmp.Diff(want, got); code != 1 || diff != "" {
		t.Errorf("check with the base: exit %d; broken links (-want +got):\n%s", code, diff)
	}
	if last := stderr[len(stderr)-1]; last != "docir: 5 broken link(s) in 2 document(s)" {
		t.Errorf("check with the base: stderr %q", stderr)
	}
}

// TestCheckHintsIgnorePage: the links to one missing page written with
// anchors and with and without a trailing slash count as one target, and
// the hint gives the pattern that leaves them all out; with it, none is
// broken.
func TestCheckHintsIgnorePage(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a.md": "# A\n\n[get](/ext/kubectl-commands#get) [run](/ext/kubectl-commands/#run) [all](/ext/kubectl-commands) [v2](/ext/kubectl-commands-v2)\n",
		"b.md": "# B\n\n[all](/ext/kubectl-commands/) [x](/gone/x/) [y](/gone/x/)\n",
	})
	code, _, stderr := indexAndCheck(t, dir)
	want := []string{
		`docir: 4 of the broken links are to "/ext/kubectl-commands" (4 ways written); links.ignore: ["/ext/kubectl-commands", "/ext/kubectl-commands#*", "/ext/kubectl-commands/", "/ext/kubectl-commands/#*"] leaves them out of the check`,
		"docir: 7 broken link(s) in 2 document(s)",
	}
	if diff := cmp.Diff(want, stderr); code != 1 || diff != "" {
		t.Errorf("check: exit %d; stderr (-want +got):\n%s", code, diff)
	}
	// A page written one way only is named as written: an ignore of it
	// matches ("/gone/x/", not the page "/gone/x").
	writeTree(t, dir, map[string]string{"docir.yaml": "sources:\n  - path: .\nlinks:\n  ignore: [\"/ext/*\"]\n"}) // the sibling page too
	_, _, stderr = indexAndCheck(t, dir)
	if want := `docir: 2 of the broken links are to "/gone/x/"; links.ignore leaves a target out of the check`; !slices.Contains(stderr, want) {
		t.Errorf("check: stderr %q, want %q", stderr, want)
	}
	writeTree(t, dir, map[string]string{"docir.yaml": "sources:\n  - path: .\nlinks:\n  ignore: [\"/ext/kubectl-commands\", \"/ext/kubectl-commands#*\", \"/ext/kubectl-commands/\", \"/ext/kubectl-commands/#*\"]\n"})
	code, got, _ := indexAndCheck(t, dir)
	if diff := cmp.Diff(map[string][]string{"/gone/x/": nil, "/ext/kubectl-commands-v2": nil}, got); code != 1 || diff != "" {
		t.Errorf("check with the pattern: exit %d; broken links (-want +got):\n%s", code, diff)
	}
}

// TestCheckHintsFrontMatterID: with ids read whole, links that name a page
// by its folder and front-matter id (Docusaurus's URLs) are broken, and
// the hint names the setting that reads them so; a page found by its own
// file name is not counted; with the setting, they resolve.
func TestCheckHintsFrontMatterID(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"users/Shared_Configurations.md": "---\nid: configs\n---\n# Shared\n\n## Presets\n",
		"guides/start.md":                "# Start\n\n[a](/users/configs) [b](../users/configs#presets) [c](/elsewhere/start)\n",
	})
	code, _, stderr := indexAndCheck(t, dir)
	want := `docir: 2 of the broken links name a page by its front-matter id ("configs" is users/Shared_Configurations.md's); with front_matter_id: name (docir.yaml's sources; docs/ingest.md) a link's path names a page by its folder and id, as Docusaurus reads them`
	if code != 1 || !slices.Contains(stderr, want) {
		t.Errorf("check: exit %d, stderr %q; want the line %q", code, stderr, want)
	}
	writeTree(t, dir, map[string]string{"docir.yaml": "sources:\n  - path: .\n    front_matter_id: name\n"})
	code, got, _ := indexAndCheck(t, dir)
	if diff := cmp.Diff(map[string][]string{"/elsewhere/start": nil}, got); code != 1 || diff != "" {
		t.Errorf("check with front_matter_id: name: exit %d; broken links (-want +got):\n%s", code, diff)
	}
}

// TestCheckHintsBaseMost: of the bases that resolve a link, it is named
// with the one that resolves the most broken links, not the shortest:
// /x/y/a.md resolves with /x/ (y/a.md) and /x/y/ (a.md), /x/y/b.md with
// /x/y/ only, so both are named with /x/y/. Under a configured base the
// bases named extend it.
func TestCheckHintsBaseMost(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a.md":   "# A\n\n[a](/x/y/a.md) [b](/x/y/b.md)\n",
		"b.md":   "# B\n",
		"y/a.md": "# YA\n",
	})
	code, got, stderr := indexAndCheck(t, dir)
	base := []string{"links.base: /x/y/"}
	if diff := cmp.Diff(map[string][]string{"/x/y/a.md": base, "/x/y/b.md": base}, got); code != 1 || diff != "" {
		t.Errorf("check: exit %d (-want +got):\n%s", code, diff)
	}
	want := "docir: 2 of the broken links are root-relative and resolve with links.base: /x/y/, the URL path the sources are served at (docir.yaml; docs/links.md)"
	if stderr[0] != want {
		t.Errorf("check's stderr %q; want first %q", stderr, want)
	}

	writeTree(t, dir, map[string]string{
		"docir.yaml": "sources:\n  - path: .\nlinks:\n  base: /x/\n",
		"a.md":       "# A\n\n[b](/x/y/b.md) [c](/x/w/c.md)\n",
	})
	code, got, stderr = indexAndCheck(t, dir)
	if diff := cmp.Diff(map[string][]string{"/x/y/b.md": base, "/x/w/c.md": nil}, got); code != 1 || diff != "" {
		t.Errorf("check under the base /x/: exit %d (-want +got):\n%s", code, diff)
	}
	want = "docir: 1 of the broken links are root-relative and resolve with links.base: /x/y/, the URL path the sources are served at (docir.yaml; docs/links.md); it leaves 1 more, outside it, unchecked (outside_base)"
	if stderr[0] != want {
		t.Errorf("check's stderr %q; want first %q", stderr, want)
	}
}

// TestCheckHintsBaseAndCase: a site whose URLs are written in another
// case than its files (MDN's /en-US/docs/Web/CSS/Color for
// web/css/color/index.md) resolves with a base and ignore_case together,
// neither alone: check names both, as one setting.
func TestCheckHintsBaseAndCase(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"web/guide.md":              "# Guide\n\n[c](/en-US/docs/Web/CSS/Color) [o](/en-US/docs/Web/CSS/Opacity#syntax)\n",
		"web/css/color/index.md":    "# color\n",
		"web/css/opacity/index.md":  "# opacity\n\n## Syntax\n",
		"web/css/opacity/notes.txt": "not markdown",
	})
	code, got, stderr := indexAndCheck(t, dir)
	both := []string{"links.base: /en-US/docs/", "links.ignore_case"}
	if diff := cmp.Diff(map[string][]string{"/en-US/docs/Web/CSS/Color": both, "/en-US/docs/Web/CSS/Opacity#syntax": both}, got); code != 1 || diff != "" {
		t.Errorf("check: exit %d (-want +got):\n%s", code, diff)
	}
	want := "docir: 2 of the broken links are root-relative and resolve with links.base: /en-US/docs/ and links.ignore_case: true, the URL path the sources are served at (docir.yaml; docs/links.md)"
	if stderr[0] != want {
		t.Errorf("check's stderr %q; want first %q", stderr, want)
	}
	// With both set, nothing is broken.
	writeTree(t, dir, map[string]string{"docir.yaml": "sources:\n  - path: .\nlinks:\n  base: /en-US/docs/\n  ignore_case: true\n"})
	if code, got, _ := indexAndCheck(t, dir); code != 0 || len(got) != 0 {
		t.Errorf("check with both: exit %d, broken %v", code, got)
	}
}

// TestCheckHintsNoBaseThatHides: a base that resolves fewer links than it
// would leave unchecked outside it is not named (a path that, cut short,
// names a page by chance); the link still says what it resolves with.
func TestCheckHintsNoBaseThatHides(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a.md":          "# A\n\n[s](/docs/uri/schemes/javascript) [x](/elsewhere/x) [y](/elsewhere/y) [y](/elsewhere/y)\n",
		"javascript.md": "# JavaScript\n",
	})
	code, got, stderr := indexAndCheck(t, dir)
	want := map[string][]string{"/docs/uri/schemes/javascript": {"links.base: /docs/uri/schemes/"}, "/elsewhere/x": nil, "/elsewhere/y": nil}
	if diff := cmp.Diff(want, got); code != 1 || diff != "" {
		t.Errorf("check: exit %d (-want +got):\n%s", code, diff)
	}
	wantErr := []string{
		`docir: 2 of the broken links are to "/elsewhere/y"; links.ignore leaves a target out of the check`,
		"docir: 4 broken link(s) in 1 document(s)",
	}
	if diff := cmp.Diff(wantErr, stderr); diff != "" {
		t.Errorf("check's stderr (-want +got):\n%s", diff)
	}
}

// TestLinksCommandHint: `docir links check`, where no document is check,
// reads as the command check was meant.
func TestLinksCommandHint(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.md": "# A\n"})
	if r := runDocir(t, dir, nil, "index", "--format", "json", "."); r.code != 0 {
		t.Fatalf("index: exit %d: %s", r.code, r.stderr)
	}
	for _, tt := range []struct{ args, want string }{
		{"links check", "docir: check: no document check (no_document); did you mean docir check? (docir links reads the links of a document)\n"},
		{"links status --format json", "docir: status: no document status (no_document); did you mean docir status? (docir links reads the links of a document)\n"},
		{"links nothing", "docir: nothing: no document nothing (no_document)\n"},
		{"links check#x", "docir: check#x: no document check (no_document)\n"},
	} {
		r := runDocir(t, dir, nil, strings.Fields(tt.args)...)
		if r.code != 3 || r.stderr != tt.want {
			t.Errorf("docir %s: exit %d, stderr %q; want 3, %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
	// A document named check is read.
	writeTree(t, dir, map[string]string{"check.md": "# Check\n"})
	if r := runDocir(t, dir, nil, "index", "--format", "json", "."); r.code != 0 {
		t.Fatalf("index: exit %d: %s", r.code, r.stderr)
	}
	if r := runDocir(t, dir, nil, "links", "check", "--format", "json"); r.code != 0 {
		t.Errorf("docir links check with a document check: exit %d, %s", r.code, r.stderr)
	}
}

// TestCheckHintsHugoAliases: a Hugo site links the paths its pages list
// under aliases (/topics/acl for docs/acl.md, as the Redis docs do);
// check names links.hugo_aliases on each link that resolves with it, its
// footer says how many, and links.ignore is suggested for none of them.
// With the rule on, only the link no alias names is broken, and docir
// links lists the others as the page's incoming links.
func TestCheckHintsHugoAliases(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"docs/acl.md":      "---\naliases: [/topics/acl, old-acl]\n---\n# ACL\n\n## Key permissions\n",
		"commands/auth.md": "# AUTH\n\n[a](/topics/acl#key-permissions) [b](/topics/acl) [c](/topics/acl) [d](/docs/old-acl/) [gone](/topics/gone)\n",
	})
	code, got, stderr := indexAndCheck(t, dir)
	with := []string{"links.hugo_aliases"}
	want := map[string][]string{"/topics/acl#key-permissions": with, "/topics/acl": with, "/docs/old-acl/": with, "/topics/gone": nil}
	if diff := cmp.Diff(want, got); code != 1 || diff != "" {
		t.Errorf("check: exit %d; broken links and what they resolve with (-want +got):\n%s", code, diff)
	}
	wantErr := []string{
		"docir: 4 of the broken links resolve with link rules this store has off (docir.yaml; docs/links.md): links.hugo_aliases: true for 4",
		"docir: 5 broken link(s) in 1 document(s)",
	}
	if diff := cmp.Diff(wantErr, stderr); diff != "" {
		t.Errorf("check's stderr (-want +got):\n%s", diff)
	}

	writeTree(t, dir, map[string]string{"docir.yaml": "sources:\n  - path: .\nlinks:\n  hugo_aliases: true\n"})
	code, got, stderr = indexAndCheck(t, dir)
	if diff := cmp.Diff(map[string][]string{"/topics/gone": nil}, got); code != 1 || diff != "" {
		t.Errorf("check with the rule: exit %d; broken links (-want +got):\n%s", code, diff)
	}
	if last := stderr[len(stderr)-1]; last != "docir: 1 broken link(s) in 1 document(s)" {
		t.Errorf("check with the rule: stderr %q", stderr)
	}
	r := runDocir(t, dir, nil, "links", "docs/acl", "--format", "json")
	var res struct {
		Links struct {
			Incoming []struct {
				Target  string `json:"target"`
				Address string `json:"address"`
			} `json:"incoming"`
		} `json:"links"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 {
		t.Fatalf("links docs/acl: exit %d, %v: %s %s", r.code, err, r.stdout, r.stderr)
	}
	var in []string
	for _, l := range res.Links.Incoming {
		in = append(in, l.Target+" -> "+l.Address)
	}
	wantIn := []string{"/topics/acl#key-permissions -> docs/acl#key-permissions", "/topics/acl -> docs/acl", "/topics/acl -> docs/acl", "/docs/old-acl/ -> docs/acl"}
	if diff := cmp.Diff(wantIn, in); diff != "" {
		t.Errorf("links docs/acl: incoming (-want +got):\n%s", diff)
	}
}

// TestCheckHintsSiblingFolder: links that climb out of their page's folder
// into one folder (an mdBook book's "../std/…" links to the standard
// library's docs, served beside it) break together: the hint names the
// folder and the pattern that leaves them all out, when it gathers more
// than the most broken single target.
func TestCheckHintsSiblingFolder(t *testing.T) {
	// Two folders beside the sources: each named, each a pattern.
	wantHint(t, map[string]string{
		"src/ch1.md": "# One\n\n[a](../std/a.html) [b](../std/b/index.html) [c](../std/c.html) [n](../nomicon/x.html) [n](../nomicon/x.html)\n",
	}, `docir: 5 of the broken links are to 2 folders beside the sources (sibling sites' pages: "../std/" 3, "../nomicon/" 2); links.ignore: ["../std/*", "../nomicon/*"] leaves them out of the check`)
	// One sibling folder.
	wantHint(t, map[string]string{"src/ch1.md": "# One\n\n[a](../std/a.html) [b](../std/b/index.html) [c](../std/c.html)\n"},
		`docir: 3 of the broken links are to "../std/", a folder beside the sources (a sibling site's pages); links.ignore: ["../std/*"] leaves them out of the check`)
	// Several sibling folders at one climb, most links first.
	wantHint(t, map[string]string{
		"src/ch1.md": "# One\n\n[a](../std/a.html) [b](../std/b.html) [c](../std/c.html) [r](../reference/x.html) [r](../reference/y.html) [n](../nomicon/x.html)\n",
	}, `docir: 6 of the broken links are to 3 folders beside the sources (sibling sites' pages: "../std/" 3, "../reference/" 2, "../nomicon/" 1); links.ignore: ["../std/*", "../reference/*", "../nomicon/*"] leaves them out of the check`)
	// A page of the sources reached by climbing, whose anchor is missing,
	// is this site's breakage (no_section): no sibling site is named, nor
	// links.ignore, and the section broken most often is, with the read
	// that suggests the nearest (Electron review 1: a renamed heading).
	wantHint(t, map[string]string{
		"api/v1/pod.md":      "# Pod\n\n[m](../common/meta.md#ObjectMeta) [m](../common/meta.md#ObjectMeta) [l](../common/meta.md#ListMeta) [s](../common/meta.md#Status)\n",
		"api/common/meta.md": "# Meta\n\n## Object metadata\n",
	}, `docir: 2 of the broken links are to "ObjectMeta", a section api/common/meta does not have (a heading renamed or removed?); docir get api/common/meta#ObjectMeta names the nearest`)
	for target, want := range map[string]string{
		"../std/prelude/index.html": "../std/", "../../ref/x.html": "../../ref/", "../x.html": "", "std/x.html": "",
		"/docs/x.md": "", "../../x.md": "", ".././x.md": "", "../": "",
	} {
		if got := upFolder(target); got != want {
			t.Errorf("upFolder(%q) = %q, want %q", target, got, want)
		}
	}
}

// TestCheckHintsSiteRoot: a repository indexed at its root whose site is
// served from www/docs/ writes "/customization/ko" for
// www/docs/customization/ko.md; check says to index that folder, and
// doing so as it says resolves the links with the same ids.
func TestCheckHintsSiteRoot(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"www/docs/index.md":                "# Home\n\n[ko](/customization/ko) [b](/customization/builds.md) [x](/nowhere)\n",
		"www/docs/customization/ko.md":     "# Ko\n\n[home](/) [builds](/customization/builds/)\n",
		"www/docs/customization/builds.md": "# Builds\n",
	})
	_, _, stderr := indexAndCheck(t, dir)
	want := fmt.Sprintf(`docir: 4 of the 5 broken root-relative links tried name files below "www/docs/": the site is served from that folder; index it as the source (sources: [{path: %s, prefix: www/docs}] keeps the ids; docs/links.md)`, filepath.Join(dir, "www", "docs"))
	if !slices.Contains(stderr, want) {
		t.Errorf("check's stderr %q\nlacks %s", stderr, want)
	}
	writeTree(t, dir, map[string]string{"docir.yaml": "sources:\n  - path: www/docs\n    prefix: www/docs\n"})
	if r := runDocir(t, dir, nil, "index", "--force", "--format", "json"); r.code != 0 {
		t.Fatalf("index: exit %d: %s", r.code, r.stderr)
	}
	r := runDocir(t, dir, nil, "check", "--format", "json")
	if !strings.Contains(r.stdout, `"target": "/nowhere"`) || strings.Contains(r.stdout, `"target": "/customization/ko"`) {
		t.Errorf("check with the folder as the source: %s", r.stdout)
	}
	if g := runDocir(t, dir, nil, "get", "www/docs/customization/ko"); g.code != 0 {
		t.Errorf("get www/docs/customization/ko: exit %d: %s", g.code, g.stderr)
	}
}

// TestCheckHintsFolderServedAtRoot: when a folder at the top of the
// source resolves fewer of the broken root-relative links than most, but
// more than the most broken target, the site serves that folder at its
// root (the Docker docs' manuals/ at /): the hint names the layout of two
// sources, and with it the links written as URLs and as content paths
// resolve (docs/links.md, "A folder served at the site's root").
func TestCheckHintsFolderServedAtRoot(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"guides/a.md": "# A\n\n[i](/engine/install/) [c](/build/cache/) [x](/engine/x/) [p](/manuals/engine/x.md) " +
			"[r](/ref/a/) [r](/ref/b/) [r](/ref/c/) [r](/ref/d/)\n",
		"manuals/engine/install.md": "# Install\n",
		"manuals/engine/x.md":       "# X\n",
		"manuals/build/cache.md":    "# Cache\n",
	})
	_, _, stderr := indexAndCheck(t, dir)
	want := fmt.Sprintf(`docir: 3 of the 7 broken root-relative links tried name files below "manuals/": the site serves that folder at its root; index it as a source of its own with the prefix its ids keep (sources: [{path: %s, exclude: [manuals/]}, {path: %s, prefix: manuals}]; docs/links.md)`, dir, filepath.Join(dir, "manuals"))
	if !slices.Contains(stderr, want) {
		t.Fatalf("check's stderr %q\nlacks %s", stderr, want)
	}
	writeTree(t, dir, map[string]string{"docir.yaml": "sources:\n  - path: .\n    exclude: [manuals/]\n  - path: manuals\n    prefix: manuals\n"})
	if r := runDocir(t, dir, nil, "index", "--force", "--format", "json"); r.code != 0 {
		t.Fatalf("index: exit %d: %s", r.code, r.stderr)
	}
	r := runDocir(t, dir, nil, "check", "--format", "json")
	for _, target := range []string{"/engine/install/", "/build/cache/", "/engine/x/", "/manuals/engine/x.md"} {
		if strings.Contains(r.stdout, `"target": "`+target+`"`) {
			t.Errorf("with the two sources %s is still broken: %s", target, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, `"target": "/ref/a/"`) {
		t.Errorf("with the two sources /ref/a/ resolves: %s", r.stdout)
	}
}

// wantHint indexes files in a folder of their own, checks it, and fails t
// unless check's stderr has the line want.
func wantHint(t *testing.T, files map[string]string, want string) {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, files)
	if _, _, stderr := indexAndCheck(t, dir); !slices.Contains(stderr, want) {
		t.Errorf("check's stderr %q\nlacks %s", stderr, want)
	}
}

// TestWikilinksInAVault: a folder holding .obsidian/ is a vault, whose
// [[wikilinks]] check resolves (a missing note is broken); without it, or
// with links.wikilinks: false, they are unchecked.
func TestWikilinksInAVault(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"Home.md":          "# Home\n\n[[My Note]] [[Missing note]]\n",
		"notes/My Note.md": "# My Note\n",
	})
	code, got, _ := indexAndCheck(t, dir)
	if code != 0 || len(got) != 0 {
		t.Errorf("no vault: exit %d, broken %v; want 0 and none (wikilinks unchecked)", code, got)
	}
	writeTree(t, dir, map[string]string{".obsidian/app.json": "{}"})
	code, got, _ = indexAndCheck(t, dir)
	if _, ok := got["Missing note"]; code != 1 || len(got) != 1 || !ok {
		t.Errorf("a vault: exit %d, broken %v; want 1 and [[Missing note]]", code, got)
	}
	writeTree(t, dir, map[string]string{"docir.yaml": "sources:\n  - path: .\nlinks:\n  wikilinks: false\n"})
	if code, got, _ = indexAndCheck(t, dir); code != 0 || len(got) != 0 {
		t.Errorf("a vault with wikilinks: false: exit %d, broken %v; want none", code, got)
	}
}

// TestCheckHintsNoBaseThroughAnAlias: a base is named by the links whose
// path below it names a file, not by one that reaches a page through an
// alias (a redirect): with base /engine/, the Docker docs' /engine/install
// would be /install, an alias of the Docker Desktop download page, where
// the site serves the engine's install page (Docker review 3).
func TestCheckHintsNoBaseThroughAnAlias(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"docir.yaml":            "sources:\n  - path: .\nlinks:\n  hugo_aliases: true\n",
		"get-started/docker.md": "---\ntitle: Get Docker\naliases: [/install/]\n---\n# Get Docker\n",
		"guide.md":              "# Guide\n\n[install](/engine/install) [install again](/engine/install)\n",
	})
	code, got, _ := indexAndCheck(t, dir)
	if want := map[string][]string{"/engine/install": nil}; code != 1 || !cmp.Equal(want, got) {
		t.Errorf("check: exit %d, broken links and what they resolve with %v; want %v", code, got, want)
	}
}

// TestGetSitePathHint: a page's URL or site path pasted into get (or
// links) is malformed, and the hint is the document the store holds for
// it, where the site serves its pages below a folder of its own; one the
// store has nothing near gets no hint.
func TestGetSitePathHint(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"concepts/pods.md": "# Pods\n\n## Pod lifecycle\n"})
	if r := runDocir(t, dir, nil, "index", "--format", "json", "."); r.code != 0 {
		t.Fatalf("index: exit %d: %s", r.code, r.stderr)
	}
	for _, tt := range []struct{ arg, want string }{
		{"https://example.org/docs/concepts/pods/#pod-lifecycle",
			`docir: malformed address "https://example.org/docs/concepts/pods/#pod-lifecycle": a URL, not an address; did you mean "concepts/pods#pod-lifecycle"?`},
		{"/docs/concepts/pods/", `docir: malformed address "/docs/concepts/pods/": document id starts with '/'; did you mean "concepts/pods"?`},
		{"/concepts/pods/", `docir: malformed address "/concepts/pods/": document id starts with '/'; did you mean "concepts/pods"?`},
		{"/nothing/near/", `docir: malformed address "/nothing/near/": document id starts with '/'`}, // nothing near: no hint
	} {
		for _, cmd := range []string{"get", "links"} {
			r := runDocir(t, dir, nil, cmd, tt.arg)
			if r.code != 2 || r.stderr != tt.want+"\n" {
				t.Errorf("docir %s %s: exit %d, stderr %q; want 2, %q", cmd, tt.arg, r.code, r.stderr, tt.want)
			}
		}
	}
}

// TestCheckHintsSiteRootNeedsEvidence: indexing a folder as the source
// drops every document outside it, so check names the folder only when
// the links it would resolve (from pages it holds) are more than one,
// most of those tried, and more than the links it takes out of the check.
// One link in a/b/y.md written "/x.md" for a/b/x.md named a/b/ (a
// new-user review).
func TestCheckHintsSiteRootNeedsEvidence(t *testing.T) {
	for _, tt := range []struct {
		name, readme, y string
		want            string // the hint, "" for none
	}{
		{"one link", "[x](a/b/x.md)\n", "# Y\n\n[x](/x.md)\n", ""},
		{"fewer than it takes out", "[x](a/b/x.md) [x](a/b/x.md#x)\n", "# Y\n\n[x](/x.md) [x](/x.md#x) [r](../../README.md)\n", ""},
		{"more than it takes out", "[x](a/b/x.md)\n", "# Y\n\n[x](/x.md) [x](/x.md#x) [x](/x.md)\n",
			`docir: 3 of the 3 broken root-relative links tried name files below "a/b/": the site is served from that folder; index it as the source (sources: [{path: %s, prefix: a/b}] keeps the ids; docs/links.md); 1 links leave the check with the documents outside it, or lead out of it`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{"README.md": tt.readme, "a/b/x.md": "# X\n", "a/b/y.md": tt.y})
			code, _, stderr := indexAndCheck(t, dir)
			var want, got []string // the lines that name a folder
			if tt.want != "" {
				want = []string{fmt.Sprintf(tt.want, filepath.Join(dir, "a", "b"))}
			}
			for _, line := range stderr {
				if strings.Contains(line, "links tried name files") {
					got = append(got, line)
				}
			}
			if diff := cmp.Diff(want, got); code != 1 || diff != "" {
				t.Errorf("check: exit %d; stderr %q; its lines that name a folder (-want +got):\n%s", code, stderr, diff)
			}
		})
	}
}

// TestCheckHintsNoBaseThatTakesResolved: a base is weighed against the
// resolved links it would take out of the check too, not the broken ones
// only. Starlight serves the English page for an untranslated one, so
// de/index.md links /de/guides/a/ where no de/guides/ is: base /de/
// resolves that link and leaves the four resolved ones outside it
// unchecked, and is not named (the link still says what it resolves
// with). Where it resolves more than it takes, it is named, with the
// resolved links it takes.
func TestCheckHintsNoBaseThatTakesResolved(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"index.md":    "# Home\n\n[a](/guides/a/) [b](/guides/b/)\n",
		"guides/a.md": "# A\n\n[b](/guides/b/)\n",
		"guides/b.md": "# B\n\n[a](/guides/a/)\n",
		"de/index.md": "# DE\n\n[a](/de/guides/a/)\n",
	})
	code, got, stderr := indexAndCheck(t, dir)
	if want := map[string][]string{"/de/guides/a/": {"links.base: /de/"}}; code != 1 || !cmp.Equal(want, got) {
		t.Errorf("check: exit %d, broken links and what they resolve with %v; want %v", code, got, want)
	}
	if diff := cmp.Diff([]string{"docir: 1 broken link(s) in 1 document(s)"}, stderr); diff != "" {
		t.Errorf("check's stderr (-want +got):\n%s", diff)
	}

	writeTree(t, dir, map[string]string{
		"index.md":    "# Home\n\n[a](/guides/a/)\n",
		"guides/a.md": "# A\n",
		"guides/b.md": "# B\n",
		"de/index.md": "# DE\n\n[a](/de/guides/a/) [b](/de/guides/b/) [a](/de/guides/a/#a)\n",
	})
	_, _, stderr = indexAndCheck(t, dir)
	want := "docir: 3 of the broken links are root-relative and resolve with links.base: /de/, the URL path the sources are served at (docir.yaml; docs/links.md); 1 links that resolve now would not (outside it, or naming another page below it)"
	if !slices.Contains(stderr, want) {
		t.Errorf("check's stderr %q\nlacks %s", stderr, want)
	}
}

// TestLostUnderKeepsWhatAPrefixKeeps: a resolved root-relative link that
// a base would read as another path is lost, unless a source's prefix
// makes that path the same file; a link outside the base is lost, and a
// relative one is not read below a base at all.
func TestLostUnderKeepsWhatAPrefixKeeps(t *testing.T) {
	g := &genLinks{
		rules: links.Rules{Roots: []string{"/s", "/d"}, Prefixes: []string{"", "de"}}.Normalize(),
		idOf: map[string]string{
			"/s\x00guides/a.md": "guides/a", "/s\x00de/old.md": "de/old", "/s\x00old.md": "old", "/d\x00x.md": "de/x",
		},
		resolved: []genLink{
			{ref: docir.LinkRef{Target: "/guides/a/", Kind: docir.LinkInline}, to: "guides/a"},     // outside /de/
			{ref: docir.LinkRef{Target: "/de/old.md", Kind: docir.LinkInline}, to: "de/old"},       // old.md below /de/: another page
			{ref: docir.LinkRef{Target: "/de/x.md", Kind: docir.LinkInline}, to: "de/x"},           // x.md of the source prefixed de: the same
			{ref: docir.LinkRef{Target: "/de/x.md#top", Kind: docir.LinkInline}, to: "de/x"},       // the same, with an anchor
			{ref: docir.LinkRef{Target: "../guides/a.md", Kind: docir.LinkInline}, to: "guides/a"}, // relative
			// Resolved by rules genLinks does not rebuild (a Hugo alias, a
			// front-matter id): not weighed, under any base.
			{ref: docir.LinkRef{Target: "/memover/", Kind: docir.LinkInline}, to: "k/mem"},
			{ref: docir.LinkRef{Target: "/intro", Kind: docir.LinkInline}, to: "docs/getting-started"},
		},
	}
	if n := g.lostUnder("/de/", false); n != 2 {
		t.Errorf("lostUnder(/de/) = %d, want 2", n)
	}
	if n := g.lostUnder("/", false); n != 0 {
		t.Errorf("lostUnder(/) = %d, want 0", n)
	}
}

// TestCheckHintsNoSectionPromisesWhatGetDoes: the hint of a section
// broken most often says that get names the nearest only when get does
// (workspace.SuggestSections); else it names a page whose section of that
// slug other links resolve to (prometheus's api.md links "#staleness",
// the section of basics.md), else nothing more.
func TestCheckHintsNoSectionPromisesWhatGetDoes(t *testing.T) {
	// get suggests nothing, and basics.md's own link resolves to its
	// section of that slug.
	wantHint(t, map[string]string{
		"q/api.md":    "# API\n\n## Instant queries\n\n[s](#staleness)\n\n## Range queries\n\n[s](#staleness)\n",
		"q/basics.md": "# Basics\n\n## Selectors\n\nSee [below](#staleness).\n\n## Staleness\n\nx\n",
	}, `docir: 2 of the broken links are to "staleness", a section q/api does not have (a heading renamed or removed?); get suggests no section of q/api, but q/basics#staleness is one of that name`)
	// Nothing of that name anywhere: no read is promised.
	wantHint(t, map[string]string{
		"q/api.md": "# API\n\n## Instant queries\n\n[s](#staleness)\n\n## Range queries\n\n[s](#staleness)\n",
	}, `docir: 2 of the broken links are to "staleness", a section q/api does not have (a heading renamed or removed?); get suggests no section of q/api`)
}

// TestSectionHintGetNotAsked: with no local store to ask what get
// suggests, the hint says nothing of get (code review: it said "get
// suggests no section" unasked).
func TestSectionHintGetNotAsked(t *testing.T) {
	unknown := func(address.Address) ([]string, bool) { return nil, false }
	got := sectionHint("q/api#staleness", 2, func() *genLinks { return nil }, unknown)
	if want := `2 of the broken links are to "staleness", a section q/api does not have (a heading renamed or removed?)`; got != want {
		t.Errorf("sectionHint:\n got %s\nwant %s", got, want)
	}
}

// TestCheckHintsRootFallbackPageRelative: a `./../` link to a folder with
// no page (prometheus's documentation/examples/kubernetes-rabbitmq/
// README.md) is broken, and no setting is hinted for it: root_fallback
// read it below the source folder, the root's README.md, a page it does
// not mean. A path that does not open with "./" or "../" is still hinted.
func TestCheckHintsRootFallbackPageRelative(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"README.md":                            "# Top\n",
		"ops/disk.md":                          "# Disk\n",
		"documentation/examples/k/README.md":   "# K\n\n[up](./../) [up](../) [disk](ops/disk.md)\n",
		"documentation/examples/k/setup.md":    "# Setup\n",
		"documentation/examples/other/note.md": "# Note\n",
	})
	_, got, _ := indexAndCheck(t, dir)
	want := map[string][]string{"./../": nil, "../": nil, "ops/disk.md": {"links.root_fallback"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("broken links and what they resolve with (-want +got):\n%s", diff)
	}
}
