package fulltext

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"unsafe"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// Rank-safe retrieval. A search wants the k best documents under the
// score of score.go, each scoring as its best passage. Reading the text of
// every passage that holds a query word would give them, at the cost of
// reading most of the corpus for a query of common words; scoring on the
// index alone would miss word order. A Retrieval gives the caller what it
// needs to do neither:
//
//   - Candidates(floor) enumerates every passage whose bound (Query.bound:
//     the best score its term counts and length allow, whatever its word
//     order) is at least floor (and above 0), with those counts. It reads the postings of
//     only the query's essential terms: the terms, rarest first, without
//     which a passage bounds at floor or below (Query.setBound, as in
//     MaxScore); the others are looked up for those passages only
//     (postings Advance), never read whole.
//   - Score(c, text) is a candidate's exact score, its pairs and run read
//     from its text (a candidate that cannot hold a pair is exact already).
//
// The caller scores candidates in order of bound and stops when the next
// bound is below the k-th best document score found (a passage that bounds
// at it may tie, and ties go by document id); it reads the query's terms in
// stages, rarest first (Stage), until no passage left unread can reach
// that score (rank.go). No passage it did not score can rank in the top k:
// each bounds below the k-th score. TestRankSafe holds the result to an
// exhaustive reading.

// Retrieval is one query's reading of the index, on a snapshot held until
// Close.
type Retrieval struct {
	x   *Index
	q   *Query
	ctx context.Context
	r   index.IndexReader
	s   scratch // Score's buffers
	// stages is the order a staged reading reads the query's terms in
	// (Query.stages), worked out once.
	stages  []int
	through int                  // the stages read so far (Stage)
	piloted []uint64             // the passages Pilot returned, in order: the stages pass them over
	orders  map[string]textOrder // by text: what Score read of it
	hashes  *queryHashes         // FilterBound's, made on first use
}

// Candidate is a passage whose bound passed a Candidates floor, with what
// the index holds of it.
type Candidate struct {
	Bound float64 // no order of its words scores more
	Exact bool    // Bound is its score: its text can change nothing
	num   uint64  // the passage's number in the snapshot
	st    stats   // its term counts and lengths (text and head)
}

// Retrieve opens a reading of the index for q; Close releases it.
func (x *Index) Retrieve(ctx context.Context, q *Query) (*Retrieval, error) {
	r, err := x.idx.Reader()
	if err != nil {
		return nil, fmt.Errorf("open index reader: %w", err)
	}
	return &Retrieval{x: x, q: q, ctx: ctx, r: r, stages: q.stages()}, nil
}

// Close releases the snapshot.
func (rt *Retrieval) Close() error { return rt.r.Close() }

// Stages is how many stages a staged reading of the query has (see
// Stage): one per term, or one when the query has required terms.
func (rt *Retrieval) Stages() int { return len(rt.stages) }

// Stage returns the passages that hold the i-th stage's term (in their
// text or head) and none of the earlier stages' terms (those were returned
// by an earlier stage), that bound at floor or above (and above 0), and
// that hold no excluded term. The stages read the query's terms rarest
// first, so that each reads the fewest postings that can still find a
// passage the stages before it missed: every passage that holds one of the
// terms read so far and bounds at the floor of its stage or above was
// returned by a stage, and every other passage bounds at Rest(i) or below.
// A caller that keeps its floor at its limit-th score (which only rises)
// stops after the first stage whose Rest is below it; a query of common
// words then never reads their postings.
//
// A stage also reads the later stages' terms that the floor says must be
// read anyway (while the passages that hold none of the terms read bound
// at the floor or above), in one pass: a passage is then looked up once,
// not once a stage, and its counts of those terms come with the reading,
// which bounds it closer before anything is looked up (partialBound). The
// stages it read return nothing, and Rest(i) is the bound of the passages
// that hold none of the terms read so far. A floor of 0 says nothing: the
// stage then reads its own term only.
func (rt *Retrieval) Stage(i int, floor float64, each func([]Candidate) error) error {
	st := rt.stages
	if i < rt.through || i >= len(st) {
		return nil
	}
	j := i
	for floor > 0 && j+1 < len(st) && rt.rest(j+1) >= floor {
		j++
	}
	rt.through = j + 1
	ess := make([]bool, len(rt.q.terms))
	for _, k := range st[i : j+1] {
		ess[k] = true
	}
	read := make([]bool, len(rt.q.terms))
	for _, k := range st[:i] {
		read[k] = true
	}
	return rt.read(ess, read, floor, each)
}

// Rest bounds the passages that hold none of the terms the stages up to
// the i-th read (or the stages read so far, if more): no such passage
// scores above it (Query.setBound of the others).
func (rt *Retrieval) Rest(i int) float64 {
	return rt.rest(max(i+1, rt.through))
}

