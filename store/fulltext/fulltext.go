// Package fulltext owns docir's bleve index: its mapping, its analyzer, the
// batched writes of a refresh and the ranked reads of search. bleve is
// confined to this package; callers see passages and matches.
//
// The unit of the index is a passage: the own text of one section (its
// heading line down to its first subsection), the text before a document's
// first heading, or the document's head (its title and front matter); see
// ingest.Passages. A passage's id is the section's address
// (`<doc id>#<slug>`), the bare document id for the text before the first
// heading, or `<doc id>#` for the head. Nothing is stored in bleve but the
// postings: titles, paths and bodies live in the store's body file, so a
// deep read never opens bleve. Word order is scored at query time, on the
// text of a search's best passages (Rescore), not indexed, and read as a
// reader reads it: past inline code and link markup, never across a code
// fence (order.go).
//
// The index must never be opened for writing where a reader might open it:
// the store builds each generation's index in a folder no reader knows of.
package fulltext

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/collector"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
	"golang.org/x/sync/errgroup"
)

// FieldText is the one indexed field of a passage.
const FieldText = "text"

// AnalyzerName is the analyzer every passage and every query goes through.
const AnalyzerName = "docir"

// BatchSize is how many passages one bleve batch carries: one passage per
// call is 60x slower; past a thousand the gain is flat and memory grows.
const BatchSize = 1000

// BatchWorkers is how many batches are built at once: on two cores, two
// batches in flight index the 39k-document corpus 12% faster than one.
const BatchWorkers = 2

// Passage is one unit of text to index.
type Passage struct {
	ID   string // `<doc id>#<slug>`, or the doc id for text before the first heading
	Text string
}

// Index is an open bleve index: a scorch index and the mapping stored in
// it, used through bleve's own packages (see open.go) rather than its
// top-level package, which links and initializes index types, stores and
// expvar state docir never uses.
type Index struct {
	idx      index.Index
	m        *mapping.IndexMappingImpl
	an       analysis.Analyzer    // the fast analyzer when there is one, else the mapping's
	fast     *fastAnalyzer        // nil when the mapping is not docir's own
	queue    *index.AnalysisQueue // nil when read-only
	readOnly bool
	path     string // the index folder

	// A writable index fails once: an error of scorch's persister or
	// merger (reported on their goroutines, see open.go), or a panic of
	// bleve's under a write. Every write after that returns it.
	failOnce sync.Once
	failed   chan struct{} // closed once it failed; nil when read-only
	failure  error
}

// Analysis. A passage and a query go through the same chain:
//
//	docir_unicode   words by Unicode segmentation; runs of scripts written
//	                without spaces (Han, kana, Thai, Lao, Khmer, Myanmar) and
//	                Hangul as Ideographic runs; identifiers in parts (see
//	                tokenizer.go)
//	cjk_width       full- and half-width forms folded
//	lowercase
//	cjk_bigram      Ideographic runs cut into overlapping character pairs;
//	                every other token passes through
//	possessive_en   "docir's" -> "docir"
//	stemmer_en_plural  a light English plural stemmer: "archives" -> "archive"
//
// The index holds single words only. Word order (a passage that has the
// query's words in the query's order) is scored when a search's first
// passages are scored again on their text (see Rescore): pair terms in the
// index bought the same ranking at 3.4 times the indexing CPU, 2.4 times
// the peak memory and 4 times the index size (docs/ranking.md).
//
// Scoring is bleve's tf-idf (its BM25 measured lower on both evaluation
// sets); see docs/ranking.md for the numbers.
// newMapping is the static mapping: one analyzed text field, no dynamic
// fields, no _all, no stored values, no term vectors, no doc values.
func newMapping() (*mapping.IndexMappingImpl, error) {
	im := mapping.NewIndexMapping()
	err := im.AddCustomAnalyzer(AnalyzerName, map[string]any{
		"type":      custom.Name,
		"tokenizer": TokenizerName,
		"token_filters": []string{
			cjk.WidthName, lowercase.Name, cjk.BigramName,
			en.PossessiveName, en.PluralStemmerName,
		},
	})
	if err != nil {
		return nil, err
	}
	im.DefaultAnalyzer = AnalyzerName
	im.IndexDynamic = false
	im.StoreDynamic = false
	im.DocValuesDynamic = false

	text := mapping.NewTextFieldMapping()
	text.Analyzer = AnalyzerName
	text.Store = false
	text.IncludeTermVectors = false
	text.IncludeInAll = false
	text.DocValues = false

	doc := mapping.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(FieldText, text)
	im.DefaultMapping = doc
	return im, nil
}

