package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"
	"golang.org/x/sync/errgroup"

	"github.com/docir/docir/docir"
)

// Packed posting lists: the field index of a layer as roaring bitmaps of
// layer-local document numbers, so a filter costs the size of its page,
// not the number of its hits. When a layer is sealed (Publish), its live
// documents are numbered 0, 1, … in id order, and it gets three buckets:
//
//	numbers   big-endian uint32 number -> id
//	postings  index key (query.IndexKeys) + big-endian uint16 chunk ->
//	          roaring bitmap of the numbers, in that chunk (of 2^16), of
//	          the documents having the key
//	shadow    big-endian uint64 generation of a layer below ->
//	          roaring bitmap of that layer's numbers whose ids this layer
//	          or one between holds (a newer version or a tombstone)
//
// A conjunction is an AND of the bitmaps of its terms, a term's prefixes
// an OR, shadowing an AND NOT of the top layer's shadow bitmap of the
// layer; the count is a cardinality, and only a page's numbers become
// ids. Hits in id order are each layer's numbers in order, merged across
// layers by id (a live id lies in exactly one layer).
//
// Chunks keep the seal's memory bounded: the postings of 2^16 documents
// are gathered and written before the next are read.
var (
	bucketNumbers  = []byte("numbers")
	bucketPostings = []byte("postings")
	bucketShadow   = []byte("shadow")
)

// The seal gathers and writes the postings of sealChunk documents at a
// time (a roaring container's span), reading and decoding sealBatch per
// read transaction; sealBatch divides sealChunk, so a chunk ends with a
// batch. Variables for tests, which make them small.
var sealChunk, sealBatch = 1 << 16, 2048

