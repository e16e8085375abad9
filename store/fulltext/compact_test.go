package fulltext

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/google/go-cmp/cmp"
)

// TestCompact: an index written in many batches is one segment after
// Compact, no file of the segments it merged is left on disk once it is
// sealed, and every query finds what it found before, with the same
// scores. Also without Compact's wait for scorch's own removal of the
// merged files (as on a machine too slow for it: CI under -race once
// left five files): Seal removes them. Without the wait, the files left
// are exactly those of the snapshot the sealed index opens, which may be
// the one before the merge: closing scorch while its persister is still
// writing the merge leaves a newest snapshot it cannot load (CI under
// -race on a loaded machine, once: "unable to load snapshot ... unsupported
// version", four segments left), and the index opens the one before, which
// holds the same passages.
func TestCompact(t *testing.T) {
	for _, wait := range []time.Duration{compactCleanup, 0} {
		t.Run(wait.String(), func(t *testing.T) {
			defer func(w time.Duration) { compactCleanup = w }(compactCleanup)
			compactCleanup = wait
			testCompact(t, wait > 0)
		})
	}
}

func testCompact(t *testing.T, waited bool) {
	ctx := context.Background()
	ps := retrievalCorpus(rand.New(rand.NewPCG(3, 4)), 3*BatchSize+17)
	path := filepath.Join(t.TempDir(), "ft")
	x, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(ps); i += BatchSize {
		if err := x.Apply(nil, ps[i:min(i+BatchSize, len(ps))]); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{"front matter dates", "the of a", "taxonomy template menu", "archive"}
	search := func(x *Index) map[string][]Match {
		out := map[string][]Match{}
		for _, q := range queries {
			got, _, err := x.Search(ctx, q, 50)
			if err != nil {
				t.Fatal(err)
			}
			out[q] = got
		}
		return out
	}
	before := search(x)
	if err := x.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := x.idx.Reader()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(r.(*scorch.IndexSnapshot).Segments()); n != 1 {
		t.Errorf("%d segments after Compact, want 1", n)
	}
	r.Close()
	if err := x.Seal(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(path, storeDir))
	if err != nil {
		t.Fatal(err)
	}
	var zaps []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".zap") {
			zaps = append(zaps, e.Name())
		}
	}
	y, err := Open(path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer y.Close()
	live, err := y.idx.Reader()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, seg := range live.(*scorch.IndexSnapshot).Segments() {
		want = append(want, fmt.Sprintf("%012x.zap", seg.Id()))
	}
	live.Close()
	slices.Sort(want)
	switch {
	case waited && len(zaps) != 1:
		t.Errorf("segment files after Compact and Seal: %v, want one", zaps)
	case !slices.Equal(zaps, want):
		t.Errorf("segment files after Seal: %v, want those of the snapshot the index opens: %v", zaps, want)
	}
	if d := cmp.Diff(before, search(y)); d != "" {
		t.Errorf("searches before and after Compact (-before +after):\n%s", d)
	}
}