// Apply deletes the passages named in deletes and indexes adds, in batches,
// each persisted before Apply returns. Deletes go first, so a passage
// deleted and added again ends up indexed. Any error of the index, its
// background work included, fails Apply, and every write after it.
func (x *Index) Apply(deletes []string, adds []Passage) error {
	if x.readOnly {
		return errors.New("fulltext: index opened read-only")
	}
	b := index.NewBatch()
	flush := func() error {
		if len(b.IndexOps) == 0 {
			return nil
		}
		if err := x.write(b); err != nil {
			return err
		}
		b.Reset()
		return nil
	}
	for _, id := range deletes {
		if id != "" {
			b.Delete(id)
		}
		if len(b.IndexOps) >= BatchSize {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	// Batches of distinct passages build their segments side by side: a
	// batch's analysis is parallel in bleve, but its segment is built on one
	// goroutine.
	var g errgroup.Group
	g.SetLimit(BatchWorkers)
	for start := 0; start < len(adds); start += BatchSize {
		part := adds[start:min(start+BatchSize, len(adds))]
		g.Go(func() error { return x.batch(part) })
	}
	return g.Wait()
}

// batch indexes one batch of passages.
func (x *Index) batch(part []Passage) error {
	b := index.NewBatch()
	for _, p := range part {
		if p.ID == "" {
			return errors.New("fulltext: passage with an empty id")
		}
		if x.fast != nil {
			b.Update(passageDocument(p, x.fast))
			continue
		}
		doc := document.NewDocument(p.ID)
		if err := x.m.MapDocument(doc, passageDoc{Text: p.Text}); err != nil {
			return fmt.Errorf("index %s: %w", p.ID, err)
		}
		b.Update(doc)
	}
	return x.write(b)
}

// write applies b to the index and waits until scorch has persisted it,
// or the index failed. Scorch runs unsafe batches (openScorch): its Batch
// returns once the segment is in the index, and the wait for persistence
// is this one. A safe batch would have scorch wait, but when that wait
// ends in an error (ENOSPC persisting), scorch's Batch closes the segment
// it already put in the index, and the persister's next try at merging it
// panics on a goroutine of its own, which nothing can recover: bleve
// v2.6.3 with zapx v17.2.5, "assignment to entry in nil map" in zapx's
// invertedIndexCache.insertLOCKED (see docs/ingest.md).
//
// A panic of bleve's on this goroutine is recovered here: the write, and
// the index, fail with it.
func (x *Index) write(b *index.Batch) (err error) {
	if err := x.err(); err != nil {
		return err
	}
	persisted := make(chan error, 1)
	b.SetPersistedCallback(func(err error) { persisted <- err })
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("fulltext: bleve panicked writing a batch: %v", r)
			x.fail(err)
		}
	}()
	if err := x.idx.Batch(b); err != nil {
		return fmt.Errorf("index batch: %w", err)
	}
	select {
	case err := <-persisted:
		if err != nil {
			return fmt.Errorf("index batch: %w", err)
		}
		return x.err()
	case <-x.failed:
		return x.err()
	}
}

// fail marks the index failed with err, once.
func (x *Index) fail(err error) {
	x.failOnce.Do(func() {
		x.failure = err
		close(x.failed)
	})
}

// err is the failure of the index, if it failed.
func (x *Index) err() error {
	if x.failed == nil {
		return nil
	}
	select {
	case <-x.failed:
		return fmt.Errorf("fulltext %s: %w", x.path, x.failure)
	default:
		return nil
	}
}

// passageDoc is what bleve's mapping walks for one passage.
type passageDoc struct {
	Text string `json:"text"`
}

// Close releases the index. For a writable one it returns the index's
// failure, if any.
func (x *Index) Close() error {
	err := x.idx.Close()
	if x.queue != nil {
		x.queue.Close()
		x.queue = nil
	}
	if !x.readOnly {
		writers.Delete(filepath.Join(x.path, storeDir))
	}
	return errors.Join(x.err(), err)
}

