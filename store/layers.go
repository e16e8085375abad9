package store

import (
	"bytes"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// A generation's body data lives in layers: bbolt files, oldest first,
// each immutable once its generation is published. The newest is the
// generation's own docs.bolt; the ones below it were written by earlier
// generations and are hard-linked into this generation's folder as
// layer-G.bolt (G the generation that wrote it), so a refresh writes only
// what changed and retaining a generation costs its change, not a copy.
//
// A key in a newer layer shadows the same key below it; a tombstone (the
// one byte 0x00, which no record, file entry or manifest value is) says
// the key is gone. A generation's meta lives in its own layer only.
//
// Begin keeps the chain short: past maxDeltas layers above the base it
// merges the deltas into the new layer, and once the deltas outweigh half
// the base it writes a whole new base.
const (
	maxDeltas   = 4
	layerPrefix = "layer-"
	layerSuffix = ".bolt"
)

var tombstone = []byte{0}

func isTombstone(v []byte) bool { return len(v) == 1 && v[0] == 0 }

func layerName(gen uint64) string {
	return layerPrefix + strconv.FormatUint(gen, 10) + layerSuffix
}

// formatLayers and parseLayers encode the meta "layers" value: the
// generations whose layers lie below this one, oldest first.
func formatLayers(gens []uint64) []byte {
	parts := make([]string, len(gens))
	for i, g := range gens {
		parts[i] = strconv.FormatUint(g, 10)
	}
	return []byte(strings.Join(parts, ","))
}

func parseLayers(v []byte) ([]uint64, error) {
	if len(v) == 0 {
		return nil, nil
	}
	var gens []uint64
	for _, p := range bytes.Split(v, []byte(",")) {
		g, err := strconv.ParseUint(string(p), 10, 64)
		if err != nil {
			return nil, err
		}
		gens = append(gens, g)
	}
	return gens, nil
}

// chain is one read (or, for the last, write) transaction per layer,
// oldest first.
type chain []*bolt.Tx

func (c chain) top() *bolt.Tx { return c[len(c)-1] }

// get returns the newest value of key in bucket and the index of the layer
// holding it; nil and -1 when no layer has it or the newest says it is
// gone.
func (c chain) get(bucket, key []byte) ([]byte, int) {
	return c.buckets(bucket).get(key)
}

// layered is one bucket in every layer of a chain, oldest first; nil where
// a layer lacks it.
type layered []*bolt.Bucket

func (c chain) buckets(name []byte) layered {
	bs := make(layered, len(c))
	for i, tx := range c {
		bs[i] = tx.Bucket(name)
	}
	return bs
}

// get is chain.get on buckets opened once.
func (bs layered) get(key []byte) ([]byte, int) {
	for i := len(bs) - 1; i >= 0; i-- {
		b := bs[i]
		if b == nil {
			continue
		}
		if v := b.Get(key); v != nil {
			if isTombstone(v) {
				return nil, -1
			}
			return v, i
		}
	}
	return nil, -1
}

// getBelow is get over the layers below layer i.
func (c chain) getBelow(i int, bucket, key []byte) ([]byte, int) {
	return c[:i].get(bucket, key)
}

// each calls fn with the newest value of every key of bucket, in key
// order, and the index of the layer it came from. Keys whose newest value
// is a tombstone are skipped unless tombstones is set. k and v are valid
// only during the call.
func (c chain) each(bucket []byte, tombstones bool, fn func(k, v []byte, layer int) error) error {
	return c.eachFrom(bucket, nil, tombstones, fn)
}

// eachFrom is each from the first key at or after from.
func (c chain) eachFrom(bucket, from []byte, tombstones bool, fn func(k, v []byte, layer int) error) error {
	type pos struct {
		cur  *bolt.Cursor
		k, v []byte
	}
	ps := make([]pos, len(c))
	for i, tx := range c {
		if b := tx.Bucket(bucket); b != nil {
			cur := b.Cursor()
			k, v := cur.First()
			if len(from) > 0 {
				k, v = cur.Seek(from)
			}
			ps[i] = pos{cur: cur, k: k, v: v}
		}
	}
	for {
		win := -1
		for i := range ps {
			if ps[i].k == nil {
				continue
			}
			// Newer layers come later: on equal keys the later one wins.
			if win < 0 || bytes.Compare(ps[i].k, ps[win].k) <= 0 {
				win = i
			}
		}
		if win < 0 {
			return nil
		}
		k, v := ps[win].k, ps[win].v
		if tombstones || !isTombstone(v) {
			if err := fn(k, v, win); err != nil {
				return err
			}
		}
		for i := range ps {
			if i != win && ps[i].k != nil && bytes.Equal(ps[i].k, k) {
				ps[i].k, ps[i].v = ps[i].cur.Next()
			}
		}
		ps[win].k, ps[win].v = ps[win].cur.Next()
	}
}

// beginChain starts a read transaction on every db, oldest first; done
// rolls them back.
func beginChain(dbs []*bolt.DB) (c chain, done func(), err error) {
	c = make(chain, 0, len(dbs))
	done = func() {
		for _, tx := range c {
			tx.Rollback()
		}
	}
	for _, db := range dbs {
		tx, err := db.Begin(false)
		if err != nil {
			done()
			return nil, nil, err
		}
		c = append(c, tx)
	}
	return c, done, nil
}
