// Package fulltext owns docir's bleve index: its mapping, its analyzer, the
// batched writes of a refresh and the ranked reads of search. bleve is
// confined to this package; callers see passages and matches.
//
// The unit of the index is a passage: the own text of one section (its
// heading line down to its first subsection), the text before a document's
// first heading, or the document's head (its title and front matter); see
// passage.Passages. A passage's id is the section's address
// (`<doc id>#<slug>`), the bare document id for the text before the first
// heading, or `<doc id>#` for the head. Nothing is stored in bleve but the
// postings: titles, paths and bodies live in the store's body file, so a
// deep read never opens bleve. Word order is scored at query time, on the
// text of a search's best passages (Rescore), not indexed, and read as a
// reader reads it: past inline code and link markup, never across a code
// fence (order.go). Which word pairs a passage has is kept beside its
// document in the store, as a Bloom filter this package makes (Pairs),
// so that a passage whose pairs cannot rank is never read (pairs.go).
// Beside a passage's words the index keeps terms no text holds as a word:
// its document's names (a query equal to a title finds it) and the
// command-line options its text writes (a query's "-Depth" is the option,
// not an exclusion; flags.go). A search reads a term's postings segment by
// segment itself, so that a look-up jumps to its chunk (postings.go).
//
// The index must never be opened for writing where a reader might open it:
// the store builds each generation's index in a folder no reader knows of.
package fulltext

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
	"golang.org/x/sync/errgroup"
)

// The indexed fields of a passage: its text, and its head (where it sits:
// the title, path and headings above it; see Passage.Head).
const (
	FieldText = "text"
	FieldHead = "head"
)

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
	// Head is where the passage sits in its document: its title, path and
	// the headings above it (see ingest's headingPath). It is indexed as a
	// field of its own (FieldHead): where a page says what it is about.
	Head string
	// Names are what names the passage's document as a whole (its title,
	// a description): each is indexed as one name term (its analyzed
	// terms, see nameTerm), so that a query equal to a name finds the
	// document however common its words (Retrieval.Named). A document
	// gives its names to one of its passages.
	Names []string
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
	// stemming is the language whose other forms of a query word a query
	// matches ("" none; "english": see expand.go), set by SetStemming.
	stemming string

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
//	docir_plural_en a light English plural stemmer: "archives" -> "archive",
//	                "menus" -> "menu" (bleve's stemmer_en_plural, and "-us":
//	                see PluralName)
//
// The index holds single words only. Word order (a passage that has the
// query's words in the query's order) is scored when a search's first
// passages are scored again on their text (see Rescore): pair terms in the
// index bought the same ranking at 3.4 times the indexing CPU, 2.4 times
// the peak memory and 4 times the index size (docs/ranking.md).
//
// Scoring is bleve's tf-idf (its BM25 measured lower on both evaluation
// sets); see docs/ranking.md for the numbers.
// newMapping is the static mapping: two analyzed fields (text and head),
// no dynamic fields, no _all, no stored values, no term vectors, no doc
// values.
func newMapping() (*mapping.IndexMappingImpl, error) {
	im := mapping.NewIndexMapping()
	err := im.AddCustomAnalyzer(AnalyzerName, map[string]any{
		"type":      custom.Name,
		"tokenizer": TokenizerName,
		"token_filters": []string{
			cjk.WidthName, lowercase.Name, cjk.BigramName,
			en.PossessiveName, PluralName,
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

	head := mapping.NewTextFieldMapping()
	*head = *text

	doc := mapping.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(FieldText, text)
	doc.AddFieldMappingsAt(FieldHead, head)
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
		if err := x.m.MapDocument(doc, passageDoc{Text: p.Text, Head: p.Head}); err != nil {
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
	Head string `json:"head"`
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

// Terms returns the distinct index terms of text, in order of first
// occurrence, at most MaxQueryTerms.
func (x *Index) Terms(text string) []string {
	return analyzeTerms(x.analyzer(), text)
}

// CatenationWords are the words a reader types for text's catenations (see
// Catenations), each as a query reads the typed word: "StatefulSet" is
// "statefulset", "read-only" "readonly". A query word equal to one says
// what text says, written together.
func (x *Index) CatenationWords(text string) []string {
	var out []string
	// The term is a view of a buffer the next one reuses: each is copied.
	x.fast.eachCatenationTerm(text, x.analyze(text), func(t string) { out = append(out, strings.Clone(t[1:])) })
	return out
}

// tokens returns the index terms of text in order, repeats included.
func (x *Index) tokens(text string) []string {
	return analyzeTokens(x.analyzer(), text)
}

// Tokens are the index terms of text in order, repeats included (see
// Query.SaidBy).
func (x *Index) Tokens(text string) []string { return x.tokens(text) }

// Words are the index terms of text in order, repeats included, each with
// the number of the word it was cut from: a run of input between the
// segmenter's cuts, before identifiers are split into their parts, so that
// "fs.readFile(path" is two words, fs.readFile (fs, read, file) and path.
func (x *Index) Words(text string) (terms []string, words []int) {
	stream := x.analyze(text)
	terms = make([]string, len(stream))
	for i, t := range stream {
		terms[i] = string(t.Term)
	}
	return terms, wordsOf(text, stream)
}

// wordsOf numbers the word each token of stream (text's analysis) was cut
// from, in order: the word of text's segmentation whose span holds the
// token's start. A token no word holds is a word of its own.
func wordsOf(text string, stream analysis.TokenStream) []int {
	ws := segmentWords([]byte(cutText(text)), nil)
	out := make([]int, len(stream))
	j := 0
	for i, t := range stream {
		for j < len(ws) && ws[j].end <= t.Start {
			j++
		}
		if j < len(ws) && ws[j].start <= t.Start {
			out[i] = j
		} else {
			out[i] = len(ws) + i
		}
	}
	return out
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