// Match is one passage a search found.
type Match struct {
	ID    string
	Score float64
}

// MaxQueryTerms bounds the distinct terms of one query; a longer query is
// cut, keeping its first terms.
const MaxQueryTerms = 256

// Query is a free-text query prepared against one index: its terms, each
// one's inverse document frequency there, and the adjacent pairs of its
// terms, which Rescore looks for in a passage's text.
type Query struct {
	tokens []string           // the query's terms in order, repeats included
	terms  []string           // distinct, in order of first occurrence
	idf    map[string]float64 // bleve's tf-idf idf: 1 + ln(passages / (df+1))
	index  map[string]int     // term -> its index in terms
	search []string           // the terms the index is searched on
	pairs  []pair
	at     [][]int  // term index -> the query positions it is at (0 to span-1)
	span   int      // the query's positions: its words
	maxIDF float64  // the idf of a term in one passage
	probes []string // rare terms, lower-case ASCII, less their last letter; nil: analyze every paragraph
}

// pair is two adjacent terms of a query, and the weight Rescore gives the
// pair when a passage has them adjacent in the same order.
type pair struct {
	a, b int // indexes into the query's terms
	idf  float64
}

// Prepare analyzes text as a query against x. Common terms are kept for
// scoring but left out of the index search when the query has a rarer term
// (see CommonShare).
func (x *Index) Prepare(ctx context.Context, text string) (*Query, error) {
	stream := x.analyze(text)
	toks := make([]string, len(stream))
	for i, t := range stream {
		toks[i] = string(t.Term)
	}
	q := &Query{tokens: toks, idf: map[string]float64{}, index: map[string]int{}}
	for _, t := range toks {
		if _, ok := q.index[t]; !ok && len(q.terms) < MaxQueryTerms {
			q.index[t] = len(q.terms)
			q.terms = append(q.terms, t)
		}
	}
	if len(q.terms) == 0 {
		return q, nil
	}
	r, err := x.idx.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	total, err := r.DocCount()
	if err != nil {
		return nil, err
	}
	idf := func(df uint64) float64 { return 1 + math.Log(float64(total)/float64(df+1)) }
	q.maxIDF = idf(1)
	limit := max(uint64(CommonShare*float64(total)), CommonMin)
	for _, t := range q.terms {
		tfr, err := r.TermFieldReader(ctx, []byte(t), FieldText, false, false, false)
		if err != nil {
			return nil, err
		}
		n := tfr.Count()
		tfr.Close()
		q.idf[t] = idf(n)
		if n <= limit {
			q.search = append(q.search, t)
		}
		if float64(n) <= RareShare*float64(total) {
			q.probes = append(q.probes, t)
		}
	}
	for i, t := range q.probes {
		if !isASCIILower(t) {
			q.probes = nil // a probe must be found as written
			break
		}
		if len(t) > 3 {
			q.probes[i] = t[:len(t)-1]
		}
	}
	if len(q.search) == 0 || len(q.terms) < 2 {
		q.search = q.terms
	}
	// Positions, numbered from 0; tokens at one position count once.
	q.at = make([][]int, len(q.terms))
	q.span = -1
	last := -1
	for i, t := range toks {
		k, ok := q.index[t]
		if !ok {
			continue
		}
		if stream[i].Position != last {
			last = stream[i].Position
			q.span++
		}
		if !slices.Contains(q.at[k], q.span) {
			q.at[k] = append(q.at[k], q.span)
		}
	}
	q.span++
	// Pairs: a term at one position and a term at the next.
	seen := map[[2]int]bool{}
	for i := range stream {
		a, ok := q.index[toks[i]]
		if !ok {
			continue
		}
		p := stream[i].Position
		j := i + 1
		for j < len(stream) && stream[j].Position == p {
			j++
		}
		for ; j < len(stream) && stream[j].Position == p+1; j++ {
			b, ok := q.index[toks[j]]
			k := [2]int{a, b}
			if !ok || a == b || seen[k] {
				continue
			}
			seen[k] = true
			q.pairs = append(q.pairs, pair{a: a, b: b, idf: q.pairIDF()})
		}
	}
	return q, nil
}

