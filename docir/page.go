package docir

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
)

// Paged reads. docir/check, docir/changes and a doc_id docir/links list
// what may be more than one reply holds; each answers a page of it: the items in their order
// from where the cursor says, at most limit of them and no more than the
// reply bound holds, and a Next cursor while items remain. A cursor pins
// the generation(s) it was cut from, as image_revision does, so that the
// next page reads the same list whatever was published since.

// Bounds of a paged read's params (docs/protocol.md).
const (
	MaxPageLimit = 10000 // items in one page (limit: 1 to this; absent: what fits)
	// MaxCursorBytes bounds a cursor's text: every cursor docir cuts is
	// shorter; a longer one is refused before it is decoded.
	MaxCursorBytes = 128
)

// PagePos is where a page starts in a paged read's list: its meaning is
// the method's (check: A the list, 0 broken or 1 external, B the ordinal
// of a document among those the list holds links of, in id order, C the
// ordinal of the link among that document's, so that a page starts
// there without reading the documents before it; changes: see
// workspace.Service.Changes; links: see workspace.Service.LinksPage; C is
// check's only). The zero PagePos is the first page.
type PagePos struct {
	A, B, C uint64
}

// Page is what the session asks of a store's paged read: never sent.
type Page struct {
	From  PagePos // where the page starts
	Limit int     // items at most; 0: as many as MaxBytes holds
	// Generation, when not 0, is the generation a cursor was cut from:
	// a check read on another one is invalid_params.
	Generation uint64
}

// The lists a cursor pages (Cursor.Of).
const (
	PagedCheck   byte = 1 // docir/check
	PagedChanges byte = 2 // docir/changes
	PagedLinks   byte = 3 // docir/links of one doc_id
)

// Cursor is the decoded form of a paged read's cursor: what it was cut
// from (the method, the generation(s), the params that shape the list) and
// where the next page starts.
type Cursor struct {
	Of         byte   // PagedCheck, PagedChanges or PagedLinks
	Generation uint64 // check, links: the generation read; changes: until
	Since      uint64 // changes: since (0 for the others)
	External   bool   // check: external was asked
	// Key is links's: AddressKey of the address paged (0 for the others).
	Key uint64
	Pos PagePos
}

// AddressKey is what a links cursor keeps of the address it pages: 64
// bits of the sha256 of its normalized form (address.Address.String), so
// that a cursor used for another address is refused (a collision of two
// addresses of one store is 1 in 2^64) and the cursor stays short.
func AddressKey(addr string) uint64 {
	h := sha256.New()
	h.Write([]byte("docir.links.address\x00"))
	h.Write([]byte(addr))
	return binary.BigEndian.Uint64(h.Sum(nil))
}

// cursorVersion leads every cursor; cursorSum is the length of the
// checksum that ends it.
const (
	// Version 3 (check's positions name a document and a link in it) refuses
	// the cursors of version 2, whose check positions were one ordinal.
	cursorVersion = 3
	cursorSum     = 8
	cursorDomain  = "docir.cursor.v3\x00"
)

var cursorEncoding = base64.RawURLEncoding.Strict()

// Encode returns the cursor's text: URL-safe base64 of a version byte, the
// method, the generations, the flags and the position (unsigned varints),
// the address key (8 bytes, big-endian), and 8 bytes of the sha256 of all
// that. The checksum makes an edited
// cursor fail to decode; it is no secret (a cursor grants nothing a read
// with image_revision does not).
func (c Cursor) Encode() string {
	b := make([]byte, 0, 64)
	b = append(b, cursorVersion, c.Of)
	b = binary.AppendUvarint(b, c.Generation)
	b = binary.AppendUvarint(b, c.Since)
	var flags byte
	if c.External {
		flags = 1
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, c.Pos.A)
	b = binary.AppendUvarint(b, c.Pos.B)
	b = binary.AppendUvarint(b, c.Pos.C)
	b = binary.BigEndian.AppendUint64(b, c.Key)
	sum := cursorChecksum(b)
	return cursorEncoding.EncodeToString(append(b, sum[:]...))
}