// rest bounds the passages that hold none of the first n stages' terms.
func (rt *Retrieval) rest(n int) float64 {
	q := rt.q
	in := make([]bool, len(q.terms))
	for k := range in {
		in[k] = true
	}
	for _, k := range rt.stages[:min(n, len(rt.stages))] {
		in[k] = false
	}
	return q.setBound(in)
}

// stages orders the query's terms for a staged reading: by how many
// passages hold them, rarest first; when the query has required terms
// (a phrase's), the rarest of them alone, since a passage without it
// scores 0.
func (q *Query) stages() []int {
	if len(q.terms) == 0 {
		return nil
	}
	req := -1
	for k, r := range q.required {
		if r && (req < 0 || q.df[k] < q.df[req]) {
			req = k
		}
	}
	if req >= 0 {
		return []int{req}
	}
	order := make([]int, len(q.terms))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool { return q.df[order[a]] < q.df[order[b]] })
	return order
}

// essential picks the terms whose postings a reading with floor must go
// through: every passage that bounds at floor or above (and above 0)
// holds one of them. The others are taken, most common first, while the
// set of them alone still bounds below floor (or at 0); when the query has
// required terms, the rarest of them alone is essential if that reads
// fewer postings.
func (q *Query) essential(floor float64) []bool {
	order := make([]int, len(q.terms))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool { return q.df[order[a]] > q.df[order[b]] })
	rest := make([]bool, len(q.terms))
	for _, k := range order {
		rest[k] = true
		if b := q.setBound(rest); b > 0 && b >= floor {
			rest[k] = false
			break
		}
	}
	ess := make([]bool, len(q.terms))
	var reads uint64
	for k := range ess {
		ess[k] = !rest[k]
		if ess[k] {
			reads += q.df[k]
		}
	}
	req := -1
	for k, r := range q.required {
		if r && (req < 0 || q.df[k] < q.df[req]) {
			req = k
		}
	}
	if req >= 0 && q.df[req] < reads {
		clear(ess)
		ess[req] = true
	}
	return ess
}

// cursor is a term's postings in one field, read in passage order.
type cursor struct {
	term  int  // the query term; -1: a term that skips the passage (excluded, or read already)
	head  bool // the head field, else the text
	tfr   index.TermFieldReader
	doc   index.TermFieldDoc
	at    uint64 // the passage it is on, once on one
	on    bool   // it has been moved onto a passage (or past the end)
	done  bool
	id    [8]byte         // seek's target, not allocated for each seek
	group *groupReader    // tfr, when it reads a word in all its forms
	pr    *postingsReader // tfr, when it is one: read without a TermFieldDoc
}

func (c *cursor) next() error {
	if c.pr != nil {
		d, err := c.pr.next()
		c.setPosting(d)
		return err
	}
	d, err := c.tfr.Next(&c.doc)
	c.set(d)
	return err
}

// seek moves the cursor to the first passage at or after num.
func (c *cursor) seek(num uint64) error {
	if c.done || c.on && c.at >= num {
		return nil
	}
	if c.pr != nil {
		d, err := c.pr.seek(num)
		c.setPosting(d)
		return err
	}
	d, err := c.tfr.Advance(index.NewIndexInternalID(c.id[:], num), &c.doc)
	c.set(d)
	return err
}

// setPosting is set for a posting of c.pr.
func (c *cursor) setPosting(d segment.Posting) {
	c.on = true
	if d == nil {
		c.done = true
		return
	}
	c.at = c.pr.last
	if c.pr.freq {
		c.doc.Freq, c.doc.Norm = d.Frequency(), d.Norm()
	}
}

func (c *cursor) set(d *index.TermFieldDoc) {
	c.on = true
	if d == nil {
		c.done = true
		return
	}
	c.at = d.ID.Value()
}

// length is the terms a field holds, from its norm (1/√length).
func length(norm float64) int {
	if norm <= 0 {
		return 0
	}
	return int(math.Round(1 / (norm * norm)))
}

// Candidates returns every passage whose bound is at least floor (and
// above 0), in passage
// order, skipping those that hold an excluded term. A passage is found by
// a query term in its text or in its head.
func (rt *Retrieval) Candidates(floor float64) ([]Candidate, error) {
	if len(rt.q.terms) == 0 {
		return nil, nil
	}
	return collected(func(each func([]Candidate) error) error {
		return rt.read(rt.q.essential(floor), nil, floor, each)
	})
}

// A reading hands its candidates to its caller a chunk at a time (each):
// what it holds at once is a chunk's, not every passage's over its floor —
// on a corpus where every passage holds every word of a query, every
// passage. The caller scores a chunk best bound first, until a bound is
// below its limit-th score: the passages it leaves can never rank, since
// that score only rises. A chunk is chunkBytes of candidates at most (at
// least minChunk of them); a reading of fewer candidates hands them over
// in one, as it read them.
const (
	chunkBytes = 4 << 20
	minChunk   = 1024
)

