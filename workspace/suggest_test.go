package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// fixtureSnapshot is the current generation of a store of the fixture
// corpus.
func fixtureSnapshot(t *testing.T) *store.Snapshot {
	t.Helper()
	return heldSnapshot(t, fixture(t))
}

// heldSnapshot is ws's current generation, held (a View) until the test
// ends.
func heldSnapshot(tb testing.TB, ws *Service) *store.Snapshot {
	tb.Helper()
	v, err := ws.Current(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = v.Close() })
	return v.Snapshot()
}

func TestSuggest(t *testing.T) {
	snap := fixtureSnapshot(t)
	tests := []struct {
		typed string
		n     int
		want  []string
	}{
		{"runbooks/disk-full.md", 3, []string{"runbooks/disk-full"}},
		{"corpus/runbooks/disk-full.md", 3, []string{"runbooks/disk-full"}}, // the source folder in front
		{"runbooks/disk-full.md#mitigate", 3, []string{"runbooks/disk-full#mitigate"}},
		// The page as a site serves it (mdBook's links say x.html).
		{"runbooks/disk-full.html#mitigate", 3, []string{"runbooks/disk-full#mitigate"}},
		// A document without the section typed is suggested alone.
		{"runbooks/disk-full.html#no-such-heading", 3, []string{"runbooks/disk-full"}},
		// Under a markdown name docir does not read: renamed to .md, it is that page.
		{"runbooks/disk-full.mdx", 3, []string{"runbooks/disk-full"}},
		{"runbooks/disk-full.markdown#mitigate", 3, []string{"runbooks/disk-full#mitigate"}},
		{"disk-full", 3, []string{"runbooks/disk-full"}},
		{"Runbooks/Disk-Full", 3, []string{"runbooks/disk-full"}},
		{"en-US/Docs/Runbooks/Disk-Full", 3, []string{"runbooks/disk-full"}},                                                              // a site's URL path: folders in front, another case
		{"adr/0003-retry-budget.md", 3, []string{"runbooks/retry-budget"}},                                                                // its front matter sets the id
		{"adr/0003", 3, []string{"runbooks/retry-budget"}},                                                                                // a prefix of its path
		{"adr", 3, []string{"runbooks/retry-budget", "adr/0001-record-architecture-decisions", "adr/0002-store-bodies-beside-the-index"}}, // a folder: shortest path first
		{"runbooks/dsk-full", 3, []string{"runbooks/disk-full"}},
		{"runbooks/disk-fulll", 3, []string{"runbooks/disk-full"}},
		{"zzz/qqqq", 3, nil},
		{"runbooks/disk-full.md", 0, nil},
	}
	for _, tt := range tests {
		a, err := address.Parse(tt.typed)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Suggest(snap, a, tt.n)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Suggest(%q, %d) (-want +got):\n%s", tt.typed, tt.n, diff)
		}
	}
}

// An id typed without the folder the site leaves out of its URLs (the
// Docker docs serve manuals/engine/install/ubuntu at
// /engine/install/ubuntu/) suggests the id that ends with it, first
// (Docker review 4); so does one typed without number prefixes and
// middle folders (svelte.dev: Svelte review F3).
func TestSuggestBelowAFolder(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"manuals/engine/install/ubuntu.md", "manuals/engine/install/debian.md", "manuals/compose/install.md",
		"kit/20-core-concepts/20-load.md", "svelte/03-template-syntax/12-bind.md", "svelte/99-legacy/12-load.md"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), []byte("# "+f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap := refreshedSnapshot(t, root)
	for typed, want := range map[string]string{
		"engine/install/ubuntu": "manuals/engine/install/ubuntu",
		"Engine/Install/Debian": "manuals/engine/install/debian",
		"compose/install#linux": "manuals/compose/install", // it has no section linux
		// A page by its name without its number prefix, below folders the
		// site leaves out (svelte.dev's /docs/kit/load).
		"kit/load":      "kit/20-core-concepts/20-load",
		"docs/kit/load": "kit/20-core-concepts/20-load",
		"bind":          "svelte/03-template-syntax/12-bind",
	} {
		a, err := address.Parse(typed)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Suggest(snap, a, 3)
		if err != nil || len(got) == 0 || got[0] != want {
			t.Errorf("Suggest(%q) = %v, %v; want %s first", typed, got, err, want)
		}
	}
}

