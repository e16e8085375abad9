package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/docir/docir/docir"
)

// Point reads (a document's record and body) read a layer's pages with
// pread into the heap instead of through bbolt's memory map.
//
// Why: a read fault on a mapped file makes the kernel map the pages around
// the one touched too (fault-around: 16 pages, whatever madvise says), and
// on this class of machine each such fault costs about 20 µs. A search
// rescores 40 passages, so it read 80 records and bodies through the map:
// 80 faults and 5–10 MiB of the store left resident in the process, which
// `docir serve` kept and grew with every document it ever read (about 35
// MiB after 500 mixed requests at 192k documents). A pread of a 4 KiB page
// from the page cache costs a few microseconds and leaves nothing mapped.
// Walks over whole buckets still read through the map, where sequential
// pages are what fault-around is for.
//
// A layer is immutable once published, so the page ids of its buckets'
// roots, read once through bbolt, stay valid for as long as the snapshot
// is open, and so do the pages read: the snapshot keeps the last branch
// pages, up to pageCacheBytes (pageCache).

// bbolt's on-disk page format (go.etcd.io/bbolt/internal/common,
// stable since bbolt's first release): a 16-byte header (id uint64, flags
// uint16, count uint16, overflow uint32) then count 16-byte elements.
const (
	pageHeaderSize  = 16
	pageElementSize = 16
	branchPageFlag  = 0x01
	leafPageFlag    = 0x02
	bucketLeafFlag  = 0x01 // a leaf element that is a nested bucket
)

// MaxValueBytes bounds one value the store keeps: a document's body, its
// record or its pair filters. Pending.Apply refuses a larger one, and
// ingest skips a file over it (too_large) whatever max_file_bytes says,
// so that every page the writer makes is one the point reads accept.
const MaxValueBytes = 15 << 20

// maxPageSpan bounds a page with its overflow as point reads accept it; a
// larger one is corrupt. bbolt never splits a node of 2*MinKeysPerPage
// (4) elements or fewer, so a leaf page can hold 4 values of any size,
// each with its key (at most bolt.MaxKeySize) and element header; with
// the page header, rounded up to whole pages of up to 1 MiB. It comes to
// about 60 MiB, the most one point read holds in memory.
const maxPageSpan = pageHeaderSize + 4*(pageElementSize+bolt.MaxKeySize+MaxValueBytes) + 1<<20

// preadLayer reads keys of a layer's top-level buckets by pread.
type preadLayer struct {
	f        *os.File
	size     int64
	pageSize int
	roots    map[string]uint64 // bucket name -> root page id; absent: read through the map
	cache    *pageCache        // shared by the snapshot's layers
	layer    int               // this layer's index, its key in cache
}

// pageCache keeps the branch pages point reads read last, up to
// pageCacheBytes: the pages every lookup passes through (leaves are read
// again when needed: see preadLayer.page). It is two generations of pages: a page read or found goes into
// the newer; when the newer is full, it becomes the older and the oldest
// pages are dropped, so what is read often stays.
type pageCache struct {
	mu         sync.Mutex
	new, old   map[pageKey][]byte
	newBytes   int
	limitBytes int
}

type pageKey struct {
	layer int
	id    uint64
}

// pageCacheBytes bounds the pages a snapshot keeps in memory.
const pageCacheBytes = 8 << 20

func newPageCache(limit int) *pageCache {
	return &pageCache{new: map[pageKey][]byte{}, limitBytes: limit}
}

func (c *pageCache) get(k pageKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.new[k]; ok {
		return p, true
	}
	p, ok := c.old[k]
	if ok {
		delete(c.old, k)
		c.putLocked(k, p)
	}
	return p, ok
}

func (c *pageCache) put(k pageKey, p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(k, p)
}

func (c *pageCache) putLocked(k pageKey, p []byte) {
	if c.newBytes+len(p) > c.limitBytes/2 {
		c.old, c.new, c.newBytes = c.new, map[pageKey][]byte{}, 0
	}
	if len(p) <= c.limitBytes/2 {
		c.new[k] = p
		c.newBytes += len(p)
	}
}

// openPreadLayer opens the file of db, layer number layer of a snapshot
// whose pages cache keeps, for point reads. It opens the file
// at once, so that a snapshot whose generation is pruned while it is open
// keeps reading it; what the reads need is read on first use (init).
func openPreadLayer(db *bolt.DB, cache *pageCache, layer int) (*preadLayer, error) {
	f, err := os.Open(db.Path())
	if err != nil {
		return nil, err
	}
	return &preadLayer{f: f, pageSize: db.Info().PageSize, cache: cache, layer: layer}, nil
}

