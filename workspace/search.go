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

// Names of package rank that callers of workspace use.
const (
	SnippetMax    = rank.SnippetMax    // the most bytes a snippet holds
	MaxBudget     = rank.MaxBudget     // bound of a context request's token budget
	MaxQueryBytes = rank.MaxQueryBytes // bound of a free-text query
)

// Span is one place in a text where a word of the query occurs.
type Span = rank.Span

// MatchSpans finds where the query's words occur in text (see rank.MatchSpans).
func MatchSpans(text, query string) []rank.Span { return rank.MatchSpans(text, query) }

// EstimateTokens estimates the tokens of text (see rank.EstimateTokens).
func EstimateTokens(text []byte) int { return rank.EstimateTokens(text) }

func checkLimit(n int) (int, error) { return rank.CheckLimit(n) }
