package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/query"
)

// Query filters documents by front matter and metadata (see package query
// for the expression language). Hits are skeletons like search's: the
// matched_section is the document itself, the score is 1 (a filter matches
// or not), and the snippet shows the fields the expression and the sort
// named. Without a
// sort, hits come in id order.
func (s *Service) Query(ctx context.Context, p docir.QueryParams) (docir.SearchResult, error) {
	expr, sortField, desc, err := ParseQuery(p)
	if err != nil {
		return docir.SearchResult{}, err
	}
	limit, err := checkLimit(p.Limit)
	if err != nil {
		return docir.SearchResult{}, err
	}
	v, release, err := s.acquire(ctx)
	if err != nil {
		return docir.SearchResult{}, err
	}
	defer release()
	snap := v.snap
	// Rule out what the raw JSON can, and decode only the metadata of the
	// rest: no sections.
	var matched []*docir.Record
	n := 0
	err = snap.RecordsJSON(func(raw []byte) error {
		if n++; n%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if !expr.MayMatchJSON(raw) {
			return nil
		}
		var m recordMeta
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("record: %w", err)
		}
		rec := &docir.Record{ID: m.ID, Title: m.Title, Path: m.Path, Fields: m.Fields, Size: m.Size}
		if expr.Match(rec) {
			matched = append(matched, rec)
		}
		return nil
	})
	if err != nil {
		return docir.SearchResult{}, err
	}
	if sortField != "" {
		query.Sort(matched, sortField, desc)
	}
	res := docir.SearchResult{Query: expr.String(), Hits: []docir.Hit{}, Total: len(matched)}
	for _, rec := range matched[:min(limit, len(matched))] {
		res.Hits = append(res.Hits, docir.Hit{
			ID:             rec.ID,
			Title:          rec.Title,
			Path:           rec.Path,
			Store:          docir.StoreLocal,
			Score:          1,
			MatchedSection: rec.ID,
			Snippet:        expr.Summary(rec, SnippetMax, sortField),
		})
	}
	return res, nil
}

// recordMeta is the part of a stored docir.Record a filter reads.
type recordMeta struct {
	ID     string         `json:"id"`
	Title  string         `json:"title"`
	Path   string         `json:"path"`
	Fields map[string]any `json:"fields"`
	Size   int64          `json:"size"`
}

// ParseQuery parses the expression and sort of a query request. A bad one
// is an invalid_query error naming the part at fault.
func ParseQuery(p docir.QueryParams) (expr *query.Expr, sortField string, desc bool, err error) {
	expr, err = query.Parse(strings.TrimSpace(p.Expr))
	if err == nil && p.Sort != "" {
		sortField, desc, err = query.ParseSort(p.Sort)
	}
	if err != nil {
		var qe *query.Error
		if errors.As(err, &qe) {
			return nil, "", false, &docir.Error{Code: docir.CodeInvalidQuery, Message: err.Error(), Err: err}
		}
		return nil, "", false, err
	}
	return expr, sortField, desc, nil
}