// pairIDF is the weight of a pair of adjacent query words: the idf of a
// term found in one passage. Most word pairs are that rare; the index no
// longer holds pairs, so their own frequency is unknown. Measured against
// two estimates from the words' idfs (the larger of the two; their sum
// less one, as if the words occurred independently), this ranked best on
// every set (docs/ranking.md).
func (q *Query) pairIDF() float64 {
	return q.maxIDF
}

// Equal reports whether text analyzes to the query's terms, in the same
// order: the query says text, up to case, plural and punctuation.
func (x *Index) Equal(q *Query, text string) bool {
	return len(q.tokens) > 0 && slices.Equal(q.tokens, x.tokens(text))
}

// Without returns q without the terms of known, and without the pairs that
// hold one: what the query says beyond a document's title, say.
func (q *Query) Without(known map[string]bool) *Query {
	out := &Query{idf: q.idf, index: map[string]int{}, maxIDF: q.maxIDF}
	for _, t := range q.tokens {
		if !known[t] {
			out.tokens = append(out.tokens, t)
		}
	}
	// The words left keep their positions: a run of them in the text is
	// in order only where they were adjacent in the query.
	kept := map[int]bool{}
	for k, t := range q.terms {
		if !known[t] {
			out.index[t] = len(out.terms)
			out.terms = append(out.terms, t)
			out.at = append(out.at, q.at[k])
			for _, p := range q.at[k] {
				kept[p] = true
			}
		}
	}
	out.span = len(kept)
	for _, p := range q.pairs {
		a, b := q.terms[p.a], q.terms[p.b]
		if !known[a] && !known[b] {
			out.pairs = append(out.pairs, pair{a: out.index[a], b: out.index[b], idf: p.idf})
		}
	}
	return out
}

// Terms returns the query's distinct terms.
func (q *Query) Terms() []string { return q.terms }

// Search scores passages for text and returns the n best, best first, and
// how many passages matched in all.
func (x *Index) Search(ctx context.Context, text string, n int) ([]Match, uint64, error) {
	q, err := x.Prepare(ctx, text)
	if err != nil {
		return nil, 0, err
	}
	return x.Page(ctx, q, n, 0)
}

// Page scores passages for q and returns the n best from the offset-th on,
// best first, and how many passages matched in all. Each searched term is
// one clause of a disjunction, so a passage scores by the sum of its terms'
// tf-idf weights times the share of the query's terms it holds.
func (x *Index) Page(ctx context.Context, q *Query, n, offset int) ([]Match, uint64, error) {
	if len(q.search) == 0 {
		return nil, 0, nil
	}
	qs := make([]query.Query, len(q.search))
	for i, t := range q.search {
		tq := query.NewTermQuery(t)
		tq.SetField(FieldText)
		qs[i] = tq
	}
	return x.search(ctx, query.NewDisjunctionQuery(qs), n, offset)
}

