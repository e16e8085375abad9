// Package fulltext owns docir's bleve index: its mapping, its analyzer, the
// batched writes of a refresh and the ranked reads of search. bleve is
// confined to this package; callers see passages and matches.
//
// The unit of the index is a passage: the own text of one section (its
// heading line down to its first subsection), or the text before a
// document's first heading, each preceded by the document's title (see
// ingest.Passages). A passage's id is the section's address
// (`<doc id>#<slug>`), or the bare document id for the text before the first
// heading. Nothing is stored in bleve but the postings: titles, paths and
// bodies live in the store's body file, so a deep read never opens bleve.
//
// The index must never be opened for writing where a reader might open it:
// the store builds each generation's index in a folder no reader knows of.
package fulltext

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/shingle"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
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

// Index is an open bleve index.
type Index struct {
	idx      bleve.Index
	readOnly bool
}

// Analysis. A passage and a query go through the same chain:
//
//	docir_unicode   words by Unicode segmentation; runs of scripts written
//	                without spaces (Han, kana, Thai, Lao, Khmer, Myanmar) and
//	                Hangul as Ideographic runs (see tokenizer.go)
//	cjk_width       full- and half-width forms folded
//	lowercase
//	cjk_bigram      Ideographic runs cut into overlapping character pairs;
//	                every other token passes through
//	possessive_en   "docir's" -> "docir"
//	stemmer_en_plural  a light English plural stemmer: "archives" -> "archive"
//	shingle         each token, and each pair of adjacent tokens as one term
//	                ("topological sort"), so text that has the query's words
//	                in the query's order scores above text that merely has
//	                them somewhere
//
// Scoring is bleve's tf-idf (its BM25 measured lower on both evaluation
// sets); see docs/ranking.md for the numbers.
const (
	shingleFilter = "docir_shingle"
	// ShingleSeparator joins the two words of a pair term.
	ShingleSeparator = " "
)

// newMapping is the static mapping: one analyzed text field, no dynamic
// fields, no _all, no stored values, no term vectors, no doc values.
func newMapping() (*mapping.IndexMappingImpl, error) {
	im := bleve.NewIndexMapping()
	err := im.AddCustomTokenFilter(shingleFilter, map[string]any{
		"type":            shingle.Name,
		"min":             2.0,
		"max":             2.0,
		"output_original": true,
		"separator":       ShingleSeparator,
		"filler":          "_",
	})
	if err != nil {
		return nil, err
	}
	err = im.AddCustomAnalyzer(AnalyzerName, map[string]any{
		"type":      custom.Name,
		"tokenizer": TokenizerName,
		"token_filters": []string{
			cjk.WidthName, lowercase.Name, cjk.BigramName,
			en.PossessiveName, en.PluralStemmerName, shingleFilter,
		},
	})
	if err != nil {
		return nil, err
	}
	im.DefaultAnalyzer = AnalyzerName
	im.IndexDynamic = false
	im.StoreDynamic = false
	im.DocValuesDynamic = false

	text := bleve.NewTextFieldMapping()
	text.Analyzer = AnalyzerName
	text.Store = false
	text.IncludeTermVectors = false
	text.IncludeInAll = false
	text.DocValues = false

	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(FieldText, text)
	im.DefaultMapping = doc
	return im, nil
}

// Create makes a new, empty index at path, which must not exist.
func Create(path string) (*Index, error) {
	m, err := newMapping()
	if err != nil {
		return nil, fmt.Errorf("fulltext mapping: %w", err)
	}
	idx, err := bleve.NewUsing(path, m, bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, nil)
	if err != nil {
		return nil, fmt.Errorf("create index %s: %w", path, err)
	}
	return &Index{idx: idx}, nil
}

// Open opens the index at path. A read-only open coexists with other
// read-only opens; a writable one excludes every other opener.
func Open(path string, readOnly bool) (*Index, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	idx, err := bleve.OpenUsing(path, map[string]any{"read_only": readOnly})
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	return &Index{idx: idx, readOnly: readOnly}, nil
}

