package store

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
)

// TestDiffComparesRecords: a document is changed when its record is
// another but for its path: another digest, or the same bytes with
// another title (a refresh by other markdown rules reads what older ones
// did not: JSON front matter); a file renamed under the same id is not.
func TestDiffComparesRecords(t *testing.T) {
	dir := t.TempDir()
	put := func(recs ...docir.Record) uint64 {
		var c Change
		for _, r := range recs {
			c.Put = append(c.Put, PutDoc{Record: r, Body: []byte("{}\n")})
		}
		return publish(t, dir, 5, c)
	}
	g1 := put(docir.Record{ID: "a", Title: "a", Path: "a.md", Digest: "d"}, docir.Record{ID: "b", Title: "b", Path: "b.md", Digest: "d"})
	g2 := put(docir.Record{ID: "a", Title: "JSON title", Path: "a.md", Digest: "d"}, docir.Record{ID: "b", Title: "b", Path: "renamed.md", Digest: "d"})
	old, cur := open(t, dir, g1), open(t, dir, g2)
	defer old.Close()
	defer cur.Close()
	added, changed, removed, err := cur.Diff(old)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]string{nil, {"a"}, nil}, [][]string{added, changed, removed}); diff != "" {
		t.Errorf("added, changed, removed (-want +got):\n%s", diff)
	}
}