func be32(n uint32) []byte { return binary.BigEndian.AppendUint32(nil, n) }
func be64(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

// sealFields numbers the new layer's live documents and writes its
// postings and the shadow bitmaps of the layers below it.
func (p *Pending) sealFields() error {
	if err := p.writePostings(); err != nil {
		return err
	}
	return p.writeShadows()
}

// chunkPostings gathers the postings of one chunk of numbers.
type chunkPostings struct {
	base uint32              // the chunk's first number
	ids  []string            // by number - base
	keys map[string][]uint16 // index key -> its numbers - base, ascending
}

// writePostings reads the new layer's documents in id order, sealBatch
// per read transaction (decoded on every core), and writes the numbers
// and postings of each chunk in a write transaction of its own: never
// while a read transaction of the same file is open, which would
// deadlock bbolt's remap.
func (p *Pending) writePostings() error {
	var after []byte
	first := true
	ch := &chunkPostings{keys: map[string][]uint16{}}
	for {
		var done bool
		err := p.db.View(func(tx *bolt.Tx) error {
			cur := tx.Bucket(bucketDocs).Cursor()
			k, v := cur.First()
			if !first {
				k, v = cur.Seek(after)
				if k != nil && bytes.Equal(k, after) {
					k, v = cur.Next()
				}
			}
			first = false
			var ids []string
			var raws [][]byte
			for ; k != nil && len(ids) < sealBatch; k, v = cur.Next() {
				if !isTombstone(v) {
					ids, raws = append(ids, string(k)), append(raws, v)
				}
			}
			done = k == nil
			if len(ids) == 0 {
				return nil
			}
			after = []byte(ids[len(ids)-1])
			keys, err := decodeKeys(ids, raws)
			if err != nil {
				return err
			}
			for i, id := range ids {
				lo := uint16(len(ch.ids))
				ch.ids = append(ch.ids, id)
				for _, key := range keys[i] {
					ch.keys[string(key)] = append(ch.keys[string(key)], lo)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(ch.ids) == sealChunk || (done && len(ch.ids) > 0) {
			if err := p.db.Update(ch.write); err != nil {
				return err
			}
			ch = &chunkPostings{base: ch.base + uint32(len(ch.ids)), keys: map[string][]uint16{}}
		}
		if done {
			return nil
		}
	}
}

// decodeKeys lists the index keys of each record, decoding on every core.
func decodeKeys(ids []string, raws [][]byte) ([][][]byte, error) {
	keys := make([][][]byte, len(ids))
	var g errgroup.Group
	workers := runtime.GOMAXPROCS(0)
	per := (len(ids) + workers - 1) / workers
	for from := 0; from < len(ids); from += per {
		to := min(from+per, len(ids))
		g.Go(func() error {
			for i := from; i < to; i++ {
				ks, err := indexKeys(ids[i], raws[i])
				if err != nil {
					return err
				}
				keys[i] = ks
			}
			return nil
		})
	}
	return keys, g.Wait()
}

func (ch *chunkPostings) write(tx *bolt.Tx) error {
	numbers, postings := tx.Bucket(bucketNumbers), tx.Bucket(bucketPostings)
	// Numbers are appended in order: pack their pages full.
	numbers.FillPercent, postings.FillPercent = 1, fillPercent
	for i, id := range ch.ids {
		if err := numbers.Put(be32(ch.base+uint32(i)), []byte(id)); err != nil {
			return err
		}
	}
	suffix := binary.BigEndian.AppendUint16(nil, uint16(ch.base/uint32(sealChunk)))
	var nums []uint32
	for _, key := range slices.Sorted(maps.Keys(ch.keys)) {
		nums = nums[:0]
		for _, lo := range ch.keys[key] {
			nums = append(nums, ch.base|uint32(lo))
		}
		bm := roaring.New()
		bm.AddMany(nums)
		bm.RunOptimize()
		v, err := bm.ToBytes()
		if err != nil {
			return err
		}
		if err := postings.Put(append([]byte(key), suffix...), v); err != nil {
			return err
		}
	}
	return nil
}

// writeShadows writes, for every layer below the new one, the bitmap of
// its numbers that the new layer or one between shadows: the one the layer
// just below recorded (covering the layers up to it), and the numbers of
// the ids the new layer's docs bucket holds (records and tombstones).
func (p *Pending) writeShadows() error {
	if len(p.lower) == 0 {
		return nil
	}
	c, done, err := beginChain(p.lower)
	if err != nil {
		return err
	}
	defer done()
	return p.db.Update(func(tx *bolt.Tx) error {
		gens, err := parseLayers(tx.Bucket(bucketMeta).Get(keyLayers))
		if err != nil || len(gens) != len(c) {
			return p.corrupt("bad layer list %q", tx.Bucket(bucketMeta).Get(keyLayers))
		}
		var ids [][]byte
		if err := tx.Bucket(bucketDocs).ForEach(func(k, _ []byte) error {
			ids = append(ids, bytes.Clone(k))
			return nil
		}); err != nil {
			return err
		}
		out := tx.Bucket(bucketShadow)
		for i, ltx := range c {
			sh := roaring.New()
			if last := len(c) - 1; i < last {
				v := c[last].Bucket(bucketShadow).Get(be64(gens[i]))
				if v == nil {
					return p.corrupt("layer %d has no shadow of layer %d", gens[last], gens[i])
				}
				if sh, err = readBitmap(v); err != nil {
					return p.corrupt("layer %d: shadow of layer %d: %v", gens[last], gens[i], err)
				}
			}
			nums := ltx.Bucket(bucketNumbers)
			if nums == nil {
				return p.corrupt("layer %d has no numbers bucket", gens[i])
			}
			if err := numbersOf(nums, ids, sh.Add); err != nil {
				return p.corrupt("layer %d: %v", gens[i], err)
			}
			sh.RunOptimize()
			v, err := sh.ToBytes()
			if err != nil {
				return err
			}
			if err := out.Put(be64(gens[i]), v); err != nil {
				return err
			}
		}
		return nil
	})
}

// numbersOf calls add with the number of each of ids (sorted) that the
// numbers bucket b holds: by binary search when they are few, else by one
// walk of b beside them.
func numbersOf(b *bolt.Bucket, ids [][]byte, add func(uint32)) error {
	cur := b.Cursor()
	k, _ := cur.Last()
	if k == nil {
		return nil
	}
	if len(k) != 4 {
		return fmt.Errorf("bad number key %x", k)
	}
	n := int(binary.BigEndian.Uint32(k)) + 1
	if len(ids)*20 < n {
		for _, id := range ids {
			lo, hi := 0, n
			for lo < hi {
				mid := int(uint(lo+hi) >> 1)
				v := b.Get(be32(uint32(mid)))
				if v == nil {
					return fmt.Errorf("no id for number %d", mid)
				}
				switch bytes.Compare(v, id) {
				case 0:
					add(uint32(mid))
					lo, hi = mid, mid
				case -1:
					lo = mid + 1
				default:
					hi = mid
				}
			}
		}
		return nil
	}
	j := 0
	for k, v := cur.First(); k != nil && j < len(ids); k, v = cur.Next() {
		for j < len(ids) && bytes.Compare(ids[j], v) < 0 {
			j++
		}
		if j < len(ids) && bytes.Equal(ids[j], v) {
			if len(k) != 4 {
				return fmt.Errorf("bad number key %x", k)
			}
			add(binary.BigEndian.Uint32(k))
		}
	}
	return nil
}

// errBitmap is wrapped by the errors of readBitmap.
var errBitmap = errors.New("bad posting bitmap")

// readBitmap parses a stored roaring bitmap. The bytes are outside input
// (a file on disk): anything but a whole, valid bitmap is an error. The
// bitmap is the caller's (the bytes are copied out of the memory map).
func readBitmap(v []byte) (*roaring.Bitmap, error) {
	if err := checkContainers(v); err != nil {
		return nil, fmt.Errorf("%w: %w", errBitmap, err)
	}
	bm := roaring.New()
	n, err := bm.FromBuffer(bytes.Clone(v))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errBitmap, err)
	}
	if n != int64(len(v)) {
		return nil, fmt.Errorf("%w: %d bytes past its end", errBitmap, int64(len(v))-n)
	}
	if err := bm.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", errBitmap, err)
	}
	return bm, nil
}

// Matches is what the field index answers for a conjunction: the live
// documents in it, per layer, as numbers. It reads ids only for the page
// asked of it.
type Matches struct {
	s    *Snapshot
	sets []*roaring.Bitmap // per layer, oldest first
}

// Match returns the live documents having, for each of terms, an index
// entry under one of the term's prefixes (see query.Lookup). A missing or
// corrupt part of the index is an error naming the store.
func (s *Snapshot) Match(terms [][][]byte) (*Matches, error) {
	m := &Matches{s: s, sets: make([]*roaring.Bitmap, len(s.layers))}
	err := s.view(func(c chain) error {
		var gens []uint64
		var shadows *bolt.Bucket
		if len(c) > 1 {
			var err error
			gens, err = parseLayers(c.top().Bucket(bucketMeta).Get(keyLayers))
			if err != nil || len(gens) != len(c)-1 {
				return s.corrupt(s.gen, "bad layer list %q", c.top().Bucket(bucketMeta).Get(keyLayers))
			}
			if shadows = c.top().Bucket(bucketShadow); shadows == nil {
				return s.corrupt(s.gen, "no shadow bucket")
			}
		}
		gens = append(gens, s.gen)
		for i, tx := range c {
			b := tx.Bucket(bucketPostings)
			if b == nil {
				return s.corrupt(gens[i], "no postings bucket")
			}
			set := roaring.New()
			for t, prefixes := range terms {
				u, err := union(b, prefixes)
				if err != nil {
					return s.corrupt(gens[i], "%v", err)
				}
				if t == 0 {
					set = u
				} else {
					set.And(u)
				}
				if set.IsEmpty() {
					break
				}
			}
			if i < len(c)-1 && !set.IsEmpty() {
				v := shadows.Get(be64(gens[i]))
				if v == nil {
					return s.corrupt(s.gen, "no shadow of layer %d", gens[i])
				}
				sh, err := readBitmap(v)
				if err != nil {
					return s.corrupt(s.gen, "shadow of layer %d: %v", gens[i], err)
				}
				set.AndNot(sh)
			}
			m.sets[i] = set
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// And returns the documents in both m and o, two answers of the same
// snapshot: per layer, an AND of numbers already read (no postings are
// read again).
func (m *Matches) And(o *Matches) *Matches {
	out := &Matches{s: m.s, sets: make([]*roaring.Bitmap, len(m.sets))}
	for i := range m.sets {
		out.sets[i] = roaring.And(m.sets[i], o.sets[i])
	}
	return out
}

// union is the OR of the postings under any of prefixes.
func union(b *bolt.Bucket, prefixes [][]byte) (*roaring.Bitmap, error) {
	var bms []*roaring.Bitmap
	cur := b.Cursor()
	for _, p := range prefixes {
		for k, v := cur.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = cur.Next() {
			bm, err := readBitmap(v)
			if err != nil {
				return nil, fmt.Errorf("postings %q: %w", k, err)
			}
			bms = append(bms, bm)
		}
	}
	switch len(bms) {
	case 0:
		return roaring.New(), nil
	case 1:
		return bms[0], nil
	}
	return roaring.FastOr(bms...), nil
}

// corrupt is the error of a layer whose field index is missing or bad.
func (s *Snapshot) corrupt(layer uint64, format string, args ...any) error {
	return docir.Errorf(docir.CodeStoreFormat, "%s: generation %d: layer %d: field index: %s; remove the folder and index again", s.dir, s.gen, layer, fmt.Sprintf(format, args...))
}

// corrupt is the error of a layer below a pending generation whose field
// index is missing or bad.
func (p *Pending) corrupt(format string, args ...any) error {
	return docir.Errorf(docir.CodeStoreFormat, "%s: building generation %d: field index: %s; remove the folder and index again", p.dir, p.gen, fmt.Sprintf(format, args...))
}

// Len is the number of matching documents.
func (m *Matches) Len() int {
	n := 0
	for _, set := range m.sets {
		n += int(set.GetCardinality())
	}
	return n
}

// IDs returns the ids of the first n matching documents in id order (all
// of them when n < 0).
func (m *Matches) IDs(n int) ([]string, error) {
	if n == 0 || m.Len() == 0 {
		return nil, nil
	}
	var out []string
	err := m.s.view(func(c chain) error {
		for i, set := range m.sets {
			if set.IsEmpty() {
				continue
			}
			b := c[i].Bucket(bucketNumbers)
			if b == nil {
				return m.s.corrupt(m.layerGen(c, i), "no numbers bucket")
			}
			var run []string
			for it := set.Iterator(); it.HasNext() && (n < 0 || len(run) < n); {
				num := it.Next()
				v := b.Get(be32(num))
				if v == nil {
					return m.s.corrupt(m.layerGen(c, i), "no id for document number %d", num)
				}
				run = append(run, string(v))
			}
			out = mergeIDs(out, run)
			if n >= 0 && len(out) > n {
				out = out[:n]
			}
		}
		return nil
	})
	return out, err
}

// layerGen names layer i of c, for an error.
func (m *Matches) layerGen(c chain, i int) uint64 {
	if i == len(c)-1 {
		return m.s.gen
	}
	gens, err := parseLayers(c.top().Bucket(bucketMeta).Get(keyLayers))
	if err != nil || i >= len(gens) {
		return 0
	}
	return gens[i]
}

// mergeIDs merges two sorted lists of distinct ids.
func mergeIDs(a, b []string) []string {
	if len(a) == 0 {
		return b
	}
	out := make([]string, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if strings.Compare(b[j], a[i]) < 0 {
			out = append(out, b[j])
			j++
		} else {
			out = append(out, a[i])
			i++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// checkContainers checks what roaring's Validate does not of a serialized
// bitmap (github.com/RoaringBitmap/RoaringFormatSpec), reading it as
// roaring's readFrom does: that no run passes the end of its container
// nor starts before the previous one ends, and that an array's values
// rise strictly. It costs the runs and arrays, not the bitmap containers.
func checkContainers(b []byte) error {
	const (
		cookieRuns   = 12347
		cookieNoRuns = 12346
		maxArray     = 4096
	)
	short := errors.New("short")
	take := func(n int) ([]byte, error) {
		if n < 0 || n > len(b) {
			return nil, short
		}
		out := b[:n]
		b = b[n:]
		return out, nil
	}
	head, err := take(4)
	if err != nil {
		return err
	}
	cookie := binary.LittleEndian.Uint32(head)
	var size int
	var isRun []byte
	switch {
	case cookie&0xffff == cookieRuns:
		size = int(cookie>>16) + 1
		if isRun, err = take((size + 7) / 8); err != nil {
			return err
		}
	case cookie == cookieNoRuns:
		n, err := take(4)
		if err != nil {
			return err
		}
		if size = int(binary.LittleEndian.Uint32(n)); size > 1<<16 {
			return errors.New("too many containers")
		}
	default:
		return errors.New("no cookie")
	}
	keycard, err := take(4 * size)
	if err != nil {
		return err
	}
	if isRun == nil || size >= 4 {
		if _, err := take(4 * size); err != nil {
			return err
		}
	}
	for i := range size {
		card := int(binary.LittleEndian.Uint16(keycard[4*i+2:])) + 1
		switch {
		case isRun != nil && isRun[i/8]&(1<<(i%8)) != 0:
			nr, err := take(2)
			if err != nil {
				return err
			}
			runs, err := take(4 * int(binary.LittleEndian.Uint16(nr)))
			if err != nil {
				return err
			}
			next := 0 // the least value the next run may start at
			for r := 0; r < len(runs); r += 4 {
				start := int(binary.LittleEndian.Uint16(runs[r:]))
				end := start + int(binary.LittleEndian.Uint16(runs[r+2:]))
				if start < next || end > 0xffff {
					return fmt.Errorf("container %d: bad run", i)
				}
				next = end + 2
			}
		case card > maxArray:
			if _, err := take(maxArray * 2); err != nil {
				return err
			}
		default:
			vals, err := take(2 * card)
			if err != nil {
				return err
			}
			for j := 2; j < len(vals); j += 2 {
				if binary.LittleEndian.Uint16(vals[j:]) <= binary.LittleEndian.Uint16(vals[j-2:]) {
					return fmt.Errorf("container %d: array out of order", i)
				}
			}
		}
	}
	return nil
}
