package fulltext

import "testing"

// BenchmarkPairs makes the pair filters of every passage of
// $DOCIR_PASSAGES, as a refresh does beside indexing them (see
// BenchmarkAnalyze for what the index's own analysis costs).
func BenchmarkPairs(b *testing.B) {
	ps, size := loadPassages(b)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range ps {
			if _, err := Pairs(p.ID, []Passage{p}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