// TestSuggestByNumber: a record is suggested by its number alone, zeros
// before it aside (Go's design proposals are named by theirs; an ADR's
// is padded).
func TestSuggestByNumber(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"design/43651-type-parameters.md", "design/25530-sumdb.md", "adr/0015-use-terraform.md", "adr/0150-other.md", "notes/15.md"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), []byte("# "+f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap := refreshedSnapshot(t, root)
	for typed, want := range map[string][]string{
		"43651":           {"design/43651-type-parameters"},
		"25530#rationale": {"design/25530-sumdb"},
		"15":              {"notes/15", "adr/0015-use-terraform"},
		"015":             {"adr/0015-use-terraform"},
	} {
		a, err := address.Parse(typed)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Suggest(snap, a, 3)
		if err != nil || len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
			t.Errorf("Suggest(%q) = %v, %v; want %v first", typed, got, err, want)
		}
	}
}

// A heading that names no section of the document suggests its nearest
// sections: by prefix, then shared words, then a few edits.
func TestSuggestSections(t *testing.T) {
	snap := fixtureSnapshot(t)
	tests := []struct {
		typed string
		want  []string
	}{
		{"runbooks/disk-full#mitig", []string{"runbooks/disk-full#mitigate"}},
		{"runbooks/disk-full#Mitigation steps", []string{"runbooks/disk-full#mitigate"}}, // a stem shared
		{"runbooks/disk-full#disk", []string{"runbooks/disk-full#disk-full-on-a-storage-node"}},
		{"runbooks/disk-full#full disk", []string{"runbooks/disk-full#disk-full-on-a-storage-node"}},
		{"runbooks/disk-full#diagnos", []string{"runbooks/disk-full#diagnose"}},
		{"runbooks/disk-full#escalte", []string{"runbooks/disk-full#escalate"}},
		{"runbooks/disk-full#zzzz", nil},
		{"nope#mitigate", nil},
	}
	for _, tt := range tests {
		got := suggestSections(t, snap, tt.typed)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("SuggestSections(%q) (-want +got):\n%s", tt.typed, diff)
		}
	}
}

// A heading that is a section's slug but for a '-' (a VitePress anchor,
// build-outdir, typed for GitHub's buildoutdir) or one edit suggests that
// section first, before the sections that share a word with it.
func TestSuggestSectionsNearestFirst(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "build.md"), []byte("# Build Options\n\n## build.target\n\n"+
		"## build.modulePreload\n\n## build.polyfillModulePreload\n\n## build.outDir\n\n## build.assetsDir\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	snap := refreshedSnapshot(t, root)
	for typed, want := range map[string][]string{
		"build#build-outdir":  {"build#buildoutdir", "build#build-options", "build#buildassetsdir"},
		"build#build-out-dir": {"build#buildoutdir", "build#build-options", "build#buildassetsdir"},
		"build#buildoutdirs":  {"build#buildoutdir", "build#build-options", "build#buildassetsdir"},
		"build#build-target":  {"build#buildtarget", "build#build-options", "build#buildoutdir"},
		"build#build-preload": {"build#build-options", "build#buildmodulepreload", "build#buildtarget"},
	} {
		got := suggestSections(t, snap, typed)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("SuggestSections(%q) (-want +got):\n%s", typed, diff)
		}
	}
}

