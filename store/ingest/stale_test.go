package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/store"
	"github.com/docir/docir/store/passage"
)

// The folder state round-trips every path a folder can have: spaces,
// quotes, a newline, bytes that are not UTF-8.
func TestFolderStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	folders := map[string]folderEntry{
		"/src":                          {ModTime: 1, Names: "aa"},
		"/src/with space":               {ModTime: -2, Names: "bb"},
		"/src/q\"uote\\back":            {ModTime: 3, Names: "cc"},
		"/src/new\nline":                {ModTime: 4, Names: "dd"},
		"/src/bad\xffbyte/日本":           {ModTime: 5, Names: "ee"},
		"/src/" + string(rune(0)) + "x": {ModTime: 6, Names: "ff"},
	}
	sources := []store.Source{{Path: "/src", Prefix: "team"}}
	if err := os.WriteFile(filepath.Join(dir, legacyFolderStateFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeFolderState(dir, 7, "abc123", sources, folders); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, legacyFolderStateFile)); !os.IsNotExist(err) {
		t.Errorf("the legacy folders.json is still there (%v)", err)
	}
	head, paths, entries, ok, err := readFolderState(dir)
	if err != nil || !ok {
		t.Fatalf("read: ok %v, %v", ok, err)
	}
	if diff := cmp.Diff(folders, byPath(paths, entries)); diff != "" {
		t.Errorf("folders (-wrote +read):\n%s", diff)
	}
	if diff := cmp.Diff(folderHead{Generation: 7, Settings: "abc123", Sources: sources}, head); diff != "" {
		t.Errorf("head (-wrote +read):\n%s", diff)
	}
}

// A damaged folder state is not an error and never a panic: Stale takes
// the sources for changed.
func FuzzReadFolderState(f *testing.F) {
	f.Add([]byte(folderStateMagic + "\ngeneration 1\nsettings 0a1b\n5 abc \"/x\"\n"))
	f.Add([]byte(folderStateMagic + "\ngeneration 3\nsettings 0a1b\nsource \"/x\" \"p\"\nsource \"/y\\n\" \"\"\n5 abc \"/x/a b\"\n"))
	f.Add([]byte(folderStateMagic + "\ngeneration 3\nsettings \nsource \"/x\" \"p\"\n"))
	f.Add([]byte(folderStateMagicV2 + "\ngeneration 1\n5 abc \"/x\"\n"))
	f.Add([]byte(folderStateMagic + "\ngeneration 1\nsource \"/x\"\n5 abc /x\n"))
	f.Add([]byte("docir folders 1\n{\"generation\":1,\"sources\":[]}\n5 abc \"/x\"\n"))
	f.Add([]byte(folderStateMagic + "\ngeneration 18446744073709551616\n"))
	f.Add([]byte(folderStateMagic + "\ngeneration 1\n-9 \"/x\"\n1 a \"\\xff\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, folderStateFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		head, paths, entries, ok, err := readFolderState(dir)
		if err != nil {
			t.Fatalf("an error for a readable file: %v", err)
		}
		if !ok {
			return
		}
		if len(paths) != len(entries) {
			t.Fatalf("%d paths, %d entries", len(paths), len(entries))
		}
		// What was read writes back to a state that reads the same.
		folders := byPath(paths, entries)
		if len(folders) != len(paths) {
			return // a path listed twice: the map keeps one
		}
		settings := head.Settings
		if settings == "" {
			settings = "0" // a second-form state is rewritten in the third
		}
		if err := writeFolderState(dir, head.Generation, settings, head.Sources, folders); err != nil {
			t.Fatal(err)
		}
		_, paths2, entries2, ok2, err := readFolderState(dir)
		if err != nil || !ok2 {
			t.Fatalf("rewritten state unreadable: ok %v, %v", ok2, err)
		}
		if diff := cmp.Diff(folders, byPath(paths2, entries2)); diff != "" {
			t.Fatalf("rewritten state differs (-first +second):\n%s", diff)
		}
	})
}

// readFolderState reads the whole folder state as Stale sees it, every
// string copied out of the mapping; ok is false when Stale would take any
// of it for changed (a missing or foreign file, a damaged line).
func readFolderState(dir string) (head folderHead, paths []string, entries []folderEntry, ok bool, err error) {
	st, ok, err := openFolderState(dir)
	if err != nil || !ok {
		return head, nil, nil, false, err
	}
	defer st.close()
	ok = true
	eachFolderLine(st.folders, func(l []byte) bool {
		p, e, lok := parseFolderLine(l)
		if !lok {
			ok = false
			return false
		}
		paths = append(paths, strings.Clone(p))
		entries = append(entries, folderEntry{ModTime: e.ModTime, Names: strings.Clone(e.Names)})
		return true
	})
	if !ok {
		return folderHead{}, nil, nil, false, nil
	}
	return st.head, paths, entries, true, nil
}

