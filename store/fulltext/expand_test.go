package fulltext

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	index "github.com/blevesearch/bleve_index_api"
)

// TestStemming: with StemEnglish a query word matches the index's other
// forms of it (and none that only start alike), the word as typed weighs
// as it does alone where a text writes it, a text with only other forms
// counts them at the word's weight in any form (no more than typed), and
// heads are matched as typed; without it nothing of that happens; an
// unknown stemming is refused.
func TestStemming(t *testing.T) {
	ps := []Passage{
		{ID: "typed", Text: "configure the store once"},
		{ID: "forms", Text: "the configuration is configured once"},
		{ID: "other", Text: "a config for a confident conference"},
		{ID: "head", Text: "nothing here", Head: "Configuration"},
		{ID: "useful", Text: "useful tools here"},
		{ID: "use", Text: "use the tools"},
		{ID: "uses", Text: "uses of tools"},
	}
	x := indexed(t, ps)
	ctx := context.Background()
	score := func(q *Query, id string) float64 {
		for _, p := range ps {
			if p.ID == id {
				return x.ScorePassage(q, p)
			}
		}
		t.Fatalf("no passage %s", id)
		return 0
	}
	plain, err := x.Prepare(ctx, "configure")
	if err != nil {
		t.Fatal(err)
	}
	if plain.formIndex != nil || score(plain, "forms") != 0 {
		t.Errorf("without stemming: forms %v, the other forms' passage scores %v", plain.forms, score(plain, "forms"))
	}
	if err := x.SetStemming("klingon"); err == nil {
		t.Error("SetStemming takes an unknown stemming")
	}
	if err := x.SetStemming(StemEnglish); err != nil {
		t.Fatal(err)
	}
	q, err := x.Prepare(ctx, "configure")
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(slices.Values(q.forms[0])); !slices.Equal(got, []string{"configuration", "configured"}) {
		t.Errorf("the forms of configure: %v", got)
	}
	if score(q, "typed") != score(plain, "typed") {
		t.Errorf("the word as typed scores %v with stemming, %v without", score(q, "typed"), score(plain, "typed"))
	}
	if f := score(q, "forms"); f <= 0 || q.gidf[0] > q.idf[0] {
		t.Errorf("the other forms' passage scores %v (idf %v, in any form %v)", f, q.idf[0], q.gidf[0])
	}
	if score(q, "other") != 0 || score(q, "head") != 0 {
		t.Errorf("a word that only starts alike scores %v; a head with another form %v", score(q, "other"), score(q, "head"))
	}
	// A rare word typed in a form of its own weighs as that form where
	// the text writes it, and as its commoner stem where it does not.
	u, err := x.Prepare(ctx, "useful")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(u.forms[0], "use") || score(u, "useful") <= score(u, "use") || u.gidf[0] >= u.idf[0] {
		t.Errorf("useful: forms %v, scores %v (typed) %v (use), idf %v, in any form %v", u.forms[0], score(u, "useful"), score(u, "use"), u.idf[0], u.gidf[0])
	}
	// A phrase is as written.
	ph, err := x.Prepare(ctx, `"configure the"`)
	if err != nil {
		t.Fatal(err)
	}
	if ph.formIndex != nil {
		t.Errorf("a phrase's words have other forms: %v", ph.forms)
	}
}

