package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/docir/docir/docir"
)

// A generation whose docs.bolt is cut short at any length opens as a
// store_format error naming the file, or (cut only in the unused tail)
// opens and reads every document: never a bbolt panic or a SIGBUS, which
// would end the test binary.
func TestOpenTruncatedBodyFile(t *testing.T) {
	dir := t.TempDir()
	var c Change
	for i := range 40 {
		body := strings.Repeat(fmt.Sprintf("line %d of a body\n", i), 1+i*40)
		d := putFile("/src", "", fmt.Sprintf("d%02d.md", i), fmt.Sprintf("d%02d", i), body, 1)
		c.Put = append(c.Put, d.Put...)
		if c.Files == nil {
			c.Files = d.Files
		} else {
			for k, v := range d.Files {
				c.Files[k] = v
			}
		}
	}
	gen := publish(t, dir, 1, c)
	path := filepath.Join(genPath(dir, gen), bodyFile)
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(whole); n += 1000 + n/8 {
		if err := os.WriteFile(path, whole[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(dir)
		if err != nil {
			if docir.CodeOf(err) != docir.CodeStoreFormat || !strings.Contains(err.Error(), path) {
				t.Errorf("cut to %d bytes: %v; want a store_format error naming %s", n, err, path)
			}
			continue
		}
		for _, p := range c.Put {
			_, body, ok, err := s.Lookup(p.Record.ID)
			if err == nil && (!ok || !bytes.Equal(body, p.Body)) {
				t.Errorf("cut to %d bytes: %s read back wrong and without an error", n, p.Record.ID)
			}
		}
		s.Close()
	}
}

// withMeta returns a copy of b whose meta page at off is the valid meta
// fill makes of it (its checksum made again).
func withMeta(b []byte, off int, fill func(m *boltMeta)) []byte {
	b = bytes.Clone(b)
	m := b[off+pageHeaderSize : off+pageHeaderSize+metaSize]
	le := binary.NativeEndian
	if le.Uint32(m) != boltMagic { // a fresh meta page
		le.PutUint32(m, boltMagic)
		le.PutUint32(m[4:], boltVersion)
	}
	bm, _ := parseBoltMeta(b[off:])
	fill(&bm)
	le.PutUint32(m[8:], bm.pageSize)
	le.PutUint64(m[16:], bm.root)
	le.PutUint64(m[32:], bm.freelist)
	le.PutUint64(m[40:], bm.pgid)
	le.PutUint64(m[48:], bm.txid)
	h := fnv.New64a()
	h.Write(m[:metaChecksumAt])
	le.PutUint64(m[metaChecksumAt:], h.Sum64())
	return b
}

// craftedBoltFiles are bolt files whose meta would lead bbolt out of the
// file or onto a page that is not what the meta says, made from the valid
// file whole (pages of 4 KiB, both metas valid).
func craftedBoltFiles(whole []byte) map[string][]byte {
	both := func(fill func(m *boltMeta)) []byte {
		return withMeta(withMeta(whole, 0, fill), 4096, fill)
	}
	// A file under 4 KiB, whose first meta says pages of 512 bytes and
	// holds 4: bbolt reads no first meta from a 4 KiB read that is cut
	// short, takes the page size of the meta at 1 KiB instead, and that
	// one, newer, counts 6 pages of 1 KiB: past the file's end (SIGBUS).
	small := withMeta(make([]byte, 3000), 0, func(m *boltMeta) {
		*m = boltMeta{pageSize: 512, root: 3, freelist: noFreelist, pgid: 4, txid: 1}
	})
	small = withMeta(small, 1024, func(m *boltMeta) {
		*m = boltMeta{pageSize: 1024, root: 5, freelist: noFreelist, pgid: 6, txid: 2}
	})
	return map[string][]byte{
		"root on the first meta page":   both(func(m *boltMeta) { m.root = 0 }),
		"root on the second meta page":  both(func(m *boltMeta) { m.root = 1 }),
		"root past the high-water mark": both(func(m *boltMeta) { m.root = m.pgid }),
		"root past the file's end":      both(func(m *boltMeta) { m.root, m.pgid = 1<<40, 1<<40+1 }),
		"freelist on a meta page":       both(func(m *boltMeta) { m.freelist = 1 }),
		"freelist past the file's end":  both(func(m *boltMeta) { m.freelist = 1 << 40 }),
		"pages past the file's end":     both(func(m *boltMeta) { m.pgid = uint64(len(whole))/4096 + 1 }),
		"a newer meta past the end":     withMeta(whole, 4096, func(m *boltMeta) { m.txid, m.root, m.pgid = 1<<20, 1<<30, 1<<30+1 }),
		"page size not a power of two":  withMeta(whole, 0, func(m *boltMeta) { m.pageSize = 4096 + 8 }),
		"page size 0":                   withMeta(whole, 0, func(m *boltMeta) { m.pageSize = 0 }),
		"page size 512":                 withMeta(whole, 0, func(m *boltMeta) { m.pageSize = 512 }),
		"page size 1 GiB":               withMeta(whole, 0, func(m *boltMeta) { m.pageSize = 1 << 30 }),
		"page sizes read as bbolt does": small,
	}
}

// A docs.bolt whose meta is crafted to lead bbolt out of the file (a root
// or freelist page past its end or on a meta page, a page size bbolt
// reads otherwise than the check did, or one that is not sane) is a
// store_format error naming the file, from checkBoltFile and from Open:
// never a bbolt panic, nor a SIGBUS, which would end the test binary.
func TestCheckBoltFileCrafted(t *testing.T) {
	dir := t.TempDir()
	gen := publish(t, dir, 1, putFile("/src", "", "a.md", "a", strings.Repeat("a body ", 3000), 1))
	path := filepath.Join(genPath(dir, gen), bodyFile)
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if ps, ok := boltPageSize(bytes.NewReader(whole), int64(len(whole))); !ok || ps != 4096 {
		t.Skipf("the fixture's pages are %d bytes, not 4 KiB", ps)
	}
	for name, b := range craftedBoltFiles(whole) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := checkBoltFile(path); docir.CodeOf(err) != docir.CodeStoreFormat || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: checkBoltFile: %v; want a store_format error naming the file", name, err)
		}
		if s, err := Open(dir); docir.CodeOf(err) != docir.CodeStoreFormat || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "bbolt:") {
			t.Errorf("%s: Open: %v; want checkBoltFile's store_format error", name, err)
			if s != nil {
				s.Close()
			}
		}
	}
	if err := os.WriteFile(path, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkBoltFile(path); err != nil {
		t.Fatalf("the file as written: %v", err)
	}
}

