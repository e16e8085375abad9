package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/docir/docir/docir"
)

// Diff lists the documents that differ between generation old and s, two
// generations of one store, each sorted: added (in s only), changed (in
// both, with another record but for its path: SameDocument) and removed
// (in old only).
//
// It reads only what may differ. A body layer is immutable and named by
// the generation that wrote it, so a layer in both chains holds the same
// entries in both; a document whose newest entry lies in such a layer in
// both chains is the same document in both (chains are ordered by
// generation: a shared layer above another in one chain is above it in
// the other). The candidates are therefore the keys of the layers the two
// chains do not share: between adjacent generations, the newer one's own
// layer, which holds exactly its change; across a merge of layers, the
// merged deltas; only across a new base, every document.
func (s *Snapshot) Diff(old *Snapshot) (added, changed, removed []string, err error) {
	if old.dir != s.dir {
		return nil, nil, nil, fmt.Errorf("diff: generations of two stores (%s, %s)", old.dir, s.dir)
	}
	newGens, err := s.layerGens()
	if err != nil {
		return nil, nil, nil, err
	}
	oldGens, err := old.layerGens()
	if err != nil {
		return nil, nil, nil, err
	}
	// The layers of one chain that the other does not hold.
	own := func(gens, other []uint64, dbs []*bolt.DB) []*bolt.DB {
		var out []*bolt.DB
		for i, g := range gens {
			if !slices.Contains(other, g) {
				out = append(out, dbs[i])
			}
		}
		return out
	}
	cand := map[string]bool{}
	for _, db := range append(own(newGens, oldGens, s.layers), own(oldGens, newGens, old.layers)...) {
		err := db.View(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketDocs)
			if b == nil {
				return nil
			}
			return b.ForEach(func(k, _ []byte) error {
				cand[string(k)] = true
				return nil
			})
		})
		if err != nil {
			return nil, nil, nil, err
		}
	}
	ids := slices.Sorted(maps.Keys(cand))
	err = old.view(func(oc chain) error {
		return s.view(func(nc chain) error {
			od, nd := oc.buckets(bucketDocs), nc.buckets(bucketDocs)
			for _, id := range ids {
				ov, _ := od.get([]byte(id))
				nv, _ := nd.get([]byte(id))
				switch {
				case ov == nil && nv == nil:
				case ov == nil:
					added = append(added, id)
				case nv == nil:
					removed = append(removed, id)
				case !bytes.Equal(ov, nv):
					same, err := sameEncoded(ov, nv)
					if err != nil {
						return s.damaged("record %q: %v", id, err)
					}
					if !same {
						changed = append(changed, id)
					}
				}
			}
			return nil
		})
	})
	return added, changed, removed, err
}

// SameDocument reports whether two records of one id are the same
// document to a reader: the same record, as the store encodes it, but for
// the file's path (a file renamed whose front matter keeps its id is not
// changed). Another digest is another document, and so are another title,
// fields or sections of the same bytes: a refresh by other markdown rules
// (markdown.RulesVersion) makes them, and a client following changes must
// hear of it. Diff and a refresh's summary both count by it.
func SameDocument(a, b docir.Record) bool {
	if a.Digest != b.Digest {
		return false
	}
	a.Path, b.Path = "", ""
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

// sameEncoded is SameDocument of two encoded records.
func sameEncoded(a, b []byte) (bool, error) {
	var ra, rb docir.Record
	if err := json.Unmarshal(a, &ra); err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, &rb); err != nil {
		return false, err
	}
	return SameDocument(ra, rb), nil
}

// layerGens lists the generations that wrote s's layers, oldest first (in
// step with s.layers): the ones below, then s's own.
func (s *Snapshot) layerGens() ([]uint64, error) {
	var lower []uint64
	if err := s.checkFormat(&lower); err != nil {
		return nil, err
	}
	if len(lower)+1 != len(s.layers) {
		return nil, s.damaged("%d layers listed, %d open", len(lower)+1, len(s.layers))
	}
	return append(lower, s.gen), nil
}
