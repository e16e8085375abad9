package store

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"

	"github.com/docir/docir/docir"
)

// model is what one generation should hold.
type model struct {
	bodies map[string]string    // id -> body
	pairs  map[string]string    // id -> its pair filters, when it has any
	files  map[string]FileEntry // file key -> entry
}

func (m model) clone() model {
	return model{bodies: maps.Clone(m.bodies), pairs: maps.Clone(m.pairs), files: maps.Clone(m.files)}
}

// check compares generation gen of dir with m through every read.
func (m model) check(t *testing.T, dir string, gen uint64) {
	t.Helper()
	s, err := OpenGeneration(dir, gen)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ids []string
	if err := s.Records(func(r docir.Record) error { ids = append(ids, r.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(slices.Sorted(maps.Keys(m.bodies)), ids); diff != "" {
		t.Fatalf("generation %d: records (-want +got):\n%s", gen, diff)
	}
	var raw int
	if err := s.RecordsJSON(func([]byte) error { raw++; return nil }); err != nil || raw != len(ids) {
		t.Fatalf("generation %d: RecordsJSON saw %d: %v", gen, raw, err)
	}
	if n, err := s.Count(); err != nil || n != len(m.bodies) {
		t.Fatalf("generation %d: count %d, want %d (%v)", gen, n, len(m.bodies), err)
	}
	for id, body := range m.bodies {
		_, got, ok, err := s.Lookup(id)
		if err != nil || !ok || string(got) != body {
			t.Fatalf("generation %d: %s reads %q %v %v, want %q", gen, id, got, ok, err, body)
		}
		checkSpans(t, s, gen, id, body, m.pairs[id])
	}
	if _, _, ok, _ := s.Lookup("gone"); ok {
		t.Fatalf("generation %d: a document never written", gen)
	}
	// The model's other ids were never written or were deleted (a
	// tombstone in a layer above the document's).
	asked := slices.Clone(ids)
	for i := range 60 {
		id := fmt.Sprintf("doc/%02d", i)
		if _, ok := m.bodies[id]; ok {
			continue
		}
		asked = append(asked, id)
		if _, _, ok, err := s.Lookup(id); ok || err != nil {
			t.Fatalf("generation %d: %s reads %v %v, want no document", gen, id, ok, err)
		}
		if _, ok, err := s.Record(id); ok || err != nil {
			t.Fatalf("generation %d: record %s reads %v %v, want no document", gen, id, ok, err)
		}
	}
	// RecordsJSONOf reads a short list by pread and a long one through the
	// map: both must see every document and nothing else.
	for i := range pointReadsMost + 6 {
		asked = append(asked, fmt.Sprintf("gone-%d", i))
	}
	slices.Sort(asked)
	var long, short []string
	if err := s.RecordsJSONOf(asked, func(id string, _ []byte) error { long = append(long, id); return nil }); err != nil {
		t.Fatal(err)
	}
	for part := range slices.Chunk(asked, 10) {
		if err := s.RecordsJSONOf(part, func(id string, _ []byte) error { short = append(short, id); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(long, ids) || !slices.Equal(short, ids) {
		t.Fatalf("generation %d: RecordsJSONOf saw %d ids in one list and %d in short ones, want %d", gen, len(long), len(short), len(ids))
	}
	files, err := s.Files()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m.files, files); diff != "" {
		t.Fatalf("generation %d: files (-want +got):\n%s", gen, diff)
	}
	for k, e := range m.files {
		got, ok, err := s.ManifestEntry(e.ID)
		root, rel, _ := splitFileKey([]byte(k))
		if err != nil || !ok || got.Root != root || got.Rel != rel || got.Size != e.Size {
			t.Fatalf("generation %d: manifest entry of %s: %+v %v %v", gen, e.ID, got, ok, err)
		}
	}
	d, err := s.ManifestDigest()
	if err != nil {
		t.Fatal(err)
	}
	if cm, err := s.CanonicalManifest(); err != nil || hexSum(cm) != d {
		t.Fatalf("generation %d: manifest digest %s is not its manifest's (%v)", gen, d, err)
	}
	if len(s.layers) > maxDeltas+1 {
		t.Fatalf("generation %d: %d layers", gen, len(s.layers))
	}
}

// Generations built as layers read exactly like whole copies would, every
// one of them, after any number of later refreshes: random puts, deletes,
// and ids moving between files, through deltas, delta merges and new
// bases.
func TestLayersMatchModel(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	cur := model{bodies: map[string]string{}, pairs: map[string]string{}, files: map[string]FileEntry{}}
	where := map[string]string{} // id -> its file key
	var models []model
	const gens = 40
	for g := 1; g <= gens; g++ {
		c := Change{Files: map[string]*FileEntry{}}
		n := 3
		if g == 1 {
			n = 60
		} else if g%13 == 0 {
			n = 50 // a big change: the deltas outweigh the base
		}
		for range n {
			id := fmt.Sprintf("doc/%02d", rng.IntN(60))
			switch op := rng.IntN(5); {
			case op == 0 && cur.bodies[id] != "": // delete
				c.Delete = append(c.Delete, id)
				c.Put = slices.DeleteFunc(c.Put, func(p PutDoc) bool { return p.Record.ID == id })
				c.Files[where[id]] = nil
				delete(cur.bodies, id)
				delete(cur.pairs, id)
				delete(cur.files, where[id])
				delete(where, id)
			default: // put, sometimes moving the id to its other file
				body := fmt.Sprintf("%s at %d: %x", id, g, rng.Uint64())
				key := FileKey("/src", id+".md")
				if old, ok := where[id]; ok && op == 1 {
					c.Files[old] = nil
					delete(cur.files, old)
					if old == key {
						key = FileKey("/src", id+"-moved.md")
					}
				} else if ok {
					key = old
				}
				e := FileEntry{ID: id, Size: int64(len(body)), ModTime: int64(g), Digest: sha256.Sum256([]byte(body))}
				c.Files[key] = &e
				c.Put = slices.DeleteFunc(c.Put, func(p PutDoc) bool { return p.Record.ID == id })
				// Pair filters, or none (a document stored again without
				// them must not read its old ones).
				var pairs []byte
				delete(cur.pairs, id)
				if rng.IntN(3) > 0 {
					pairs = []byte("pairs of " + body)
					cur.pairs[id] = string(pairs)
				}
				c.Put = append(c.Put, PutDoc{Record: docir.Record{ID: id}, Body: []byte(body), Pairs: pairs})
				c.Delete = slices.DeleteFunc(c.Delete, func(d string) bool { return d == id })
				cur.bodies[id] = body
				cur.files[key] = e
				where[id] = key
			}
		}
		publish(t, dir, gens+1, c)
		models = append(models, cur.clone())
		cur.check(t, dir, uint64(g))
	}
	// Every retained generation still reads as it was published.
	for i, m := range models {
		m.check(t, dir, uint64(i+1))
	}
}

// A refresh writes only its change: the layers below are the previous
// generation's files, hard-linked.
func TestLayersShared(t *testing.T) {
	dir := t.TempDir()
	c := Change{Files: map[string]*FileEntry{}}
	for i := range 200 {
		id := fmt.Sprintf("d%03d", i)
		c.Put = append(c.Put, PutDoc{Record: docir.Record{ID: id}, Body: make([]byte, 4096)})
	}
	publish(t, dir, 5, c)
	publish(t, dir, 5, putFile("/src", "", "x.md", "x", "small change", 1))
	a, err := os.Stat(filepath.Join(genPath(dir, 1), bodyFile))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.Stat(filepath.Join(genPath(dir, 2), layerName(1)))
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(a, b) {
		t.Fatal("generation 2 copied generation 1's layer instead of linking it")
	}
	top, err := os.Stat(filepath.Join(genPath(dir, 2), bodyFile))
	if err != nil {
		t.Fatal(err)
	}
	if top.Size() >= a.Size()/4 {
		t.Fatalf("a one-document change wrote a layer of %d bytes over a base of %d", top.Size(), a.Size())
	}
}

// BenchmarkOpenLookup is a cold deep read — open a generation, read one
// document, close — on a base alone and under the most deltas a chain
// keeps (maxDeltas).
func BenchmarkOpenLookup(b *testing.B) {
	for _, deltas := range []int{0, maxDeltas} {
		b.Run(fmt.Sprintf("deltas=%d", deltas), func(b *testing.B) {
			dir := b.TempDir()
			c := Change{}
			for i := range 5000 {
				c.Put = append(c.Put, PutDoc{Record: docir.Record{ID: fmt.Sprintf("d%05d", i)}, Body: make([]byte, 500)})
			}
			publish(b, dir, 20, c)
			for i := range deltas {
				publish(b, dir, 20, putFile("/src", "", fmt.Sprintf("x%d.md", i), fmt.Sprintf("d%05d", i*100), "changed", 1))
			}
			gen := uint64(deltas + 1)
			b.ReportAllocs()
			for b.Loop() {
				s, err := OpenGeneration(dir, gen)
				if err != nil {
					b.Fatal(err)
				}
				if _, _, ok, err := s.Lookup("d04321"); err != nil || !ok {
					b.Fatal(ok, err)
				}
				s.Close()
			}
		})
	}
}

// checkSpans: the spans of a document's body, as a ranking reads them
// (Snapshot.LookupSpans), are the body's bytes, clipped to it, and its
// pair filters are the ones it was stored with.
func checkSpans(t *testing.T, s *Snapshot, gen uint64, id, body, pairs string) {
	t.Helper()
	doc, ok, err := s.LookupSpans(id)
	if err != nil || !ok {
		t.Fatalf("generation %d: LookupSpans(%s): %v %v", gen, id, ok, err)
	}
	if got, err := doc.Pairs(); err != nil || string(got) != pairs || (got == nil) != (pairs == "") {
		t.Fatalf("generation %d: %s has pair filters %q (%v), want %q", gen, id, got, err, pairs)
	}
	n := len(body)
	for _, sp := range [][2]int{{0, -1}, {0, n}, {1, 3}, {n / 2, n + 5}, {n + 1, n + 2}, {3, 1}} {
		to := sp[1]
		if to < 0 || to > n {
			to = n
		}
		from := min(max(sp[0], 0), to)
		got, err := doc.Body(sp[0], sp[1])
		if err != nil || string(got) != body[from:to] {
			t.Fatalf("generation %d: %s span %v reads %q %v, want %q", gen, id, sp, got, err, body[from:to])
		}
	}
}

// A body layer written before pair filters has no "pairs" bucket: its
// documents read with none, and a layer written over it keeps its own.
func TestLayerWithoutPairs(t *testing.T) {
	dir := t.TempDir()
	c := Change{}
	for _, id := range []string{"a", "b"} {
		c.Put = append(c.Put, PutDoc{Record: docir.Record{ID: id}, Body: []byte(id + " body"), Pairs: []byte("pairs of " + id)})
	}
	publish(t, dir, 5, c)
	// As a build before filters wrote it.
	db, err := bolt.Open(filepath.Join(genPath(dir, 1), bodyFile), 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketPairs) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	publish(t, dir, 5, Change{Put: []PutDoc{{Record: docir.Record{ID: "b"}, Body: []byte("b again"), Pairs: []byte("new pairs of b")}}})
	s, err := OpenGeneration(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for id, want := range map[string]string{"a": "", "b": "new pairs of b"} {
		checkSpans(t, s, 2, id, map[string]string{"a": "a body", "b": "b again"}[id], want)
	}
}