// byPath is a folder state's folders by path.
func byPath(paths []string, entries []folderEntry) map[string]folderEntry {
	m := make(map[string]folderEntry, len(paths))
	for i, p := range paths {
		m[p] = entries[i]
	}
	return m
}

// Stale stats each folder relative to its source root: a root that is a
// symbolic link, its own folder and a nested one are all seen.
func TestStaleThroughLinkedRoot(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	for _, d := range []string{real, filepath.Join(real, "a", "b")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"top.md", "a/b/deep.md"} {
		if err := os.WriteFile(filepath.Join(real, f), []byte("# x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	sources := []store.Source{{Path: link}}
	dir := filepath.Join(base, "store")
	for _, add := range []string{"new-top.md", "a/b/new-deep.md"} {
		if _, err := Refresh(t.Context(), dir, sources, Options{}); err != nil {
			t.Fatal(err)
		}
		if stale, err := staleSources(dir, sources); err != nil || stale {
			t.Fatalf("right after a refresh: stale %v, %v", stale, err)
		}
		if err := os.WriteFile(filepath.Join(real, add), []byte("# y\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if stale, err := staleSources(dir, sources); err != nil || !stale {
			t.Errorf("after adding %s: stale %v, %v", add, stale, err)
		}
	}
}

// staleSources is Stale's Sources, with the settings of a refresh with
// Options{} (which the tests' refreshes use): their Settings must be
// false.
func staleSources(dir string, sources []store.Source) (bool, error) {
	st, err := Stale(dir, sources, Options{})
	if err == nil && st.Settings {
		return st.Sources, fmt.Errorf("Stale says the settings changed: %+v", st)
	}
	return st.Sources, err
}

// TestStaleSettings: a read learns from Stale (and status from Diff) that
// docir.yaml's index settings changed since the last refresh (the index still has the old
// ones), whichever of them changed; settings that change no index
// (retain) are not taken for a change; the refresh with the new settings
// makes Stale quiet again; and a folder state of the second form (before
// settings were recorded) says nothing of them.
func TestStaleSettings(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "---\ntitle: A\n---\n# A\n\nSee [b](b.md).\n")
	writeFile(t, src, "b.md", "# B\n")
	srcs := []store.Source{{Path: src}}
	base := Options{Links: store.LinkConfig{Base: "/docs/"}, Exclude: []string{"drafts/"}}
	if _, err := Refresh(t.Context(), dir, srcs, base); err != nil {
		t.Fatal(err)
	}
	check := func(what string, opt Options, want bool) {
		t.Helper()
		st, err := Stale(dir, srcs, opt)
		if err != nil || st.Sources || st.Settings != want {
			t.Errorf("%s: Stale %+v, %v; want settings changed %v", what, st, err, want)
		}
		c, err := Diff(t.Context(), dir, srcs, opt)
		if err != nil || c.SettingsChanged != want {
			t.Errorf("%s: Diff's settings changed %v, %v; want %v", what, c.SettingsChanged, err, want)
		}
	}
	check("the same settings", base, false)
	check("the same settings, defaults written out", Options{Links: base.Links, Exclude: base.Exclude, MaxFileBytes: DefaultMaxFileBytes, FrontMatter: passage.DefaultFrontMatter}, false)
	changed := map[string]func(o *Options){
		"front_matter":              func(o *Options) { o.FrontMatter = []string{"title", "tags"} },
		"max_file_bytes":            func(o *Options) { o.MaxFileBytes = 1 << 10 },
		"links.base":                func(o *Options) { o.Links.Base = "/" },
		"links.ignore":              func(o *Options) { o.Links.Ignore = []string{"g"} },
		"links.ignore_case":         func(o *Options) { o.Links.IgnoreCase = true },
		"links.definition_ids":      func(o *Options) { o.Links.DefinitionIDs = true },
		"links.root_fallback":       func(o *Options) { o.Links.RootFallback = true },
		"links.mkdocs_anchors":      func(o *Options) { o.Links.MkDocsAnchors = true },
		"links.directory_urls":      func(o *Options) { o.Links.DirectoryURLs = true },
		"links.vitepress_anchors":   func(o *Options) { o.Links.VitePressAnchors = true },
		"links.hugo_aliases":        func(o *Options) { o.Links.HugoAliases = true },
		"links.blackfriday_anchors": func(o *Options) { o.Links.BlackfridayAnchors = true },
		"links.mdn_anchors":         func(o *Options) { o.Links.MDNAnchors = true },
		"links.number_prefixes":     func(o *Options) { o.Links.NumberPrefixes = true },
		"links.wikilinks":           func(o *Options) { o.Links.Wikilinks = true },
		"exclude":                   func(o *Options) { o.Exclude = nil },
		"a source's exclude":        func(o *Options) { o.SourceExclude = map[string][]string{src: {"x/"}} },
		"no .gitignore":             func(o *Options) { o.NoGitignore = true },
		"parse budget":              func(o *Options) { o.MaxHeadings = 3 },
	}
	for what, change := range changed {
		opt := base
		opt.Links.Ignore = slices.Clone(base.Links.Ignore)
		change(&opt)
		check(what, opt, true)
	}
	unchanged := base
	unchanged.Retain, unchanged.Force = 9, true
	check("retain and force", unchanged, false)

	next := base
	next.Links.IgnoreCase = true
	if _, err := Refresh(t.Context(), dir, srcs, next); err != nil {
		t.Fatal(err)
	}
	check("after a refresh with the new settings", next, false)
	check("the old settings, after that refresh", base, true)

	// A state of the second form: its settings are not known.
	name := filepath.Join(dir, folderStateFile)
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(b), "\n", 4)
	if lines[0] != folderStateMagic || !strings.HasPrefix(lines[2], "settings ") {
		t.Fatalf("the state's head is %q", lines[:3])
	}
	v2 := folderStateMagicV2 + "\n" + lines[1] + "\n" + lines[3]
	if err := os.WriteFile(name, []byte(v2), 0o644); err != nil {
		t.Fatal(err)
	}
	check("a second-form state, other settings", base, false)
}

// byRecency: the folder whose subtree changed last first, a folder before
// the folders below it, then by path.
func TestByRecency(t *testing.T) {
	folders := map[string]folderEntry{
		"/s":           {ModTime: 1},
		"/s/old":       {ModTime: 2},
		"/s/notes":     {ModTime: 3},
		"/s/notes/dec": {ModTime: 9},
		"/s/notes/nov": {ModTime: 5},
		"/s/other":     {ModTime: 5},
	}
	want := []string{"/s", "/s/notes", "/s/notes/dec", "/s/notes/nov", "/s/other", "/s/old"}
	if got := byRecency(folders); !slices.Equal(got, want) {
		t.Errorf("byRecency = %q, want %q", got, want)
	}
	// A folder the walk did not record (mtime 0) between two it did.
	gap := map[string]folderEntry{"/s": {ModTime: 1}, "/s/a/b": {ModTime: 9}, "/s/c": {ModTime: 5}}
	if got, want := byRecency(gap), []string{"/s", "/s/a/b", "/s/c"}; !slices.Equal(got, want) {
		t.Errorf("byRecency with a folder not recorded = %q, want %q", got, want)
	}
}

// A read's check stats the StaleFolders folders that changed last, with
// the folders above them: a change there is seen, one in a folder past
// them is not (Diff sees it).
func TestStaleChecksTheRecentFolders(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	base := time.Now().Add(-time.Hour)
	n := StaleFolders + 10
	for i := range n {
		f := fmt.Sprintf("d%03d", i)
		writeFile(t, src, f+"/a.md", "# A\n")
		// Folder i changed at base+i: the first ten changed first.
		at := base.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(filepath.Join(src, f), at, at); err != nil {
			t.Fatal(err)
		}
	}
	srcs := []store.Source{{Path: src}}
	refresh(t, dir, srcs...)
	if stale, err := staleSources(dir, srcs); err != nil || stale {
		t.Fatalf("Stale after a refresh = %v, %v", stale, err)
	}
	// In a folder past the bound: not seen by a read, seen by Diff.
	writeFile(t, src, "d000/new.md", "# New\n")
	if stale, err := staleSources(dir, srcs); err != nil || stale {
		t.Errorf("Stale after a file added to the folder that changed first = %v, %v; want false (past the bound)", stale, err)
	}
	if c, err := Diff(context.Background(), dir, srcs, Options{}); err != nil || len(c.Added) != 1 {
		t.Errorf("Diff after a file added to the folder that changed first: added %q, %v", c.Added, err)
	}
	refresh(t, dir, srcs...)
	// d000 changed last now: a change in it is seen, and so is a new
	// folder beside the folders that changed last (in the root above them).
	writeFile(t, src, "d000/newer.md", "# Newer\n")
	if stale, err := staleSources(dir, srcs); err != nil || !stale {
		t.Errorf("Stale after a file added to the folder that changed last = %v, %v; want true", stale, err)
	}
	refresh(t, dir, srcs...)
	writeFile(t, src, "fresh/a.md", "# Fresh\n")
	if stale, err := staleSources(dir, srcs); err != nil || !stale {
		t.Errorf("Stale after a new folder in the root = %v, %v; want true", stale, err)
	}
}