// init reads the file's size and the root page ids of buckets. A bucket
// that is missing or inline (a small bucket stored inside its parent's
// page, root 0) is left to the map.
func (l *preadLayer) init(db *bolt.DB, buckets ...[]byte) (err error) {
	defer recoverBolt(db.Path(), &err)
	info, err := l.f.Stat()
	if err != nil {
		return err
	}
	l.size, l.roots = info.Size(), map[string]uint64{}
	return db.View(func(tx *bolt.Tx) error {
		for _, name := range buckets {
			if b := tx.Bucket(name); b != nil {
				if root := uint64(b.Root()); root != 0 {
					l.roots[string(name)] = root
				}
			}
		}
		return nil
	})
}

func (l *preadLayer) Close() error { return l.f.Close() }

// has reports whether bucket is read by pread in this layer.
func (l *preadLayer) has(bucket []byte) bool {
	_, ok := l.roots[string(bucket)]
	return ok
}

// get returns a copy of the value of key in bucket, or nil when the bucket
// has no such key (or holds a nested bucket under it), as bbolt's
// Bucket.Get would. The bucket must be one has reports.
func (l *preadLayer) get(bucket, key []byte) ([]byte, error) {
	return l.getSpan(bucket, key, 0, -1)
}

// getSpan is get of the value's bytes [from, to) alone (to < 0: its end;
// both clipped to the value): a passage of a long body without a copy of
// the rest of it.
func (l *preadLayer) getSpan(bucket, key []byte, from, to int) ([]byte, error) {
	id := l.roots[string(bucket)]
	var buf *[]byte // pages are read into a pooled buffer: see page
	defer func() {
		if buf != nil && cap(*buf) <= maxPooledPage {
			pageBuffers.Put(buf)
		}
	}()
	for depth := 0; ; depth++ {
		if depth > 64 {
			return nil, l.corrupt(id, "deeper than 64 pages")
		}
		if buf == nil {
			buf = pageBuffers.Get().(*[]byte)
		}
		p, err := l.page(id, buf)
		if err != nil {
			return nil, err
		}
		flags := binary.NativeEndian.Uint16(p[8:])
		count := int(binary.NativeEndian.Uint16(p[10:]))
		if pageHeaderSize+count*pageElementSize > len(p) {
			return nil, l.corrupt(id, "%d elements do not fit", count)
		}
		switch flags {
		case branchPageFlag:
			if count == 0 {
				return nil, l.corrupt(id, "an empty branch page")
			}
			// The last element whose key is at most key (the first if none).
			i, err := l.search(p, id, count, key, func(e int) (int, int) {
				pos := int(binary.NativeEndian.Uint32(p[e:]))
				ksize := int(binary.NativeEndian.Uint32(p[e+4:]))
				return e + pos, ksize
			})
			if err != nil {
				return nil, err
			}
			e := pageHeaderSize + i*pageElementSize
			id = binary.NativeEndian.Uint64(p[e+8:])
		case leafPageFlag:
			if count == 0 {
				return nil, nil
			}
			i, err := l.search(p, id, count, key, func(e int) (int, int) {
				pos := int(binary.NativeEndian.Uint32(p[e+4:]))
				ksize := int(binary.NativeEndian.Uint32(p[e+8:]))
				return e + pos, ksize
			})
			if err != nil {
				return nil, err
			}
			e := pageHeaderSize + i*pageElementSize
			eflags := binary.NativeEndian.Uint32(p[e:])
			k0 := e + int(binary.NativeEndian.Uint32(p[e+4:]))
			ksize := int(binary.NativeEndian.Uint32(p[e+8:]))
			vsize := int(binary.NativeEndian.Uint32(p[e+12:]))
			if vsize < 0 || k0+ksize+vsize > len(p) || k0+ksize+vsize < k0 {
				return nil, l.corrupt(id, "element %d lies outside its page", i)
			}
			if eflags&bucketLeafFlag != 0 || !bytes.Equal(p[k0:k0+ksize], key) {
				return nil, nil
			}
			return bytes.Clone(span(p[k0+ksize:k0+ksize+vsize], from, to)), nil
		default:
			return nil, l.corrupt(id, "page flags %#x where a branch or leaf page belongs", flags)
		}
	}
}

// search is bbolt's search of a branch page: the index of the last element
// whose key is at most key, or 0. keyAt returns where element e's key lies.
func (l *preadLayer) search(p []byte, id uint64, count int, key []byte, keyAt func(e int) (int, int)) (int, error) {
	lo, hi := 0, count // the first element whose key is above key lies in [lo, hi]
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		at, ksize := keyAt(pageHeaderSize + m*pageElementSize)
		if at < 0 || ksize < 0 || at+ksize > len(p) || at+ksize < at {
			return 0, l.corrupt(id, "element %d lies outside its page", m)
		}
		if bytes.Compare(p[at:at+ksize], key) <= 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return max(lo-1, 0), nil
}