// chunk is how many candidates of q a chunk holds: chunkBytes over the
// most one takes (its fixed part, and four counts a term: text, head,
// and each as typed).
func (q *Query) chunk() int {
	if chunkMost > 0 {
		return chunkMost
	}
	per := int(unsafe.Sizeof(Candidate{})) + 4*4*len(q.terms)
	return max(minChunk, chunkBytes/per)
}

// chunkMost, when above 0, is the size of every chunk (for tests).
var chunkMost int

// handOff gathers a reading's candidates and hands them to each a chunk
// at a time.
type handOff struct {
	q    *Query
	each func([]Candidate) error
	most int
	out  []Candidate
	slab []int32 // the counts of out's candidates
}

func (q *Query) handOff(each func([]Candidate) error) *handOff {
	return &handOff{q: q, each: each, most: q.chunk()}
}

// add gathers passage num, of which the index holds st (copied), bounding
// at b, and hands the chunk over when it is full.
func (h *handOff) add(num uint64, st *stats, b float64) error {
	h.out = append(h.out, h.q.candidate(num, st.keep(&h.slab), b))
	if len(h.out) < h.most {
		return nil
	}
	return h.flush()
}

// flush hands over what is gathered, if anything.
func (h *handOff) flush() error {
	if len(h.out) == 0 {
		return nil
	}
	out := h.out
	h.out, h.slab = nil, nil // each is done with them once it returns
	return h.each(out)
}

// collected is every candidate a reading hands to each, in order.
func collected(read func(each func([]Candidate) error) error) ([]Candidate, error) {
	var out []Candidate
	err := read(func(c []Candidate) error {
		out = append(out, c...)
		return nil
	})
	return out, err
}

// read goes through the postings of the essential terms ess, looks the
// others up for each passage they find, and hands those that bound at
// floor or above (and above 0) and hold no excluded term to each, a chunk
// at a time.
func (rt *Retrieval) read(ess, read []bool, floor float64, each func([]Candidate) error) (err error) {
	q := rt.q
	lead, probe, err := rt.open(ess, read)
	defer closeAll(&err, lead, probe)
	if err != nil {
		return err
	}
	n := len(q.terms)
	free := make([]bool, n) // the terms a passage a leading cursor finds may hold, uncounted
	for k := range free {
		free[k] = !ess[k] && (read == nil || !read[k])
	}
	partial := q.partial(ess, free)
	// The probing cursors: first those that rule a passage out (excluded
	// terms, terms read already: term < 0), then the terms to look up,
	// rarest first, each with the bound of what is known once it is
	// (lookUpBounded).
	ns := 0
	for ns < len(probe) && probe[ns].term < 0 {
		ns++
	}
	skipping, looks := probe[:ns], lookUpSteps(q, probe[ns:], ess, free, floor)
	piloted := rt.piloted
	h := q.handOff(each)
	st := q.newStats()
	// The passage after num is found as take moves the cursors past it.
	var next uint64
	var more bool
	steps := 0
	for num, any := leading(lead); any; num, any = next, more {
		if steps++; steps&1023 == 1 {
			if err := rt.ctx.Err(); err != nil {
				return err
			}
		}
		if next, more, err = take(&st, num, lead); err != nil {
			return err
		}
		for len(piloted) > 0 && piloted[0] < num {
			piloted = piloted[1:]
		}
		if len(piloted) > 0 && piloted[0] == num {
			continue // the pilot's: bounded and, if it could rank, scored
		}
		if floor > 0 {
			// What the leading cursors hold may bound it below the floor
			// already: then its other terms are not looked up.
			if b := partial.bound(&st); b < floor || b <= 0 {
				continue
			}
		}
		skip, err := lookUp(&st, num, skipping)
		if err != nil {
			return err
		}
		if skip {
			continue
		}
		below, err := lookUpBounded(&st, num, looks, floor)
		if err != nil {
			return err
		}
		if below {
			continue
		}
		b := q.bound(&st)
		if b < floor || b <= 0 {
			continue
		}
		if err := h.add(num, &st, b); err != nil {
			return err
		}
	}
	return h.flush()
}

