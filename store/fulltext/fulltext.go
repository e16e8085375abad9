// Package fulltext owns docir's bleve index: its mapping, its analyzer, the
// batched writes of a refresh and the ranked reads of search. bleve is
// confined to this package; callers see passages and matches.
//
// The unit of the index is a passage: the own text of one section (its
// heading line down to its first subsection), or the text before a
// document's first heading. A passage's id is the section's address
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
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
)

// FieldText is the one indexed field of a passage.
const FieldText = "text"

// AnalyzerName is the analyzer every passage and every query goes through.
const AnalyzerName = "docir"

// BatchSize is how many passages one bleve batch carries: one passage per
// call is 60x slower; past a thousand the gain is flat and memory grows.
const BatchSize = 1000

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

// newMapping is the static mapping: one analyzed text field, no dynamic
// fields, no _all, no stored values, no term vectors, no doc values.
func newMapping() (*mapping.IndexMappingImpl, error) {
	im := bleve.NewIndexMapping()
	err := im.AddCustomAnalyzer(AnalyzerName, map[string]any{
		"type":      custom.Name,
		"tokenizer": unicode.Name,
		// cjk_width folds full- and half-width forms; cjk_bigram turns runs
		// of Han, Hiragana, Katakana and Hangul characters, which the unicode
		// tokenizer emits one character at a time, into overlapping bigrams
		// and passes every other token through unchanged.
		"token_filters": []string{cjk.WidthName, lowercase.Name, cjk.BigramName},
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
	for _, p := range adds {
		if err := b.Index(p.ID, passageDoc{Text: p.Text}); err != nil {
			return fmt.Errorf("index %s: %w", p.ID, err)
		}
		if b.Size() >= BatchSize {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// passageDoc is what bleve's mapping walks for one passage.
type passageDoc struct {
	Text string `json:"text"`
}

// Count returns the number of passages in the index.
func (x *Index) Count() (uint64, error) { return x.idx.DocCount() }

// Close releases the index.
func (x *Index) Close() error { return x.idx.Close() }

// Match is one passage a search found.
type Match struct {
	ID    string
	Score float64
}

// Search returns up to n passages matching text, best first, and how many
// passages matched in all.
func (x *Index) Search(ctx context.Context, text string, n int) ([]Match, uint64, error) {
	q := bleve.NewMatchQuery(text)
	q.SetField(FieldText)
	q.Analyzer = AnalyzerName
	req := bleve.NewSearchRequestOptions(q, n, 0, false)
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
