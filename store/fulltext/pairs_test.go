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

// TestPairsEncoding: a document's filters are found by their passage's
// key, and an encoding of another version, or bytes that are not one,
// hold none.
func TestPairsEncoding(t *testing.T) {
	enc, err := Pairs("doc", []Passage{{ID: "doc", Text: "the lead text"}, {ID: "doc#", Text: "Title"}, {ID: "doc#a-b", Text: "front matter dates"}})
	if err != nil {
		t.Fatal(err)
	}
	f, ok := findPairs(enc, "#a-b")
	if !ok || !f.has(pairHash(termHash("front"), termHash("matter"))) || f.has(pairHash(termHash("matter"), termHash("front"))) && f.has(pairHash(termHash("dates"), termHash("front"))) {
		t.Errorf("#a-b: %x %v", f, ok)
	}
	if f, ok := findPairs(enc, "#"); !ok || len(f) != 0 {
		t.Errorf("a one-word passage has the filter %x (%v), want an empty one", f, ok)
	}
	if _, ok := findPairs(enc, "#b"); ok {
		t.Error("a passage never written has a filter")
	}
	other := append([]byte{pairsVersion + 1}, enc[1:]...)
	if _, ok := findPairs(other, "#a-b"); ok {
		t.Error("a filter of another version is read")
	}
	if _, err := Pairs("doc", []Passage{{ID: "other#x"}}); err == nil {
		t.Error("a passage of another document is encoded")
	}
}
