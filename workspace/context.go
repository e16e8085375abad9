package workspace

import (
	"context"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/workspace/rank"
)

// Context ranks documents like Search, with each one's outline and the
// ordered addresses to read next within the token budget (see package
// rank).
func (s *Service) Context(ctx context.Context, p docir.ContextParams) (docir.ContextResult, error) {
	v, release, err := s.acquire(ctx)
	if err != nil {
		return docir.ContextResult{}, err
	}
	defer release()
	return rank.Context(ctx, v.snap, v.fullText, p)
}
