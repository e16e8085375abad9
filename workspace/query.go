package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/query"
	"github.com/docir/docir/store"
	"github.com/docir/docir/workspace/rank"
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
	limit, err := rank.CheckLimit(p.Limit)
	if err != nil {
		return docir.SearchResult{}, err
	}
	v, release, err := s.acquire(ctx)
	if err != nil {
		return docir.SearchResult{}, err
	}
	defer release()
	matched, total, bare, err := matchRecords(ctx, v.snap, expr, sortField, limit)
	if err != nil {
		return docir.SearchResult{}, err
	}
	if sortField == "" && len(matched) > limit {
		matched = matched[:limit]
	}
	if bare {
		if err := fillRecords(v.snap, matched[:min(limit, len(matched))]); err != nil {
			return docir.SearchResult{}, err
		}
	}
	if sortField != "" {
		query.Sort(matched, sortField, desc)
	}
	res := docir.SearchResult{Query: expr.String(), Hits: []docir.Hit{}, Total: total}
	if total == 0 {
		hints, err := noMatchHints(ctx, v.snap, expr)
		if err != nil {
			return docir.SearchResult{}, err
		}
		res.Warnings = append(res.Warnings, hints...)
	}
	for _, rec := range matched[:min(limit, len(matched))] {
		res.Hits = append(res.Hits, docir.Hit{
			ID:             rec.ID,
			Title:          rec.Title,
			Path:           rec.Path,
			Store:          docir.StoreLocal,
			Score:          1,
			MatchedSection: rec.ID,
			Snippet:        expr.Summary(rec, docir.SnippetMax, sortField),
		})
	}
	return res, nil
}

// matchRecords returns the records matching expr, in id order, and how
// many match. The field index gives the candidates when it can answer some
// term; the rest of the expression is verified on the decoded candidates.
// When the index answers every term exactly and no sort needs the values,
// the total is the index's count less the irregular records that fail
// once decoded, and only the first page comes back, bare (only ID set;
// bare is true), for fillRecords to decode: the cost is the page's, not
// the hits' (10k hits at 192k documents).
func matchRecords(ctx context.Context, snap *store.Snapshot, expr *query.Expr, sortField string, page int) (recs []*docir.Record, total int, bare bool, err error) {
	lookups := expr.Lookups()
	if len(lookups) == 0 {
		recs, err := scanRecords(ctx, snap, expr)
		return recs, len(recs), false, err
	}
	terms := make([][][]byte, len(lookups))
	for i, l := range lookups {
		terms[i] = l.Prefixes
	}
	cand, err := snap.Match(terms)
	if err != nil {
		return nil, 0, false, err
	}
	if cand.Len() == 0 || ctx.Err() != nil {
		return nil, 0, false, ctx.Err()
	}
	exact := expr.Exact(lookups) && sortField == ""
	var verify []string
	if exact {
		// The irregular records among the candidates: the marker's
		// postings alone, intersected with the terms' already read.
		irregular, err := snap.Match([][][]byte{{query.IrregularKey}})
		if err == nil {
			verify, err = cand.And(irregular).IDs(-1)
		}
		if err != nil {
			return nil, 0, false, err
		}
	} else if verify, err = cand.IDs(-1); err != nil {
		return nil, 0, false, err
	}
	ok := make(map[string]*docir.Record, len(verify))
	failed := make(map[string]bool)
	n := 0
	err = snap.RecordsJSONOf(verify, func(id string, raw []byte) error {
		if n++; n%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		rec, err := decodeMeta(raw)
		if err != nil {
			return err
		}
		if expr.Match(rec) {
			ok[id] = rec
		} else {
			failed[id] = true
		}
		return nil
	})
	if err != nil {
		return nil, 0, false, err
	}
	if !exact {
		matched := make([]*docir.Record, 0, len(ok))
		for _, id := range verify {
			if rec := ok[id]; rec != nil {
				matched = append(matched, rec)
			}
		}
		return matched, len(matched), false, nil
	}
	ids, err := cand.IDs(page + len(failed))
	if err != nil {
		return nil, 0, false, err
	}
	matched := make([]*docir.Record, 0, min(page, len(ids)))
	for _, id := range ids {
		if failed[id] || len(matched) == page {
			continue
		}
		rec := ok[id]
		if rec == nil {
			rec = &docir.Record{ID: id}
		}
		matched = append(matched, rec)
	}
	return matched, cand.Len() - len(failed), true, nil
}

