package store

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"

	"github.com/docir/docir/docir"
)

// A torn or truncated bolt file must never reach bbolt's memory map: bbolt
// maps the file rounded up to a larger size, so a page the meta says exists
// but the file no longer holds reads as zeros (bbolt panics: "page expected
// to be N") or lies past the file's end (the process dies of SIGBUS, which
// no recover catches). checkBoltFile reads the meta pages itself, with
// pread, and refuses a file shorter than the pages its meta counts.

// bbolt's meta page (go.etcd.io/bbolt/internal/common.Meta, stable since
// bbolt's first release), after the 16-byte page header: magic, version,
// page size and flags (uint32 each), the root bucket (root page id and
// sequence), the freelist page id, the high-water mark (pgid: pages below
// it are in use), the transaction id, then an FNV-64a checksum of the
// bytes before it.
const (
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	metaChecksumAt   = 56 // the meta's bytes the checksum covers
	metaSize         = 64
	noFreelist       = ^uint64(0) // freelist page id when the freelist is not written
	maxBoltPageShift = 14         // bbolt looks for the second meta up to 1 KiB << 14
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

// checkBoltFile checks that the bolt file at path holds every page its
// meta counts, as bbolt will choose the meta: the valid one of the two
// with the higher transaction id. Anything else is a store_format error
// naming the file.
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
	m, pageSize, ok := newestBoltMeta(f, size)
	if !ok {
		return damagedBolt(path, "no valid meta page (%d bytes)", size)
	}
	ps := uint64(pageSize)
	switch {
	case ps < 512 || ps > 1<<30:
		return damagedBolt(path, "page size %d", pageSize)
	case m.pgid < 2 || m.root >= m.pgid || (m.freelist != noFreelist && m.freelist >= m.pgid):
		return damagedBolt(path, "meta counts %d pages, root %d, freelist %d", m.pgid, m.root, m.freelist)
	case m.pgid > uint64(size)/ps:
		return damagedBolt(path, "the file is %d bytes, %d short of the %d pages of %d bytes its meta counts (truncated?)", size, m.pgid*ps-uint64(size), m.pgid, ps)
	}
	return nil
}

// newestBoltMeta finds the page size as bbolt does (the first meta page's,
// else the first valid meta at 1 KiB << i) and returns the valid meta page
// with the higher transaction id, and the page size bbolt will map the
// file's pages by.
func newestBoltMeta(f io.ReaderAt, size int64) (boltMeta, int64, bool) {
	read := func(off int64) (boltMeta, bool) {
		var buf [pageHeaderSize + metaSize]byte
		if _, err := f.ReadAt(buf[:], off); err != nil {
			return boltMeta{}, false
		}
		return parseBoltMeta(buf[:])
	}
	m0, ok0 := read(0)
	pageSize := int64(m0.pageSize)
	if !ok0 {
		for i := 0; i <= maxBoltPageShift; i++ {
			pos := int64(1024) << i
			if pos >= size-1024 {
				break
			}
			if m, ok := read(pos); ok {
				pageSize = int64(m.pageSize)
				break
			}
		}
	}
	if pageSize == 0 {
		return boltMeta{}, 0, false
	}
	m1, ok1 := read(pageSize)
	switch {
	case ok0 && ok1 && m1.txid > m0.txid, !ok0 && ok1:
		return m1, pageSize, true
	case ok0:
		return m0, pageSize, true
	}
	return boltMeta{}, 0, false
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
