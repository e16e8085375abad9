package rank

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/docir/docir/docir"
)

// TestBestFirstStacked: stacked headings (each with nothing under it,
// right above one of its level) end where the last ends, so each holds
// every later one (markdown.Stacked): bestFirst walks them as a chain as
// deep as the stack, and must not hold a slice of the rest at every level
// (9,990 of them took 8.9 GB and 31 s of a context). The order is the
// document's, with no score; the bytes allocated stay within a few
// slices of the sections.
func TestBestFirstStacked(t *testing.T) {
	const n = 3000
	secs := make([]docir.Section, n)
	for i := range secs {
		secs[i] = docir.Section{Slug: "h" + strconv.Itoa(i), Level: 2, Start: i * 6, OwnEnd: i*6 + 6, End: n * 6}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := bestFirst(secs, map[string]float64{})
	runtime.ReadMemStats(&after)
	if len(got) != n {
		t.Fatalf("%d sections, want %d", len(got), n)
	}
	for i := range got {
		if got[i].Slug != secs[i].Slug {
			t.Fatalf("section %d is %s, want %s", i, got[i].Slug, secs[i].Slug)
		}
	}
	// One output slice, and a part a level: O(n), where a slice of the
	// rest at every level was n²/2 sections (700 MB here).
	if alloc, most := after.TotalAlloc-before.TotalAlloc, uint64(n)*uint64(200+64); alloc > most {
		t.Errorf("bestFirst of %d stacked headings allocated %d bytes, want at most %d", n, alloc, most)
	}
}

// TestSubtreeBests: each section's best is the best score of it and the
// sections it holds, as a scan of each subtree finds it, on a page of
// nested sections and on stacked headings (each holding every later one),
// whose scans would be quadratic.
func TestSubtreeBests(t *testing.T) {
	sec := func(slug string, start, end int) docir.Section {
		return docir.Section{Slug: slug, Start: start, End: end}
	}
	nested := []docir.Section{sec("a", 0, 10), sec("b", 10, 40), sec("b1", 15, 20), sec("b2", 20, 40), sec("b2x", 30, 40), sec("c", 40, 50)}
	const n = 2000
	stacked := make([]docir.Section, n)
	for i := range stacked {
		stacked[i] = sec("h"+strconv.Itoa(i), i*6, n*6)
	}
	for _, secs := range [][]docir.Section{nested, stacked} {
		score := map[string]float64{}
		for i, s := range secs {
			score[s.Slug] = float64((i * 7919) % 13)
		}
		got := subtreeBests(secs, score)
		for i, s := range secs {
			want := score[s.Slug]
			for _, in := range secs[i+1 : subtreeEnd(secs, i)] {
				want = max(want, score[in.Slug])
			}
			if got[s.Slug] != want {
				t.Errorf("%s: best %v, want %v", s.Slug, got[s.Slug], want)
			}
		}
	}
}