// Apply deletes the passages named in deletes and indexes adds, in batches.
// Deletes go first, so a passage deleted and added again ends up indexed.
func (x *Index) Apply(deletes []string, adds []Passage) error {
	if x.readOnly {
		return errors.New("fulltext: index opened read-only")
	}
	b := x.idx.NewBatch()
	flush := func() error {
		if b.Size() == 0 {
			return nil
		}
		if err := x.idx.Batch(b); err != nil {
			return fmt.Errorf("index batch: %w", err)
		}
		b.Reset()
		return nil
	}
	for _, id := range deletes {
		b.Delete(id)
		if b.Size() >= BatchSize {
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
		g.Go(func() error {
			b := x.idx.NewBatch()
			for _, p := range part {
				if err := b.Index(p.ID, passageDoc{Text: p.Text}); err != nil {
					return fmt.Errorf("index %s: %w", p.ID, err)
				}
			}
			if err := x.idx.Batch(b); err != nil {
				return fmt.Errorf("index batch: %w", err)
			}
			return nil
		})
	}
	return g.Wait()
}

// passageDoc is what bleve's mapping walks for one passage.
type passageDoc struct {
	Text string `json:"text"`
}

// Close releases the index.
func (x *Index) Close() error { return x.idx.Close() }

// Match is one passage a search found.
type Match struct {
	ID    string
	Score float64
}

// MaxQueryTerms bounds the distinct terms (words and word pairs) of one
// query; a longer query is cut, keeping its first terms.
const MaxQueryTerms = 256

// Search scores passages for text and returns the n best, best first, and
// how many passages matched in all. The query is analyzed like the
// passages; each distinct term (word or adjacent pair) is one clause of a
// disjunction, so a passage scores by the sum of its terms' tf-idf weights
// times the share of the query's terms it holds.
func (x *Index) Search(ctx context.Context, text string, n int) ([]Match, uint64, error) {
	return x.SearchPage(ctx, text, n, 0)
}

// SearchPage is Search from the offset-th best match on.
func (x *Index) SearchPage(ctx context.Context, text string, n, offset int) ([]Match, uint64, error) {
	terms, err := x.selective(ctx, x.Terms(text))
	if err != nil {
		return nil, 0, err
	}
	if len(terms) == 0 {
		return nil, 0, nil
	}
	qs := make([]query.Query, len(terms))
	for i, t := range terms {
		tq := bleve.NewTermQuery(t)
		tq.SetField(FieldText)
		qs[i] = tq
	}
	req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(qs...), n, offset, false)
	res, err := x.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Match, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = Match{ID: h.ID, Score: h.Score}
	}
	return out, res.Total, nil
}

// A query term found in more than CommonShare of all passages, and in more
// than CommonMin of them ("the", "a", "of the" in a large corpus), is left
// out of the search when the query has a rarer term. Its weight (idf) is
// low, so it hardly moves a score, but reading its postings is most of the
// cost of a long query: on 38k tldr pages this halves the time of a
// five-word query for a change of one query in 300 in the evaluation (see
// docs/ranking.md). Small corpora are scored on every term.
const (
	CommonShare = 0.05
	CommonMin   = 1000
)

// selective drops the query's common terms, unless every term is common.
func (x *Index) selective(ctx context.Context, terms []string) ([]string, error) {
	if len(terms) < 2 {
		return terms, nil
	}
	adv, err := x.idx.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	total, err := r.DocCount()
	if err != nil {
		return nil, err
	}
	limit := max(uint64(CommonShare*float64(total)), CommonMin)
	kept := make([]string, 0, len(terms))
	for _, t := range terms {
		tfr, err := r.TermFieldReader(ctx, []byte(t), FieldText, false, false, false)
		if err != nil {
			return nil, err
		}
		n := tfr.Count()
		tfr.Close()
		if n <= limit {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		return terms, nil
	}
	return kept, nil
}

// Within scores only the passages named by ids for the terms of text that
// are not terms of known (the words of a document's title, which every one
// of its passages carries), best first. It tells a document's sections
// apart by what the query says beyond the document's name; with no such
// term, or when the query shares no term with known (the ranking already
// told the sections apart on the query's own words), it returns nothing.
func (x *Index) Within(ctx context.Context, text, known string, ids []string) ([]Match, error) {
	skip := map[string]bool{}
	for _, t := range x.Terms(known) {
		skip[t] = true
	}
	var qs []query.Query
	shared := false
	for _, t := range x.Terms(text) {
		if skip[t] {
			shared = true
			continue
		}
		tq := bleve.NewTermQuery(t)
		tq.SetField(FieldText)
		qs = append(qs, tq)
	}
	if !shared || len(qs) == 0 || len(ids) == 0 {
		return nil, nil
	}
	q := bleve.NewConjunctionQuery(bleve.NewDocIDQuery(ids), bleve.NewDisjunctionQuery(qs...))
	res, err := x.idx.SearchInContext(ctx, bleve.NewSearchRequestOptions(q, len(ids), 0, false))
	if err != nil {
		return nil, err
	}
	out := make([]Match, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = Match{ID: h.ID, Score: h.Score}
	}
	return out, nil
}

// Terms returns the distinct index terms of text, in order of first
// occurrence, at most MaxQueryTerms.
func (x *Index) Terms(text string) []string {
	return analyzeTerms(x.idx.Mapping().AnalyzerNamed(AnalyzerName), text)
}

func analyzeTerms(an analysis.Analyzer, text string) []string {
	// Analyzers may rewrite their input in place: []byte(text) is a copy.
	toks := an.Analyze([]byte(text))
	seen := make(map[string]bool, len(toks))
	var out []string
	for _, t := range toks {
		k := string(t.Term)
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
