package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkText writes files into a new folder, indexes the folder source
// there, and runs `docir check --format text`: the folder, the run, and
// its stdout's lines.
func checkText(t *testing.T, files map[string]string, source string) (string, docirRun, []string) {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, files)
	if r := runDocir(t, dir, nil, "index", "--format", "json", source); r.code != 0 {
		t.Fatalf("index: exit %d: %s", r.code, r.stderr)
	}
	r := runDocir(t, dir, nil, "check", "--format", "text")
	return dir, r, strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
}

// TestCheckUndefinedReference: a full or collapsed reference whose label
// its file defines nowhere is a broken link, named by file, line and
// column, with the label it lacks (markdownlint's MD052); a label defined
// later in the file, in another case, is a link; the shortcut form, a
// task list, a callout and code are not references; and no hint names
// links.ignore for labels, which name no target.
func TestCheckUndefinedReference(t *testing.T) {
	_, r, got := checkText(t, map[string]string{
		"guide.md": "# Guide\n\nSee [the setup][setup] and [Install][], then [Usage][usage guide].\n" +
			"Again [the setup][setup]; twice [setup][].\n\n" +
			"- [ ] [todo] and [x] done\n\n> [!NOTE]\n> `[a][b]` in code, m[i][j] in prose.\n\n" +
			"[Usage  Guide]: usage.md\n",
		"usage.md": "# Usage\n",
	}, ".")
	want := []string{
		"guide.md:3:5: setup: no definition for reference [setup] in the file (in guide#guide)",
		"guide.md:3:28: Install: no definition for reference [Install] in the file (in guide#guide)",
		"guide.md:4:7: setup: no definition for reference [setup] in the file (in guide#guide)",
		"guide.md:4:33: setup: no definition for reference [setup] in the file (in guide#guide)",
		"generation 1, 2 documents: links 1 resolved, 4 broken, 0 external, 0 unchecked",
	}
	if diff := cmp.Diff(want, got); r.code != 1 || diff != "" {
		t.Errorf("check: exit %d; stdout (-want +got):\n%s", r.code, diff)
	}
	if want := "docir: 4 broken link(s) in 1 document(s)\n"; r.stderr != want {
		t.Errorf("check: stderr %q, want %q", r.stderr, want)
	}
}

// TestCheckHTMLLinks: the href of a Starlight <LinkCard> or <LinkButton>
// and of an HTML <a> is a link: check reports one that leads nowhere,
// and the page one leads to lists it among its incoming links; an href
// written as an expression is no link.
func TestCheckHTMLLinks(t *testing.T) {
	dir, r, got := checkText(t, map[string]string{
		"start.md": "# Start\n\n<CardGrid>\n  <LinkCard title=\"X\" href=\"/guides/x/\" />\n  <LinkCard title=\"Gone\" href=\"/guides/gone/\" />\n" +
			"  <LinkButton href='guides/x.md#usage'>Go</LinkButton>\n  <LinkCard title=\"Expr\" href={url} />\n</CardGrid>\n\n" +
			"Inline <a href=\"guides/x.md#nope\">x</a>.\n",
		"guides/x.md": "# X\n\n## Usage\n",
	}, ".")
	want := []string{
		"start.md:5:3: /guides/gone/: no such document (in start#start)",
		`start.md:10:8: guides/x.md#nope: guides/x has no section "nope" (in start#start)`,
		"generation 1, 2 documents: links 2 resolved, 2 broken, 0 external, 0 unchecked",
	}
	if diff := cmp.Diff(want, got); r.code != 1 || diff != "" {
		t.Errorf("check: exit %d; stdout (-want +got):\n%s", r.code, diff)
	}
	r = runDocir(t, dir, nil, "links", "guides/x", "--jq", `.links.incoming[] | "\(.line) \(.kind) \(.target) \(.address)"`)
	want = []string{"4 html /guides/x/ guides/x", "6 html guides/x.md#usage guides/x#usage"}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")); r.code != 0 || diff != "" {
		t.Errorf("links: exit %d, %s; incoming (-want +got):\n%s", r.code, r.stderr, diff)
	}
}

// TestCheckBlockIDs: in an Obsidian vault a link to a block id (#^id)
// leads to the section whose text ends a block with it; one to an id no
// block of the note has is broken, named as a block, not a section; get
// reads the block's section by the id.
func TestCheckBlockIDs(t *testing.T) {
	dir, r, got := checkText(t, map[string]string{
		"vault/.obsidian/app.json": "{}",
		"vault/Note.md":            "# Note\n\n## Gem\n\nThe quick gem dashes. ^37066d\n\n## List\n\n- one\n- two\n\n^list-id\n",
		"vault/Start.md":           "# Start\n\n[[Note#^37066d]] [[Note#^list-id]] [[Note#^gone]] [x](Note.md#^37066d)\n",
	}, "vault")
	want := []string{
		`vault/Start.md:3:36: Note#^gone: Note has no block "^gone" (in Start#start)`,
		"generation 1, 2 documents: links 3 resolved, 1 broken, 0 external, 0 unchecked",
	}
	if diff := cmp.Diff(want, got); r.code != 1 || diff != "" {
		t.Errorf("check: exit %d; stdout (-want +got):\n%s", r.code, diff)
	}
	r = runDocir(t, dir, nil, "links", "Start", "--jq", `.links.outgoing[] | "\(.target) \(.status) \(.address)"`)
	want = []string{"Note#^37066d resolved Note#gem", "Note#^list-id resolved Note#list", "Note#^gone broken Note#^gone", "Note.md#^37066d resolved Note#gem"}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")); r.code != 0 || diff != "" {
		t.Errorf("links: exit %d, %s; outgoing (-want +got):\n%s", r.code, r.stderr, diff)
	}
	if r = runDocir(t, dir, nil, "get", "Note#^list-id", "--format", "text"); r.code != 0 || !strings.Contains(r.stdout, "## List") || strings.Contains(r.stdout, "## Gem") {
		t.Errorf("get Note#^list-id: exit %d, %s\n%s", r.code, r.stderr, r.stdout)
	}
}