// An API reference's method typed as code is suggested before its getter
// or setter twin, one edit away; typed without its object, the sections
// that hold its name come, shortest first (Electron review 2), a name
// that ends a word of the heading before one that goes on (Node F7).
func TestSuggestSectionsMethods(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "win.md"), []byte("# BrowserWindow\n\n"+
		"## `win.getBounds()`\n\n## `win.setBounds(bounds[, animate])`\n\n## `win.setKiosk(flag)`\n\n"+
		"## `contents.sendInputEvent(inputEvent)`\n\n## `contents.send(channel, ...args)`\n\n"+
		"## `fs.readFileSync(path[, options])`\n\n## `fs.readFile(path[, options], callback)`\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	snap := refreshedSnapshot(t, root)
	for typed, want := range map[string][]string{
		"win#win.setBounds": {"win#winsetboundsbounds-animate", "win#wingetbounds", "win#winsetkioskflag"},
		"win#setBounds":     {"win#winsetboundsbounds-animate"},
		"win#send":          {"win#contentssendchannel-args", "win#contentssendinputeventinputevent"},
		// A name typed whole is the heading it ends a word of before a
		// longer name it starts (Node review F7).
		"win#fs.readFile": {"win#fsreadfilepath-options-callback", "win#fsreadfilesyncpath-options"},
		"win#readFile":    {"win#fsreadfilepath-options-callback", "win#fsreadfilesyncpath-options"},
		// nodejs.org's older anchors: the page's name, then the heading's.
		"win#win_fs_readfile_path_options_callback": {"win#fsreadfilepath-options-callback"},
	} {
		got := suggestSections(t, snap, typed)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("SuggestSections(%q) (-want +got):\n%s", typed, diff)
		}
	}
}

// A custom anchor keeps its case ({#VUE_PROD_DEVTOOLS}); typed in lower
// case it is suggested first, as written.
func TestSuggestSectionsCustomAnchorCase(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "flags.md"), []byte("# Flags\n\n"+
		"## `__VUE_PROD_DEVTOOLS__` {#VUE_PROD_DEVTOOLS}\n\n## `__VUE_OPTIONS_API__` {#VUE_OPTIONS_API}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	snap := refreshedSnapshot(t, root)
	for typed, want := range map[string]string{
		"flags#vue_prod_devtools": "flags#VUE_PROD_DEVTOOLS",
		"flags#vue-options-api":   "flags#VUE_OPTIONS_API",
	} {
		got := suggestSections(t, snap, typed)
		if len(got) == 0 || got[0] != want {
			t.Errorf("SuggestSections(%q) = %v, want %s first", typed, got, want)
		}
	}
}

// A heading's anchor written with its enclosing headings' slugs before
// its own, as svelte.dev writes one (Svelte review F5), suggests that
// heading first, from any enclosing heading down; an anchor that skips
// the heading right above, or names one that does not enclose it, is no
// such anchor.
func TestSuggestSectionsNestedAnchor(t *testing.T) {
	ws, _ := indexedFiles(t, map[string]string{"load.md": "# Loading data\n\n" +
		"## Universal vs server\n\n### When does which load function run?\n\n#### Output\n\n" +
		"## Using URL data\n\n### url\n\n### route\n"})
	snap := heldSnapshot(t, ws)
	for typed, want := range map[string]string{
		"load#Universal-vs-server-When-does-which-load-function-run":              "load#when-does-which-load-function-run",
		"load#Loading-data-Universal-vs-server-When-does-which-load-function-run": "load#when-does-which-load-function-run",
		"load#Universal-vs-server-When-does-which-load-function-run-Output":       "load#output",
		"load#Using-URL-data-route":                                               "load#route",
	} {
		got := suggestSections(t, snap, typed)
		if len(got) == 0 || got[0] != want {
			t.Errorf("SuggestSections(%q) = %v, want %s first", typed, got, want)
		}
	}
	path := []docir.Section{{Slug: "loading-data", Level: 1}, {Slug: "universal-vs-server", Level: 2}}
	for bare, want := range map[string]bool{
		"universalvsserverroute":            true,
		"loadingdatauniversalvsserverroute": true,
		"loadingdataroute":                  false, // skips the heading right above
		"usingurldataroute":                 false, // a heading that does not enclose it
		"route":                             false, // its own slug: the first tier's
		"xuniversalvsserverroute":           false,
	} {
		if got := nestedAnchor(path, "route", bare); got != want {
			t.Errorf("nestedAnchor(%q) = %v, want %v", bare, got, want)
		}
	}
}

