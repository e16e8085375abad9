package store

import (
	"encoding/json"
	"fmt"

	"github.com/docir/docir/docir/query"
)

// The field index: the keys query.IndexKeys gives each record (its
// front-matter paths and values, case-folded, and its built-in fields),
// so a filter reads the documents having a key under a prefix instead of
// decoding every record. Each body layer holds the index of the records it
// puts, as packed posting lists written when the layer is sealed
// (postings.go); the records a newer layer replaces or deletes are
// shadowed, never rewritten.

// fieldMeta is the part of a stored record the field index reads.
type fieldMeta struct {
	ID     string         `json:"id"`
	Title  string         `json:"title"`
	Path   string         `json:"path"`
	Fields map[string]any `json:"fields"`
}

// indexKeys lists the index keys of the record whose JSON is raw.
func indexKeys(id string, raw []byte) ([][]byte, error) {
	var m fieldMeta
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("record %q: %w", id, err)
	}
	return query.IndexKeys(m.ID, m.Path, m.Title, m.Fields), nil
}

// RecordsJSONOf calls fn with the JSON of each listed document that the
// generation holds, in the order given, until fn returns an error. The
// bytes are valid only during the call.
//
// A few ids are read by pread, as Record is (pread.go); a longer list (a
// filter's candidates, in id order) is read through the memory map in one
// transaction, where neighbouring records share the pages the kernel maps
// around each one touched: 10k sorted ids by pread cost 1.28× the CPU.
func (s *Snapshot) RecordsJSONOf(ids []string, fn func(id string, raw []byte) error) error {
	each := func(get func(id []byte) ([]byte, error)) error {
		for _, id := range ids {
			v, err := get([]byte(id))
			if err != nil {
				return err
			}
			if v != nil {
				if err := fn(id, v); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if len(ids) > pointReadsMost {
		return s.view(func(c chain) error {
			docs := c.buckets(bucketDocs)
			return each(func(id []byte) ([]byte, error) { v, _ := docs.get(id); return v, nil })
		})
	}
	return each(func(id []byte) ([]byte, error) { v, _, err := s.pointGet(bucketDocs, id); return v, err })
}

// pointReadsMost is the longest list of ids RecordsJSONOf reads by pread.
const pointReadsMost = 64
