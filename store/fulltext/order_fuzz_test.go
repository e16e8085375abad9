package fulltext

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRescore: any passage text rescores without panicking, to a finite
// score of zero or more, and its markup ranges are in order, apart and
// inside the text.
func FuzzRescore(f *testing.F) {
	for _, s := range []string{
		"render the diagrams as `figure` elements",
		"a ``co`de`` b ` c",
		"see [the docs](/a/b#c) and [more][ref].\n\n```go\ncode\n```\n",
		"<figure class=x> {{ .Title }} </figure> ~~~\n> ```",
		"`` ` ``` ```` unmatched",
		"strings.Contains kube-scheduler 检索命令 `x`\n\n`y`",
	} {
		f.Add(s)
	}
	x := fuzzIndex(f)
	q, err := x.Prepare(context.Background(), "the diagrams as elements code")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		spans, fences := markup(text)
		last := 0
		for _, s := range spans {
			if s[0] < last || s[1] <= s[0] || s[1] > len(text) {
				t.Fatalf("markup(%q): range %v after %d, or out of the text", text, s, last)
			}
			last = s[1]
		}
		for i, at := range fences {
			if at < 0 || at >= len(text) || i > 0 && at <= fences[i-1] {
				t.Fatalf("markup(%q): fences %v", text, fences)
			}
		}
		if sc := x.Rescore(q, text); sc < 0 || math.IsNaN(sc) || math.IsInf(sc, 0) {
			t.Fatalf("Rescore(%q) = %v", text, sc)
		}
	})
}

// FuzzPairFilter: a passage's pair filter bounds its score for any query
// of its words (its first n, or every other one, in order): no pair or
// run the text has is missing from it. And any bytes read back as filters
// read without panicking.
func FuzzPairFilter(f *testing.F) {
	for _, s := range []string{
		"render the diagrams as `figure` elements",
		"see [the docs](/a/b#c) and [more][ref].\n\n```go\ncode\n```\nafter the fence",
		"strings.Contains kube-scheduler 检索命令 `x`\n\n`y`",
		"menu `menu menu` page {{ .Title }} page menu",
	} {
		f.Add(s, uint8(3))
	}
	x := fuzzIndex(f)
	f.Fuzz(func(t *testing.T, text string, n uint8) {
		if _, ok := findPairs([]byte(text), "#x"); ok && len(text) == 0 {
			t.Fatal("an empty encoding holds a filter")
		}
		enc, err := Pairs("d", []Passage{{ID: "d#x", Text: text}})
		if err != nil {
			t.Fatal(err)
		}
		words := x.tokens(text)
		for _, pick := range [][]string{words[:min(int(n%8)+1, len(words))], everyOther(words)} {
			if len(pick) == 0 {
				continue
			}
			q, err := x.Prepare(context.Background(), strings.Join(pick, " "))
			if err != nil {
				t.Fatal(err)
			}
			if len(q.terms) == 0 || len(q.phrases) > 0 || len(q.not) > 0 || len(q.notRuns) > 0 {
				continue // a word the query syntax reads otherwise
			}
			toks := x.analyze(text)
			st := stats{tf: q.counts(toks), length: len(toks), hf: make([]int32, len(q.terms))}
			c := q.candidate(0, st, q.bound(&st))
			want := x.ScorePassage(q, Passage{Text: text})
			rt := &Retrieval{x: x, q: q}
			got, ok := rt.FilterBound(&c, enc, "#x")
			if ok == c.Exact && len(text) <= MaxPairTextBytes || got < want*(1-1e-12) || got > c.Bound {
				t.Fatalf("%q, query %q: the filter bounds at %v (%v), the score is %v, the bound %v", text, pick, got, ok, want, c.Bound)
			}
		}
	})
}

// everyOther is words 0, 2, 4, ...
func everyOther(words []string) []string {
	var out []string
	for i := 0; i < len(words); i += 2 {
		out = append(out, words[i])
	}
	return out
}

// fuzzIndex is an index of one passage, for a fuzz target's queries,
// closed when f ends.
func fuzzIndex(f *testing.F) *Index {
	x, err := Create(filepath.Join(f.TempDir(), "ft"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { x.Close() })
	if err := x.Apply(nil, []Passage{{ID: "a", Text: "render the diagrams as figure elements"}}); err != nil {
		f.Fatal(err)
	}
	return x
}