// writeTitled writes each file below root, its title its path.
func writeTitled(t *testing.T, root string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# "+f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A file path names its own file before another of the same name higher
// up: in a code repository many files are README.md (a review: get
// tsdb/README.md suggested the top-level README first).
func TestSuggestSameNameHigherUp(t *testing.T) {
	root := t.TempDir()
	writeTitled(t, root, "README.md", "CHANGELOG.md", "tsdb/README.md", "tsdb/CHANGELOG.md", "web/ui/README.md")
	snap := refreshedSnapshot(t, root)
	for typed, want := range map[string]string{
		"tsdb/README.md":          "tsdb/README",
		"tsdb/CHANGELOG.md":       "tsdb/CHANGELOG",
		"web/ui/README.md":        "web/ui/README",
		"README.md":               "README",
		"myrepo/tsdb/README.md":   "tsdb/README", // the source folder in front
		"myrepo/web/ui/README.md": "web/ui/README",
	} {
		got, err := Suggest(snap, address.Address{ID: typed}, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0] != want {
			t.Errorf("Suggest(%q) = %q, want %q first", typed, got, want)
		}
	}
}

// An alias with spaces (an Obsidian note's "Start here") is found from
// the name typed as an address, its spaces '-' (address.Repair's hint,
// Start-here).
func TestSuggestAliasWithSpaces(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "Home.md"), []byte("---\naliases: [Start here]\n---\n# Home\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	snap := refreshedSnapshot(t, root)
	got, err := Suggest(snap, address.Address{ID: "Start-here"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Home"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// A folder typed as an id suggests the page that stands for it first.
func TestSuggestFolderIndex(t *testing.T) {
	root := t.TempDir()
	writeTitled(t, root, "ops/README.md", "ops/alpha.md", "ops/zeta.md")
	snap := refreshedSnapshot(t, root)
	got, err := Suggest(snap, address.Address{ID: "ops"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ops/README", "ops/zeta"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Suggestions and completion read ids from the manifest through the body
// layers: a document a later refresh removed (a tombstone in a delta) is
// neither suggested nor completed, one it added is.
func TestSuggestAndCompleteAcrossLayers(t *testing.T) {
	root := t.TempDir()
	write := func(f string) {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# "+f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Enough documents that the change stays a delta above the base.
	for _, f := range []string{"ops/alpha.md", "ops/alpine.md", "ops/beta.md", "ops/gamma.md", "ops/delta.md", "ops/epsilon.md", "ops/zeta.md", "ops/eta.md", "ops/theta.md", "ops/iota.md"} {
		write(f)
	}
	ws := New(Config{Dir: t.TempDir(), Sources: []store.Source{{Path: root}}})
	t.Cleanup(func() { ws.Close() })
	ctx := context.Background()
	if _, err := ws.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "ops/alpine.md")); err != nil {
		t.Fatal(err)
	}
	write("ops/alps.md")
	if _, err := ws.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	snap := heldSnapshot(t, ws)
	if layers, err := filepath.Glob(filepath.Join(snap.Dir(), "gen", "2", "layer-*.bolt")); err != nil || len(layers) == 0 {
		t.Fatalf("generation 2 has no body layer below its own (%v): the test needs a delta", err)
	}
	got, err := Suggest(snap, address.Address{ID: "ops/alp"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ops/alps", "ops/alpha"}, got); diff != "" {
		t.Errorf("Suggest (-want +got):\n%s", diff)
	}
	if got, err = ws.Complete(ctx, "ops/al"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ops/alpha", "ops/alps"}, got); diff != "" {
		t.Errorf("Complete (-want +got):\n%s", diff)
	}
}

// TestComplete: ids, then slugs after a '#', ignoring case.
func TestComplete(t *testing.T) {
	ws := fixture(t)
	ctx := context.Background()
	tests := []struct {
		partial string
		want    []string
	}{
		{"runbooks/", []string{"runbooks/disk-full", "runbooks/retry-budget", "runbooks/windows-crlf"}},
		{"adr/0002", []string{"adr/0002-store-bodies-beside-the-index"}},
		{"runbooks/disk-full#", []string{"runbooks/disk-full#disk-full-on-a-storage-node", "runbooks/disk-full#diagnose", "runbooks/disk-full#mitigate", "runbooks/disk-full#escalate"}},
		{"runbooks/disk-full#Mi", []string{"runbooks/disk-full#mitigate"}},
		{"runbooks/nope#", nil},
		{"zzz", nil},
		// Case is ignored, and completions are written as the ids are.
		{"RUNBOOKS/D", []string{"runbooks/disk-full"}},
		{"Adr/0001", []string{"adr/0001-record-architecture-decisions"}},
		{"GUIDES/DÉ", []string{"guides/démarrage-rapide"}},
		{"guides/ПО", []string{"guides/поиск"}},
		{"Runbooks/Disk-Full#MIT", []string{"runbooks/disk-full#mitigate"}},
		{"", []string{"adr/0001-record-architecture-decisions", "adr/0002-store-bodies-beside-the-index", "guides/démarrage-rapide", "guides/поиск", "guides/检索", "runbooks/disk-full", "runbooks/retry-budget", "runbooks/windows-crlf"}},
	}
	for _, tt := range tests {
		got, err := ws.Complete(ctx, tt.partial)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Complete(%q) (-want +got):\n%s", tt.partial, diff)
		}
	}
}

// BenchmarkSuggest measures a miss's suggestions over the fixture corpus:
// one pass over the records, reading only ids and paths.
func BenchmarkSuggest(b *testing.B) {
	root, _ := filepath.Abs("../testdata/corpus")
	ws := New(Config{Dir: b.TempDir(), Sources: []store.Source{{Path: root}}})
	defer ws.Close()
	if _, err := ws.Refresh(context.Background()); err != nil {
		b.Fatal(err)
	}
	snap := heldSnapshot(b, ws)
	a := address.Address{ID: "runbooks/dsk-full"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Suggest(snap, a, 5); err != nil {
			b.Fatal(err)
		}
	}
}

// refreshedSnapshot indexes the folder root into a new workspace and holds
// its snapshot for the test.
func refreshedSnapshot(t *testing.T, root string) *store.Snapshot {
	t.Helper()
	ws := New(Config{Dir: t.TempDir(), Sources: []store.Source{{Path: root}}})
	t.Cleanup(func() { ws.Close() })
	if _, err := ws.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	return heldSnapshot(t, ws)
}

// suggestSections is SuggestSections(snap, typed as an address, 3).
func suggestSections(t *testing.T, snap *store.Snapshot, typed string) []string {
	t.Helper()
	a, err := address.Parse(typed)
	if err != nil {
		t.Fatal(err)
	}
	got, err := SuggestSections(snap, a, 3)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestSuggestAlias: a miss names first the documents whose front matter
// lists it among its aliases, in any case (its '-'s read as spaces too),
// with the heading typed kept;
// a name the query language cannot say as one value looks nothing up.
func TestSuggestAlias(t *testing.T) {
	ws, _ := indexedFiles(t, map[string]string{
		"security/two-factor-authentication.md": "---\naliases: [2FA, Two factor]\n---\n# Two-factor authentication\n\n## Setup\n",
		"2fb.md":                                "# Near\n",
	})
	snap := heldSnapshot(t, ws)
	for typed, want := range map[string][]string{
		"2FA":        {"security/two-factor-authentication"},
		"2fa#Setup":  {"security/two-factor-authentication#Setup", "2fb"}, // 2fb has no Setup
		"Two-factor": {"security/two-factor-authentication"},              // the alias "Two factor", typed as an address
		"2F*":        nil,
	} {
		got, err := Suggest(snap, address.MustParse(typed), 3)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Suggest(%q) (-want +got):\n%s", typed, diff)
		}
	}
}

// TestSuggestSectionHoldersFirst: a miss with a heading suggests first
// the documents that have the section, wherever they rank among the
// candidates, not only among the first n (the OpenTelemetry spec's
// api.md#isrecording suggested baggage/api, configuration/api, logs/api;
// only trace/api has it). Past the best maxSectionLookups candidates no
// record is read, so a section there is not found.
func TestSuggestSectionHoldersFirst(t *testing.T) {
	with := "# API\n\n## IsRecording\n\n## ForceFlush\n"
	files := map[string]string{
		"baggage/api.md":       "# API\n",
		"configuration/api.md": "# API\n",
		"logs/api.md":          "# API\n",
		"trace/api.md":         with,
		"configuration/sdk.md": "# SDK\n",
		"logs/sdk.md":          with,
		"metrics/sdk.md":       with,
		"trace/sdk.md":         with,
	}
	for i := range maxSectionLookups {
		files[fmt.Sprintf("x%02d/far.md", i)] = "# Far\n"
	}
	files["zz/far.md"] = with // the 33rd candidate for far
	ws, _ := indexedFiles(t, files)
	snap := heldSnapshot(t, ws)
	for typed, want := range map[string][]string{
		"api.md#isrecording": {"trace/api#isrecording", "baggage/api", "configuration/api"},
		"api#IsRecording":    {"trace/api#IsRecording", "baggage/api", "configuration/api"},
		"sdk#forceflush":     {"logs/sdk#forceflush", "metrics/sdk#forceflush", "trace/sdk#forceflush"},
		"api#no-such":        {"baggage/api", "configuration/api", "logs/api"},
		"far#forceflush":     {"x00/far", "x01/far", "x02/far"},
	} {
		got, err := Suggest(snap, address.MustParse(typed), 3)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Suggest(%q) (-want +got):\n%s", typed, diff)
		}
	}
}

// A heading that no section is named like suggests the sections whose
// own text says every word of it, the most often first, hyphenated or not
// (Node's stream page has no section named backpressure: its text says
// it in others).
func TestSuggestSectionsSaying(t *testing.T) {
	ws, _ := indexedFiles(t, map[string]string{"stream.md": "# Stream\n\n## Event: 'drain'\n\n" +
		"When write returns false the stream is under back-pressure: wait for drain.\n\n## Buffering\n\n" +
		"Writable streams buffer data. Backpressure builds when the buffer is full; backpressure again.\n\n" +
		"## Piping\n\nNothing of that here.\n"})
	snap := heldSnapshot(t, ws)
	for typed, want := range map[string][]string{
		"stream#backpressure":        {"stream#buffering", "stream#event-drain"},
		"stream#pressure-when-write": {"stream#event-drain"}, // every word: buffering says "backpressure", not "pressure"
		"stream#data-when-full":      {"stream#buffering"},
		"stream#zzzz":                nil,
	} {
		got := suggestSections(t, snap, typed)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("SuggestSections(%q) (-want +got):\n%s", typed, diff)
		}
	}
}

// TestSuggestHugoAlias: a page's old path, as a Hugo page lists it among
// its aliases (/memover/), pasted into get reaches Suggest with its
// slashes taken off (address.Repair: memover), and names the page first,
// as check resolves a link to it; below the site's base or a links.site
// URL's path too, as check reads a link's path. Before, only an alias
// spelt exactly as typed was found, so `get /memover/` had no hint.
func TestSuggestHugoAlias(t *testing.T) {
	long := "a/b/c/" + strings.Repeat("x", 500) // its forms are over query.MaxExprBytes
	files := map[string]string{
		"k/Mem.md":  "---\ntitle: Mem\naliases: [/memover/, /old/page]\n---\n# Mem\n",
		"memovr.md": "# Near\n", // one edit from memover: after the alias
		"long.md":   "---\naliases: [" + long + "]\n---\n# Long\n",
	}
	for _, tt := range []struct {
		name  string
		links store.LinkConfig
		typed map[string][]string
	}{
		{"root", store.LinkConfig{}, map[string][]string{
			"memover":      {"k/Mem", "memovr"},
			"MemOver#Mem":  {"k/Mem#Mem"}, // in any case, with the heading kept
			"old/page":     {"k/Mem"},
			"docs/memover": nil, // no base: docs is a folder of the path
		}},
		{"base", store.LinkConfig{Base: "/docs/"}, map[string][]string{
			"docs/memover":  {"k/Mem"},
			"docs/old/page": {"k/Mem"},
		}},
		{"site", store.LinkConfig{Site: []string{"https://example.org/docs/latest/"}}, map[string][]string{
			"docs/latest/memover": {"k/Mem"},
			"memover":             {"k/Mem", "memovr"},
		}},
		// Forms over the bound leave out the last, never the id as typed.
		{"long", store.LinkConfig{Base: "/a/", Site: []string{"https://example.org/a/b/", "https://example.org/a/b/c/"}}, map[string][]string{
			long: {"long"},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := linksServiceWith(t, files, tt.links)
			snap := heldSnapshot(t, ws)
			for typed, want := range tt.typed {
				got, err := Suggest(snap, address.MustParse(typed), 2)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("Suggest(%q) (-want +got):\n%s", typed, diff)
				}
			}
		})
	}
}