// open opens a cursor on each query term's postings in each field: the
// essential terms' leading, moved onto their first passage; the terms read
// already (read) and the excluded terms (in the text) skipping; the
// others' probing, after the skipping. The cursors opened are returned
// with an error too: the caller closes them.
//
// Skipping cursors are probed one by one, each a seek in a bitmap (no
// counts are read). Uniting them into one reader (bleve's unadorned
// disjunction of scorch's readers) measured no better: a query of four
// excluded words at 192k, 40.8M against 40.5M instructions.
func (rt *Retrieval) open(ess, read []bool) (lead, probe []*cursor, err error) {
	q := rt.q
	opened := func(t string, term int, head bool) (*cursor, error) {
		field := FieldText
		if head {
			field = FieldHead
		}
		tfr, err := termReader(rt.ctx, rt.r, t, field, term >= 0)
		if err != nil {
			return nil, err
		}
		c := &cursor{term: term, head: head, tfr: tfr}
		c.pr, _ = tfr.(*postingsReader)
		k, ok := q.index[t]
		forms := q.formsOf(k)
		if head {
			// Heads are matched as typed, or as the word's catenation.
			forms = nil
			if ok && q.headCatenated(k) {
				forms = []string{catTerm(t)}
			}
		}
		if !ok || len(forms) == 0 {
			return c, nil
		}
		// The word in all its forms, read as one.
		tfrs := []index.TermFieldReader{tfr}
		for _, f := range forms {
			ftfr, err := termReader(rt.ctx, rt.r, f, field, term >= 0)
			if err != nil {
				for _, t := range tfrs {
					t.Close()
				}
				return nil, err
			}
			tfrs = append(tfrs, ftfr)
		}
		c.group = newGroupReader(tfrs)
		c.tfr, c.pr = c.group, nil
		return c, nil
	}
	var skips, later []*cursor
	fail := func(err error) ([]*cursor, []*cursor, error) {
		return lead, slices.Concat(skips, later), err
	}
	for k, t := range q.terms {
		for _, head := range []bool{false, true} {
			term := k
			if !ess[k] && read != nil && read[k] {
				term = -1
			}
			c, err := opened(t, term, head)
			if err != nil {
				return fail(err)
			}
			switch {
			case ess[k]:
				lead = append(lead, c)
				if err := c.next(); err != nil {
					return fail(err)
				}
			case term < 0:
				skips = append(skips, c)
			default:
				later = append(later, c)
			}
		}
	}
	for _, t := range q.not {
		// The word, and its catenation (see Catenations).
		for _, t := range []string{t, catTerm(t)} {
			c, err := opened(t, -1, false)
			if err != nil {
				return fail(err)
			}
			skips = append(skips, c)
		}
	}
	return lead, slices.Concat(skips, later), nil
}

// take sets st to what the leading cursors hold of passage num, moves
// those on it past it, and returns the passage they are on next (more:
// one is). The counts of the other terms are 0 until lookUp.
func take(st *stats, num uint64, lead []*cursor) (next uint64, more bool, err error) {
	st.reset()
	next = math.MaxUint64
	for _, c := range lead {
		if !c.done && c.at == num {
			st.add(c)
			if err := c.next(); err != nil {
				return 0, false, err
			}
		}
		if !c.done && c.at < next {
			next, more = c.at, true
		}
	}
	return next, more, nil
}

// leading is the first passage a leading cursor is on (more: one is).
func leading(lead []*cursor) (num uint64, more bool) {
	num = math.MaxUint64
	for _, c := range lead {
		if !c.done && c.at < num {
			num, more = c.at, true
		}
	}
	return num, more
}

// lookUp adds to st what the probing cursors hold of passage num, moving
// them onto it. skip: it holds an excluded term, or a term an earlier
// reading read (it was a candidate of that reading); st is then
// incomplete.
func lookUp(st *stats, num uint64, probe []*cursor) (skip bool, err error) {
	for _, c := range probe {
		if err := c.seek(num); err != nil {
			return false, err
		}
		if c.done || c.at != num {
			continue
		}
		if c.term < 0 {
			return true, nil
		}
		st.add(c)
	}
	return false, nil
}

// lookUpStep is one term a reading looks up for a passage its leading
// cursors found: the term's cursors (its text's and its head's), and the
// bound of a passage once it and the steps before it are known.
type lookUpStep struct {
	cursors []*cursor
	bound   *partial
}

// lookUpSteps orders the probing cursors of a reading (each with a term)
// into steps, one a term, the rarest term first: a rare term is the
// likeliest to be missing, and a missing term lowers the bound the most
// (every term not yet looked up is bounded as if held); a common one has
// the longest postings to seek through. ess are the terms the leading
// cursors count, free those looked up here. With floor 0 no passage is
// left early, and the steps have no bounds.
func lookUpSteps(q *Query, probe []*cursor, ess, free []bool, floor float64) []lookUpStep {
	var order []int
	byTerm := map[int][]*cursor{}
	for _, c := range probe {
		if byTerm[c.term] == nil {
			order = append(order, c.term)
		}
		byTerm[c.term] = append(byTerm[c.term], c)
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(q.df[a], q.df[b]) })
	known, rest := slices.Clone(ess), slices.Clone(free)
	steps := make([]lookUpStep, len(order))
	for i, k := range order {
		known[k], rest[k] = true, false
		steps[i] = lookUpStep{cursors: byTerm[k]}
		if floor > 0 && i < len(order)-1 { // the last step's bound is the passage's (q.bound)
			steps[i].bound = q.partial(slices.Clone(known), slices.Clone(rest))
		}
	}
	return steps
}

// lookUpBounded looks the steps' terms up for passage num into st, in
// order, and stops when what is known bounds it below floor (below); steps
// without bounds (floor 0) look every term up.
func lookUpBounded(st *stats, num uint64, steps []lookUpStep, floor float64) (below bool, err error) {
	for _, s := range steps {
		// A step's cursors have a term: lookUp only adds what they hold.
		if _, err := lookUp(st, num, s.cursors); err != nil {
			return false, err
		}
		if s.bound != nil {
			if b := s.bound.bound(st); b < floor || b <= 0 {
				return true, nil
			}
		}
	}
	return false, nil
}

