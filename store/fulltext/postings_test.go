package fulltext

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"
)

// TestPostingsReader: a postingsReader reads what scorch's TermFieldReader
// reads (the same passages, counts and norms, and Count), for every mix of
// Next, seeks near and far, and seeks backwards, on segments with and
// without deleted passages and on postings lists of many chunks; and its
// seeks do start at a chunk.
func TestPostingsReader(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var ps []Passage
	for i := range 6000 {
		ps = append(ps, chunkedPassage(r, i))
	}
	x := indexed(t, ps)
	// One segment of them all (the index writes segments of BatchSize).
	if err := x.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	jumps := comparePostings(t, x, r, "one segment")
	// Delete every 5th passage and a run, and write some again: segments
	// with deleted passages, and new ones.
	var gone []string
	var again []Passage
	for i := 0; i < len(ps); i += 5 {
		gone = append(gone, ps[i].ID)
	}
	for i := 3000; i < 3400; i++ {
		gone = append(gone, ps[i].ID)
	}
	for i := 0; i < 500; i += 2 {
		again = append(again, chunkedPassage(r, i))
	}
	if err := x.Apply(gone, again); err != nil {
		t.Fatal(err)
	}
	jumps += comparePostings(t, x, r, "with deletions")
	if jumps == 0 {
		t.Error("no seek started at a chunk")
	}
}

// chunkedWords are the words of chunkedPassage: in every passage, in every
// 2nd, 3rd, 7th and 50th.
var chunkedWords = []int{1, 2, 3, 7, 50}

// chunkedPassage is passage i of a corpus whose words are in every
// passage, in every 2nd, 3rd, 7th, 50th, at random and in one: postings
// of one chunk and of several, dense and sparse, each repeated a varying
// number of times.
func chunkedPassage(r *rand.Rand, i int) Passage {
	var b strings.Builder
	for _, n := range chunkedWords {
		if i%n == 0 {
			for range 1 + (i/n)%3 {
				fmt.Fprintf(&b, "every%d ", n)
			}
		}
	}
	if r.IntN(3) == 0 {
		b.WriteString("random ")
	}
	if i == 1234 {
		b.WriteString("once ")
	}
	for range r.IntN(20) {
		b.WriteString("filler ")
	}
	return Passage{ID: fmt.Sprintf("p%05d", i), Text: b.String(), Head: fmt.Sprintf("every%d", chunkedWords[i%len(chunkedWords)])}
}

// comparePostings reads every word of chunkedPassage's corpus in each
// field with a postingsReader and with scorch's reader side by side, 12
// times a word, and fails at the first difference. It returns the seeks
// that started at a chunk.
func comparePostings(t *testing.T, x *Index, r *rand.Rand, name string) (jumps int) {
	t.Helper()
	rd, err := x.idx.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	snap, ok := rd.(*scorch.IndexSnapshot)
	if !ok {
		t.Fatalf("the index reader is a %T, not a scorch snapshot", rd)
	}
	var max uint64
	for _, ss := range snap.Segments() {
		max += ss.Segment().Count()
	}
	chunked := false
	for _, field := range []string{FieldText, FieldHead} {
		for _, term := range []string{"every1", "every2", "every3", "every7", "every50", "random", "once", "absent"} {
			for trial := range 12 {
				want, err := rd.TermFieldReader(context.Background(), []byte(term), field, true, true, false)
				if err != nil {
					t.Fatal(err)
				}
				got, err := termReader(context.Background(), rd, term, field, true)
				if err != nil {
					t.Fatal(err)
				}
				p := got.(*postingsReader)
				for _, s := range p.segs {
					chunked = chunked || s.zap != nil && s.chunk <= uint64(s.zap.ActualBM.Maximum())
				}
				if got.Count() != want.Count() {
					t.Errorf("%s: %q in %s: Count %d, scorch's %d", name, term, field, got.Count(), want.Count())
				}
				readSideBySide(t, r, want, got, trial, max, fmt.Sprintf("%s: %q in %s", name, term, field))
				jumps += p.jumps
				want.Close()
				got.Close()
			}
		}
	}
	if !chunked {
		t.Errorf("%s: no postings list of several chunks in a zap segment: the seeks that start at a chunk are not tested", name)
	}
	return jumps
}

// readSideBySide moves want and got alike to the end: seeks of gaps up to
// 10^(trial%5), a Next now and then, and from the 11th trial on up to 5
// seeks backwards.
func readSideBySide(t *testing.T, r *rand.Rand, want, got index.TermFieldReader, trial int, max uint64, what string) {
	t.Helper()
	span := uint64(1)
	for range trial % 5 {
		span *= 10
	}
	var at uint64
	backs := 0
	for step := 0; ; step++ {
		var w, g *index.TermFieldDoc
		var werr, gerr error
		op := "next"
		switch {
		case r.IntN(4) == 0:
			w, werr = want.Next(nil)
			g, gerr = got.Next(nil)
		case trial >= 10 && backs < 5 && r.IntN(10) == 0:
			backs++
			at -= min(at, r.Uint64N(3000))
			fallthrough
		default:
			at += r.Uint64N(span) + 1
			op = fmt.Sprintf("seek %d", at)
			id := index.NewIndexInternalID(nil, at)
			w, werr = want.Advance(id, nil)
			g, gerr = got.Advance(id, nil)
		}
		if werr != nil || gerr != nil {
			t.Fatalf("%s, step %d (%s): errors %v, %v", what, step, op, gerr, werr)
		}
		if (w == nil) != (g == nil) {
			t.Fatalf("%s, step %d (%s): got %v, scorch's %v", what, step, op, g, w)
		}
		if w == nil {
			return
		}
		if g.ID.Value() != w.ID.Value() || g.Freq != w.Freq || g.Norm != w.Norm {
			t.Fatalf("%s, step %d (%s): got %d (freq %d, norm %v), scorch's %d (freq %d, norm %v)",
				what, step, op, g.ID.Value(), g.Freq, g.Norm, w.ID.Value(), w.Freq, w.Norm)
		}
		at = w.ID.Value()
		if at > max {
			t.Fatalf("%s: passage %d past the index's %d", what, at, max)
		}
	}
}
