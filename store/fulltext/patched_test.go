package fulltext

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/vellum/levenshtein"
)

// TestPatchedLevenshteinBuilders: docir links a patched vellum
// (store/patched/vellum) whose Levenshtein automaton builders build their
// tables on first use instead of in scorch's init. Fuzzy queries, which
// use them, must still find what they found before: edit distance 1 and 2,
// with transposition counted as one edit.
func TestPatchedLevenshteinBuilders(t *testing.T) {
	x, err := Create(filepath.Join(t.TempDir(), "fulltext"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Apply(nil, []Passage{
		{ID: "a#one", Text: "the scheduler places pods"},
		{ID: "b#two", Text: "an archive of tarballs"},
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		term      string
		fuzziness int
		want      string
	}{
		{"schedulre", 1, "a#one"}, // a transposition
		{"archivs", 1, "b#two"},
		{"arcive", 1, "b#two"},
		{"arcivs", 2, "b#two"},
		{"schedxxer", 2, "a#one"},
	} {
		fq := query.NewFuzzyQuery(tc.term)
		fq.SetField(FieldText)
		fq.SetFuzziness(tc.fuzziness)
		ms, _, err := x.search(context.Background(), fq, 10, 0)
		if err != nil {
			t.Fatalf("fuzzy %q~%d: %v", tc.term, tc.fuzziness, err)
		}
		if len(ms) != 1 || ms[0].ID != tc.want {
			t.Errorf("fuzzy %q~%d: got %v, want only %s", tc.term, tc.fuzziness, ms, tc.want)
		}
	}

	b, err := levenshtein.NewLevenshteinAutomatonBuilder(2, true)
	if err != nil {
		t.Fatal(err)
	}
	if b.MaxDistance() != 2 {
		t.Errorf("MaxDistance before first use = %d, want 2", b.MaxDistance())
	}
	if _, err := b.BuildDfa("docir", 2); err != nil {
		t.Errorf("BuildDfa on first use: %v", err)
	}
}