// closeAll closes the cursors, keeping the first error in *err.
func closeAll(err *error, cursors ...[]*cursor) {
	for _, cs := range cursors {
		for _, c := range cs {
			if cerr := c.tfr.Close(); *err == nil && cerr != nil {
				*err = cerr
			}
		}
	}
}

// candidate is passage num, of which the index holds st, bounding at b.
func (q *Query) candidate(num uint64, st stats, b float64) Candidate {
	return Candidate{Bound: b, Exact: q.exact(st.tf), num: num, st: st}
}

// add sets st's count of c's term in c's field, and the field's length,
// from the posting c is on.
func (st *stats) add(c *cursor) {
	if c.head {
		st.hf[c.term] = int32(c.doc.Freq)
		if st.hff != nil {
			st.hff[c.term] = int32(c.doc.Freq)
			if c.group != nil {
				st.hff[c.term] = int32(c.group.typed)
			}
		}
		st.hlength = length(c.doc.Norm)
		return
	}
	st.tf[c.term] = int32(c.doc.Freq)
	st.length = length(c.doc.Norm)
	if st.ff != nil {
		st.ff[c.term] = int32(c.doc.Freq)
		if c.group != nil {
			st.ff[c.term] = int32(c.group.typed)
		}
	}
}

// keep is a copy of st in slab, which it grows a block at a time: the
// candidates of a reading share their counts' memory.
func (st *stats) keep(slab *[]int32) stats {
	n := len(st.tf)
	per := 2 * n
	if st.ff != nil {
		per += n
	}
	if st.hff != nil {
		per += n
	}
	if len(*slab)+per > cap(*slab) {
		*slab = make([]int32, 0, max(1024, per))
	}
	at := len(*slab)
	b := append(*slab, st.tf...)
	b = append(b, st.hf...)
	kept := stats{tf: b[at : at+n], hf: b[at+n : at+2*n], length: st.length, hlength: st.hlength}
	next := at + 2*n
	if st.ff != nil {
		b = append(b, st.ff...)
		kept.ff = b[next : next+n]
		next += n
	}
	if st.hff != nil {
		b = append(b, st.hff...)
		kept.hff = b[next : next+n]
	}
	*slab = b
	return kept
}

// reset makes st zero.
func (st *stats) reset() {
	clear(st.tf)
	clear(st.ff)
	clear(st.hf)
	clear(st.hff)
	st.length, st.hlength = 0, 0
}

// newStats is a passage's stats for q, zero.
func (q *Query) newStats() stats {
	n := len(q.terms)
	st := stats{tf: make([]int32, n), hf: make([]int32, n)}
	if q.formIndex != nil {
		st.ff = make([]int32, n)
	}
	if q.headCat {
		st.hff = make([]int32, n)
	}
	return st
}

// ID is the passage id of a candidate.
func (rt *Retrieval) ID(c *Candidate) (string, error) {
	return rt.r.ExternalID(index.NewIndexInternalID(nil, c.num))
}

// Number is the candidate's passage number in the retrieval's snapshot:
// the same passage has the same number in every Candidates of it.
func (c *Candidate) Number() uint64 { return c.num }

// Score is a candidate's exact score: its term counts and length from the
// index, its pairs, run and phrases from text, the passage's text as it was
// indexed. Only the paragraphs that may hold a pair are analyzed.
//
// What it reads of a text depends on the text alone, so a text met again
// (a page copied under another path, a section repeated across versions)
// is read once a Retrieval.
func (rt *Retrieval) Score(c *Candidate, text string) float64 {
	if c.Exact {
		return c.Bound
	}
	q := rt.q
	o, ok := rt.orders[text]
	if !ok {
		rt.s.reset()
		toks, skip := rt.x.pairable(q, text, &rt.s)
		rt.s.order = newOrderInto(rt.s.order, toks, skip)
		f := q.walkInto(&rt.s, toks, rt.s.order)
		o = textOrder{pairTF: f.pairTF, run: f.run, pass: q.runsPass(toks, skip)}
		if rt.orders == nil {
			rt.orders = map[string]textOrder{}
		}
		rt.orders[text] = o
	}
	if !o.pass {
		return 0
	}
	run := o.run
	if run == 0 && slices.ContainsFunc(c.st.tf, func(n int32) bool { return n > 0 }) {
		run = 1 // a word the paragraphs not read hold
	}
	return q.score(&c.st, o.pairTF, run)
}

// textOrder is what Score reads of a text: its pairs, its longest run, and
// whether it has every phrase's run and no excluded one.
type textOrder struct {
	pairTF []int32
	run    int
	pass   bool
}