// FuzzCheckBoltFile holds checkBoltFile to an error or nil on any bytes,
// and, where it passes a file, to bbolt's reading of it: bbolt opens it
// with the page size the check found and the meta it chose (the same
// transaction id and high-water mark), whose pages the file holds.
func FuzzCheckBoltFile(f *testing.F) {
	db, _ := preadFixture(f, 4)
	whole, err := os.ReadFile(db.Path())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(whole)
	f.Add(whole[:8192])
	f.Add(whole[:4096])
	f.Add(whole[:3*4096+100])
	f.Add([]byte{})
	crafted := craftedBoltFiles(whole)
	for _, name := range slices.Sorted(maps.Keys(crafted)) {
		f.Add(crafted[name])
	}
	path := filepath.Join(f.TempDir(), "fuzz.bolt")
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		err := checkBoltFile(path)
		if err != nil {
			if docir.CodeOf(err) != docir.CodeStoreFormat || !strings.Contains(err.Error(), path) {
				t.Fatalf("%v: want a store_format error naming the file", err)
			}
			return
		}
		ps, _ := boltPageSize(bytes.NewReader(b), int64(len(b)))
		m, _ := newestBoltMeta(bytes.NewReader(b), ps)
		// Open and Begin read the meta pages only.
		db, err := bolt.Open(path, 0o444, &bolt.Options{ReadOnly: true})
		if err != nil {
			t.Fatalf("checkBoltFile passed a file bbolt does not open: %v", err)
		}
		defer db.Close()
		tx, err := db.Begin(false)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if got := db.Info().PageSize; got != int(ps) || tx.ID() != int(m.txid) || tx.Size() != int64(m.pgid)*ps || tx.Size() > int64(len(b)) {
			t.Fatalf("bbolt reads pages of %d bytes, transaction %d, %d bytes of pages in a file of %d; the check read pages of %d, meta %+v", got, tx.ID(), tx.Size(), len(b), ps, m)
		}
	})
}

// The writer refuses a value over MaxValueBytes, and four values of
// MaxValueBytes side by side, which bbolt keeps on one page, read back:
// what the writer accepts, the point reads accept (maxPageSpan).
func TestValueBoundWriterAndReaderAgree(t *testing.T) {
	dir := t.TempDir()
	p, err := Begin(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	over := putFile("/src", "", "big.md", "big", strings.Repeat("x", MaxValueBytes+1), 1)
	if err := p.Apply(over); err == nil || !strings.Contains(err.Error(), `"big"`) {
		t.Errorf("Apply of a %d-byte body: %v; want an error naming it", MaxValueBytes+1, err)
	}
	if err := p.Abort(); err != nil {
		t.Fatal(err)
	}
	var c Change
	for i := range 4 {
		d := putFile("/src", "", fmt.Sprintf("b%d.md", i), fmt.Sprintf("b%d", i), strings.Repeat(string(rune('a'+i)), MaxValueBytes), 1)
		c.Put = append(c.Put, d.Put...)
	}
	publish(t, dir, 1, c)
	s := open(t, dir, 1)
	for _, d := range c.Put {
		if _, body, ok, err := s.Lookup(d.Record.ID); !ok || err != nil || !bytes.Equal(body, d.Body) {
			t.Errorf("Lookup(%s) = %d bytes, %v, %v", d.Record.ID, len(body), ok, err)
		}
	}
}
