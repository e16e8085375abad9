package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// TestLinkedSourceFirstIndex: a source whose path is a symbolic link to
// a folder is that folder on the first `docir index` as on a refresh and
// on a first read (before, the first index and the first read said the
// source held no *.md file: the check for one did not follow the link);
// a link inside it that leads out of the source roots is still skipped.
func TestLinkedSourceFirstIndex(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"real/a.md":            "# A\n",
		"outside/secret.md":    "# Secret\n",
		"proj/docir.yaml":      "sources: [{path: docs}]\n",
		"firstread/docir.yaml": "sources: [{path: docs}]\n",
	})
	for _, link := range [][2]string{
		{"../real", "proj/docs"}, {"../real", "firstread/docs"}, {"../outside", "real/out"},
	} {
		if err := os.Symlink(link[0], filepath.Join(dir, link[1])); err != nil {
			t.Fatal(err)
		}
	}
	proj := filepath.Join(dir, "proj")
	index := func(want int) {
		t.Helper()
		r := runDocir(t, proj, nil, "index", "--format", "json")
		var sum struct {
			Documents     int            `json:"documents"`
			WarningCounts map[string]int `json:"warning_counts"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil || r.code != 0 {
			t.Fatalf("index: exit %d, %v: %s %s", r.code, err, r.stdout, r.stderr)
		}
		if sum.Documents != want || sum.WarningCounts["outside_roots"] != 1 {
			t.Errorf("index: %d documents, warnings %v; want %d, one outside_roots", sum.Documents, sum.WarningCounts, want)
		}
	}
	index(1)
	writeFile(t, filepath.Join(dir, "real", "b.md"), "# B\n")
	index(2)
	if r := runDocir(t, filepath.Join(dir, "firstread"), nil, "get", "--format", "json", "a"); r.code != 0 {
		t.Errorf("a first get: exit %d: %s", r.code, r.stderr)
	}
}

// TestGetPathHintNamesADocument: the hint of a malformed address written
// as a page's path is a document the store holds: a Hugo URL path in
// lower case, with or without its leading '/', names the file in its own
// case (before, "r/k/kubeletdown/" hinted "r/k/kubeletdown", a miss), and
// a page's Hugo alias, as a path or as a URL of the site, names the page
// that lists it (before, no hint); nothing near, no hint.
func TestGetPathHintNamesADocument(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"docir.yaml":         "links:\n  hugo_aliases: true\n  site: [https://example.org/docs/]\n",
		"r/k/KubeletDown.md": "# KubeletDown\n\nx\n",
		"k/Mem.md":           "---\ntitle: Mem\naliases: [/memover/]\n---\n# Mem\n",
		"index.md":           "# Home\n\n[old](/memover/)\n",
	})
	if r := runDocir(t, dir, nil, "index", "--format", "json", "."); r.code != 0 {
		t.Fatalf("index: exit %d: %s", r.code, r.stderr)
	}
	for _, tt := range []struct{ arg, want string }{
		{"r/k/kubeletdown/", `docir: malformed address "r/k/kubeletdown/": empty, '.' or '..' path segment in document id; did you mean "r/k/KubeletDown"?`},
		{"/r/k/kubeletdown/", `docir: malformed address "/r/k/kubeletdown/": document id starts with '/'; did you mean "r/k/KubeletDown"?`},
		{"r/k/KubeletDown/", `docir: malformed address "r/k/KubeletDown/": empty, '.' or '..' path segment in document id; did you mean "r/k/KubeletDown"?`},
		{"/memover/", `docir: malformed address "/memover/": document id starts with '/'; did you mean "k/Mem"?`},
		{"https://example.org/docs/memover/", `docir: malformed address "https://example.org/docs/memover/": a URL, not an address; did you mean "k/Mem"?`},
		{"nothing/near/", `docir: malformed address "nothing/near/": empty, '.' or '..' path segment in document id`},
	} {
		for _, cmd := range []string{"get", "links"} {
			r := runDocir(t, dir, nil, cmd, tt.arg)
			if r.code != 2 || r.stderr != tt.want+"\n" {
				t.Errorf("docir %s %s: exit %d, stderr %q; want 2, %q", cmd, tt.arg, r.code, r.stderr, tt.want)
			}
		}
	}
}

// TestFirstReadRefusesHome: a read typed in the home folder, or in /, with
// no docir.yaml indexes nothing (before, it indexed all of $HOME, and
// every project below it without a docir.yaml then read that store); the
// error says what to do and nothing is written. With a docir.yaml there,
// the sources were chosen, and the read indexes them.
func TestFirstReadRefusesHome(t *testing.T) {
	home := t.TempDir()
	writeTree(t, home, map[string]string{"notes/n.md": "# N\n\nnote\n"})
	env := []string{"HOME=" + home}
	r := runDocir(t, home, env, "search", "note")
	if r.code == 0 || r.stdout != "" || !strings.Contains(r.stderr, "home folder") {
		t.Fatalf("a first read in $HOME: exit %d, stdout %q, stderr %q; want it refused, saying why", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(home, ".docir")); !os.IsNotExist(err) {
		t.Fatalf("a refused read left a store: %v", err)
	}
	// / alike, asked of the rule rather than of a process run there (a
	// regression would index the whole file system).
	if err := homeRefusal(&loadedConfig{BaseDir: "/"}); docir.CodeOf(err) != docir.CodeNoStore || !strings.Contains(err.Error(), "home folder or /") {
		t.Errorf("a first read in /: %v; want it refused", err)
	}
	if err := homeRefusal(&loadedConfig{BaseDir: "/", File: "/docir.yaml"}); err != nil {
		t.Errorf("a first read in / with a docir.yaml: %v; want it let through", err)
	}
	// Refused before the walk for markdown (a home of many folders and no
	// markdown said "no *.md files under" it, after walking it all).
	empty := t.TempDir()
	if r := runDocir(t, empty, []string{"HOME=" + empty}, "search", "note"); r.code == 0 || !strings.Contains(r.stderr, "home folder") {
		t.Errorf("a first read in an empty $HOME: exit %d, stderr %q; want the home refusal", r.code, r.stderr)
	}
	writeFile(t, filepath.Join(home, "docir.yaml"), "sources: [{path: notes}]\n")
	if r := runDocir(t, home, env, "search", "note"); r.code != 0 || !strings.Contains(r.stdout, `"id": "n"`) {
		t.Fatalf("a first read in $HOME with a docir.yaml: exit %d, %s %s", r.code, r.stdout, r.stderr)
	}
}

// TestBadFlagValuesAreUsage: a flag value that is not one is a usage error
// (exit 2) before anything is indexed, as the exit codes table says, for
// --prefix as for --front-matter-id (before, a bad prefix was found by the
// refresh, exit 1, a config error); a prefix from docir.yaml stays a
// config error (store/ingest's TestPrefix rows).
func TestBadFlagValuesAreUsage(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"guides/g.md": "# G\n"})
	if r := runDocir(t, dir, nil, "index", "guides"); r.code != 0 {
		t.Fatalf("index: exit %d: %s", r.code, r.stderr)
	}
	for _, args := range [][]string{
		{"index", "--prefix", "a b", "guides"}, // refused before anything is indexed again
		{"index", "--prefix", "../x", "guides"},
		{"index", "--prefix", "a#b", "guides"},
		{"index", "--front-matter-id", "bogus", "guides"},
		{"get", "--at", "abc", "g"},
		{"changes", "--since", ""}, // a script's empty $REV: not the last refresh's changes
		{"query", "--sort", "", "id:*"},
	} {
		r := runDocir(t, dir, nil, args...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, strconv.Quote(args[2])) {
			t.Errorf("docir %q: exit %d, stdout %q, stderr %q; want exit 2 naming %q", args, r.code, r.stdout, r.stderr, args[2])
		}
	}
	fresh := t.TempDir()
	writeTree(t, fresh, map[string]string{"guides/g.md": "# G\n"})
	if r := runDocir(t, fresh, nil, "index", "--prefix", "a b", "guides"); r.code != 2 {
		t.Errorf("a refused first index: exit %d", r.code)
	}
	if _, err := os.Stat(filepath.Join(fresh, ".docir")); !os.IsNotExist(err) {
		t.Errorf("a refused first index left a store: %v", err)
	}
	if r := runDocir(t, dir, nil, "get", "--at", "abc", "g"); !strings.Contains(r.stderr, "1 or more") {
		t.Errorf("get --at abc: %q; want it to say generations are numbered from 1", r.stderr)
	}
	if g, err := store.CurrentGeneration(filepath.Join(dir, ".docir")); err != nil || g != 1 {
		t.Errorf("after the refused invocations: generation %d, %v; want 1, as the first index left it", g, err)
	}
}

// TestGoneSourceWarning: a read whose source folder was moved away says
// so, and what to do (before: "the sources changed ...; docir index
// refreshes", and docir index then failed until the folder was back).
func TestGoneSourceWarning(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"guides/g.md": "# G\n\ngee\n"})
	if r := runDocir(t, dir, nil, "index", "guides"); r.code != 0 {
		t.Fatalf("index: exit %d: %s", r.code, r.stderr)
	}
	if err := os.Rename(filepath.Join(dir, "guides"), filepath.Join(dir, "away")); err != nil {
		t.Fatal(err)
	}
	r := runDocir(t, dir, nil, "search", "gee")
	if r.code != 0 || !strings.Contains(r.stderr, "source folder "+filepath.Join(dir, "guides")+" is gone") || !strings.Contains(r.stderr, "docir sources --replace DIR") {
		t.Errorf("a read with its source moved away: exit %d, stderr %q; want the folder named gone, and the fix", r.code, r.stderr)
	}
}

// TestServeTokenEnv: --token-env names the token's variable; serving with
// none when it is unset or empty (a loopback address allows no token, but
// one was asked for), or with a token no Authorization header can carry
// (a line feed kept from a file), is refused before anything is served.
func TestServeTokenEnv(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"docs/a.md": "# A\n"})
	for _, tt := range []struct {
		env  []string
		want string
	}{
		{nil, "$PEER_TOK is unset or empty"},
		{[]string{"PEER_TOK="}, "$PEER_TOK is unset or empty"},
		{[]string{"PEER_TOK=abc\r"}, "control character"},
		{[]string{"PEER_TOK=abc "}, "white space"},
	} {
		r := runDocir(t, dir, tt.env, "serve", "--http", "127.0.0.1:0", "--token-env", "PEER_TOK")
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("serve with %q: exit %d, stderr %q; want exit 2 saying %q", tt.env, r.code, r.stderr, tt.want)
		}
	}
}
