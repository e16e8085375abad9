package workspace

import (
	"context"
	"strings"
	"sync"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/fulltext"
)

// fullTextCache holds the bleve index of the open generation, opened on
// the first search only: deep reads never pay for bleve.
type fullTextCache struct {
	mu   sync.Mutex
	gen  uint64
	idx  *fulltext.Index
	path string
}

func (c *fullTextCache) open(snap *store.Snapshot) (*fulltext.Index, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.idx != nil && c.gen == snap.Generation() && c.path == snap.FullTextPath() {
		return c.idx, nil
	}
	if c.idx != nil {
		_ = c.idx.Close()
		c.idx = nil
	}
	idx, err := fulltext.Open(snap.FullTextPath(), true)
	if err != nil {
		return nil, err
	}
	c.idx, c.gen, c.path = idx, snap.Generation(), snap.FullTextPath()
	return idx, nil
}

func (c *fullTextCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.idx == nil {
		return nil
	}
	err := c.idx.Close()
	c.idx = nil
	return err
}

// Search ranks documents for a free-text query: passages are scored by
// bleve, and each document is represented by its best passage, which names
// its matched_section.
func (s *Service) Search(ctx context.Context, p docir.SearchParams) (docir.SearchResult, error) {
	q := strings.TrimSpace(p.Query)
	if q == "" {
		return docir.SearchResult{}, docir.Errorf(docir.CodeInvalidParams, "search: empty query")
	}
	limit, err := checkLimit(p.Limit)
	if err != nil {
		return docir.SearchResult{}, err
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		return docir.SearchResult{}, err
	}
	idx, err := s.ft.open(snap)
	if err != nil {
		return docir.SearchResult{}, err
	}
	// Several passages of one document may rank high; ask for enough that
	// limit distinct documents survive the grouping.
	matches, _, err := idx.Search(ctx, q, limit*8)
	if err != nil {
		return docir.SearchResult{}, err
	}
	res := docir.SearchResult{Query: q, Hits: []docir.Hit{}}
	seen := map[string]bool{}
	for _, m := range matches {
		id, slug, _ := strings.Cut(m.ID, "#")
		if seen[id] {
			continue
		}
		seen[id] = true
		res.Total++
		if len(res.Hits) == limit {
			continue
		}
		rec, body, ok, err := snap.Lookup(id)
		if err != nil {
			return docir.SearchResult{}, err
		}
		if !ok {
			continue
		}
		hit := docir.Hit{ID: id, Title: rec.Title, Path: rec.Path, Store: docir.StoreLocal, Score: m.Score, MatchedSection: id}
		from, to := rec.MarkdownStart, len(body)
		if len(rec.Sections) > 0 {
			to = rec.Sections[0].Start
		}
		if slug != "" {
			hit.MatchedSection = id + "#" + slug
			for _, sec := range rec.Sections {
				if sec.Slug == slug {
					from, to = sec.Start, sec.OwnEnd
					break
				}
			}
		}
		hit.Snippet = Snippet(string(body[from:to]), q, SnippetMax)
		res.Hits = append(res.Hits, hit)
	}
	return res, nil
}

func checkLimit(n int) (int, error) {
	switch {
	case n == 0:
		return docir.DefaultLimit, nil
	case n < 0 || n > docir.MaxLimit:
		return 0, docir.Errorf(docir.CodeInvalidParams, "limit %d: want 1 to %d", n, docir.MaxLimit)
	}
	return n, nil
}
