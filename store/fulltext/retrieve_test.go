package fulltext

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"
)

// retrievalCorpus is passages of random words from a small vocabulary, some
// long enough to be read by paragraphs, with markup a reader reads past,
// fences, blank lines and code, so that pairs and runs meet every rule of
// order.go and of the paragraph reading.
func retrievalCorpus(r *rand.Rand, n int) []Passage {
	words := []string{"the", "a", "of", "front", "matter", "dates", "template", "taxonomy", "menu", "page",
		"Bundle", "archives", "policies", "kube-scheduler", "strings.Contains", "HTMLParser", "retry", "budget",
		// identifiers whose catenations are terms (see Catenations)
		"baseURL", "PageEntries's", "Menu.ByLinkTitle", "read-only", "Back-Pressure",
		// other forms of some of them (see expand.go)
		"templating", "dated", "retrying", "budgeting", "archived"}
	markup := []string{"`code`", "`menu menu menu` page", "`front front` matter", "[link](/a/b)", "<br>", "{{ .Title }}", "\n```go\nx := 1\n```\n", "\n\n", "\n   \n", "[text][label]", "—"}
	var ps []Passage
	for i := range n {
		var b strings.Builder
		size := 5 + r.IntN(40)
		if i%7 == 0 {
			size = 600 + r.IntN(400) // past RescoreParagraphs
		}
		for j := range size {
			if j > 0 {
				b.WriteByte(' ')
			}
			if r.IntN(9) == 0 {
				b.WriteString(markup[r.IntN(len(markup))])
				continue
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		head := words[r.IntN(len(words))] + "\n" + words[r.IntN(len(words))] + " " + words[r.IntN(len(words))]
		ps = append(ps, Passage{ID: fmt.Sprintf("d%03d#s%d", i/4, i%4), Text: b.String(), Head: head})
	}
	return ps
}

// stemForms reports whether a word of q has a stem's other forms (a
// catenation is none), and fails t if, without stemming, such a word is
// one some passage holds as typed.
func stemForms(t *testing.T, q *Query, reader index.IndexReader, stemming string) bool {
	formed := false
	for k := range q.terms {
		if !slices.ContainsFunc(q.formsOf(k), func(f string) bool { return !strings.HasPrefix(f, catTerm("")) }) {
			continue
		}
		formed = true
		if stemming == "" {
			if inText, inHead, err := docFreqs(context.Background(), reader, q.terms[k:k+1]); err != nil || inText[0]+inHead[0] > 0 {
				t.Errorf("%q without stemming: %q, held as typed, has other forms %v", q.Text(), q.terms[k], q.formsOf(k))
			}
		}
	}
	return formed
}

// TestRetrievalScoresExactly: for every candidate of many queries (words,
// phrases, exclusions), the index-assisted score (Retrieval.Score: counts
// and lengths from the index, pairs and runs from the paragraphs that may
// hold them) equals the score read from the passage alone
// (ScorePassage), and no bound is below the score; every passage that
// scores above 0 is a candidate at floor 0. With each stemming.
func TestRetrievalScoresExactly(t *testing.T) {
	for _, stemming := range Stemmings {
		t.Run("stemming="+stemming, func(t *testing.T) { testRetrievalScoresExactly(t, stemming) })
	}
}

func testRetrievalScoresExactly(t *testing.T, stemming string) {
	r := rand.New(rand.NewPCG(1, 2))
	ps := retrievalCorpus(r, 400)
	x := indexed(t, ps)
	if err := x.SetStemming(stemming); err != nil {
		t.Fatal(err)
	}
	byID := map[string]Passage{}
	for _, p := range ps {
		byID[p.ID] = p
	}
	queries := []string{"front matter dates", "the front of the page", "a", "taxonomy template", "retry budget",
		`"front matter" dates`, "menu -taxonomy", `page -"front matter"`, "bundles archive policy", "kube scheduler",
		"strings contains", "html parser", "of the of the", "dates dates matter", "template menu page bundle",
		"template dating", "retry the archive", "budget dates", "archiving templates", `"retrying budget" date`,
		"baseurl", "pageentries", "baseurl url -htmlparser", "bylinktitle template", `"htmlparser"`, "menu -baseurl",
		"htmlparser html parser", "base url", "baseurl dates of the page", "readonly", "kubescheduler pages",
		"backpressure read only", "read-only -backpressure"}
	for range 20 {
		queries = append(queries, ps[r.IntN(len(ps))].Text[:40])
	}
	sc := x.Scorer() // one for every query and passage: its reused memory must not show
	filtered, tighter := 0, 0
	defer func() {
		// A filter that never tightens a bound would pass the test above.
		t.Logf("pair filters tightened %d bounds of %d", tighter, filtered)
		if tighter == 0 || tighter == filtered {
			t.Errorf("pair filters tightened %d bounds of %d", tighter, filtered)
		}
	}()
	expanded := 0
	defer func() {
		// Some of the queries' words have other forms: with stemming, and
		// without it those no passage holds as typed ("dating").
		if expanded == 0 {
			t.Errorf("stemming %q: no query with other forms", stemming)
		}
	}()
	reader, err := x.idx.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	for _, text := range queries {
		q, rt, cands := retrieved(t, x, text)
		if stemForms(t, q, reader, stemming) {
			expanded++
		}
		for _, p := range ps {
			if got, want := sc.Score(q, p), x.ScorePassage(q, p); got != want {
				t.Errorf("%q: %s scores %v by a Scorer, %v by ScorePassage", text, p.ID, got, want)
			}
		}
		seen := map[string]bool{}
		for i := range cands {
			c := &cands[i]
			id, err := rt.ID(c)
			if err != nil {
				t.Fatal(err)
			}
			seen[id] = true
			want := x.ScorePassage(q, byID[id])
			got := rt.Score(c, byID[id].Text)
			if !near(got, want) {
				t.Errorf("%q: %s scores %v by the index, %v by its text", text, id, got, want)
			}
			if c.Bound < want*(1-1e-12) {
				t.Errorf("%q: %s bounds at %v, below its score %v", text, id, c.Bound, want)
			}
			enc, err := Pairs(id, []Passage{{ID: id, Text: byID[id].Text}})
			if err != nil {
				t.Fatal(err)
			}
			fb, ok := rt.FilterBound(c, enc, "")
			if ok == c.Exact || fb < want*(1-1e-12) || fb > c.Bound {
				t.Errorf("%q: %s: its pair filter bounds it at %v (%v), its score %v, its bound %v", text, id, fb, ok, want, c.Bound)
			}
			if ok {
				filtered++
				if fb < c.Bound {
					tighter++
				}
			}
		}
		for _, p := range ps {
			if !seen[p.ID] && x.ScorePassage(q, p) > 0 {
				t.Errorf("%q: %s scores %v but is no candidate", text, p.ID, x.ScorePassage(q, p))
			}
		}
	}
}

// indexed is a new index of ps, closed when t ends.
func indexed(t testing.TB, ps []Passage) *Index {
	t.Helper()
	x, err := Create(filepath.Join(t.TempDir(), "ft"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	if err := x.Apply(nil, ps); err != nil {
		t.Fatal(err)
	}
	return x
}

func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// TestPartialBound: partialBound bounds a passage's bound (and so its
// score) from the counts of the known terms alone, for every split of the
// terms it holds into known and free (checked on every candidate of a
// query); with nothing known it is setBound of the terms the passage
// holds, and with everything known and no pair or run to read, the
// passage's bound.
func TestPartialBound(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	x := indexed(t, retrievalCorpus(r, 300))
	for _, text := range []string{"front matter dates", "the a of page menu", "taxonomy template bundle archives", "\"front matter\" page"} {
		q, _, cands := retrieved(t, x, text)
		n := len(q.terms)
		prepared := map[string]*partial{}
		for i := range cands {
			c := &cands[i]
			for split := range 1 << n {
				known, free := make([]bool, n), make([]bool, n)
				st := stats{tf: make([]int32, n), hf: make([]int32, n)}
				for k := range n {
					held := c.st.tf[k] > 0 || c.st.hf[k] > 0
					known[k] = split&(1<<k) != 0
					free[k] = !known[k] && held
					if known[k] {
						st.tf[k], st.hf[k] = c.st.tf[k], c.st.hf[k]
						if st.tf[k] > 0 {
							st.length = c.st.length
						}
						if st.hf[k] > 0 {
							st.hlength = c.st.hlength
						}
					}
				}
				pb := q.partialBound(&st, known, free)
				if ref := partialBoundLoops(q, &st, known, free); pb != ref {
					t.Errorf("%q: known %v free %v: bound %v, the loops over every term and pair %v", text, known, free, pb, ref)
				}
				if pb < c.Bound*(1-1e-12) {
					t.Errorf("%q: known %v free %v bound at %v, below the passage's bound %v", text, known, free, pb, c.Bound)
				}
				// One prepared bound for every passage of the same known
				// and free terms, as a reading keeps it: what it keeps from
				// one passage must not change another's.
				key := fmt.Sprint(known, free)
				if prepared[key] == nil {
					prepared[key] = q.partial(known, free)
				}
				if pp := prepared[key].bound(&st); !near(pp, pb) {
					t.Errorf("%q: known %v free %v: prepared once %v, fresh %v", text, known, free, pp, pb)
				}
				if split == 0 && pb != q.setBound(free) {
					t.Errorf("%q: nothing known bounds at %v, setBound at %v", text, pb, q.setBound(free))
				}
			}
			all := make([]bool, n)
			for k := range all {
				all[k] = true
			}
			if pb := q.partialBound(&c.st, all, make([]bool, n)); pb < c.Bound*(1-1e-12) || pb > c.Bound*(1+1e-9)+1e-9 && q.exact(c.st.tf) {
				t.Errorf("%q: every term known bounds at %v, the passage's bound is %v", text, pb, c.Bound)
			}
		}
	}
}

// TestPilot: the pilot is every passage that holds each of the query's
// terms (in its text or head) and no excluded term, with the counts and
// bound a reading gives it; a stage then returns none of them; a query of
// fewer than three terms has none.
func TestPilot(t *testing.T) {
	x := indexed(t, retrievalCorpus(rand.New(rand.NewPCG(9, 10)), 300))
	piloted := 0
	defer func() {
		if piloted == 0 {
			t.Error("no query had a pilot: the test read nothing")
		}
	}()
	for _, text := range []string{"front matter dates", "the a of page menu", "taxonomy template bundle archives", "front matter -dates page", "front matter"} {
		q, rt, all := retrieved(t, x, text)
		want := map[uint64]Candidate{}
		for _, c := range all {
			every := true
			for k := range q.terms {
				every = every && (c.st.tf[k] > 0 || c.st.hf[k] > 0)
			}
			if every && len(q.terms) >= 3 {
				want[c.num] = c
			}
		}
		pilot, err := collected(rt.Pilot)
		if err != nil {
			t.Fatal(err)
		}
		piloted += len(pilot)
		if len(pilot) != len(want) {
			t.Errorf("%q: pilot of %d passages, %d hold every term", text, len(pilot), len(want))
		}
		for _, c := range pilot {
			if w, ok := want[c.num]; !ok || !near(w.Bound, c.Bound) || w.Exact != c.Exact {
				t.Errorf("%q: pilot passage %d bound %v, a reading's %v (holds every term: %v)", text, c.num, c.Bound, w.Bound, ok)
			}
		}
		for i := range rt.Stages() {
			cands, err := collected(func(each func([]Candidate) error) error { return rt.Stage(i, 0, each) })
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cands {
				if _, ok := want[c.num]; ok {
					t.Errorf("%q: stage %d returns pilot passage %d", text, i, c.num)
				}
			}
		}
	}
}

// TestDocFreqs: the passages that hold a word, counted from a scorch
// snapshot's postings lists (docFreqs), are what its TermFieldReaders
// count, in deleted passages' segments, for words held once (bleve's
// one-hit postings, one of them deleted) and for words held by none; and
// an index that is not a scorch snapshot counts the same through them.
func TestDocFreqs(t *testing.T) {
	x, ps := withDeletions(t, 7)
	r, err := x.idx.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, ok := r.(*scorch.IndexSnapshot); !ok {
		t.Fatalf("the index reader is a %T, not a scorch snapshot: docFreqs' own count is not tested", r)
	}
	terms := []string{"zebraword", "okapi", "quagga", "nothing-here"}
	seen := map[string]bool{}
	for _, p := range ps[:60] {
		for _, tok := range x.tokens(p.Text + " " + p.Head) {
			if !seen[tok] {
				seen[tok] = true
				terms = append(terms, tok)
			}
		}
	}
	ctx := context.Background()
	text, head, err := docFreqs(ctx, r, terms)
	if err != nil {
		t.Fatal(err)
	}
	other, otherHead, err := docFreqs(ctx, notScorch{r}, terms)
	if err != nil {
		t.Fatal(err)
	}
	for i, term := range terms {
		for _, f := range []struct {
			field      string
			got, other uint64
		}{{FieldText, text[i], other[i]}, {FieldHead, head[i], otherHead[i]}} {
			tfr, err := r.TermFieldReader(ctx, []byte(term), f.field, false, false, false)
			if err != nil {
				t.Fatal(err)
			}
			want := tfr.Count()
			tfr.Close()
			if f.got != want || f.other != want {
				t.Errorf("%q in %s: docFreqs counts %d (through TermFieldReaders %d), a TermFieldReader %d", term, f.field, f.got, f.other, want)
			}
		}
	}
	if text[0] != 1 || head[1] != 1 || text[2] != 0 || head[2] != 0 || text[3] != 0 {
		t.Errorf("the words held once, a deleted passage's and none's: text %v, head %v", text[:4], head[:4])
	}
}

// TestPartialRunCache: a prepared bound keeps the run factor of each set
// of known terms a text holds in a slice (up to maxRunBits known terms),
// in a map (up to 64) or nowhere (more); on every path, bounding many
// passages in turn with one prepared bound gives each what the loops over
// every term and pair give it.
func TestPartialRunCache(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var words []string
	for i := range 90 {
		words = append(words, "word"+string(rune('a'+i/26))+string(rune('a'+i%26)))
	}
	x := indexed(t, []Passage{{ID: "all", Text: strings.Join(words, " ")}, {ID: "some", Text: strings.Join(words[:10], " ")}})
	for _, c := range []struct {
		n      int
		phrase bool // the first two words and the last two are phrases: required (at 90, 72 are known)
	}{{3, false}, {maxRunBits, false}, {maxRunBits + 1, false}, {64, false}, {65, false}, {70, false}, {8, true}, {70, true}, {90, true}} {
		n, text := c.n, strings.Join(words[:c.n], " ")
		if c.phrase {
			text = fmt.Sprintf("%q %s %q", strings.Join(words[:2], " "), strings.Join(words[2:n-2], " "), strings.Join(words[n-2:n], " "))
		}
		q, err := x.Prepare(context.Background(), text)
		if err != nil {
			t.Fatal(err)
		}
		if len(q.terms) != n || c.phrase != slices.Contains(q.required, true) {
			t.Fatalf("%q prepared as %d terms, required %v", text, len(q.terms), q.required)
		}
		known, free := make([]bool, n), make([]bool, n)
		for k := range n {
			known[k] = k%5 != 4
			free[k] = !known[k]
		}
		p := q.partial(known, free)
		for range 200 {
			st := stats{tf: make([]int32, n), hf: make([]int32, n), length: 200, hlength: 20}
			for k := range n {
				if known[k] && r.IntN(3) == 0 {
					st.tf[k] = int32(1 + r.IntN(3))
				}
			}
			if got, want := p.bound(&st), partialBoundLoops(q, &st, known, free); got != want {
				t.Fatalf("%d terms: a prepared bound gives %v, the loops %v", n, got, want)
			}
		}
	}
}

// withDeletions is an index of a random corpus (seeded by seed) with
// deleted passages, a second segment, and words found once (bleve's
// one-hit postings): "zebraword" in a text and "okapi" in a head, and
// "quagga", whose passage is deleted.
func withDeletions(t *testing.T, seed uint64) (*Index, []Passage) {
	t.Helper()
	ps := retrievalCorpus(rand.New(rand.NewPCG(seed, seed+1)), 300)
	x := indexed(t, ps)
	var gone []string
	for _, p := range ps[:40] {
		gone = append(gone, p.ID)
	}
	if err := x.Apply(gone, append(slices.Clone(ps[:20]), Passage{ID: "once", Text: "zebraword", Head: "okapi"}, Passage{ID: "twice", Text: "quagga", Head: "quagga"})); err != nil {
		t.Fatal(err)
	}
	if err := x.Apply([]string{"twice"}, nil); err != nil {
		t.Fatal(err)
	}
	return x, ps
}

// notScorch is an index reader that is not a scorch snapshot.
type notScorch struct{ index.IndexReader }

// TestTotal: the union of the query's postings as bitmaps (Total) counts
// what reading them side by side counts (countAll, the way when the index
// cannot unite them), and what the candidates at floor 0 and the passages
// with any query word excluded by none number.
func TestTotal(t *testing.T) {
	x, _ := withDeletions(t, 5)
	ctx := context.Background()
	for _, text := range []string{"front matter dates", "the", "taxonomy kube-scheduler", "nothing-here", "zebraword the", "quagga", "quagga zebraword"} {
		q, rt, cands := retrieved(t, x, text)
		total, err := rt.Total()
		if err != nil {
			t.Fatal(err)
		}
		var tfrs []index.TermFieldReader
		for _, term := range q.terms {
			for _, field := range []string{FieldText, FieldHead} {
				tfr, err := rt.r.TermFieldReader(ctx, []byte(term), field, false, false, false)
				if err != nil {
					t.Fatal(err)
				}
				tfrs = append(tfrs, tfr)
			}
		}
		side, err := countAll(tfrs)
		if err != nil {
			t.Fatal(err)
		}
		if side != total || uint64(len(cands)) != total {
			t.Errorf("%q: Total %d, side by side %d, candidates %d", text, total, side, len(cands))
		}
		if n, ok, err := countUnion(rt.r, q.textTerms(), q.terms); !ok || err != nil || n != side {
			t.Errorf("%q: the bitmaps' union counts %d (%v, %v), side by side %d", text, n, ok, err, side)
		}
		for _, tfr := range tfrs {
			tfr.Close()
		}
	}
}

// retrieved prepares text, opens its retrieval (closed when the test
// ends) and reads every candidate (floor 0).
func retrieved(t *testing.T, x *Index, text string) (*Query, *Retrieval, []Candidate) {
	t.Helper()
	ctx := context.Background()
	q, err := x.Prepare(ctx, text)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := x.Retrieve(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	cands, err := rt.Candidates(0)
	if err != nil {
		t.Fatal(err)
	}
	return q, rt, cands
}

// partialBoundLoops is partialBound as it was first written, a loop over
// every term and every pair for each passage: partial.bound must give
// the same float, bit for bit.
func partialBoundLoops(q *Query, st *stats, known, free []bool) float64 {
	p := q.partial(known, free)
	n := len(q.terms)
	if n == 0 {
		return 0
	}
	isKnown := func(k int) bool { return known != nil && known[k] }
	in := func(k int) bool { return free[k] || isKnown(k) && st.tf[k] > 0 }
	var exact, hexact float64
	var counted, hcounted, terms, hterms int
	for k := range n {
		switch {
		case free[k]:
			terms++
			hterms++
			continue
		case !in(k) && q.required[k]:
			return 0
		case !isKnown(k):
			continue
		}
		idf2 := q.idf[k] * q.idf[k]
		if tf := st.tf[k]; tf > 0 {
			if st.ff == nil {
				exact += math.Sqrt(float64(tf)) * idf2
			} else {
				exact += q.textWeight(k, tf, st.ff[k])
			}
			counted += int(tf)
			terms++
		}
		if hf := st.hf[k]; hf > 0 {
			hexact += math.Sqrt(float64(hf)) * idf2
			hcounted += int(hf)
			hterms++
		}
	}
	pairs := 0
	for _, pr := range q.pairs {
		if !in(pr.a) || !in(pr.b) {
			continue
		}
		pairs++
		var c int32
		switch {
		case free[pr.a] && free[pr.b]:
			continue
		case free[pr.a]:
			c = st.tf[pr.b]
		case free[pr.b]:
			c = st.tf[pr.a]
		default:
			c = min(st.tf[pr.a], st.tf[pr.b])
		}
		exact += math.Sqrt(float64(c)) * pr.idf * pr.idf
	}
	var s float64
	if terms > 0 {
		s = normBound(exact, counted, p.norm, st.length, q.textCat) * float64(terms+pairs) / float64(q.termCount()+q.pairCount()) * q.runFactor(q.runBound(in))
	}
	if hterms > 0 {
		s += normBound(hexact, hcounted, p.hnorm, st.hlength, q.headCat) * float64(hterms) / float64(q.termCount())
	}
	return s
}

// TestCompactedScoresAsBefore: a query's words that no passage holds are
// dropped from its terms (compacted), and every passage scores as it did
// with them, to the bit, through the text and through the index; the
// terms a reading counts for each passage are the others only.
func TestCompactedScoresAsBefore(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ps := retrievalCorpus(r, 200)
	x := indexed(t, ps)
	ctx := context.Background()
	for _, text := range []string{"front matterx dates", "zzz front matter dates qqq", "template menux menu page",
		"alphax betax front", `"front matter" datesx`, "menu -taxonomy retryx", "baseurl zzz"} {
		q, rt, cands := retrieved(t, x, text)
		reader := func() (index.IndexReader, error) { return x.idx.Reader() }
		syn, err := parseSyntax(ctx, text, reader)
		if err != nil {
			t.Fatal(err)
		}
		full, err := x.prepareSyntax(ctx, syn, reader)
		if err != nil {
			t.Fatal(err)
		}
		if q.absentTerms == 0 || len(q.terms)+q.absentTerms != len(full.terms) {
			t.Errorf("%q: %d terms and %d absent, of %d", text, len(q.terms), q.absentTerms, len(full.terms))
		}
		for _, p := range ps {
			if got, want := x.ScorePassage(q, p), x.ScorePassage(full, p); got != want {
				t.Errorf("%q: %s scores %v compacted, %v not", text, p.ID, got, want)
			}
		}
		for i := range cands {
			id, err := rt.ID(&cands[i])
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				if p.ID == id && !near(rt.Score(&cands[i], p.Text), x.ScorePassage(full, p)) {
					t.Errorf("%q: %s scores %v by the index, %v by the full query's text", text, id, rt.Score(&cands[i], p.Text), x.ScorePassage(full, p))
				}
			}
		}
	}
}

// TestChunks: a reading hands its candidates over in chunks of at most
// chunk() (here 7), and the chunks, in order, are what one reading of
// them all gives — the pilot's, each stage's at a floor, and every
// candidate's.
func TestChunks(t *testing.T) {
	x := indexed(t, retrievalCorpus(rand.New(rand.NewPCG(9, 10)), 300))
	read := func(text string) (pilot []Candidate, stages [][]Candidate, all []Candidate, sizes []int) {
		_, rt, _ := retrieved(t, x, text)
		each := func(out *[]Candidate) func([]Candidate) error {
			return func(c []Candidate) error {
				sizes = append(sizes, len(c))
				*out = append(*out, c...)
				return nil
			}
		}
		if err := rt.Pilot(each(&pilot)); err != nil {
			t.Fatal(err)
		}
		for i := range rt.Stages() {
			var cands []Candidate
			if err := rt.Stage(i, 0.5, each(&cands)); err != nil {
				t.Fatal(err)
			}
			stages = append(stages, cands)
		}
		var err error
		if all, err = rt.Candidates(0); err != nil {
			t.Fatal(err)
		}
		return pilot, stages, all, sizes
	}
	chunked := 0
	for _, text := range []string{"the a of page menu", "taxonomy template bundle archives", "front matter -dates page"} {
		pilot, stages, all, _ := read(text)
		chunkMost = 7
		cPilot, cStages, cAll, sizes := read(text)
		chunkMost = 0
		for _, n := range sizes {
			if n > 7 || n == 0 {
				t.Errorf("%q: a chunk of %d candidates, want 1 to 7", text, n)
			}
		}
		chunked += len(sizes)
		same := func(what string, a, b []Candidate) {
			if len(a) != len(b) {
				t.Errorf("%q %s: %d candidates in chunks, %d in one", text, what, len(b), len(a))
				return
			}
			for i := range a {
				if a[i].num != b[i].num || a[i].Bound != b[i].Bound || !slices.Equal(a[i].st.tf, b[i].st.tf) || !slices.Equal(a[i].st.hf, b[i].st.hf) {
					t.Errorf("%q %s: candidate %d is %d (bound %v) in chunks, %d (bound %v) in one", text, what, i, b[i].num, b[i].Bound, a[i].num, a[i].Bound)
					return
				}
			}
		}
		same("pilot", pilot, cPilot)
		for i := range stages {
			same(fmt.Sprintf("stage %d", i), stages[i], cStages[i])
		}
		same("every candidate", all, cAll)
	}
	if chunked < 10 {
		t.Errorf("%d chunks in all: the readings were too small to be cut", chunked)
	}
}