// Total counts the passages that hold any of the query's words, in their
// text or head: what the index matched before phrases and exclusions
// narrow it. Postings are united as bitmaps, segment by segment, and
// counted by the union's cardinality (countUnion; else, an index that
// cannot, by reading bleve's unadorned disjunction). It shares nothing
// with a reading but the snapshot, and may run beside one (rank runs it
// on another goroutine); it must end before Close.
func (rt *Retrieval) Total() (uint64, error) {
	q := rt.q
	if len(q.terms) == 0 {
		return 0, nil
	}
	return countPassages(rt.ctx, rt.r, q.textTerms(), q.headTerms())
}

// countPassages counts the passages that hold any of text in their text or
// any of head in their head: by the bitmaps' union (countUnion), else, on
// an index that cannot, by reading bleve's unadorned disjunction of their
// postings, else by reading them side by side.
func countPassages(ctx context.Context, r index.IndexReader, text, head []string) (uint64, error) {
	if n, ok, err := countUnion(r, text, head); ok || err != nil {
		return n, err
	}
	var tfrs []index.TermFieldReader
	defer func() {
		for _, t := range tfrs {
			t.Close()
		}
	}()
	for _, f := range []struct {
		field string
		terms []string
	}{{FieldText, text}, {FieldHead, head}} {
		for _, t := range f.terms {
			tfr, err := r.TermFieldReader(ctx, []byte(t), f.field, false, false, false)
			if err != nil {
				return 0, err
			}
			tfrs = append(tfrs, tfr)
		}
	}
	if len(tfrs) == 1 {
		return tfrs[0].Count(), nil
	}
	union, err := united(tfrs)
	if err != nil {
		return 0, err
	}
	if union == nil {
		return countAll(tfrs)
	}
	defer union.Close()
	return count(ctx, union)
}

// countUnion counts the passages that hold any of text in their text or
// any of head in their head from the index's bitmaps: in each segment, the
// union of the terms' postings less its deleted passages, by its
// cardinality. bleve's own
// unadorned disjunction unites the same bitmaps, and is then read a
// passage at a time (count): at 192k documents, 4% of a search's CPU. ok
// is false when r is not a scorch snapshot of segments that keep their
// postings as bitmaps; the caller then counts the union by reading it.
func countUnion(r index.IndexReader, text, head []string) (n uint64, ok bool, err error) {
	snap, isScorch := r.(*scorch.IndexSnapshot)
	if !isScorch {
		return 0, false, nil
	}
	for _, ss := range snap.Segments() {
		seg, deleted := ss.Segment(), ss.Deleted()
		var bms []*roaring.Bitmap
		var ones []uint32
		for _, f := range []struct {
			field string
			terms []string
		}{{FieldText, text}, {FieldHead, head}} {
			if len(f.terms) == 0 {
				continue
			}
			dict, err := seg.Dictionary(f.field)
			if err != nil {
				return 0, false, err
			}
			for _, t := range f.terms {
				pl, err := dict.PostingsList([]byte(t), deleted, nil)
				if err != nil {
					return 0, false, err
				}
				it, ok := pl.Iterator(false, false, false, nil).(segment.OptimizablePostingsIterator)
				if !ok {
					return 0, false, nil
				}
				if num, ok := it.DocNum1Hit(); ok {
					ones = append(ones, uint32(num))
				} else if bm := it.ActualBitmap(); bm != nil {
					bms = append(bms, bm)
				}
			}
		}
		u := roaring.FastOr(bms...)
		u.AddMany(ones)
		n += u.GetCardinality()
	}
	return n, true, nil
}

// docFreqs counts the passages that hold each of terms in their text and
// in their head. A scorch snapshot's are counted segment by segment from
// the postings lists' cardinalities, less their deleted passages, with no
// iterator: bleve's TermFieldReader opens one per segment for a count, and
// where the segment has deleted passages that iterator starts with a copy
// of the term's postings less them. Another index counts through its
// TermFieldReaders. The counts are the same either way (TestDocFreqs).
func docFreqs(ctx context.Context, r index.IndexReader, terms []string) (text, head []uint64, err error) {
	text, head = make([]uint64, len(terms)), make([]uint64, len(terms))
	snap, isScorch := r.(*scorch.IndexSnapshot)
	if !isScorch {
		for i, t := range terms {
			for _, f := range []struct {
				field string
				n     *uint64
			}{{FieldText, &text[i]}, {FieldHead, &head[i]}} {
				tfr, err := r.TermFieldReader(ctx, []byte(t), f.field, false, false, false)
				if err != nil {
					return nil, nil, err
				}
				*f.n = tfr.Count()
				if err := tfr.Close(); err != nil {
					return nil, nil, err
				}
			}
		}
		return text, head, nil
	}
	var pl segment.PostingsList
	for _, ss := range snap.Segments() {
		seg, deleted := ss.Segment(), ss.Deleted()
		for _, f := range []struct {
			field string
			n     []uint64
		}{{FieldText, text}, {FieldHead, head}} {
			dict, err := seg.Dictionary(f.field)
			if err != nil {
				return nil, nil, err
			}
			for i, t := range terms {
				if pl, err = dict.PostingsList([]byte(t), deleted, pl); err != nil {
					return nil, nil, err
				}
				f.n[i] += pl.Count()
			}
		}
	}
	return text, head, nil
}