// page returns page id with its overflow pages: a branch page from the
// cache when it can, else read into *buf. Every lookup passes through the
// branch pages, so they are kept (pageCache); a leaf holds the records or
// bodies of a few documents, read once by a search, so keeping it would
// cost a page of memory a document, where reading it again costs a pread
// of a page the kernel caches. A leaf is valid until *buf is read into
// again; the value get returns is a copy.
func (l *preadLayer) page(id uint64, buf *[]byte) ([]byte, error) {
	if p, ok := l.cache.get(pageKey{l.layer, id}); ok {
		return p, nil
	}
	p, err := l.read(id, buf)
	if err != nil {
		return nil, err
	}
	if binary.NativeEndian.Uint16(p[8:]) == branchPageFlag {
		p = bytes.Clone(p)
		l.cache.put(pageKey{l.layer, id}, p)
	}
	return p, nil
}

// pageBuffers are the buffers pages are read into (see page).
var pageBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledPage bounds the page buffers kept for reuse: a page with a long
// run of overflow pages (a large body) is read once and dropped.
const maxPooledPage = 1 << 20

// read reads page id with its overflow pages into *buf (grown as needed)
// and returns it.
func (l *preadLayer) read(id uint64, buf *[]byte) ([]byte, error) {
	if id < 2 || id >= uint64(l.size/int64(l.pageSize)) {
		return nil, l.corrupt(id, "page out of the file (%d bytes)", l.size)
	}
	off := int64(id) * int64(l.pageSize)
	p := slices.Grow((*buf)[:0], l.pageSize)[:l.pageSize]
	if _, err := l.f.ReadAt(p, off); err != nil {
		return nil, fmt.Errorf("read %s page %d: %w", l.f.Name(), id, err)
	}
	if got := binary.NativeEndian.Uint64(p); got != id {
		return nil, l.corrupt(id, "the page says it is page %d", got)
	}
	if overflow := int64(binary.NativeEndian.Uint32(p[12:])); overflow > 0 {
		span := (overflow + 1) * int64(l.pageSize)
		if span > maxPageSpan || off+span > l.size {
			return nil, l.corrupt(id, "%d overflow pages run past the file", overflow)
		}
		p = slices.Grow(p, int(span)-l.pageSize)[:span]
		if _, err := l.f.ReadAt(p[l.pageSize:], off+int64(l.pageSize)); err != nil {
			return nil, fmt.Errorf("read %s page %d: %w", l.f.Name(), id, err)
		}
	}
	*buf = p
	return p, nil
}

// corrupt is the error of a page that is not what bbolt writes.
func (l *preadLayer) corrupt(id uint64, format string, args ...any) error {
	return docir.Errorf(docir.CodeStoreFormat, "%s: page %d: %s; remove the folder and index again", l.f.Name(), id, fmt.Sprintf(format, args...))
}

// points returns the snapshot's layers ready for point reads, oldest
// first, reading what they need on first use.
func (s *Snapshot) points() ([]*preadLayer, error) {
	s.pointsOnce.Do(func() {
		for i, l := range s.pread {
			if err := l.init(s.layers[i], bucketDocs, bucketBodies, bucketPairs); err != nil {
				s.pointsErr = err
				return
			}
		}
	})
	return s.pread, s.pointsErr
}

// pointGet returns a copy of the newest value of key in bucket and the
// index of the layer holding it; nil and -1 when no layer has it or the
// newest says it is gone (as chain.get).
func (s *Snapshot) pointGet(bucket, key []byte) ([]byte, int, error) {
	ls, err := s.points()
	if err != nil {
		return nil, -1, err
	}
	for i := len(ls) - 1; i >= 0; i-- {
		v, err := s.pointGetIn(i, bucket, key)
		if err != nil {
			return nil, -1, err
		}
		if v != nil {
			if isTombstone(v) {
				return nil, -1, nil
			}
			return v, i, nil
		}
	}
	return nil, -1, nil
}

// pointGetIn is a copy of the value of key in bucket of layer i alone. The
// layers must be ready (points).
func (s *Snapshot) pointGetIn(i int, bucket, key []byte) (v []byte, err error) {
	return s.pointSpanIn(i, bucket, key, 0, -1)
}

// pointSpanIn is pointGetIn of the value's bytes [from, to) alone (see
// getSpan).
func (s *Snapshot) pointSpanIn(i int, bucket, key []byte, from, to int) (v []byte, err error) {
	if l := s.pread[i]; l.has(bucket) {
		return l.getSpan(bucket, key, from, to)
	}
	err = s.layers[i].View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucket); b != nil {
			if got := b.Get(key); got != nil {
				v = bytes.Clone(span(got, from, to))
			}
		}
		return nil
	})
	return v, err
}

// span is v[from:to], both clipped to v; to < 0 is v's end.
func span(v []byte, from, to int) []byte {
	if to < 0 || to > len(v) {
		to = len(v)
	}
	from = min(max(from, 0), to)
	return v[from:to]
}
