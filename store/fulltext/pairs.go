package fulltext

import (
	"encoding/binary"
	"errors"
	"slices"
	"sync"
)

// Which word pairs a passage has. A search bounds a passage from the index
// before it reads its text (Query.bound): the index counts words, not
// where they are, so the bound assumes that every two of the query's words
// the passage holds are adjacent, as often as the rarer of them, and that
// it holds the longest run of the query its words allow. On a question of
// common words that is several times the passage's score, and every such
// passage is read and analyzed before the ranking can pass it over.
//
// A pair filter says, of a passage, which pairs of terms a reader reads
// as adjacent in it (order.go): a Bloom filter of them, written when the
// passage is indexed (Pairs) and kept beside its document in the store.
// A filter has no false negatives, so a pair it does not hold is not in
// the text, and the passage's run of the query is at most the longest
// stretch of the query's positions whose every two neighbours it may hold
// (Retrieval.FilterBound). False positives only loosen that bound: with 8
// bits a pair and 4 hash functions one pair in 40 the text lacks is taken
// for present ((1 − e^(−4/8))^4 ≈ 0.024, less where pairs repeat), at a
// byte for each pair the text reads.

// MaxPairTextBytes bounds the passages that get a filter: making one
// analyzes the text into tokens (about a hundred bytes a word, where the
// index's own count of its terms makes none), and a refresh must stay
// within its memory bound on any file (the 256 KiB a passage is analyzed
// to, of one-letter words, would hold some 20 MB). A longer passage has
// no filter, and is bounded from the index alone. Passages that long are
// rare (the longest of the Rust RFCs' 10,154 is 21 KB).
const MaxPairTextBytes = 64 << 10

// pairBitsPerPair and pairHashes are the filters' size and hash count (see
// above): they trade the filter's bytes against how often an absent pair
// is taken for present, never what a search returns.
const (
	pairBitsPerPair = 8
	pairHashes      = 4
)

// termHash is the hash of a term: FNV-1a (64 bits). Filters are read by
// other processes, so the hashes are fixed, not seeded.
func termHash[T ~string | ~[]byte](t T) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for i := 0; i < len(t); i++ {
		h = (h ^ uint64(t[i])) * prime
	}
	return h
}

// pairHash is the hash of the pair of terms hashed a then b: the two
// mixed by splitmix64's finalizer, in order ("a b" is not "b a").
func pairHash(a, b uint64) uint64 {
	h := a ^ (b+0x9e3779b97f4a7c15)*0xbf58476d1ce4e5b9
	h = (h ^ h>>30) * 0xbf58476d1ce4e5b9
	h = (h ^ h>>27) * 0x94d049bb133111eb
	return h ^ h>>31
}

// pairFilter is one passage's filter: a Bloom filter of its pairs'
// hashes, len*8 bits. An empty filter holds no pair.
type pairFilter []byte

// has reports whether the filter may hold the pair of hash h.
func (f pairFilter) has(h uint64) bool {
	if len(f) == 0 {
		return false
	}
	for _, bit := range f.bits(h) {
		if f[bit/8]&(1<<(bit%8)) == 0 {
			return false
		}
	}
	return true
}

// add puts the pair of hash h in the filter.
func (f pairFilter) add(h uint64) {
	for _, bit := range f.bits(h) {
		f[bit/8] |= 1 << (bit % 8)
	}
}

// bits is the filter's bits of the pair of hash h: pairHashes of them, by
// double hashing (h1 + i·h2), each mapped onto the filter's len·8 bits by
// a multiply and a shift, not a division (Lemire's reduction; a filter has
// fewer than 2³² bits). The filter must not be empty.
func (f pairFilter) bits(h uint64) (out [pairHashes]uint64) {
	m := uint64(len(f)) * 8
	h1, h2 := uint32(h), uint32(h>>32)|1
	for i := range out {
		out[i] = uint64(h1+uint32(i)*h2) * m >> 32
	}
	return out
}