func cursorChecksum(b []byte) [cursorSum]byte {
	h := sha256.New()
	h.Write([]byte(cursorDomain))
	h.Write(b)
	var out [cursorSum]byte
	copy(out[:], h.Sum(nil))
	return out
}

// errCursor is what every cursor that does not decode says: it is not
// one docir gave, or it was changed since.
var errCursor = errors.New("not a cursor docir gave (a cursor is passed back exactly as a reply's next gave it)")

// DecodeCursor reads a cursor's text. Anything but the exact text Encode
// gives for a cursor of a known method is refused: too long, not
// base64url without padding, another version, a checksum that does not
// match, a varint not in its shortest form, bytes after the address key,
// flags or fields the method has not.
func DecodeCursor(s string) (Cursor, error) {
	if len(s) > MaxCursorBytes {
		return Cursor{}, fmt.Errorf("%d bytes, longer than any cursor (%d): %w", len(s), MaxCursorBytes, errCursor)
	}
	b, err := cursorEncoding.DecodeString(s)
	if err != nil || len(b) < 2+cursorSum {
		return Cursor{}, errCursor
	}
	body, sum := b[:len(b)-cursorSum], b[len(b)-cursorSum:]
	if v := body[0]; v != cursorVersion && v >= 2 && v < 8 {
		// Read before the checksum, whose domain names the version: a
		// cursor an older docir gave says so, not "changed".
		return Cursor{}, fmt.Errorf("a cursor of version %d, which another docir gave; this one reads version %d (ask the first page again)", v, cursorVersion)
	}
	if want := cursorChecksum(body); string(want[:]) != string(sum) {
		return Cursor{}, fmt.Errorf("its checksum does not match: %w", errCursor)
	}
	if body[0] != cursorVersion {
		return Cursor{}, fmt.Errorf("version %d: %w", body[0], errCursor)
	}
	c := Cursor{Of: body[1]}
	rest := body[2:]
	var flags byte
	for i, f := range []*uint64{&c.Generation, &c.Since, nil, &c.Pos.A, &c.Pos.B, &c.Pos.C} {
		if f == nil {
			if len(rest) == 0 {
				return Cursor{}, errCursor
			}
			flags, rest = rest[0], rest[1:]
			continue
		}
		v, n := binary.Uvarint(rest)
		if n <= 0 {
			return Cursor{}, fmt.Errorf("field %d: %w", i, errCursor)
		}
		*f, rest = v, rest[n:]
	}
	c.External = flags == 1
	if flags > 1 || len(rest) != 8 {
		return Cursor{}, errCursor
	}
	c.Key = binary.BigEndian.Uint64(rest)
	if err := c.valid(); err != nil {
		return Cursor{}, err
	}
	if c.Encode() != s { // a varint longer than it needs to be
		return Cursor{}, errCursor
	}
	return c, nil
}

// valid refuses fields and flags a cursor's method has not.
func (c Cursor) valid() error {
	switch {
	case c.Generation == 0:
		return errCursor
	case c.Of == PagedCheck && (c.Since != 0 || c.Key != 0 || c.Pos.A > 1 || (c.Pos.A == 1 && !c.External)):
		return errCursor
	case c.Of == PagedChanges && (c.Since == 0 || c.Since > c.Generation || c.External || c.Key != 0 || c.Pos.C != 0):
		return errCursor
	case c.Of == PagedLinks && (c.Since != 0 || c.External || c.Key == 0 || c.Pos.C != 0):
		return errCursor
	case c.Of != PagedCheck && c.Of != PagedChanges && c.Of != PagedLinks:
		return errCursor
	}
	return nil
}

// PagedName is the method a cursor of kind of pages, for messages.
func PagedName(of byte) string {
	switch of {
	case PagedCheck:
		return "docir/check"
	case PagedChanges:
		return "docir/changes"
	case PagedLinks:
		return "docir/links"
	}
	return "?"
}
