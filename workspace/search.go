package workspace

import (
	"context"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/workspace/rank"
)

// Search ranks documents for a free-text query; each hit names the section
// where the match is best (see package rank).
func (s *Service) Search(ctx context.Context, p docir.SearchParams) (docir.SearchResult, error) {
	v, release, err := s.acquire(ctx)
	if err != nil {
		return docir.SearchResult{}, err
	}
	defer release()
	return rank.Search(ctx, v.snap, v.fullText, p)
}