// textFilter is the pair filter of text: the pairs of terms a reader
// reads as adjacent in it, as Score reads them (the text analyzed whole,
// cut at MaxTextBytes, its markup read past and its fences separating:
// order.go). The filter has pairBitsPerPair bits for each pair the text
// reads, a pair read twice counting twice: no sort to count them once,
// and a filter no fuller than the rate above says. s is memory to reuse.
func textFilter(an *fastAnalyzer, s *scratch, text string) pairFilter {
	s.reset()
	toks := an.analyzeInto(s, text)
	s.order = newOrderInto(s.order, toks, layout(text, toks))
	o := s.order
	each := func(pair func(i, j int32)) {
		for _, g := range o {
			for _, n := range [2]int32{g.next, g.pastAt} {
				if n < 0 {
					continue
				}
				for i := g.from; i < g.to; i++ {
					for j := o[n].from; j < o[n].to; j++ {
						pair(i, j)
					}
				}
			}
		}
	}
	n := 0
	each(func(_, _ int32) { n++ })
	if n == 0 {
		return pairFilter{}
	}
	f := make(pairFilter, (n*pairBitsPerPair+7)/8)
	hs := s.hashes[:0]
	for _, t := range toks {
		hs = append(hs, termHash(t.Term))
	}
	s.hashes = hs
	each(func(i, j int32) { f.add(pairHash(hs[i], hs[j])) })
	return f
}

var pairScratches = sync.Pool{New: func() any { return new(scratch) }}

// docirAnalyzer is docir's own analysis chain, as every index this build
// creates uses it (newMapping): what Pairs analyzes with.
var docirAnalyzer = sync.OnceValues(func() (*fastAnalyzer, error) {
	m, err := newMapping()
	if err != nil {
		return nil, err
	}
	f := newFastAnalyzer(m.AnalyzerNamed(AnalyzerName))
	if f == nil {
		return nil, errors.New("fulltext: docir's mapping has no fast analyzer")
	}
	return f, nil
})

// pairsVersion is the first byte of an encoding of filters (Pairs): what
// a filter holds depends on the analysis, the reader's adjacency
// (order.go) and the hashes, and a filter of another build's making may
// hold other pairs than this build would find. A search reads only the
// filters of its own version; any change to those three must change it.
const pairsVersion = 2 // 2: PluralName ("menus" -> "menu")

// Pairs is the pair filters of one document's passages, encoded for the
// store: pairsVersion, then for each passage its id less the document's
// id ("" for the text before the first heading, "#" for the head, "#slug"
// for a section) and its filter, each length-prefixed (uvarint). A search
// reads it back with FilterBound. docID is the document's id, the prefix
// of every passage's.
func Pairs(docID string, ps []Passage) ([]byte, error) {
	an, err := docirAnalyzer()
	if err != nil {
		return nil, err
	}
	scr := pairScratches.Get().(*scratch)
	defer pairScratches.Put(scr)
	out := []byte{pairsVersion}
	for _, p := range ps {
		if len(p.ID) < len(docID) || p.ID[:len(docID)] != docID {
			return nil, errors.New("fulltext: passage " + p.ID + " is not of document " + docID)
		}
		if len(p.Text) > MaxPairTextBytes {
			continue
		}
		key := p.ID[len(docID):]
		f := textFilter(an, scr, p.Text)
		out = binary.AppendUvarint(out, uint64(len(key)))
		out = append(out, key...)
		out = binary.AppendUvarint(out, uint64(len(f)))
		out = append(out, f...)
	}
	return out, nil
}

// findPairs returns the filter of the passage keyed key (see Pairs) in a
// document's encoded filters; ok is false when it has none, or the bytes
// are not what Pairs writes.
func findPairs(enc []byte, key string) (f pairFilter, ok bool) {
	if len(enc) == 0 || enc[0] != pairsVersion {
		return nil, false
	}
	for enc = enc[1:]; len(enc) > 0; {
		var name, v []byte
		if name, enc, ok = cutPrefixed(enc); !ok {
			return nil, false
		}
		if v, enc, ok = cutPrefixed(enc); !ok {
			return nil, false
		}
		if string(name) == key {
			return pairFilter(v), true
		}
	}
	return nil, false
}

// cutPrefixed cuts a uvarint length and that many bytes from the front of
// b.
func cutPrefixed(b []byte) (v, rest []byte, ok bool) {
	l, n := binary.Uvarint(b)
	if n <= 0 || l > uint64(len(b)-n) {
		return nil, nil, false
	}
	return b[n : n+int(l)], b[n+int(l):], true
}

