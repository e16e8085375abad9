package fulltext

import (
	"math"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
)

// The score of a passage for a query (docs/ranking.md, "Scoring a
// passage") is its text's part and its head's (headScore). The text's,
// over its terms t and the query's pairs j of adjacent terms:
//
//	text = (Σ_t √tf_t · idf_t² + Σ_j √ptf_j · pidf_j²) / √length
//	       × (m / (|terms| + |pairs|))      the share of terms and pairs it has
//	       × (1 + r/n) / 2                  r: the longest in-order run of the query's n positions
//
// tf_t is how often the text holds term t and length how many terms it
// holds in all (both as the index counts them); ptf_j is how often the
// text has pair j's words adjacent, in order, as a reader reads them
// (order.go), each occurrence of a word in at most one (walkInto); pidf_j is the idf of the rarer of the pair's words, the
// least rare the pair can be (see Prepare). A passage that lacks a
// phrase's run, or holds an excluded word or phrase, scores 0.
//
// Everything but ptf and r is in the index, so a passage's score is bounded
// before its text is read (Query.bound), and a search reads the text of
// only the passages whose bound can still reach its k-th best score
// (retrieve.go).
func (q *Query) score(st *stats, pairTF []int32, run int) float64 {
	return q.textScore(st.tf, st.ff, pairTF, st.length, run) + q.headScore(st.hf, st.hff, st.hlength)
}

// stats is what the index counts of a passage for a query: how often its
// text holds each query term in any of its forms (tf) and as typed (ff;
// nil when the query has no other forms: then it is tf), and how many
// terms it holds in all; the same of its head, as typed.
type stats struct {
	tf      []int32
	ff      []int32
	length  int
	hf      []int32
	hff     []int32 // hf as typed, when a word has a catenation in heads (else nil: as hf)
	hlength int
}

// textWeight is term k's part of a text's numerator, from how often the
// text holds it in any form (tf) and as typed (ff): as typed where the
// text writes it so (√ff · idf²), else as the word in any form (√tf ·
// gidf²; gidf ≤ idf, a word in any form being at least as common as
// typed). A rare word typed in a form of its own ("useful") weighs as
// that form where the text writes it, and as its commoner stem ("use")
// only where the text writes other forms alone. It is at most √tf · idf²,
// which the bounds rest on.
func (q *Query) textWeight(k int, tf, ff int32) float64 {
	switch {
	case ff > 0:
		return math.Sqrt(float64(ff)) * q.idf[k] * q.idf[k]
	case tf > 0:
		return math.Sqrt(float64(tf)) * q.gidf[k] * q.gidf[k]
	}
	return 0
}

// headScore is the head's part of the score: the head (where the passage
// sits: its document's title and path and the headings above it) scored
// as a passage of its own, without word order:
//
//	(Σ_t √hf_t · idf_t²) / √hlength × (the share of the query's terms it holds)
//
// A section whose headings say what the query asks about scores as a
// short passage that says it, whatever the length of its text. A word
// whose catenation heads hold (see Catenations) counts in either form,
// weighed as textWeight weighs a word's forms: as typed where the head
// writes it so (hff, the typed counts; nil when no word has a
// catenation in heads), else as the word in any form (both at most
// √hf · idf², which the bounds take).
func (q *Query) headScore(hf, hff []int32, hlength int) float64 {
	if hlength <= 0 {
		return 0
	}
	sum, matched := q.weighForms(hf, hff)
	if matched == 0 {
		return 0
	}
	return sum / math.Sqrt(float64(hlength)) * float64(matched) / float64(q.termCount())
}

// weighForms sums each query term's weight by its counts in any form and
// as typed (nil: no other forms; see textWeight), and counts the terms
// held: the numerator of a field's score, before pairs.
func (q *Query) weighForms(counts, typed []int32) (sum float64, matched int) {
	if typed == nil {
		return weigh(counts, func(k int) float64 { return q.idf[k] })
	}
	for k, n := range counts {
		if n > 0 {
			sum += q.textWeight(k, n, typed[k])
			matched++
		}
	}
	return sum, matched
}

// weigh sums √n · w(k)² over the counts n above 0, and counts them.
func weigh(counts []int32, w func(k int) float64) (sum float64, matched int) {
	for k, n := range counts {
		if n > 0 {
			wk := w(k)
			sum += math.Sqrt(float64(n)) * wk * wk
			matched++
		}
	}
	return sum, matched
}