// search runs q on a reader of the index and collects the n best passages
// from the offset-th on, by score, as bleve's Index.SearchInContext does
// for a request with no sort, facets, fields or highlighting: the same
// searcher, the same tf-idf scoring (no scoring model set), the same top-N
// collector.
func (x *Index) search(ctx context.Context, q query.Query, n, offset int) (_ []Match, _ uint64, err error) {
	r, err := x.idx.Reader()
	if err != nil {
		return nil, 0, fmt.Errorf("open index reader: %w", err)
	}
	defer func() {
		if cerr := r.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	s, err := q.Searcher(ctx, r, x.m, search.SearcherOptions{})
	if err != nil {
		return nil, 0, err
	}
	defer func() {
		if serr := s.Close(); err == nil && serr != nil {
			err = serr
		}
	}()
	coll := collector.NewTopNCollector(n, offset, search.SortOrder{&search.SortScore{Desc: true}})
	if err := coll.Collect(ctx, s, r); err != nil {
		return nil, 0, err
	}
	hits := coll.Results()
	out := make([]Match, len(hits))
	for i, h := range hits {
		out[i] = Match{ID: h.ID, Score: h.Score}
	}
	return out, coll.Total(), nil
}

// Rescore scores a passage's text for q as the index would if it held each
// pair of adjacent words as a term of its own: the sum, over the query's
// terms and pairs the text has, of sqrt(tf) · idf² / sqrt(length), times
// the share of the query's terms and pairs it has, times the share of the
// query's words that the text's longest in-order run of them covers (see
// RunWeight). A pair's idf is estimated (see pairIDF). Text that has the
// query's words in the query's order scores above text that merely has them
// somewhere. Adjacency is a reader's: inline code and other markup between
// two words may be read past, a code fence may not (see layout).
func (x *Index) Rescore(q *Query, text string) float64 {
	f := x.features(q, text)
	if f.words == 0 {
		return 0
	}
	var sum float64
	matched := 0
	for k, n := range f.tf {
		if n > 0 {
			w := q.idf[q.terms[k]]
			sum += math.Sqrt(float64(n)) * w * w
			matched++
		}
	}
	for j, n := range f.pairTF {
		if n > 0 {
			w := q.pairs[j].idf
			sum += math.Sqrt(float64(n)) * w * w
			matched++
		}
	}
	all := len(q.terms) + len(q.pairs)
	score := sum / math.Sqrt(float64(f.words)) * float64(matched) / float64(all)
	if q.span > 1 && f.run > 0 {
		score *= math.Pow(float64(f.run)/float64(q.span), RunWeight)
	}
	return score
}

// RunWeight is the exponent of the run factor: a passage's score is
// multiplied by (r/n)^RunWeight, where n is the query's words and r the
// longest run of them the text has in the query's order. Pairs see two
// words at a time; a run sees the whole query, which tells apart two pages
// that share most of a sentence.
const RunWeight = 1.0

// features is what Rescore counts in a text.
type features struct {
	tf     []int // by query term
	pairTF []int // by query pair
	words  int   // the text's length
	run    int   // the longest run of query positions in order
}

func (x *Index) features(q *Query, text string) features {
	var f features
	if len(q.terms) == 0 {
		return f
	}
	toks, skip, words := x.analyzeRelevant(q, text)
	f.words = words
	if words == 0 {
		return f
	}
	// Term frequencies by the query term's index; map lookups keyed by
	// string(bytes) do not allocate.
	f.tf = make([]int, len(q.terms))
	at := make([]int, len(toks)) // toks[i] is q.terms[at[i]-1]; 0: no query term
	found := false
	for i, t := range toks {
		if k, ok := q.index[string(t.Term)]; ok {
			f.tf[k]++
			at[i] = k + 1
			found = true
		}
	}
	f.pairTF = make([]int, len(q.pairs))
	if !found {
		return f
	}
	o := newOrder(toks, skip)
	// Runs that reach a later group: the group, the query position it must
	// hold, and the run's length with it. Groups are read in order and a
	// run reaches only groups ahead, so those behind are dropped.
	type reach struct{ g, qp, r int32 }
	var ahead []reach
	for g, grp := range o {
		kept := ahead[:0]
		for _, e := range ahead {
			if e.g >= int32(g) {
				kept = append(kept, e)
			}
		}
		ahead = kept
		reads := [2]int32{grp.next, grp.pastAt}
		for i := grp.from; i < grp.to; i++ {
			a := at[i]
			if a == 0 {
				continue
			}
			for _, qp := range q.at[a-1] {
				r := int32(1)
				for _, e := range ahead {
					if e.g == int32(g) && e.qp == int32(qp) && e.r > r {
						r = e.r
					}
				}
				f.run = max(f.run, int(r))
				for _, n := range reads {
					if n >= 0 {
						ahead = append(ahead, reach{n, int32(qp) + 1, r + 1})
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
							f.pairTF[k]++
						}
					}
				}
			}
		}
	}
	return f
}

// RescoreParagraphs: text longer than this many bytes is rescored by
// paragraphs, and only the paragraphs that hold one of the query's rare
// terms (found in at most RareShare of the passages) are analyzed; the
// others count only for the text's length, in words. A common word's
// occurrences there (and pairs of common words) are left uncounted: their
// idf is low. On long design documents this is most of a search's time.
const (
	RescoreParagraphs = 2048
	RareShare         = 0.05
)

