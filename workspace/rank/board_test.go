package rank

import (
	"container/heap"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store/fulltext"
)

// TestBoard: a document scores as its best passage, θ is the limit-th
// document score (0 while fewer documents scored), and the ranking lists
// named documents first, then by score, ties by id, at most limit, each
// document's passages best first.
func TestBoard(t *testing.T) {
	type add struct {
		doc, slug string
		score     float64
	}
	cases := []struct {
		name  string
		k     int
		adds  []add
		named map[string]int
		theta float64
		want  []string // doc:score:slugs
	}{
		{name: "fewer than the limit: θ is 0", k: 3,
			adds:  []add{{"a", "x", 2}, {"b", "", 1}},
			theta: 0, want: []string{"a:2:x", "b:1:"}},
		{name: "a document scores as its best passage", k: 1,
			adds:  []add{{"a", "x", 2}, {"a", "y", 5}, {"a", "z", 3}, {"b", "", 4}},
			theta: 5, want: []string{"a:5:y,z,x"}},
		{name: "θ is the limit-th document score", k: 2,
			adds:  []add{{"a", "", 1}, {"b", "", 7}, {"c", "", 3}, {"d", "", 2}},
			theta: 3, want: []string{"b:7:", "c:3:"}},
		{name: "ties go by id, whatever the order scored", k: 2,
			adds:  []add{{"z", "", 4}, {"m", "", 4}, {"a", "", 4}, {"q", "", 9}},
			theta: 4, want: []string{"q:9:", "a:4:"}},
		{name: "named documents first, as written before once analyzed", k: 3,
			adds:  []add{{"a", "", 9}, {"b", "", 1}, {"c", "", 2}},
			named: map[string]int{"b": 2, "c": 1},
			theta: 1, want: []string{"b:1:", "c:2:", "a:9:"}},
		{name: "a passage that scores 0 does not match", k: 2,
			adds:  []add{{"a", "x", 0}, {"b", "", 1}},
			theta: 0, want: []string{"b:1:"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := &board{k: c.k, docs: map[string]*rankedDoc{}}
			for _, a := range c.adds {
				b.add(a.doc, a.slug, a.score)
			}
			if got := b.theta(); got != c.theta {
				t.Errorf("θ %v, want %v", got, c.theta)
			}
			var got []string
			for _, d := range b.ranking(c.named, c.k) {
				var slugs []string
				for _, p := range d.passages {
					slugs = append(slugs, p.slug)
				}
				got = append(got, d.id+":"+strconv.FormatFloat(d.score, 'g', -1, 64)+":"+strings.Join(slugs, ","))
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("ranking (-want +got):\n%s", d)
			}
		})
	}
}

// TestByBound: candidates come out best bound first, the first read first
// among equals.
func TestByBound(t *testing.T) {
	cands := []fulltext.Candidate{{Bound: 1}, {Bound: 3}, {Bound: 2}, {Bound: 3}, {Bound: 0.5}}
	h := &byBound{cands: cands}
	heap.Init(h)
	var got []int
	for h.Len() > 0 {
		c := heap.Pop(h).(*fulltext.Candidate)
		for i := range cands {
			if &cands[i] == c {
				got = append(got, i)
			}
		}
	}
	if d := cmp.Diff([]int{1, 3, 2, 0, 4}, got); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
}

// TestPromote: the section named goes first, with its own score when the
// document has it, else the score given; the others keep their order.
func TestPromote(t *testing.T) {
	cases := []struct {
		name  string
		in    []passageHit
		slug  string
		score float64
		want  []passageHit
	}{
		{"already first", []passageHit{{"a", 3}, {"b", 2}}, "a", 9, []passageHit{{"a", 3}, {"b", 2}}},
		{"moved up with its score", []passageHit{{"a", 3}, {"b", 2}, {"c", 1}}, "c", 9, []passageHit{{"c", 1}, {"a", 3}, {"b", 2}}},
		{"not scored: the score given", []passageHit{{"a", 3}}, "", 0, []passageHit{{"", 0}, {"a", 3}}},
		{"no passages", nil, "x", 2, []passageHit{{"x", 2}}},
	}
	for _, c := range cases {
		d := &rankedDoc{passages: c.in}
		promote(d, c.slug, c.score)
		if diff := cmp.Diff(c.want, d.passages, cmp.AllowUnexported(passageHit{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestCheckQuery: a query is trimmed and bounded, a limit defaults and is
// bounded, each refusal an invalid_params error that names the method.
func TestCheckQuery(t *testing.T) {
	cases := []struct {
		query     string
		limit     int
		wantQ     string
		wantLimit int
		err       string
	}{
		{"  retry budget ", 0, "retry budget", docir.DefaultLimit, ""},
		{"x", docir.MaxLimit, "x", docir.MaxLimit, ""},
		{" \t", 5, "", 0, "search: empty query"},
		{strings.Repeat("a", docir.MaxQueryBytes+1), 5, "", 0, "over the 4096-byte bound"},
		{"x", -1, "", 0, "limit -1"},
		{"x", docir.MaxLimit + 1, "", 0, "want 1 to"},
	}
	for _, c := range cases {
		q, limit, err := CheckQuery("search", c.query, c.limit)
		if c.err != "" {
			var de *docir.Error
			if err == nil || !strings.Contains(err.Error(), c.err) || !errors.As(err, &de) || de.Code != docir.CodeInvalidParams {
				t.Errorf("CheckQuery(%.20q, %d): %v, want an invalid_params error with %q", c.query, c.limit, err, c.err)
			}
			continue
		}
		if err != nil || q != c.wantQ || limit != c.wantLimit {
			t.Errorf("CheckQuery(%q, %d) = %q, %d, %v; want %q, %d", c.query, c.limit, q, limit, err, c.wantQ, c.wantLimit)
		}
	}
}

// TestForget: the documents a ranking keeps read are, once forgotten, those
// on the board at or above θ (which can still rank); the next sweep waits
// until they have doubled; without a board nothing is forgotten.
func TestForget(t *testing.T) {
	b := &board{k: 2, docs: map[string]*rankedDoc{}}
	for _, a := range []struct {
		doc   string
		score float64
	}{{"a", 9}, {"b", 3}, {"c", 3}, {"d", 1}} {
		b.add(a.doc, "", a.score)
	}
	r := &ranking{docs: map[string]*docText{"a": {}, "b": {}, "c": {}, "d": {}, "e": {}, "gone": nil}}
	r.forget()
	if len(r.docs) != 6 || r.room != 12 {
		t.Errorf("without a board: %d documents kept (want 6), room %d (want 12)", len(r.docs), r.room)
	}
	r.board = b
	r.forget()
	var kept []string
	for id := range r.docs {
		kept = append(kept, id)
	}
	slices.Sort(kept)
	if d := cmp.Diff([]string{"a", "b", "c"}, kept); d != "" {
		t.Errorf("kept (-want +got):\n%s", d)
	}
	if r.room != 6 {
		t.Errorf("room %d after keeping 3, want 6", r.room)
	}
}