// textScore is the text's part of the score (see score): tf counts the
// query's terms in any form, ff as typed (nil: as tf; see textWeight). A
// text that holds a word of the query has a run of at least 1, in
// whatever form.
func (q *Query) textScore(tf, ff, pairTF []int32, length, run int) float64 {
	if length <= 0 {
		return 0
	}
	sum, matched := q.weighForms(tf, ff)
	if ff != nil && matched > 0 && run < 1 {
		run = 1 // only other forms: no run of the words as typed
	}
	psum, pmatched := weigh(pairTF, func(j int) float64 { return q.pairs[j].idf })
	sum, matched = sum+psum, matched+pmatched
	if matched == 0 {
		return 0
	}
	all := q.termCount() + q.pairCount()
	s := sum / math.Sqrt(float64(length)) * float64(matched) / float64(all)
	return s * q.runFactor(run)
}

// runFactor is the run factor (1 + r/n) / 2: n is the query's words
// (positions) and r the longest run of them the text has in the query's
// order. Pairs see two words at a time; a run sees the whole query, which
// tells apart two pages that share most of a sentence. Words found in no
// order score half what they score in the query's order: order weighs as
// much as the words it orders, never more. A query of one word, or a text
// with none of its words, is not changed.
func (q *Query) runFactor(run int) float64 {
	if q.span <= 1 || run <= 0 {
		return 1
	}
	return (1 + float64(run)/float64(q.span)) / 2
}

// bound is the highest score a passage can have that holds the query's
// terms tf times and length terms in all, whatever its word order: each
// pair whose two words it holds, as often as the rarer of them (a pair is
// counted at most once for each occurrence of either word: see walkInto),
// and the longest run of consecutive query positions whose words it holds.
// The score grows with each of these, so no order of the words scores
// more.
// A passage that lacks a required term bounds at 0.
func (q *Query) bound(st *stats) float64 {
	tf := st.tf
	for k, n := range tf {
		if n == 0 && q.required[k] {
			return 0
		}
	}
	var ptf [64]int32
	pairTF := ptf[:0]
	if len(q.pairs) > len(ptf) {
		pairTF = make([]int32, 0, len(q.pairs))
	}
	for _, p := range q.pairs {
		pairTF = append(pairTF, min(tf[p.a], tf[p.b]))
	}
	return q.score(st, pairTF, q.runBound(func(k int) bool { return tf[k] > 0 }))
}