// countAll counts the passages any of tfrs holds by reading them side by
// side: the way when the index cannot unite them as bitmaps.
func countAll(tfrs []index.TermFieldReader) (uint64, error) {
	cs := make([]*cursor, len(tfrs))
	for i, t := range tfrs {
		cs[i] = &cursor{tfr: t}
		if err := cs[i].next(); err != nil {
			return 0, err
		}
	}
	var n uint64
	for {
		num, any := uint64(math.MaxUint64), false
		for _, c := range cs {
			if !c.done && c.at < num {
				num, any = c.at, true
			}
		}
		if !any {
			return n, nil
		}
		n++
		for _, c := range cs {
			if !c.done && c.at == num {
				if err := c.next(); err != nil {
					return 0, err
				}
			}
		}
	}
}

func count(ctx context.Context, tfr index.TermFieldReader) (uint64, error) {
	var n uint64
	var d index.TermFieldDoc
	for {
		if n&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		next, err := tfr.Next(&d)
		if err != nil {
			return 0, err
		}
		if next == nil {
			return n, nil
		}
		n++
	}
}

// united is the union of tfrs' passages as one reader, without counts
// (bleve's unadorned disjunction: their postings united as bitmaps,
// segment by segment), or nil when the index cannot unite them. tfrs must
// not be read after.
func united(tfrs []index.TermFieldReader) (index.TermFieldReader, error) {
	return optimized("disjunction:unadorned", tfrs)
}

// intersected is the passages all of tfrs hold, as one reader, without
// counts (bleve's unadorned conjunction), or nil when the index cannot
// intersect them. tfrs must not be read after.
func intersected(tfrs []index.TermFieldReader) (index.TermFieldReader, error) {
	return optimized("conjunction:unadorned", tfrs)
}

// optimized is tfrs as one reader, by bleve's optimization kind; nil when
// a reader cannot take part in it.
func optimized(kind string, tfrs []index.TermFieldReader) (index.TermFieldReader, error) {
	var octx index.OptimizableContext
	for _, tfr := range tfrs {
		o, ok := tfr.(index.Optimizable)
		if !ok {
			return nil, nil
		}
		var err error
		if octx, err = o.Optimize(kind, octx); err != nil || octx == nil {
			return nil, err
		}
	}
	opt, err := octx.Finish()
	if err != nil {
		return nil, err
	}
	out, ok := opt.(index.TermFieldReader)
	if !ok {
		return nil, nil
	}
	return out, nil
}

// Named returns the passages that hold a name (a title, a description:
// see Passage.Names) equal to the query once analyzed (a plain query of
// the same terms, in the same order), in passage order, each with what the
// index holds of it and its bound, as a reading gives them (Score scores
// them).
func (rt *Retrieval) Named() ([]Candidate, error) {
	q := rt.q
	toks := q.nameTokens()
	if !q.Plain() || len(toks) == 0 || len(toks) > MaxNameTerms {
		return nil, nil
	}
	tfr, err := rt.r.TermFieldReader(rt.ctx, []byte(nameTerm(toks)), FieldText, false, false, false)
	if err != nil {
		return nil, err
	}
	defer tfr.Close()
	nums, err := rt.numbers(tfr, maxNamed)
	if err != nil || nums == nil {
		return nil, err // none, or a name that many pages share: it names none of them
	}
	return rt.lookupAll(nums)
}

// numbers reads the numbers of the passages tfr holds, in passage order;
// nil when it holds more than most (most > 0).
func (rt *Retrieval) numbers(tfr index.TermFieldReader, most int) ([]uint64, error) {
	var nums []uint64
	var d index.TermFieldDoc
	for {
		if len(nums)&1023 == 0 {
			if err := rt.ctx.Err(); err != nil {
				return nil, err
			}
		}
		next, err := tfr.Next(&d)
		if err != nil {
			return nil, err
		}
		if next == nil {
			return nums, nil
		}
		nums = append(nums, next.ID.Value())
		if most > 0 && len(nums) > most {
			return nil, nil
		}
	}
}