// FilterBound bounds candidate c's score by its passage's pair filter:
// enc is its document's encoded filters (Pairs) and key the passage's id
// less the document's. Each of the query's pairs the filter does not hold
// counts 0, the others as often as the rarer of their words, and the run
// is at most the longest stretch of the query's positions whose words the
// passage holds and whose every two neighbours the filter holds: no order
// of the passage's words scores more, so a passage bounding below the
// limit-th score need not be read. ok is false when enc has no filter for
// the passage, or this index is not analyzed by this build's chain (a
// filter's terms could differ from its: Pairs analyzes with this build's,
// and a store indexed before PluralName keeps stemmer_en_plural, so its
// filters are not read until it is indexed from scratch); c.Bound is then
// the bound.
func (rt *Retrieval) FilterBound(c *Candidate, enc []byte, key string) (bound float64, ok bool) {
	if c.Exact || rt.x.fast == nil || !rt.x.fast.us {
		return c.Bound, false
	}
	f, ok := findPairs(enc, key)
	if !ok {
		return c.Bound, false
	}
	q, tf := rt.q, c.st.tf
	if rt.hashes == nil {
		rt.hashes = q.pairHashes()
	}
	h := rt.hashes
	var ptf [64]int32
	pairTF := ptf[:0]
	if len(q.pairs) > len(ptf) {
		pairTF = make([]int32, 0, len(q.pairs))
	}
	for j, p := range q.pairs {
		var n int32
		if tf[p.a] > 0 && tf[p.b] > 0 && f.has(h.pairs[j]) {
			n = min(tf[p.a], tf[p.b])
		}
		pairTF = append(pairTF, n)
	}
	// A phrase that is no run of the filter's pairs is no run of the
	// text's: the passage scores 0.
	for i, ph := range h.phrases {
		has := func(k int) bool { t := h.phraseTerms[i][k]; return t < 0 || tf[t] > 0 }
		if ph.longestRun(f, has) < q.phrases[i].span {
			return 0, true
		}
	}
	best := h.longestRun(f, func(k int) bool { return tf[k] > 0 })
	return min(c.Bound, q.score(&c.st, pairTF, best)), true
}

// longestRun is the longest run of h's terms that the filter f allows:
// run[i] is the longest run ending at h.at[i] (a term at a position, which
// the passage holds: has), from a run ending at a term of the position
// before whose pair with it the filter holds.
func (h *queryHashes) longestRun(f pairFilter, has func(term int) bool) int {
	run := h.run[:len(h.at)]
	best := 0
	for i, t := range h.at {
		run[i] = 0
		if !has(t.term) {
			continue
		}
		run[i] = 1
		for _, l := range t.links {
			if run[l.from] > 0 && f.has(l.hash) {
				run[i] = max(run[i], run[l.from]+1)
			}
		}
		best = max(best, run[i])
	}
	return best
}

// queryHashes is what FilterBound needs of a query, worked out once a
// reading: the hash of each of its pairs, and its terms at each position
// (in position order) with, for each, the terms of the position before
// and the hash of the pair they make.
type queryHashes struct {
	pairs []uint64
	at    []posTerm
	run   []int // FilterBound's buffer, one per at
	// phrases are the hashes of the query's phrases, in order (a phrase's
	// own terms), and phraseTerms each phrase's terms as the query's.
	phrases     []*queryHashes
	phraseTerms [][]int
}

// posTerm is a term at one of the query's positions, and its links to the
// terms of the position before.
type posTerm struct {
	term  int
	links []link
}

// link is a pair of a term at the position before (at[from]) and this
// one, by its hash.
type link struct {
	from int // index in at
	hash uint64
}

// pairHashes works out q's queryHashes.
func (q *Query) pairHashes() *queryHashes {
	h := &queryHashes{}
	th := make([]uint64, len(q.terms))
	for k, t := range q.terms {
		th[k] = termHash(t)
	}
	for _, p := range q.pairs {
		h.pairs = append(h.pairs, pairHash(th[p.a], th[p.b]))
	}
	first := make([]int, q.extent()+1) // index in at of each position's first term
	for pos := range q.extent() {
		first[pos] = len(h.at)
		for k, ps := range q.at {
			if !slices.Contains(ps, pos) {
				continue
			}
			t := posTerm{term: k}
			if pos > 0 {
				for i := first[pos-1]; i < first[pos]; i++ {
					t.links = append(t.links, link{from: i, hash: pairHash(th[h.at[i].term], th[k])})
				}
			}
			h.at = append(h.at, t)
		}
	}
	h.run = make([]int, len(h.at))
	for _, ph := range q.phrases {
		terms := make([]int, len(ph.terms))
		for k, t := range ph.terms {
			terms[k] = -1 // a term past MaxQueryTerms: it may be anywhere
			if j, ok := q.index[t]; ok {
				terms[k] = j
			}
		}
		h.phrases = append(h.phrases, ph.pairHashes())
		h.phraseTerms = append(h.phraseTerms, terms)
	}
	return h
}
