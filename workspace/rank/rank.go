// Package rank answers the ranked skeleton reads of one generation: it turns
// the full-text index's scored passages into ranked documents, picks each
// one's matched section, cuts its snippet, and plans what to read next
// within a token budget (`search` and `context`). Both reads walk the same
// hit loop.
//
// It reads a *store.Snapshot and its *fulltext.Index and nothing else: it
// opens, follows and releases no generation (the workspace service does),
// and it never imports workspace.
package rank

import (
	"context"
	"strings"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/fulltext"
)

// IndexFunc returns the generation's full-text index, opening it on first
// use; rank calls it only when a read needs the index.
type IndexFunc = func() (*fulltext.Index, error)

// MaxQueryBytes bounds a free-text query.
const MaxQueryBytes = 4096

// Search ranks documents for a free-text query; each hit names the section
// where the match is best.
func Search(ctx context.Context, snap *store.Snapshot, idx IndexFunc, p docir.SearchParams) (docir.SearchResult, error) {
	q, limit, err := CheckQuery("search", p.Query, p.Limit)
	if err != nil {
		return docir.SearchResult{}, err
	}
	res := docir.SearchResult{Query: q, Hits: []docir.Hit{}}
	res.Total, err = eachHit(ctx, snap, idx, q, limit, func(h *found) error {
		res.Hits = append(res.Hits, h.hit())
		return nil
	})
	if err != nil {
		return docir.SearchResult{}, err
	}
	return res, nil
}

// passageHit is one passage of a ranked document: the section it is
// ("" for the text before the first heading) and its score.
type passageHit struct {
	slug  string
	score float64
}

// rankedDoc is one document of a ranking, with its matching passages best
// first.
type rankedDoc struct {
	id       string
	score    float64
	passages []passageHit
}

// found is one ranked document with its record and body, its matched
// section settled: what a hit, an outline and a read plan are made from.
type found struct {
	rec  docir.Record
	body []byte
	doc  rankedDoc
	q    string
}

// eachHit ranks documents for q and calls fn for each one still in the
// generation, in rank order, with its matched section chosen. It returns
// the number of matching passages.
func eachHit(ctx context.Context, snap *store.Snapshot, idx IndexFunc, q string, limit int, fn func(*found) error) (int, error) {
	ft, err := idx()
	if err != nil {
		return 0, err
	}
	docs, total, err := rankDocs(ctx, ft, q, limit)
	if err != nil {
		return 0, err
	}
	for _, d := range docs {
		rec, body, ok, err := snap.Lookup(d.id)
		if err != nil {
			return 0, err
		}
		if !ok {
			continue
		}
		f := &found{rec: rec, body: body, doc: d, q: q}
		if err := chooseSection(ctx, ft, f); err != nil {
			return 0, err
		}
		if err := fn(f); err != nil {
			return 0, err
		}
	}
	return total, nil
}

// rankDocs scores documents for a free-text query. The index scores
// passages (section texts); a document scores as its best passage, which is
// its matched section, and keeps its other matching passages in score
// order. Passages are read in growing windows until limit documents are
// found or the matches run out. total is the number of matching passages.
func rankDocs(ctx context.Context, ft *fulltext.Index, q string, limit int) ([]rankedDoc, int, error) {
	var docs []rankedDoc
	at := map[string]int{}
	window, offset := max(4*limit, 40), 0
	for {
		matches, total, err := ft.SearchPage(ctx, q, window, offset)
		if err != nil {
			return nil, 0, err
		}
		for _, m := range matches {
			id, slug, _ := strings.Cut(m.ID, "#")
			i, ok := at[id]
			if !ok {
				i = len(docs)
				at[id] = i
				docs = append(docs, rankedDoc{id: id, score: m.Score})
			}
			docs[i].passages = append(docs[i].passages, passageHit{slug: slug, score: m.Score})
		}
		offset += len(matches)
		if len(docs) >= limit || len(matches) < window || uint64(offset) >= total || offset >= maxPassages {
			return docs[:min(limit, len(docs))], int(total), nil
		}
		window *= 4
	}
}

// maxPassages bounds how many passages one ranking reads.
const maxPassages = 20000

// chooseSection settles which of a ranked document's sections is its
// matched section. The title is part of every passage's text, so a query
// that names the document ("retry budget examples") scores its shortest
// sections highest on the title's words alone; when the query has words
// beyond the title, the sections are compared on those words only, and the
// best of them goes first. The document's score does not change.
func chooseSection(ctx context.Context, ft *fulltext.Index, f *found) error {
	rec, d := &f.rec, &f.doc
	if len(rec.Sections) < 2 {
		return nil
	}
	ids := make([]string, 0, len(rec.Sections)+1)
	ids = append(ids, rec.ID)
	for _, sec := range rec.Sections {
		ids = append(ids, rec.ID+"#"+sec.Slug)
	}
	best, err := ft.Within(ctx, f.q, rec.Title, ids)
	if err != nil || len(best) == 0 {
		return err
	}
	_, slug, _ := strings.Cut(best[0].ID, "#")
	if len(d.passages) > 0 && d.passages[0].slug == slug {
		return nil
	}
	first := passageHit{slug: slug, score: best[0].Score}
	rest := []passageHit{first}
	for _, p := range d.passages {
		if p.slug == slug {
			first.score = p.score
			rest[0] = first
			continue
		}
		rest = append(rest, p)
	}
	d.passages = rest
	return nil
}

// hit builds the skeleton hit of a ranked document: its best passage is
// the matched section, and the snippet comes from that passage's own text.
func (f *found) hit() docir.Hit {
	rec, body, d := &f.rec, f.body, f.doc
	hit := docir.Hit{ID: rec.ID, Title: rec.Title, Path: rec.Path, Store: docir.StoreLocal, Score: d.score, MatchedSection: rec.ID}
	from, to := min(rec.MarkdownStart, len(body)), len(body)
	if len(rec.Sections) > 0 {
		to = rec.Sections[0].Start
	}
	if len(d.passages) > 0 && d.passages[0].slug != "" {
		slug := d.passages[0].slug
		hit.MatchedSection = rec.ID + "#" + slug
		for _, sec := range rec.Sections {
			if sec.Slug == slug {
				from, to = sec.Start, sec.OwnEnd
				break
			}
		}
	}
	if from <= to && to <= len(body) {
		hit.Snippet = Snippet(string(body[from:to]), f.q, SnippetMax)
	}
	return hit
}

// CheckQuery checks the query and limit of a search or context request and
// returns the trimmed query and the limit (DefaultLimit for 0).
func CheckQuery(method, query string, limit int) (string, int, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return "", 0, docir.Errorf(docir.CodeInvalidParams, "%s: empty query", method)
	}
	if len(q) > MaxQueryBytes {
		return "", 0, docir.Errorf(docir.CodeInvalidParams, "%s: query of %d bytes, over the %d-byte bound", method, len(q), MaxQueryBytes)
	}
	limit, err := CheckLimit(limit)
	return q, limit, err
}

// CheckLimit checks a request's hit limit: 0 is DefaultLimit.
func CheckLimit(n int) (int, error) {
	switch {
	case n == 0:
		return docir.DefaultLimit, nil
	case n < 0 || n > docir.MaxLimit:
		return 0, docir.Errorf(docir.CodeInvalidParams, "limit %d: want 1 to %d", n, docir.MaxLimit)
	}
	return n, nil
}
