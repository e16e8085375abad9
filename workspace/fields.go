package workspace

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/query"
)

// Fields scans the records of the current generation and lists their
// front-matter fields (dotted paths into nested objects too), each with
// the number of documents that have it and its most common values. The
// built-in fields id, path, title and size are not listed: every document
// has them.
func (s *Service) Fields(ctx context.Context) (docir.FieldsResult, error) {
	v, release, err := s.acquire(ctx)
	if err != nil {
		return docir.FieldsResult{}, err
	}
	defer release()
	type tally struct {
		docs   int
		values map[string]int
	}
	fields := map[string]*tally{}
	n := 0
	err = v.snap.RecordsJSON(func(raw []byte) error {
		if n++; n%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		var m recordMeta
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("record: %w", err)
		}
		rec := &docir.Record{ID: m.ID, Title: m.Title, Path: m.Path, Fields: m.Fields, Size: m.Size}
		for _, name := range fieldNames(m.Fields, "", 0) {
			t := fields[name]
			if t == nil {
				t = &tally{values: map[string]int{}}
				fields[name] = t
			}
			t.docs++
			vals, _ := query.Values(rec, name)
			seen := map[string]bool{}
			for _, val := range vals {
				val = docir.Clip(val, docir.MaxValueLen)
				if seen[val] {
					continue
				}
				seen[val] = true
				if _, ok := t.values[val]; ok || len(t.values) < docir.MaxDistinct {
					t.values[val]++
				}
			}
		}
		return nil
	})
	if err != nil {
		return docir.FieldsResult{}, err
	}
	res := docir.FieldsResult{Documents: n, Fields: []docir.FieldInfo{}, Generation: v.snap.Generation()}
	for name, t := range fields {
		fi := docir.FieldInfo{Name: name, Documents: t.docs, Distinct: len(t.values), Values: []docir.ValueCount{}}
		for val, c := range t.values {
			fi.Values = append(fi.Values, docir.ValueCount{Value: val, Documents: c})
		}
		slices.SortFunc(fi.Values, func(a, b docir.ValueCount) int {
			return cmp.Or(cmp.Compare(b.Documents, a.Documents), strings.Compare(a.Value, b.Value))
		})
		fi.Values = fi.Values[:min(len(fi.Values), docir.TopValues)]
		res.Fields = append(res.Fields, fi)
	}
	slices.SortFunc(res.Fields, func(a, b docir.FieldInfo) int {
		return cmp.Or(cmp.Compare(b.Documents, a.Documents), strings.Compare(a.Name, b.Name))
	})
	if len(res.Fields) > docir.MaxFields {
		res.Fields, res.Truncated = res.Fields[:docir.MaxFields], true
	}
	return res, nil
}

// builtinField are the metadata fields that win over front-matter keys of
// the same name in a query expression (package query).
var builtinField = map[string]bool{"id": true, "path": true, "title": true, "size": true}

// maxFieldDepth bounds how deep fieldNames goes into nested objects.
const maxFieldDepth = 3

// fieldNames lists the keys of m as query expressions name them: a nested
// object's keys as dotted paths (the object itself too).
func fieldNames(m map[string]any, prefix string, depth int) []string {
	var out []string
	for k, v := range m {
		name := prefix + k
		if builtinField[name] {
			continue
		}
		out = append(out, name)
		if depth+1 >= maxFieldDepth {
			continue
		}
		switch sub := v.(type) {
		case map[string]any:
			out = append(out, fieldNames(sub, name+".", depth+1)...)
		case []any: // a list of objects: the paths into each, once (as query reads them)
			var inner []string
			for _, e := range sub {
				if m, ok := e.(map[string]any); ok {
					inner = append(inner, fieldNames(m, name+".", depth+1)...)
				}
			}
			slices.Sort(inner)
			out = append(out, slices.Compact(inner)...)
		}
	}
	return out
}