// Pilot returns the passages that are likeliest to rank, each with what
// the index holds of it and its bound, as a reading gives them (Score
// scores them): those that hold every one of the query's terms (in their
// text or head), found by intersecting the terms' postings as bitmaps,
// their counts looked up for them alone. A
// caller scores them before its staged reading, by the same rule (best
// bound first, until a bound is below its limit-th score), so that the
// reading starts from the limit-th score they reach, not from 0: with a
// floor, a stage passes passages over before looking them up, and reads
// the terms it must read in one pass (see Stage). The stages then pass
// the pilot's passages over. Nil for a query of fewer than three terms
// (the first stage, the rarer term's passages, holds every passage of two
// terms, and finds the other term's counts with half the look-ups), or
// when the index cannot intersect postings.
func (rt *Retrieval) Pilot(each func([]Candidate) error) (err error) {
	q := rt.q
	if len(q.terms) < 3 {
		return nil
	}
	var opened []index.TermFieldReader
	defer func() {
		for _, t := range opened {
			if cerr := t.Close(); err == nil && cerr != nil {
				err = cerr
			}
		}
	}()
	// Each term's passages, in its text (in any form) or head.
	per := make([]index.TermFieldReader, len(q.terms))
	for k, t := range q.terms {
		var both []index.TermFieldReader
		fields := []struct{ field, term string }{{FieldText, t}, {FieldHead, t}}
		for _, f := range q.formsOf(k) {
			fields = append(fields, struct{ field, term string }{FieldText, f})
		}
		if q.headCatenated(k) {
			fields = append(fields, struct{ field, term string }{FieldHead, catTerm(t)})
		}
		for _, f := range fields {
			tfr, err := rt.r.TermFieldReader(rt.ctx, []byte(f.term), f.field, false, false, false)
			if err != nil {
				return err
			}
			opened = append(opened, tfr)
			both = append(both, tfr)
		}
		u, err := united(both)
		if err != nil || u == nil {
			return err
		}
		opened = append(opened, u)
		per[k] = u
	}
	all, err := intersected(per)
	if err != nil || all == nil {
		return err
	}
	opened = append(opened, all)
	nums, err := rt.numbers(all, 0)
	if err != nil {
		return err
	}
	rt.piloted = nums
	return rt.lookUpEach(nums, each)
}

// lookupAll looks up what the index holds of each passage of nums (in
// passage order) and bounds it, leaving out those that hold an excluded
// term.
func (rt *Retrieval) lookupAll(nums []uint64) ([]Candidate, error) {
	return collected(func(each func([]Candidate) error) error {
		return rt.lookUpEach(nums, each)
	})
}

// lookUpEach is lookupAll handing the candidates to each, a chunk at a
// time.
func (rt *Retrieval) lookUpEach(nums []uint64, each func([]Candidate) error) (err error) {
	q := rt.q
	if len(nums) == 0 {
		return nil
	}
	_, probe, err := rt.open(make([]bool, len(q.terms)), nil)
	defer closeAll(&err, probe)
	if err != nil {
		return err
	}
	h := q.handOff(each)
	st := q.newStats()
	for i, num := range nums {
		if i&1023 == 1023 {
			if err := rt.ctx.Err(); err != nil {
				return err
			}
		}
		st.reset()
		skip, err := lookUp(&st, num, probe)
		if err != nil {
			return err
		}
		if skip {
			continue
		}
		if err := h.add(num, &st, q.bound(&st)); err != nil {
			return err
		}
	}
	return h.flush()
}

// Passages returns the passages with ids that the index holds, in passage
// order, each with what the index holds of it and its bound, as a reading
// gives them (Score scores them); a passage that holds an excluded term is
// left out, and one that holds no query word bounds at 0. It reads a
// document's passages whole, when a document's score, its best passage's,
// must be known exactly (rank.go's named documents).
func (rt *Retrieval) Passages(ids []string) ([]Candidate, error) {
	dr, err := rt.r.DocIDReaderOnly(ids) // those of this generation, in passage order
	if err != nil {
		return nil, err
	}
	defer dr.Close()
	var nums []uint64
	for {
		in, err := dr.Next()
		if err != nil {
			return nil, err
		}
		if in == nil {
			return rt.lookupAll(nums)
		}
		nums = append(nums, in.Value())
	}
}

// maxNamed bounds the documents one name lifts (a title shared by that
// many pages names none of them in particular).
const maxNamed = 1000

// Match is one passage a Search found.
type Match struct {
	ID    string
	Score float64
}

// Search returns the n passages that hold text's words with the highest
// bound (what the index alone knows of them: no word order), best first,
// and how many passages hold a word of it. It is a lookup for tests and
// tools; a ranked search also reads text (workspace/rank).
func (x *Index) Search(ctx context.Context, text string, n int) ([]Match, uint64, error) {
	q, err := x.Prepare(ctx, text)
	if err != nil {
		return nil, 0, err
	}
	rt, err := x.Retrieve(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	defer rt.Close()
	total, err := rt.Total()
	if err != nil {
		return nil, 0, err
	}
	cands, err := rt.Candidates(0)
	if err != nil {
		return nil, 0, err
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].Bound > cands[j].Bound })
	out := make([]Match, 0, min(n, len(cands)))
	for i := range cands[:min(n, len(cands))] {
		id, err := rt.ID(&cands[i])
		if err != nil {
			return nil, 0, err
		}
		out = append(out, Match{ID: id, Score: cands[i].Bound})
	}
	return out, total, nil
}