// TestGroupReader: a word's forms read as one give every passage that
// holds any of them once, in order, with the forms' counts summed and the
// typed form's apart, whether read by Next or moved by Advance.
func TestGroupReader(t *testing.T) {
	var ps []Passage
	for i := range 200 {
		var words []string
		for j, w := range []string{"configure", "configured", "configuration"} {
			for range (i / (j + 2)) % 3 {
				words = append(words, w)
			}
		}
		words = append(words, "filler")
		ps = append(ps, Passage{ID: fmt.Sprintf("p%03d", i), Text: strings.Join(words, " ")})
	}
	x := indexed(t, ps)
	r, err := x.idx.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	open := func() *groupReader {
		var tfrs []index.TermFieldReader
		for _, term := range []string{"configure", "configured", "configuration"} {
			tfr, err := r.TermFieldReader(ctx, []byte(term), FieldText, true, true, false)
			if err != nil {
				t.Fatal(err)
			}
			tfrs = append(tfrs, tfr)
		}
		return newGroupReader(tfrs)
	}
	// What each passage holds, from its words, by its id.
	type held struct{ sum, typed uint64 }
	want := map[string]held{}
	for _, p := range ps {
		var h held
		for _, tok := range x.tokens(p.Text) {
			switch tok {
			case "configure":
				h.sum++
				h.typed++
			case "configured", "configuration":
				h.sum++
			}
		}
		if h.sum > 0 {
			want[p.ID] = h
		}
	}
	got := map[string]held{}
	var order []uint64
	all := open()
	for {
		d, err := all.Next(nil)
		if err != nil {
			t.Fatal(err)
		}
		if d == nil {
			break
		}
		id, err := r.ExternalID(d.ID)
		if err != nil {
			t.Fatal(err)
		}
		order = append(order, d.ID.Value())
		got[id] = held{d.Freq, all.typed}
	}
	all.Close()
	if !slices.IsSorted(order) || len(order) != len(got) {
		t.Fatalf("Next gives %d passages, %d distinct, sorted %v", len(order), len(got), slices.IsSorted(order))
	}
	if len(want) < 50 || !maps.Equal(got, want) {
		t.Fatalf("Next gives %d passages, %d hold a form; %v", len(got), len(want), got)
	}
	// Advance to every third passage read lands on it with its counts,
	// and to a number between passages on the next one.
	g := open()
	defer g.Close()
	for i := 0; i < len(order); i += 3 {
		target := order[i]
		if i > 0 && order[i]-order[i-1] > 1 {
			target = order[i-1] + 1
		}
		d, err := g.Advance(index.NewIndexInternalID(nil, target), nil)
		if err != nil {
			t.Fatal(err)
		}
		if d == nil || d.ID.Value() != order[i] {
			t.Fatalf("Advance to %d: %v (want passage %d)", target, d, order[i])
		}
		id, err := r.ExternalID(d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if h := (held{d.Freq, g.typed}); h != want[id] {
			t.Fatalf("Advance to %d: %s holds %+v, want %+v", target, id, h, want[id])
		}
	}
}

// TestFormsOfAnUnheldWord: without stemming, a query word no passage holds
// as typed is read in its other English forms (the passages that write
// "hash" score for "hashing"), before it could be read as words written
// together ("hash" + the "ing" of "`OR`ing"); a word some passage holds
// is not expanded.
func TestFormsOfAnUnheldWord(t *testing.T) {
	ps := []Passage{
		{ID: "hash", Text: "hash the keys before storing them"},
		{ID: "ing", Text: "flags may be `OR`ing their values"},
		{ID: "store", Text: "the store keeps them"},
	}
	x := indexed(t, ps)
	ctx := context.Background()
	q, err := x.Prepare(ctx, "hashing keys")
	if err != nil {
		t.Fatal(err)
	}
	if q.Text() != "hashing keys" || !slices.Equal(q.formsOf(q.index["hashing"]), []string{"hash"}) {
		t.Fatalf("hashing keys: text %q, forms %v", q.Text(), q.forms)
	}
	if x.ScorePassage(q, ps[0]) <= 0 || x.ScorePassage(q, ps[1]) != 0 {
		t.Errorf("scores: %v (hash), %v (`OR`ing)", x.ScorePassage(q, ps[0]), x.ScorePassage(q, ps[1]))
	}
	held, err := x.Prepare(ctx, "store")
	if err != nil {
		t.Fatal(err)
	}
	if held.formIndex != nil {
		t.Errorf("store, held as typed: forms %v", held.forms)
	}
}

// BenchmarkPrepareUnknownWords: a query of MaxQueryTerms words no passage
// holds, sharing the prefix their forms are read from, on an index of
// 20,000 terms with that prefix: each prefix's range is read once a
// query, not once a word.
func BenchmarkPrepareUnknownWords(b *testing.B) {
	var ps []Passage
	var words []string
	for i := range 2000 {
		var text strings.Builder
		for j := range 10 {
			fmt.Fprintf(&text, "con%c%c%c%c ", 'a'+i%26, 'a'+i/26%26, 'a'+j, 'a'+i/676)
		}
		ps = append(ps, Passage{ID: fmt.Sprintf("p%d", i), Text: text.String()})
	}
	for i := range MaxQueryTerms {
		words = append(words, fmt.Sprintf("conq%c%c", 'a'+i%26, 'a'+i/26))
	}
	x := indexed(b, ps)
	query := strings.Join(words, " ")
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		if _, err := x.Prepare(ctx, query); err != nil {
			b.Fatal(err)
		}
	}
}
