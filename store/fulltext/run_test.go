package fulltext

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
)

// runByGroups is the longest run's definition, read plainly: a run ends at
// a word of group g held at query position p, and extends the longest run
// ending at position p-1 in a group a reader reads just before g (one whose
// next or pastAt is g). It is the reference for walkInto's run.
func runByGroups(q *Query, toks []string, o order) int {
	at := map[string][]int{}
	for t, k := range q.index {
		at[t] = q.at[k]
	}
	ends := make([]map[int]int, len(o)) // group -> query position -> longest run ending there
	best := 0
	for g, grp := range o {
		ends[g] = map[int]int{}
		for i := grp.from; i < grp.to; i++ {
			for _, p := range at[toks[i]] {
				r := 1
				for pg := range g {
					if o[pg].next == int32(g) || o[pg].pastAt == int32(g) {
						if e, ok := ends[pg][p-1]; ok && e+1 > r {
							r = e + 1
						}
					}
				}
				ends[g][p] = max(ends[g][p], r)
				best = max(best, r)
			}
		}
	}
	return best
}

// TestWalkRunAsDefined: the run walkInto counts, with the runs into a
// group gathered when the group is read, is the longest run as defined, on
// random texts with markup a reader skips and queries that repeat words
// (the hostile "a a a …" among them) or leave some out (Without).
func TestWalkRunAsDefined(t *testing.T) {
	x := indexed(t, []Passage{{ID: "p", Text: "a b c"}})
	r := rand.New(rand.NewPCG(5, 8))
	words := []string{"a", "b", "c", "d", "`a b`", "`c`", "[x](y)", "<br>", "a-b"}
	qwords := []string{"a", "b", "c", "d"}
	var sc scratch
	for n := range 3000 {
		var text, query strings.Builder
		for range 1 + r.IntN(25) {
			text.WriteString(words[r.IntN(len(words))] + " ")
		}
		for range 1 + r.IntN(8) {
			query.WriteString(qwords[r.IntN(len(qwords))] + " ")
		}
		if n == 0 {
			query.Reset()
			query.WriteString(strings.Repeat("a ", 300))
		}
		q, err := x.Prepare(context.Background(), query.String())
		if err != nil {
			t.Fatal(err)
		}
		if n%3 == 1 && len(q.terms) > 1 {
			q = q.Without(map[string]bool{q.terms[0]: true})
		}
		s := text.String()
		toks := x.analyze(s)
		o := newOrder(toks, layout(s, toks))
		terms := make([]string, len(toks))
		for i, tk := range toks {
			terms[i] = string(tk.Term)
		}
		want := runByGroups(q, terms, o)
		if got := q.walk(toks, o).run; got != want {
			t.Fatalf("text %q, query %q: run %d, by definition %d", s, query.String(), got, want)
		}
		if got := q.walkInto(&sc, toks, o).run; got != want {
			t.Fatalf("text %q, query %q (reused memory): run %d, by definition %d", s, query.String(), got, want)
		}
	}
}