// analyzeRelevant returns the analyzed tokens of text, or of its
// paragraphs that may hold a rare query term (see RescoreParagraphs), and
// the text's length in words (an identifier as long as its parts).
func (x *Index) analyzeRelevant(q *Query, text string) (analysis.TokenStream, []bool, int) {
	if len(text) <= RescoreParagraphs || len(q.probes) == 0 {
		toks := x.analyze(text)
		n := positions(toks)
		return toks, layout(text, toks), n
	}
	var out analysis.TokenStream
	var skip []bool
	words, offset := 0, 0
	for len(text) > 0 {
		para := text
		if i := strings.Index(text, "\n\n"); i >= 0 {
			para, text = text[:i], text[i+2:]
		} else {
			text = ""
		}
		if !q.mayHold(para) {
			words += asciiWords(para)
			continue
		}
		toks := x.analyze(para)
		n := positions(toks)
		sk := layout(para, toks)
		if sk != nil && skip == nil {
			skip = make([]bool, len(out), len(out)+len(sk))
		}
		if skip != nil {
			if sk == nil {
				sk = make([]bool, len(toks))
			}
			skip = append(skip, sk...)
		}
		for _, t := range toks {
			t.Position += offset
		}
		out = append(out, toks...)
		words += n
		if len(toks) > 0 {
			offset = toks[len(toks)-1].Position + 2 // paragraphs are never adjacent
		}
	}
	return out, skip, words
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

// mayHold reports whether para may hold one of the query's rare terms: it
// contains a probe (a rare term less its last letter, so that "policy"
// finds "policies"), ignoring ASCII case.
func (q *Query) mayHold(para string) bool {
	for _, p := range q.probes {
		if containsFold(para, p) {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains the lower-case ASCII probe p,
// ignoring ASCII case.
func containsFold(s, p string) bool {
	for i := 0; i+len(p) <= len(s); i++ {
		j := 0
		for j < len(p) {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != p[j] {
				break
			}
			j++
		}
		if j == len(p) {
			return true
		}
	}
	return false
}

// asciiWords counts the runs of ASCII letters and digits in s, as the
// length of text not analyzed; other bytes separate words.
func asciiWords(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		w := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80
		if w && !in {
			n++
		}
		in = w
	}
	return n
}

// A query term found in more than CommonShare of all passages, and in more
// than CommonMin of them ("the", "a", "of" in a large corpus), is left out
// of the index search when the query has a rarer term. Its weight (idf) is
// low, so it hardly moves a score, but reading its postings is most of the
// cost of a long query: on 38k tldr pages this halves the time of a
// five-word query for a change of one query in 300 in the evaluation (see
// docs/ranking.md). Small corpora are searched on every term; Rescore
// scores every term.
const (
	CommonShare = 0.05
	CommonMin   = 1000
)

// Terms returns the distinct index terms of text, in order of first
// occurrence, at most MaxQueryTerms.
func (x *Index) Terms(text string) []string {
	return analyzeTerms(x.analyzer(), text)
}

// tokens returns the index terms of text in order, repeats included.
func (x *Index) tokens(text string) []string {
	return analyzeTokens(x.analyzer(), text)
}

// analyze runs the analysis chain on text, the fast way (see fastAnalyzer
// and analyzeChain): Rescore analyzes passages at query time.
func (x *Index) analyze(text string) analysis.TokenStream {
	return analyzeFast(x.analyzer(), text)
}

func analyzeFast(a analysis.Analyzer, text string) analysis.TokenStream {
	// Analyzers may rewrite their input in place: []byte(text) is a copy.
	if an, ok := a.(*analysis.DefaultAnalyzer); ok {
		return analyzeChain(an, []byte(text))
	}
	return a.Analyze([]byte(text))
}

// hasWidthForm reports whether b holds a character of the Halfwidth and
// Fullwidth Forms block (U+FF00–U+FFEF), the only ones cjk_width changes;
// they are encoded EF BC–BF xx in UTF-8.
func hasWidthForm(b []byte) bool {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == 0xEF && b[i+1] >= 0xBC && b[i+1] <= 0xBF {
			return true
		}
	}
	return false
}

func isASCIILower(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || 'A' <= s[i] && s[i] <= 'Z' {
			return false
		}
	}
	return true
}

func (x *Index) analyzer() analysis.Analyzer {
	return x.an
}

func analyzeTokens(an analysis.Analyzer, text string) []string {
	toks := analyzeFast(an, text)
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = string(t.Term)
	}
	return out
}

func analyzeTerms(an analysis.Analyzer, text string) []string {
	toks := analyzeTokens(an, text)
	seen := make(map[string]bool, len(toks))
	var out []string
	for _, k := range toks {
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, k)
		if len(out) == MaxQueryTerms {
			break
		}
	}
	return out
}
