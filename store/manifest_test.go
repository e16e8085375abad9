package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gowebpki/jcs"

	"github.com/docir/docir/docir"
)

// publish builds the next generation of dir from c and publishes it,
// keeping retain generations.
func publish(t testing.TB, dir string, retain int, c Change) uint64 {
	t.Helper()
	var prev *Snapshot
	if s, err := Open(dir); err == nil {
		prev = s
		defer s.Close()
	}
	p, err := Begin(dir, prev)
	if err != nil {
		t.Fatal(err)
	}
	// An empty index folder: these tests need no bleve.
	if err := os.MkdirAll(p.FullTextPath(), 0o755); err != nil {
		t.Fatal(errors.Join(err, p.Abort()))
	}
	if err := p.Apply(c); err != nil {
		t.Fatal(errors.Join(err, p.Abort()))
	}
	if after, err := p.Publish(retain); err != nil || after != nil {
		t.Fatal(errors.Join(err, after))
	}
	return p.Generation()
}

// putFile is a change adding one document and its source file.
func putFile(root, prefix, rel, id, body string, mtime int64) Change {
	return Change{
		Put: []PutDoc{{Record: docir.Record{ID: id}, Body: []byte(body)}},
		Files: map[string]*FileEntry{FileKey(root, rel): {
			ID: id, Prefix: prefix, Size: int64(len(body)), ModTime: mtime, Digest: sha256.Sum256([]byte(body)),
		}},
	}
}

