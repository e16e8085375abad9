package store

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"

	"github.com/docir/docir/docir"
)

// A torn, truncated or crafted bolt file must never reach bbolt's memory
// map: bbolt maps the file rounded up to a larger size, so a page the meta
// says exists but the file no longer holds reads as zeros (bbolt panics:
// "page expected to be N") or lies past the file's end (the process dies
// of SIGBUS, which no recover catches). checkBoltFile reads the meta pages
// itself, with pread, as bbolt will read them, and refuses a file whose
// meta bbolt would follow out of the file: pages it counts that the file
// does not hold, a root bucket or freelist page that is a meta page or
// past them, or a page size bbolt would misread pages by. It reads the
// meta pages only (it runs on every open): a page the tree points at is
// not checked, and a panic of bbolt reading one is recoverBolt's.

// bbolt's meta page (go.etcd.io/bbolt/internal/common.Meta, stable since
// bbolt's first release), after the 16-byte page header: magic, version,
// page size and flags (uint32 each), the root bucket (root page id and
// sequence), the freelist page id, the high-water mark (pgid: pages below
// it are in use), the transaction id, then an FNV-64a checksum of the
// bytes before it. Pages 0 and 1 are the two metas.
const (
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	metaChecksumAt   = 56 // the meta's bytes the checksum covers
	metaSize         = 64
	metaPages        = 2
	noFreelist       = ^uint64(0) // freelist page id when the freelist is not written
	minBoltPageShift = 10         // bbolt looks for the second meta from 1 KiB
	maxBoltPageShift = 24         // to 16 MiB (1 KiB << 14)
	firstMetaRead    = 0x1000     // bbolt reads the first meta in a 4 KiB read
)

// boltMeta is the part of a meta page the check reads.
type boltMeta struct {
	pageSize uint32
	root     uint64
	freelist uint64
	pgid     uint64
	txid     uint64
}

// parseBoltMeta decodes the meta page whose first bytes are p, or reports
// false when p is not a meta page this build of bbolt reads.
func parseBoltMeta(p []byte) (boltMeta, bool) {
	if len(p) < pageHeaderSize+metaSize {
		return boltMeta{}, false
	}
	m := p[pageHeaderSize : pageHeaderSize+metaSize]
	h := fnv.New64a()
	h.Write(m[:metaChecksumAt])
	le := binary.NativeEndian
	if le.Uint32(m) != boltMagic || le.Uint32(m[4:]) != boltVersion || le.Uint64(m[metaChecksumAt:]) != h.Sum64() {
		return boltMeta{}, false
	}
	return boltMeta{pageSize: le.Uint32(m[8:]), root: le.Uint64(m[16:]), freelist: le.Uint64(m[32:]), pgid: le.Uint64(m[40:]), txid: le.Uint64(m[48:])}, true
}

// checkBoltFile checks the bolt file at path as bbolt will read it: its
// page size (saneBoltPageSize), and the meta bbolt will choose (the valid
// one of the two with the higher transaction id) pointing at a root and a
// freelist page past the metas and below its high-water mark, all of them
// in the file. Anything else is a store_format error naming the file.
func checkBoltFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	size := info.Size()
	pageSize, ok := boltPageSize(f, size)
	if !ok {
		return damagedBolt(path, "no valid meta page (%d bytes)", size)
	}
	if !saneBoltPageSize(pageSize) {
		return damagedBolt(path, "page size %d", pageSize)
	}
	m, ok := newestBoltMeta(f, pageSize)
	if !ok {
		return damagedBolt(path, "no valid meta page at 0 or %d (%d bytes)", pageSize, size)
	}
	ps := uint64(pageSize)
	inPages := func(id uint64) bool { return id >= metaPages && id < m.pgid }
	switch {
	case m.pgid < metaPages || !inPages(m.root) || (m.freelist != noFreelist && !inPages(m.freelist)):
		return damagedBolt(path, "meta counts %d pages, root %d, freelist %d", m.pgid, m.root, m.freelist)
	case m.pgid > uint64(size)/ps:
		return damagedBolt(path, "the file is %d bytes, short of the %d pages of %d bytes its meta counts (truncated?)", size, m.pgid, ps)
	}
	return nil
}

// saneBoltPageSize reports whether bbolt reads pages of size n as written:
// a power of two (a page at a multiple of any other size could misalign
// the page structs bbolt lays over the map) in the range bbolt looks for
// a meta page in, 1 KiB to 16 MiB.
func saneBoltPageSize(n int64) bool {
	return n >= 1<<minBoltPageShift && n <= 1<<maxBoltPageShift && n&(n-1) == 0
}

// boltPageSize finds the page size bbolt will map the file's pages by, as
// bbolt's getPageSize does: the first meta page's, when its 4 KiB read is
// whole and the meta valid; else the first valid meta at 1 KiB << i below
// the file's last KiB; else, when either read found bytes, bbolt's default
// (the OS page size); else none.
func boltPageSize(f io.ReaderAt, size int64) (int64, bool) {
	if size >= firstMetaRead {
		if m, ok := readBoltMeta(f, 0); ok {
			return int64(m.pageSize), true
		}
	}
	probed := false
	for i := 0; i <= maxBoltPageShift-minBoltPageShift; i++ {
		pos := int64(1) << (minBoltPageShift + i)
		if pos >= size-1024 {
			break
		}
		probed = true
		if m, ok := readBoltMeta(f, pos); ok {
			return int64(m.pageSize), true
		}
	}
	if size >= firstMetaRead || probed {
		return int64(os.Getpagesize()), true
	}
	return 0, false
}

// newestBoltMeta returns, of the meta pages at 0 and pageSize, the valid
// one with the higher transaction id, as bbolt chooses.
func newestBoltMeta(f io.ReaderAt, pageSize int64) (boltMeta, bool) {
	m0, ok0 := readBoltMeta(f, 0)
	m1, ok1 := readBoltMeta(f, pageSize)
	switch {
	case ok0 && ok1 && m1.txid > m0.txid, !ok0 && ok1:
		return m1, true
	case ok0:
		return m0, true
	}
	return boltMeta{}, false
}

// readBoltMeta reads and decodes the meta page at off.
func readBoltMeta(f io.ReaderAt, off int64) (boltMeta, bool) {
	var buf [pageHeaderSize + metaSize]byte
	if _, err := f.ReadAt(buf[:], off); err != nil {
		return boltMeta{}, false
	}
	return parseBoltMeta(buf[:])
}

// damagedBolt is the error of a bolt file that is not what bbolt wrote.
func damagedBolt(path, format string, args ...any) error {
	return docir.Errorf(docir.CodeStoreFormat, "%s: damaged: %s; remove the folder and index again", path, fmt.Sprintf(format, args...))
}

// recoverBolt turns a panic of bbolt reading the file at path (an
// assertion on a page that is not what it should be) into the error *err.
// It is deferred around the reads that open a layer, so that a damaged
// file is an error naming it rather than a crash.
func recoverBolt(path string, err *error) {
	if r := recover(); r != nil {
		*err = damagedBolt(path, "bbolt: %v", r)
	}
}
