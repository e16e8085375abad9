package fulltext

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/google/go-cmp/cmp"
)

// compatPassages is a small corpus with repeated, rare and shared words, so
// that tf-idf scores differ from passage to passage.
func compatPassages() []Passage {
	words := []string{"archive", "index", "search", "query", "segment", "scorch", "posting", "term", "field", "mapping"}
	var ps []Passage
	for i := range 120 {
		text := fmt.Sprintf("Passage %d about %s and %s.", i, words[i%len(words)], words[(i*7)%len(words)])
		for j := 0; j < i%5; j++ {
			text += " " + words[(i+j)%len(words)]
		}
		if i%13 == 0 {
			text += " strings.Contains kube-scheduler 检索命令"
		}
		ps = append(ps, Passage{ID: fmt.Sprintf("doc%03d#s%d", i/3, i%3), Text: text})
	}
	return ps
}

var compatQueries = []string{"archive", "index search", "scorch posting term", "strings.Contains", "检索", "mapping field query segment", "nothing-here"}

// bleveIndex builds the same index with bleve's top-level package, as
// docir did before it linked scorch directly.
func bleveIndex(t *testing.T, path string, ps []Passage, deletes []string) bleve.Index {
	t.Helper()
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	idx, err := bleve.NewUsing(path, m, bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := idx.NewBatch()
	for _, p := range ps {
		if err := b.Index(p.ID, passageDoc{Text: p.Text, Head: p.Head}); err != nil {
			t.Fatal(err)
		}
	}
	if err := idx.Batch(b); err != nil {
		t.Fatal(err)
	}
	b = idx.NewBatch()
	for _, id := range deletes {
		b.Delete(id)
	}
	if err := idx.Batch(b); err != nil {
		t.Fatal(err)
	}
	return idx
}

// retrieveAll is every passage q's retrieval finds (floor 0), best bound
// first, and its total.
func retrieveAll(t *testing.T, x *Index, q *Query) ([]Match, uint64) {
	t.Helper()
	rt, err := x.Retrieve(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	total, err := rt.Total()
	if err != nil {
		t.Fatal(err)
	}
	cands, err := rt.Candidates(0)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(cands, func(a, b Candidate) int { return cmpFloat(b.Bound, a.Bound) })
	out := make([]Match, len(cands))
	for i := range cands {
		id, err := rt.ID(&cands[i])
		if err != nil {
			t.Fatal(err)
		}
		out[i] = Match{ID: id, Score: cands[i].Bound}
	}
	return out, total
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func ids(ms []Match) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// bleveSearch is a disjunction of term queries, searched with bleve's
// top-level package: what docir's search was before it read postings
// itself.
func bleveSearch(t *testing.T, idx bleve.Index, terms []string, n, offset int) ([]Match, uint64) {
	t.Helper()
	var qs []query.Query
	for _, term := range terms {
		tq := bleve.NewTermQuery(term)
		tq.SetField(FieldText)
		qs = append(qs, tq)
	}
	req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(qs...), n, offset, false)
	res, err := idx.SearchInContext(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]Match, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = Match{ID: h.ID, Score: h.Score}
	}
	return out, res.Total
}

// TestBleveCompatible pins that the index is bleve's, on disk and in every
// posting: an index written by bleve's top-level package and one written
// here have the same meta file, and each, read here or searched by bleve,
// finds the same passages with the same totals, and for one word scores
// them alike (bleve's tf-idf up to its query norm).
func TestBleveCompatible(t *testing.T) {
	ctx := context.Background()
	ps := compatPassages()
	deletes := []string{ps[4].ID, ps[50].ID}
	dir := t.TempDir()

	ours, err := Create(filepath.Join(dir, "ours"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ours.Apply(nil, ps); err != nil {
		t.Fatal(err)
	}
	if err := ours.Apply(deletes, nil); err != nil {
		t.Fatal(err)
	}
	if err := ours.Close(); err != nil {
		t.Fatal(err)
	}
	theirs := bleveIndex(t, filepath.Join(dir, "theirs"), ps, deletes)
	if err := theirs.Close(); err != nil {
		t.Fatal(err)
	}
	metaOurs, err := os.ReadFile(filepath.Join(dir, "ours", metaFile))
	if err != nil {
		t.Fatal(err)
	}
	metaTheirs, err := os.ReadFile(filepath.Join(dir, "theirs", metaFile))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(metaTheirs), string(metaOurs)); diff != "" {
		t.Errorf("index_meta.json (-bleve +ours):\n%s", diff)
	}

	for _, name := range []string{"ours", "theirs"} {
		path := filepath.Join(dir, name)
		x, err := Open(path, true)
		if err != nil {
			t.Fatal(err)
		}
		bx, err := bleve.OpenUsing(path, map[string]any{"read_only": true})
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range compatQueries {
			compareWithBleve(t, ctx, name, text, x, bx)
		}
		if err := bx.Close(); err != nil {
			t.Fatal(err)
		}
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// The deleted passages are gone from both.
	x, err := Open(filepath.Join(dir, "ours"), true)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	got, _, err := x.Search(ctx, "passage", 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ps)-len(deletes) {
		t.Errorf("search passage: %d hits, want %d", len(got), len(ps)-len(deletes))
	}
	for _, m := range got {
		if m.ID == deletes[0] || m.ID == deletes[1] {
			t.Errorf("deleted passage %s found", m.ID)
		}
	}
}

// TestOpenRefuses pins the errors for a folder that is not a docir index.
func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, meta string
	}{
		{"no meta", ""},
		{"upsidedown", `{"storage":"boltdb","index_type":"upside_down"}`},
		{"not json", `{"storage":`},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.name)
		if err := os.MkdirAll(path, 0o700); err != nil {
			t.Fatal(err)
		}
		if tt.meta != "" {
			if err := os.WriteFile(filepath.Join(path, metaFile), []byte(tt.meta), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		x, err := Open(path, true)
		if err == nil {
			x.Close()
			t.Errorf("%s: opened", tt.name)
			continue
		}
		if want := path; !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q does not name %s", tt.name, err, want)
		}
	}
	if _, err := Create(filepath.Join(dir, "upsidedown")); err == nil {
		t.Error("Create over an existing index folder succeeded")
	}
}

// compareWithBleve: one query read here from index x finds what bleve
// finds in bx, with the same total, and for one word in bleve's order.
func compareWithBleve(t *testing.T, ctx context.Context, name, text string, x *Index, bx bleve.Index) {
	t.Helper()
	q, err := x.Prepare(ctx, text)
	if err != nil {
		t.Fatal(err)
	}
	got, gotTotal := retrieveAll(t, x, q)
	if len(q.terms) == 0 {
		if len(got) != 0 || gotTotal != 0 {
			t.Errorf("%s %q: no terms, got %v %d", name, text, got, gotTotal)
		}
		return
	}
	want, wantTotal := bleveSearch(t, bx, q.terms, 1000, 0)
	// The same passages; for one word, in bleve's order (its
	// tf-idf is the words' part of docir's score, up to bleve's
	// query norm, a constant of the query).
	if len(q.terms) > 1 {
		slices.SortFunc(want, func(a, b Match) int { return strings.Compare(a.ID, b.ID) })
		slices.SortFunc(got, func(a, b Match) int { return strings.Compare(a.ID, b.ID) })
	}
	if diff := cmp.Diff(ids(want), ids(got)); diff != "" {
		t.Errorf("%s %q (-bleve +ours):\n%s", name, text, diff)
	}
	if len(q.terms) == 1 && len(got) > 0 {
		norm := want[0].Score / got[0].Score
		for i := range got {
			if math.Abs(got[i].Score*norm-want[i].Score) > 1e-6*want[i].Score { // bleve keeps 1/√length as a float32
				t.Errorf("%s %q: passage %s scores %v, bleve %v (norm %v)", name, text, got[i].ID, got[i].Score, want[i].Score, norm)
			}
		}
	}
	if gotTotal != wantTotal {
		t.Errorf("%s %q: total %d, bleve %d", name, text, gotTotal, wantTotal)
	}
	if text == "archive" && (len(got) == 0 || gotTotal == 0) {
		t.Errorf("%s %q: nothing found", name, text)
	}
}