func open(t *testing.T, dir string, gen uint64) *Snapshot {
	t.Helper()
	s, err := OpenGeneration(dir, gen)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// The manifest's canonical form is pinned: its digest is what receipts
// carry, so a change here is a new ManifestSchema.
func TestManifestCanonicalForm(t *testing.T) {
	dir := t.TempDir()
	const mtime = 1733000000123456789 // past 2^53: kept exact as a string
	c := putFile("/src/a", "", "guide/intro.md", "guide/intro", "# Intro\n", mtime)
	c2 := putFile("/src/b", "team/", "x y.md", "team/x-y", "# X\n", 5)
	c.Put = append(c.Put, c2.Put...)
	for k, v := range c2.Files {
		c.Files[k] = v
	}
	gen := publish(t, dir, 3, c)
	s := open(t, dir, gen)

	got, err := s.CanonicalManifest()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"documents":{"guide/intro":{"mtime_ns":"1733000000123456789","path":"guide/intro.md","sha256":"` +
		hexSum([]byte("# Intro\n")) + `","size":8},"team/x-y":{"mtime_ns":"5","path":"team/x y.md","sha256":"` +
		hexSum([]byte("# X\n")) + `","size":4}},"schema":"docir.manifest.v1"}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Fatalf("canonical manifest (-want +got):\n%s", diff)
	}
	if again, err := jcs.Transform(got); err != nil || string(again) != string(got) {
		t.Fatalf("not a fixed point of RFC 8785: %v", err)
	}
	d, err := s.ManifestDigest()
	if err != nil {
		t.Fatal(err)
	}
	if d != hexSum(got) {
		t.Fatalf("digest %s, sha256 of the canonical form %s", d, hexSum(got))
	}
	if strings.Contains(string(got), "/src/") {
		t.Fatalf("manifest holds a machine path: %s", got)
	}
}

func TestManifestEntry(t *testing.T) {
	dir := t.TempDir()
	gen1 := publish(t, dir, 5, putFile("/src", "team", "a.md", "team/a", "one", 10))
	// The id moves to another file in one change; the old file leaves.
	c := putFile("/src", "team", "b.md", "team/a", "two!", 20)
	c.Files[FileKey("/src", "a.md")] = nil
	gen2 := publish(t, dir, 5, c)
	gen3 := publish(t, dir, 5, Change{Delete: []string{"team/a"}, Files: map[string]*FileEntry{FileKey("/src", "b.md"): nil}})

	tests := []struct {
		gen    uint64
		want   ManifestEntry
		wantOK bool
	}{
		{gen1, ManifestEntry{Root: "/src", Rel: "a.md", Path: "team/a.md", Size: 3, ModTime: 10, SHA256: hexSum([]byte("one"))}, true},
		{gen2, ManifestEntry{Root: "/src", Rel: "b.md", Path: "team/b.md", Size: 4, ModTime: 20, SHA256: hexSum([]byte("two!"))}, true},
		{gen3, ManifestEntry{}, false},
	}
	digests := map[string]bool{}
	for _, tt := range tests {
		s := open(t, dir, tt.gen)
		got, ok, err := s.ManifestEntry("team/a")
		if err != nil {
			t.Fatal(err)
		}
		if ok != tt.wantOK {
			t.Fatalf("gen %d: ok %v", tt.gen, ok)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("gen %d (-want +got):\n%s", tt.gen, diff)
		}
		if got.Abs() != filepath.Join(tt.want.Root, tt.want.Rel) {
			t.Errorf("gen %d: Abs %q", tt.gen, got.Abs())
		}
		d, err := s.ManifestDigest()
		if err != nil {
			t.Fatal(err)
		}
		digests[d] = true
		m, _ := s.CanonicalManifest()
		if d != hexSum(m) {
			t.Errorf("gen %d: recorded digest is not the manifest's", tt.gen)
		}
	}
	if len(digests) != 3 {
		t.Errorf("3 different manifests share digests: %v", digests)
	}
}

func TestIdentity(t *testing.T) {
	dir := t.TempDir()
	if _, err := Identity(dir); docir.CodeOf(err) != docir.CodeNoStore {
		t.Fatalf("empty folder: %v", err)
	}
	publish(t, dir, 3, putFile("/src", "", "a.md", "a", "x", 1))
	id, err := Identity(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !validIdentity(id) || strings.Contains(id, dir) {
		t.Fatalf("identity %q", id)
	}
	publish(t, dir, 3, putFile("/src", "", "b.md", "b", "y", 1))
	if again, _ := Identity(dir); again != id {
		t.Fatalf("identity changed with a generation: %q then %q", id, again)
	}
	other := t.TempDir()
	publish(t, other, 3, putFile("/src", "", "a.md", "a", "x", 1))
	if o, _ := Identity(other); o == id {
		t.Fatalf("two stores share the identity %q", id)
	}
	if err := os.WriteFile(filepath.Join(dir, identityFile), []byte("/home/me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Identity(dir); docir.CodeOf(err) != docir.CodeStoreFormat {
		t.Fatalf("bad identity file: %v", err)
	}
}

func TestRetainedAndPrune(t *testing.T) {
	dir := t.TempDir()
	gen1 := publish(t, dir, 3, putFile("/src", "", "a.md", "a", "v1", 1))
	held := open(t, dir, gen1)
	for i := range 4 {
		publish(t, dir, 3, putFile("/src", "", "a.md", "a", "v"+string(rune('2'+i)), 1))
	}
	got, err := Retained(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]uint64{1, 3, 4, 5}, got); diff != "" {
		t.Fatalf("retained (-want +got):\n%s", diff)
	}
	// A generation a reader holds is kept past retain; once let go, the
	// next publish prunes it.
	if _, body, ok, err := held.Lookup("a"); err != nil || !ok || string(body) != "v1" {
		t.Fatalf("held generation read %q %v %v", body, ok, err)
	}
	if got, _ := Retained(dir); !cmp.Equal([]uint64{1, 3, 4, 5}, got) {
		t.Fatalf("retained with generation 1 held: %v", got)
	}
	held.Close()
	publish(t, dir, 3, putFile("/src", "", "a.md", "a", "v6", 1))
	if _, err := OpenGeneration(dir, gen1); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a pruned generation opened: %v", err)
	}
	// A folder past CURRENT (a crash before the swap) is not retained,
	// and does not open.
	if err := os.MkdirAll(genPath(dir, 7), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, _ := Retained(dir); !cmp.Equal([]uint64{4, 5, 6}, got) {
		t.Fatalf("retained with a crashed build: %v", got)
	}
	if _, err := OpenGeneration(dir, 7); !errors.Is(err, ErrNotPublished) {
		t.Fatalf("generation 7, never published, opened: %v", err)
	}
}

// A store of an older format is refused with the advice to index again.
func TestOldFormatRefused(t *testing.T) {
	dir := t.TempDir()
	publish(t, dir, 3, putFile("/src", "", "a.md", "a", "x", 1))
	if err := os.WriteFile(filepath.Join(dir, currentFile), []byte(`{"format":2,"generation":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func() error{
		"Open":     func() error { _, err := Open(dir); return err },
		"Retained": func() error { _, err := Retained(dir); return err },
	} {
		err := f()
		if docir.CodeOf(err) != docir.CodeStoreFormat || !strings.Contains(err.Error(), "remove the folder and index again") {
			t.Errorf("%s on a format 2 store: %v", name, err)
		}
	}
}

// The manifest's own RFC 8785 writer agrees with jcs on ids and paths that
// sort or escape differently: quotes, backslashes, control characters,
// non-ASCII, characters past U+FFFF beside U+E000..U+FFFF.
func TestWriteCanonicalMatchesJCS(t *testing.T) {
	names := []string{
		"a", "b/c", `q"uote`, `back\slash`, "tab\there", "nl\nx", "bell\x07", "del\x7f",
		"ü", "日本", "\ue000", "\uffff", "😀", "😀a", "\U00010000", "a/😀", "a/\uff01",
		"</script>", "&amp", "\u2028", "x y",
	}
	var docs []manifestEntryJSON
	for i, n := range names {
		docs = append(docs, manifestEntryJSON{ID: n, Doc: manifestDoc{
			Path: "p/" + n + ".md", SHA256: hexSum([]byte(n)), Size: int64(i * 1000), ModTime: fmt.Sprint(int64(i) * -1e17),
		}})
	}
	slices.SortFunc(docs, func(a, b manifestEntryJSON) int { return strings.Compare(a.ID, b.ID) }) // bbolt's order
	want, err := canonicalSlow(slices.Clone(docs))
	if err != nil {
		t.Fatal(err)
	}
	got, err := writeCanonical(docs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Fatalf("writeCanonical differs from jcs (-jcs +ours):\n%s", diff)
	}
}

// The digest a publish records (manifestDigest, streamed into the hash) is
// the sha256 of the canonical manifest, and of what jcs makes of it: for
// ids and paths that escape or sort differently, with and without a
// prefix, on a base and on layers above it, and for a manifest with a
// character past U+FFFF or bytes that are not UTF-8 (the general writer's
// way).
func TestManifestDigestIsCanonical(t *testing.T) {
	plain := []string{
		"a", "b/c", `q"uote`, `back\slash`, "tab\there", "nl\nx", "bell\x07", "del\x7f",
		"ü", "日本", "\ue000", "\uffff", "</script>", "&amp", "\u2028", "x y",
	}
	for _, tc := range []struct {
		name  string
		names []string
	}{
		{"plain", plain},
		{"past U+FFFF", append(slices.Clone(plain), "😀", "a/😀", "\U00010000")},
		{"not UTF-8", append(slices.Clone(plain), "bad\xff")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var c Change
			c.Files = map[string]*FileEntry{}
			for i, n := range tc.names {
				prefix := []string{"", "team", "team/"}[i%3]
				one := putFile("/src", prefix, n+".md", n, "body of "+n, int64(i)*-1e17)
				c.Put = append(c.Put, one.Put...)
				maps.Copy(c.Files, one.Files)
			}
			gens := []uint64{publish(t, dir, 10, c)}
			// Layers above the base: a changed file, a removed one.
			gens = append(gens, publish(t, dir, 10, putFile("/src", "", "a.md", "a", "changed", 7)))
			gens = append(gens, publish(t, dir, 10, Change{Delete: []string{"x y"}, Files: map[string]*FileEntry{FileKey("/src", "x y.md"): nil}}))
			for _, g := range gens {
				s := open(t, dir, g)
				d, err := s.ManifestDigest()
				if err != nil {
					t.Fatal(err)
				}
				m, err := s.CanonicalManifest()
				if err != nil {
					t.Fatal(err)
				}
				if d != hexSum(m) {
					t.Errorf("generation %d: recorded digest %s, canonical manifest's %s", g, d, hexSum(m))
				}
				j, err := jcs.Transform(m)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(string(j), string(m)); diff != "" {
					t.Errorf("generation %d: the canonical manifest is not what jcs makes of it (-jcs +ours):\n%s", g, diff)
				}
			}
		})
	}
}

// HoldRefresh holds a refresh (Lock) off until it is released; holders
// share it.
func TestHoldRefresh(t *testing.T) {
	dir := t.TempDir()
	release, err := HoldRefresh(dir)
	if err != nil {
		t.Fatal(err)
	}
	release2, err := HoldRefresh(dir) // a second holder does not wait
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan Holder, 1)
	locked := make(chan func() error)
	go func() {
		unlock, err := Lock(dir, func(by Holder) { waited <- by })
		if err != nil {
			t.Error(err)
		}
		locked <- unlock
	}()
	// The refresh says it waits on reads, not on another refresh.
	if by := <-waited; by != HeldByReads {
		t.Fatalf("waits on %v, want %v", by, HeldByReads)
	}
	select {
	case <-locked:
		t.Fatal("a refresh took the lock while it was held")
	case <-time.After(20 * time.Millisecond):
	}
	if err := errors.Join(release(), release2()); err != nil {
		t.Fatal(err)
	}
	unlock := <-locked
	// A refresh that finds another refresh holding the lock says so.
	go func() {
		unlock, err := Lock(dir, func(by Holder) { waited <- by })
		if err != nil {
			t.Error(err)
		}
		locked <- unlock
	}()
	if by := <-waited; by != HeldByRefresh {
		t.Fatalf("waits on %v, want %v", by, HeldByRefresh)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if err := (<-locked)(); err != nil {
		t.Fatal(err)
	}
	if HeldByReads.String() != "a read that holds refreshes off (--require-current)" || HeldByRefresh.String() != "another refresh" {
		t.Errorf("holders read %q and %q", HeldByReads, HeldByRefresh)
	}
}