// runBound is the longest run of consecutive query positions whose terms
// hold(term) says a passage holds.
func (q *Query) runBound(hold func(term int) bool) int {
	var at [64]bool
	held := at[:0]
	n := q.extent()
	if n > len(at) {
		held = make([]bool, 0, n)
	}
	held = held[:n]
	clear(held)
	for k, ps := range q.at {
		if hold(k) {
			for _, p := range ps {
				held[p] = true
			}
		}
	}
	best, cur := 0, 0
	for _, h := range held {
		if h {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// exact reports whether a passage that holds the query's terms tf times
// scores its bound: no pair can be in it (no two words of a pair are) and
// no run longer than one, so its text can change nothing, and no phrase or
// excluded phrase needs its text either.
func (q *Query) exact(tf []int32) bool {
	if len(q.phrases) > 0 || len(q.notRuns) > 0 {
		return false
	}
	for _, p := range q.pairs {
		if tf[p.a] > 0 && tf[p.b] > 0 {
			return false
		}
	}
	return q.runBound(func(k int) bool { return tf[k] > 0 }) <= 1
}

// setBound bounds the score of every passage that holds only terms of the
// set in (by term), whatever their counts and its length (partialBound
// with nothing known). A set without every required term bounds at 0.
func (q *Query) setBound(in []bool) float64 {
	return q.partialBound(&stats{}, nil, in)
}

// partialBound bounds the score of every passage that holds the terms
// known says as st counts them (a count of 0 is 0), and of the other
// terms only those free says, whatever their counts. st's lengths are the
// passage's when a known term is in that field (0: not known). A reading
// that bounds many passages with the same known and free terms prepares
// it once (Query.partial).
//
// With S the terms a field may hold (the known it holds, and the free),
// the text's numerator is Σ_S √tf_t · idf_t² plus Σ √ptf_j · pidf_j² over
// the pairs within S, and a pair occurs at most min(a,b) times (see
// bound). A known term's part is exact, and so is a pair's with a known
// word (at most √tf of the known, or of the rarer of two known). The
// rest is the free terms' and the pairs of two free terms: with
// u_t = idf_t² + Σ pidf²/2 over t's pairs with another free term, at
// most Σ_free √tf_t · u_t (√min(a,b) ≤ (√a+√b)/2), which is at most
// √(Σ tf_free) · ‖u‖ (Cauchy–Schwarz), and Σ tf_free is at most the
// length less the known terms' counts (or, the length unknown, the
// division by √length cancels it). The share of terms and pairs and the
// run are at most what S allows. The head's part is bounded alike,
// without pairs or run. A passage without a required term in its text
// bounds at 0.
func (q *Query) partialBound(st *stats, known, free []bool) float64 {
	return q.partial(known, free).bound(st)
}

// partial is partialBound for one reading, whose known and free terms are
// fixed: what depends on the free terms alone (their weights' norms) is
// worked out once, and the run factor S allows once for each set of known
// terms a passage's text holds.
type partial struct {
	q           *Query
	known, free []bool  // known may be nil: nothing known
	norm, hnorm float64 // ‖u‖ and ‖v‖ of the free terms (see partialBound)
	// The run factor, by the known terms the text holds (bit i: the i-th
	// of knownTerms): in runs when there are at most maxRunBits of them
	// (0: not yet worked out; a run factor is at least 1/2), else in run
	// when at most 64; with more, worked out each time.
	runs []float64
	run  map[uint64]float64
	// What bound reads of the query for every passage, worked out once:
	// the known terms (in order) and their idf², whether a required term
	// is neither known nor free (every passage then bounds at 0), the free
	// terms, the pairs of two free terms, and the other pairs whose words
	// are each known or free (in order).
	knownTerms []int
	idf2       []float64 // by term
	zero       bool
	nfree      int
	freePairs  int
	somePairs  []somePair
	// required says a known term is required (a phrase's): by bit i of
	// knownTerms when there are at most 64 of them, else each term's
	// q.required is asked (requiredEach).
	required     uint64
	requiredEach bool
}

// somePair is a pair whose words are each known or free, one at least
// known: the pair's count in a passage is at most min(tf[a], tf[b]), a
// and b its known words (one of them twice when the other is free).
type somePair struct {
	a, b int
	idf  float64
}

// partial prepares partialBound for passages of which the known terms are
// counted and the free terms may be held.
func (q *Query) partial(known, free []bool) *partial {
	p := &partial{q: q, known: known, free: free}
	u := make([]float64, len(q.terms))
	for k, f := range free {
		if f {
			u[k] = q.idf[k] * q.idf[k]
			p.hnorm += u[k] * u[k]
		}
	}
	for _, pr := range q.pairs {
		if free[pr.a] && free[pr.b] {
			w := pr.idf * pr.idf / 2
			u[pr.a] += w
			u[pr.b] += w
		}
	}
	for _, w := range u {
		p.norm += w * w
	}
	p.norm, p.hnorm = math.Sqrt(p.norm), math.Sqrt(p.hnorm)

	isKnown := func(k int) bool { return known != nil && known[k] && !free[k] }
	p.idf2 = make([]float64, len(q.terms))
	for k := range q.terms {
		p.idf2[k] = q.idf[k] * q.idf[k]
		switch {
		case free[k]:
			p.nfree++
		case isKnown(k):
			p.knownTerms = append(p.knownTerms, k)
		case q.required[k]:
			p.zero = true
		}
	}
	for i, k := range p.knownTerms {
		switch {
		case !q.required[k]:
		case len(p.knownTerms) <= 64:
			p.required |= 1 << i
		default:
			p.requiredEach = true // bound's mask of what a text holds wraps
		}
	}
	for _, pr := range q.pairs {
		inA, inB := free[pr.a] || isKnown(pr.a), free[pr.b] || isKnown(pr.b)
		switch {
		case !inA || !inB:
		case free[pr.a] && free[pr.b]:
			p.freePairs++
		case free[pr.a]:
			p.somePairs = append(p.somePairs, somePair{pr.b, pr.b, pr.idf})
		case free[pr.b]:
			p.somePairs = append(p.somePairs, somePair{pr.a, pr.a, pr.idf})
		default:
			p.somePairs = append(p.somePairs, somePair{pr.a, pr.b, pr.idf})
		}
	}
	return p
}

// bound is q.partialBound(st, p.known, p.free). It adds up what the loops
// over every term and pair would, in the same order (the same sums, to
// the bit), from the lists partial made.
func (p *partial) bound(st *stats) float64 {
	q := p.q
	n := len(q.terms)
	if n == 0 || p.zero {
		return 0
	}
	var mask uint64 // the known terms the text holds
	var exact, hexact float64
	var counted, hcounted int
	terms, hterms := p.nfree, p.nfree
	requiredEach := p.requiredEach
	for i, k := range p.knownTerms {
		tf := st.tf[k]
		if tf == 0 && requiredEach && q.required[k] {
			return 0
		}
		idf2 := p.idf2[k]
		if tf > 0 {
			mask |= 1 << (i % 64)
			exact += math.Sqrt(float64(tf)) * idf2
			counted += int(tf)
			terms++
		}
		if hf := st.hf[k]; hf > 0 {
			hexact += math.Sqrt(float64(hf)) * idf2
			hcounted += int(hf)
			hterms++
		}
	}
	if p.required&^mask != 0 {
		return 0 // a required known term it does not hold
	}
	if st.ff != nil {
		exact = p.knownWeights(st) // a word's forms weigh as textWeight says
	}
	pairs := p.freePairs
	for _, pr := range p.somePairs {
		c := min(st.tf[pr.a], st.tf[pr.b])
		if c == 0 {
			continue // a known word it does not hold: the pair is not in S
		}
		pairs++
		exact += math.Sqrt(float64(c)) * pr.idf * pr.idf // as weigh multiplies, to the bit
	}
	var s float64
	if terms > 0 {
		run := p.runFactor(st, mask)
		s = normBound(exact, counted, p.norm, st.length, q.textCat) * float64(terms+pairs) / float64(q.termCount()+q.pairCount()) * run
	}
	if hterms > 0 {
		s += normBound(hexact, hcounted, p.hnorm, st.hlength, q.headCat) * float64(hterms) / float64(q.termCount())
	}
	return s
}

// knownWeights is the known terms' part of a text's numerator when the
// query has other forms (stats.ff): each term's textWeight, summed in the
// order bound sums √tf · idf² without them.
func (p *partial) knownWeights(st *stats) float64 {
	var exact float64
	for _, k := range p.knownTerms {
		if tf := st.tf[k]; tf > 0 {
			exact += p.q.textWeight(k, tf, st.ff[k])
		}
	}
	return exact
}

// maxRunBits is the most known terms whose run factors a partial keeps in
// a slice, one for each set of them (2 KB at 8).
const maxRunBits = 8

// runFactor is the run factor that S allows a passage whose text holds
// the known terms mask says (bit i: the i-th of knownTerms), worked out
// once for each such set.
func (p *partial) runFactor(st *stats, mask uint64) float64 {
	q := p.q
	nk := len(p.knownTerms)
	if nk <= maxRunBits {
		if p.runs == nil {
			p.runs = make([]float64, 1<<nk)
		}
		if r := p.runs[mask]; r != 0 {
			return r
		}
	} else if nk <= 64 {
		if r, ok := p.run[mask]; ok {
			return r
		}
	}
	in := func(k int) bool { return p.free[k] || p.known != nil && p.known[k] && st.tf[k] > 0 } // S, in the text
	r := q.runFactor(q.runBound(in))
	switch {
	case nk <= maxRunBits:
		p.runs[mask] = r
	case nk <= 64:
		if p.run == nil {
			p.run = map[uint64]float64{}
		}
		p.run[mask] = r
	}
	return r
}

// normBound is partialBound's bound of one field's numerator over
// √length: the exact part, plus √(room − counted) · norm (the free
// terms' weights' norm), over √length, where room is the most terms the
// field can hold: its length, and, when the query's words have
// catenations there (cat), half as many again (catenations are outside
// the length, and each spans two terms or more: see Catenations). With
// the length unknown (0, and then nothing is counted): norm, or
// √(3/2) · norm.
func normBound(exact float64, counted int, norm float64, length int, cat bool) float64 {
	if length <= 0 {
		if cat {
			return norm * math.Sqrt(1.5)
		}
		return norm
	}
	room := length
	if cat {
		room += length / 2
	}
	return (exact + math.Sqrt(float64(max(room-counted, 0)))*norm) / math.Sqrt(float64(length))
}

// Rescore scores a passage's text for q, without a head (see
// ScorePassage).
func (x *Index) Rescore(q *Query, text string) float64 {
	return x.ScorePassage(q, Passage{Text: text})
}

// ScorePassage scores a passage for q, text and head, every count read
// from them (see score): the reference the index-assisted path
// (Retrieval.Score) must equal.
func (x *Index) ScorePassage(q *Query, p Passage) float64 {
	return x.scorePassage(nil, q, p)
}

// Scorer scores passages as ScorePassage does, in memory it reuses from
// one passage to the next (see scratch): for a reader that scores many,
// one at a time.
type Scorer struct {
	x *Index
	s scratch
}

// Scorer returns a Scorer of passages for x's queries.
func (x *Index) Scorer() *Scorer { return &Scorer{x: x} }

// Score is x.ScorePassage(q, p).
func (sc *Scorer) Score(q *Query, p Passage) float64 {
	sc.s.reset()
	return sc.x.scorePassage(&sc.s, q, p)
}

// ScoreEach sets out[i] to x.ScorePassage(qs[i], p), analyzing p once.
func (sc *Scorer) ScoreEach(qs []*Query, p Passage, out []float64) {
	sc.s.reset()
	sc.x.scoreEach(&sc.s, qs, p, out)
}

// scorePassage is ScorePassage with s's memory (s may be nil).
func (x *Index) scorePassage(s *scratch, q *Query, p Passage) float64 {
	var out [1]float64
	x.scoreEach(s, []*Query{q}, p, out[:])
	return out[0]
}

// scoreEach sets out[i] to p's score for qs[i] (see score), analyzing its
// head and its text at most once for all of them, in s's memory (s may be
// nil).
func (x *Index) scoreEach(s *scratch, qs []*Query, p Passage, out []float64) {
	var htoks, toks analysis.TokenStream
	var skip []bool
	var o order
	headRead, textRead := false, false
	for i, q := range qs {
		out[i] = 0
		if len(q.terms) == 0 {
			continue
		}
		st := &stats{}
		if p.Head != "" && q.mayHoldText(p.Head) {
			if !headRead {
				htoks, headRead = x.analyzeInto(s, p.Head), true
			}
			st.hf, st.hlength = q.counts(htoks), len(htoks)
			if q.headCat {
				st.hff = slices.Clone(st.hf)
				x.fast.eachCatenationTerm(p.Head, htoks, func(t string) {
					if k, ok := q.index[t[1:]]; ok && q.hcat[k] {
						st.hf[k]++
					}
				})
			}
		}
		if q.cannotHold(p.Text) {
			// Its text adds nothing, and takes nothing away: the head's
			// part is its score.
			out[i] = q.headScore(st.hf, st.hff, st.hlength)
			continue
		}
		if !textRead {
			toks = x.analyzeInto(s, p.Text)
			skip = layout(p.Text, toks)
			if s != nil {
				s.order = newOrderInto(s.order, toks, skip)
				o = s.order
			} else {
				o = newOrder(toks, skip)
			}
			textRead = true
		}
		out[i] = q.scoreText(x.fast, s, st, p.Text, toks, skip, o)
	}
}

// scoreText is q's score of a passage whose text is text, its terms toks
// (with its layout skip and order o), and whose head's counts st holds;
// an finds its catenations (see Catenations).
func (q *Query) scoreText(an *fastAnalyzer, s *scratch, st *stats, text string, toks analysis.TokenStream, skip []bool, o order) float64 {
	f := q.walkInto(s, toks, o)
	for _, t := range toks {
		for _, n := range q.not {
			if string(t.Term) == n {
				return 0
			}
		}
	}
	// The catenations that are forms of the query's words (counted
	// below), or that it excludes.
	var catForms []int
	excluded := false
	if q.textCat || len(q.not) > 0 {
		an.eachCatenationTerm(text, toks, func(t string) {
			if k, ok := q.formIndex[t]; ok {
				catForms = append(catForms, k)
			}
			excluded = excluded || slices.Contains(q.not, t[1:])
		})
	}
	if excluded || !q.runsPass(toks, skip) {
		return 0
	}
	for k, n := range f.tf {
		if n == 0 && q.required[k] {
			return 0
		}
	}
	st.tf, st.ff, st.length = f.tf, nil, len(toks)
	if q.formIndex != nil {
		// The other forms count as the word (walkInto counted the
		// words as typed).
		st.ff, st.tf = f.tf, slices.Clone(f.tf)
		for _, t := range toks {
			if !q.tokenForms {
				break // the forms are catenations alone, which no term is
			}
			if k, ok := q.formIndex[string(t.Term)]; ok {
				st.tf[k]++
			}
		}
		for _, k := range catForms {
			st.tf[k]++
		}
	}
	return q.score(st, f.pairTF, f.run)
}

// cannotHold reports whether text, with no word of the query in it, is
// sure to add nothing to a passage's score and take nothing away: the
// query has no required word (a text without one scores 0) and excludes
// nothing, and text is ASCII that holds none of the query's probes (see
// mayHold), so that no analysis of it could find a query term. Analyzing
// such a text is work thrown away.
func (q *Query) cannotHold(text string) bool {
	if len(q.not) > 0 || len(q.notRuns) > 0 || slices.Contains(q.required, true) {
		return false
	}
	return !q.mayHoldText(text)
}

// counts is how often toks holds each query term.
func (q *Query) counts(toks analysis.TokenStream) []int32 {
	out := make([]int32, len(q.terms))
	for _, t := range toks {
		if k, ok := q.index[string(t.Term)]; ok {
			out[k]++
		}
	}
	return out
}

// features is what a walk of a text counts for a query.
type features struct {
	tf     []int32 // by query term
	pairTF []int32 // by query pair
	run    int     // the longest run of query positions in order
}

// walk counts q's terms, pairs and longest in-order run in toks, read in
// the order o (see layout).
func (q *Query) walk(toks analysis.TokenStream, o order) features {
	return q.walkInto(nil, toks, o)
}

// walkInto is walk with s's buffers (s may be nil).
//
// A pair j = (a, b) is counted where a reader reads a then b (the next
// word, or the first word past markup: order.go), each occurrence of a and
// each occurrence of b in at most one: ptf_j is the smaller of the number
// of a's followed by a b and the number of b's preceded by an a. So ptf_j
// is at most min(tf_a, tf_b), which the bounds rest on: a word repeated in
// markup a reader skips ("`menu menu menu` page") reads into the same
// word after it from each of its occurrences, and is one pair, not three.
func (q *Query) walkInto(s *scratch, toks analysis.TokenStream, o order) features {
	f := features{tf: make([]int32, len(q.terms)), pairTF: make([]int32, len(q.pairs))}
	if len(q.terms) == 0 || len(toks) == 0 {
		return f
	}
	var at []int // toks[i] is q.terms[at[i]-1]; 0: no query term
	if s != nil {
		s.at = slices.Grow(s.at[:0], len(toks))[:len(toks)]
		at = s.at
		clear(at)
	} else {
		at = make([]int, len(toks))
	}
	found := false
	for i, t := range toks {
		if k, ok := q.index[string(t.Term)]; ok {
			f.tf[k]++
			at[i] = k + 1
			found = true
		}
	}
	if !found {
		return f
	}
	rs := newRuns(s, q)
	pc := newPairCount(s, len(q.pairs), len(toks))
	for g, grp := range o {
		rs.enter(int32(g))
		reads := [2]int32{grp.next, grp.pastAt}
		for i := grp.from; i < grp.to; i++ {
			a := at[i]
			if a == 0 {
				continue
			}
			for _, qp := range q.at[a-1] {
				r := max(1, rs.here[qp])
				f.run = max(f.run, int(r))
				for _, n := range reads {
					if n >= 0 {
						rs.ahead = append(rs.ahead, reach{n, int32(qp) + 1, r + 1})
					}
				}
			}
			// Pairs: this query term, and a query term in a group a reader
			// reads next.
			if len(q.pairs) == 0 {
				continue
			}
			for _, n := range reads {
				if n < 0 {
					continue
				}
				for j := o[n].from; j < o[n].to; j++ {
					b := at[j]
					if b == 0 {
						continue
					}
					for k, pr := range q.pairs {
						if pr.a == a-1 && pr.b == b-1 {
							pc.add(k, i, j)
						}
					}
				}
			}
		}
	}
	pc.counts(f.pairTF)
	return f
}

// runs is what walkInto knows of the runs of query words in the query's
// order while it reads a text's groups: the runs that reach a later group
// (ahead: the group, the query position it must hold, and the run's length
// with it), and, for the group being read, the longest run that reaches it
// by the query position it needs (here; touched: the positions set).
//
// A run reaches only groups after the one it was made in (a group's next
// and pastAt are later groups), so the runs that reach a group are all
// known when it is read, and are gathered then: each of the group's words
// finds its run at once, however many positions a query repeats its words
// at ("a a a …" 2,000 times made every word of a text look through every
// run, cubic in the query).
type runs struct {
	ahead   []reach
	here    []int32
	touched []int32
}

type reach struct{ g, qp, r int32 }

// newRuns is runs for q, in s's memory (s may be nil).
func newRuns(s *scratch, q *Query) runs {
	positions := 0 // past the last query position a run can need (a query
	// without some words, Without's, keeps the positions of the others)
	for _, ps := range q.at {
		for _, p := range ps {
			positions = max(positions, p+2)
		}
	}
	if s == nil {
		return runs{here: make([]int32, positions)}
	}
	s.here = slices.Grow(s.here[:0], positions)[:positions]
	clear(s.here)
	return runs{here: s.here}
}

// enter gathers the runs that reach group g, and drops those that reach
// only groups before it.
func (rs *runs) enter(g int32) {
	for _, qp := range rs.touched {
		rs.here[qp] = 0
	}
	rs.touched = rs.touched[:0]
	kept := rs.ahead[:0]
	for _, e := range rs.ahead {
		switch {
		case e.g == g:
			if rs.here[e.qp] == 0 {
				rs.touched = append(rs.touched, e.qp)
			}
			rs.here[e.qp] = max(rs.here[e.qp], e.r)
		case e.g > g:
			kept = append(kept, e)
		}
	}
	rs.ahead = kept
}

// pairCount counts a text's pairs for walkInto: each occurrence of a
// pair's first word, and each of its second word, in at most one.
type pairCount struct {
	lastA []int32  // by pair: 1 + the token of the last first word counted
	as    []int32  // by pair: the first words counted
	bs    []int32  // by pair: the second words counted
	seenB []uint64 // a bit per token and pair: a second word counted
	words int      // uint64s a token has in seenB
}

// newPairCount is a pairCount of np pairs over ntoks tokens, in s's
// memory (s may be nil).
func newPairCount(s *scratch, np, ntoks int) pairCount {
	if np == 0 {
		return pairCount{}
	}
	words := (np + 63) / 64
	if s == nil {
		return pairCount{lastA: make([]int32, np), as: make([]int32, np), bs: make([]int32, np), seenB: make([]uint64, ntoks*words), words: words}
	}
	s.pairs = slices.Grow(s.pairs[:0], 3*np)[:3*np]
	s.seen = slices.Grow(s.seen[:0], ntoks*words)[:ntoks*words]
	clear(s.pairs)
	clear(s.seen)
	return pairCount{lastA: s.pairs[:np], as: s.pairs[np : 2*np], bs: s.pairs[2*np:], seenB: s.seen, words: words}
}

// add counts pair k read from token i (its first word) to token j (its
// second).
func (c *pairCount) add(k int, i, j int32) {
	if c.lastA[k] != i+1 {
		c.lastA[k] = i + 1
		c.as[k]++
	}
	if w, bit := int(j)*c.words+k/64, uint64(1)<<(k%64); c.seenB[w]&bit == 0 {
		c.seenB[w] |= bit
		c.bs[k]++
	}
}

// counts sets each pair's count: the smaller of its first words followed
// by a second and its second words preceded by a first.
func (c *pairCount) counts(pairTF []int32) {
	for k := range pairTF {
		pairTF[k] = min(c.as[k], c.bs[k])
	}
}

// runsPass reports whether toks has each of the query's phrases as a run
// and none of its excluded phrases.
func (q *Query) runsPass(toks analysis.TokenStream, skip []bool) bool {
	if len(q.phrases) == 0 && len(q.notRuns) == 0 {
		return true
	}
	o := newOrder(toks, skip)
	for _, ph := range q.phrases {
		if ph.walk(toks, o).run < ph.span {
			return false
		}
	}
	for _, nr := range q.notRuns {
		if nr.walk(toks, o).run >= nr.span {
			return false
		}
	}
	return true
}

// RescoreParagraphs: a text longer than this many bytes is read by
// paragraphs when the index has counted its terms (Retrieval.Score): a
// paragraph that holds none of the query's words (nor of its excluded
// phrases) and has a word a reader cannot read past is not analyzed. Such
// a paragraph holds no pair, run or phrase of the query's, and its plain
// word keeps the paragraphs before and after it from being adjacent: the
// pairs and runs of the rest are the whole text's.
const RescoreParagraphs = 2048

// pairable returns the analyzed tokens of text, with its layout, leaving
// out the paragraphs that cannot change a pair, run or phrase of q's (see
// RescoreParagraphs); positions are the whole text's wherever a pair or a
// run could tell.
func (x *Index) pairable(q *Query, text string, s *scratch) (analysis.TokenStream, []bool) {
	if len(text) <= RescoreParagraphs {
		toks := x.analyzeInto(s, text)
		return toks, layout(text, toks)
	}
	// What the whole text's analysis reads, and no more (see MaxTextBytes).
	text = cutText(text)
	var out analysis.TokenStream
	var skip []bool
	base := 1    // the position the next analyzed paragraph's first word has
	gap := false // a paragraph was left out since the last analyzed one
	for text != "" {
		para, rest := cutParagraph(text)
		text = rest
		if !q.mayHoldText(para) && hasPlainWord(para) {
			gap = true
			continue
		}
		if gap {
			base += 2 // never adjacent to what came before
			gap = false
		}
		toks := x.analyzeInto(s, para)
		if len(toks) == 0 {
			base += fenceCount(para)
			continue
		}
		first, last := toks[0].Position, toks[len(toks)-1].Position
		sk := layout(para, toks)
		trailing := fenceCount(para) - (toks[len(toks)-1].Position - last)
		delta := base - first
		for _, t := range toks {
			t.Position += delta
		}
		if sk != nil && skip == nil {
			skip = make([]bool, len(out), len(out)+len(sk))
		}
		if skip != nil {
			if sk == nil {
				sk = make([]bool, len(toks))
			}
			skip = append(skip, sk...)
		}
		out = append(out, toks...)
		base = toks[len(toks)-1].Position + 1 + trailing
	}
	return out, skip
}

// cutParagraph cuts text at its first blank line (a line of nothing but
// spaces, tabs and carriage returns): the paragraph before it, and the
// text after it.
func cutParagraph(text string) (para, rest string) {
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		start := i + j + 1 // the next line
		end := start
		for end < len(text) && (text[end] == ' ' || text[end] == '\t' || text[end] == '\r') {
			end++
		}
		if end < len(text) && text[end] == '\n' {
			return text[:i+j], text[end+1:]
		}
		i = start
	}
	return text, ""
}

// fenceCount is how many code fence lines text has (see layout).
func fenceCount(text string) int {
	if !strings.Contains(text, "```") && !strings.Contains(text, "~~~") {
		return 0
	}
	_, fences := markup(text)
	return len(fences)
}

// hasPlainWord reports whether ASCII text has a letter or digit outside
// the markup a reader reads past (and outside fence lines): the start of a
// word no run or pair can pass over, since every markup span ends at a
// character that ends a word.
func hasPlainWord(text string) bool {
	var spans [][2]int
	if strings.ContainsAny(text, "`[<{~") {
		spans, _ = markup(text)
	}
	si := 0
	for i := 0; i < len(text); i++ {
		for si < len(spans) && spans[si][1] <= i {
			si++
		}
		if si < len(spans) && spans[si][0] <= i {
			i = spans[si][1] - 1
			continue
		}
		if c := text[i]; 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			return true
		}
	}
	return false
}

// positions counts the distinct positions of toks: its words.
func positions(toks analysis.TokenStream) int {
	n := 0
	for i, t := range toks {
		if i == 0 || t.Position != toks[i-1].Position {
			n++
		}
	}
	return n
}
