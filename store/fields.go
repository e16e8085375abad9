package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	bolt "go.etcd.io/bbolt"

	"github.com/docir/docir/docir/query"
)

// The field index: bucket "fields" of every body layer holds, for each
// record the layer puts, the keys query.IndexKeys gives it, each followed
// by the record's id (values are empty). A filter reads the documents
// having a key under a prefix instead of decoding every record.
//
// An entry in a layer is live while no newer layer holds the id in its
// docs bucket (a newer version, or a tombstone, shadows it), so layers
// never rewrite the entries below them. Within the layer being written,
// Apply removes the entries of a record it replaces or deletes; a merge
// writes the entries of the records it copies.
var bucketFields = []byte("fields")

// fieldMeta is the part of a stored record the field index reads.
type fieldMeta struct {
	ID     string         `json:"id"`
	Title  string         `json:"title"`
	Path   string         `json:"path"`
	Fields map[string]any `json:"fields"`
}

// fieldKeys lists the index keys of the record whose JSON is raw, each
// ending in its id.
func fieldKeys(id string, raw []byte) ([][]byte, error) {
	var m fieldMeta
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("record %q: %w", id, err)
	}
	keys := query.IndexKeys(m.ID, m.Path, m.Title, m.Fields)
	for i, k := range keys {
		keys[i] = append(k, id...)
	}
	return keys, nil
}

// putFields writes the index entries of a record.
func putFields(b *bolt.Bucket, id string, raw []byte) error {
	keys, err := fieldKeys(id, raw)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := b.Put(k, []byte{}); err != nil {
			return err
		}
	}
	return nil
}

// dropFields removes the index entries of the record old (its JSON), put
// earlier in the same layer.
func dropFields(b *bolt.Bucket, id string, old []byte) error {
	keys, err := fieldKeys(id, old)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// IndexedIDs returns, sorted and distinct, the ids of the documents having
// a live field-index entry under any of prefixes (see query.Lookup). With
// within non-nil (sorted), only ids in it are returned: a conjunction
// reads its later terms without keeping what an earlier one ruled out.
func (s *Snapshot) IndexedIDs(prefixes [][]byte, within []string) ([]string, error) {
	var ids []string
	err := s.view(func(c chain) error {
		docs := c.buckets(bucketDocs)
		for i, tx := range c {
			b := tx.Bucket(bucketFields)
			if b == nil {
				continue
			}
			above := docs[i+1:]
			for _, p := range prefixes {
				cur := b.Cursor()
				j, last := 0, []byte(nil)
				for k, _ := cur.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = cur.Next() {
					id := k[bytes.LastIndexByte(k, 0)+1:]
					if within != nil {
						// Under an exact value the ids come in order: walk
						// within alongside; else search it. string(id) in a
						// comparison does not allocate.
						if bytes.Compare(id, last) < 0 {
							j = sort.Search(len(within), func(m int) bool { return within[m] >= string(id) })
						}
						for j < len(within) && within[j] < string(id) {
							j++
						}
						last = id
						if j == len(within) || within[j] != string(id) {
							continue
						}
					}
					if shadowed(above, id) {
						continue
					}
					ids = append(ids, string(id))
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !slices.IsSorted(ids) {
		slices.Sort(ids)
	}
	return slices.Compact(ids), nil
}

// shadowed reports whether a newer layer holds id in its docs bucket.
func shadowed(above layered, id []byte) bool {
	for _, b := range above {
		if b != nil && b.Get(id) != nil {
			return true
		}
	}
	return false
}

// RecordsJSONOf calls fn with the JSON of each listed document that the
// generation holds, in the order given, until fn returns an error. The
// bytes are valid only during the call.
func (s *Snapshot) RecordsJSONOf(ids []string, fn func(id string, raw []byte) error) error {
	return s.view(func(c chain) error {
		docs := c.buckets(bucketDocs)
		for _, id := range ids {
			v, _ := docs.get([]byte(id))
			if v == nil {
				continue
			}
			if err := fn(id, v); err != nil {
				return err
			}
		}
		return nil
	})
}
