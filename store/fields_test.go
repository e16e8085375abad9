package store

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/query"
)

// The field index of every generation lists exactly the live documents of
// each value, through random puts, replacements and deletes, several
// batches per generation (a record replaced within its own layer), delta
// merges and new bases; and every retained generation keeps its own. With
// small chunks, a layer's postings span several.
func TestFieldIndexMatchesModel(t *testing.T) {
	t.Run("chunks of 65536", testFieldIndexModel)
	t.Run("chunks of 8", func(t *testing.T) {
		chunk, batch := sealChunk, sealBatch
		sealChunk, sealBatch = 8, 4
		t.Cleanup(func() { sealChunk, sealBatch = chunk, batch })
		testFieldIndexModel(t)
	})
}

func testFieldIndexModel(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 9))
	values := []string{"red", "Green", "BLUE", "gReen"}
	cur := map[string]string{} // id -> its value
	var models []map[string]string
	const gens = 30
	for g := 1; g <= gens; g++ {
		var prev *Snapshot
		if s, err := Open(dir); err == nil {
			prev = s
		}
		p, err := Begin(dir, prev)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(p.FullTextPath(), 0o755); err != nil {
			t.Fatal(errors.Join(err, p.Abort()))
		}
		batches, n := 1+rng.IntN(3), 4
		if g == 1 || g%11 == 0 {
			n = 40
		}
		for range batches {
			var c Change
			for range n {
				id := fmt.Sprintf("doc/%02d", rng.IntN(50))
				if _, ok := cur[id]; ok && rng.IntN(4) == 0 {
					c.Delete = append(c.Delete, id)
					c.Put = slices.DeleteFunc(c.Put, func(p PutDoc) bool { return p.Record.ID == id })
					delete(cur, id)
					continue
				}
				v := values[rng.IntN(len(values))]
				c.Put = slices.DeleteFunc(c.Put, func(p PutDoc) bool { return p.Record.ID == id })
				c.Put = append(c.Put, PutDoc{Record: docir.Record{ID: id, Fields: map[string]any{"color": v, "shape": shapeOf(id)}}})
				c.Delete = slices.DeleteFunc(c.Delete, func(d string) bool { return d == id })
				cur[id] = v
			}
			if err := p.Apply(c); err != nil {
				t.Fatal(errors.Join(err, p.Abort()))
			}
		}
		if after, err := p.Publish(gens + 1); err != nil || after != nil {
			t.Fatal(errors.Join(err, after))
		}
		if prev != nil {
			prev.Close()
		}
		models = append(models, maps.Clone(cur))
		checkFieldIndex(t, dir, uint64(g), cur)
	}
	for i, m := range models {
		checkFieldIndex(t, dir, uint64(i+1), m)
	}
}

func checkFieldIndex(t *testing.T, dir string, gen uint64, m map[string]string) {
	t.Helper()
	s, err := OpenGeneration(dir, gen)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Exact values, globs (several values, ORed) and conjunctions, whole
	// and paged.
	for _, v := range []string{"red", "green", "blue", "purple", "g*", "*"} {
		for _, extra := range []string{"", " shape:round", " shape:r*"} {
			e, err := query.Parse("color:" + v + extra)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for id, w := range m {
				if e.Match(&docir.Record{ID: id, Fields: map[string]any{"color": w, "shape": shapeOf(id)}}) {
					want = append(want, id)
				}
			}
			slices.Sort(want)
			var terms [][][]byte
			for _, l := range e.Lookups() {
				terms = append(terms, l.Prefixes)
			}
			got, err := s.Match(terms)
			if err != nil {
				t.Fatal(err)
			}
			if got.Len() != len(want) {
				t.Fatalf("generation %d: %s: %d matches, want %d", gen, e, got.Len(), len(want))
			}
			ids, err := got.IDs(-1)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, ids, cmpEmpty); diff != "" {
				t.Fatalf("generation %d: %s (-want +got):\n%s", gen, e, diff)
			}
			for _, n := range []int{0, 1, 3, len(want)/2 + 1} {
				page, err := got.IDs(n)
				if err != nil || !slices.Equal(page, want[:min(n, len(want))]) {
					t.Fatalf("generation %d: %s: first %d: %q %v", gen, e, n, page, err)
				}
			}
		}
	}
}

// shapeOf is a second field, fixed per id, for conjunctions.
func shapeOf(id string) string {
	if id[len(id)-1]%3 == 0 {
		return "square"
	}
	return "round"
}

var cmpEmpty = cmp.Comparer(func(a, b []string) bool { return slices.Equal(a, b) })