// fillRecords decodes the metadata of recs, which may be bare.
func fillRecords(snap *store.Snapshot, recs []*docir.Record) error {
	ids := make([]string, len(recs))
	at := make(map[string]*docir.Record, len(recs))
	for i, r := range recs {
		ids[i] = r.ID
		at[r.ID] = r
	}
	return snap.RecordsJSONOf(ids, func(id string, raw []byte) error {
		rec, err := decodeMeta(raw)
		if err != nil {
			return err
		}
		*at[id] = *rec
		return nil
	})
}

// scanRecords is the filter without the index: every record, ruled out
// from its raw JSON where possible, else decoded and matched.
func scanRecords(ctx context.Context, snap *store.Snapshot, expr *query.Expr) ([]*docir.Record, error) {
	var matched []*docir.Record
	n := 0
	err := snap.RecordsJSON(func(raw []byte) error {
		if n++; n%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if !expr.MayMatchJSON(raw) {
			return nil
		}
		rec, err := decodeMeta(raw)
		if err != nil {
			return err
		}
		if expr.Match(rec) {
			matched = append(matched, rec)
		}
		return nil
	})
	return matched, err
}

func decodeMeta(raw []byte) (*docir.Record, error) {
	var m recordMeta
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	return &docir.Record{ID: m.ID, Title: m.Title, Path: m.Path, Fields: m.Fields, Size: m.Size}, nil
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

// noMatchHints say why an expression matched nothing, where the store can
// tell: a field it names that no document has (Node's docs keep `added:`
// in HTML comments, not front matter), else the documents its plain
// values find as parts of longer ones (widenedHint).
func noMatchHints(ctx context.Context, snap *store.Snapshot, expr *query.Expr) ([]string, error) {
	var out []string
	seen := map[string]bool{"id": true, "path": true, "title": true, "size": true} // every document has these
	for _, t := range expr.Terms {
		if t.Not || seen[t.Field] {
			continue
		}
		seen[t.Field] = true
		has, err := query.Parse(strconv.Quote(t.Field) + ":*")
		if err != nil {
			continue // a name the quoted form cannot say: no hint
		}
		if _, n, _, err := matchRecords(ctx, snap, has, "", 1); err != nil {
			return nil, err
		} else if n == 0 {
			out = append(out, fmt.Sprintf("no document has the field %q (docir fields lists the fields the documents have)", t.Field))
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	w, err := widenedHint(ctx, snap, expr)
	if w == "" || err != nil {
		return nil, err
	}
	return []string{w}, nil
}

// widenedHint says, of an expression that matched nothing, how many
// documents match it with each of its plain equality terms' values read as
// a part of a longer value (`keywords:rootless` as `keywords:*rootless*`):
// a site that writes a list as one string (the Docker docs' `keywords:
// security, namespaces, rootless`) holds the value, but not as a value of
// its own; "" when no term is plain (a glob, a quote, a comparison, a
// negation) or the widened expression matches nothing too. It costs a
// second match only when the first found nothing.
func widenedHint(ctx context.Context, snap *store.Snapshot, expr *query.Expr) (string, error) {
	var b strings.Builder
	widened := false
	for i, t := range expr.Terms {
		if i > 0 {
			b.WriteByte(' ')
		}
		if t.Not || t.Op != query.OpEq || !plainValue(t.Field) || slices.ContainsFunc(t.Values, func(v string) bool { return !plainValue(v) }) {
			b.WriteString(t.Text)
			continue
		}
		widened = true
		b.WriteString(t.Field + ":")
		for k, v := range t.Values {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString("*" + v + "*")
		}
	}
	if !widened {
		return "", nil
	}
	w, err := query.Parse(b.String())
	if err != nil {
		return "", nil // a widened value over a bound: no hint
	}
	_, n, _, err := matchRecords(ctx, snap, w, "", 1)
	if err != nil || n == 0 {
		return "", err
	}
	return fmt.Sprintf("no document matches %s, but %d match %s: the value is a part of a longer one (a list written as one string, `keywords: a, b`, is one value)", expr.String(), n, w.String()), nil
}

// plainValue reports whether s, a field name or a value of a query term,
// is written bare and matches as itself: no glob, quote, space, comma or
// range, so that *s* is the glob of every value holding it.
func plainValue(s string) bool {
	return s != "" && !strings.ContainsAny(s, "*?\\\"\t\n\r ,") && !strings.Contains(s, "..")
}
