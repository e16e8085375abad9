package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/store"
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
	if err := writeFolderState(dir, 7, sources, folders); err != nil {
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
	if diff := cmp.Diff(folderHead{Generation: 7, Sources: sources}, head); diff != "" {
		t.Errorf("head (-wrote +read):\n%s", diff)
	}
}

// A damaged folder state is not an error and never a panic: Stale takes
// the sources for changed.
func FuzzReadFolderState(f *testing.F) {
	f.Add([]byte(folderStateMagic + "\ngeneration 1\n5 abc \"/x\"\n"))
	f.Add([]byte(folderStateMagic + "\ngeneration 3\nsource \"/x\" \"p\"\nsource \"/y\\n\" \"\"\n5 abc \"/x/a b\"\n"))
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
		if err := writeFolderState(dir, head.Generation, head.Sources, folders); err != nil {
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

// Stale reads a folder state in parts, one per goroutine: the parts are
// whole lines and together the whole.
func TestSplitLines(t *testing.T) {
	for _, in := range []string{"", "a\n", "a\nb\n", "a\nbb\nccc\ndddd\ne\n", "no newline", "a\nb", strings.Repeat("line\n", 1000)} {
		for n := 1; n <= 5; n++ {
			parts := splitLines([]byte(in), n)
			if len(parts) > n {
				t.Errorf("%q in %d: %d parts", in, n, len(parts))
			}
			var whole []byte
			for i, p := range parts {
				if len(p) == 0 || (i < len(parts)-1 && p[len(p)-1] != '\n') {
					t.Errorf("%q in %d: part %d is %q", in, n, i, p)
				}
				whole = append(whole, p...)
			}
			if string(whole) != in {
				t.Errorf("%q in %d: parts give %q", in, n, whole)
			}
		}
	}
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
		if stale, err := Stale(dir, sources); err != nil || stale {
			t.Fatalf("right after a refresh: stale %v, %v", stale, err)
		}
		if err := os.WriteFile(filepath.Join(real, add), []byte("# y\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if stale, err := Stale(dir, sources); err != nil || !stale {
			t.Errorf("after adding %s: stale %v, %v", add, stale, err)
		}
	}
}
