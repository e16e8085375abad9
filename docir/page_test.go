package docir

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestCursorRoundTrip: every cursor a paged read cuts decodes to itself,
// fits MaxCursorBytes at its largest, and an edit of any one character of
// it is refused.
func TestCursorRoundTrip(t *testing.T) {
	const big = ^uint64(0)
	for _, c := range []Cursor{
		{Of: PagedCheck, Generation: 1},
		{Of: PagedCheck, Generation: 7, External: true, Pos: PagePos{A: 1, B: 12345, C: 3}},
		{Of: PagedCheck, Generation: big, External: true, Pos: PagePos{A: 1, B: big, C: big}},
		{Of: PagedChanges, Generation: 9, Since: 3, Pos: PagePos{A: 40, B: 2}},
		{Of: PagedChanges, Generation: big, Since: big, Pos: PagePos{A: big, B: big}},
		{Of: PagedLinks, Generation: 4, Key: AddressKey("glossary#term"), Pos: PagePos{A: 3, B: 17}},
		{Of: PagedLinks, Generation: big, Key: big, Pos: PagePos{A: big, B: big}},
	} {
		s := c.Encode()
		if len(s) > MaxCursorBytes {
			t.Errorf("%+v: %d bytes, over MaxCursorBytes", c, len(s))
		}
		got, err := DecodeCursor(s)
		if err != nil || got != c {
			t.Errorf("%+v: decoded %+v, %v", c, got, err)
		}
		for i := range s {
			for _, r := range "AQZz09-_" {
				if byte(r) == s[i] {
					continue
				}
				edited := s[:i] + string(r) + s[i+1:]
				if _, err := DecodeCursor(edited); err == nil {
					t.Errorf("%q (an edit of %q) decodes", edited, s)
				}
			}
		}
	}
}

// TestCursorRefused: what is not a cursor docir cut is refused, whatever
// its checksum: another version, an unknown method, fields the method has
// not, a longer varint, bytes after it, padding, too long.
func TestCursorRefused(t *testing.T) {
	k0 := make([]byte, 8) // no address key
	k1 := []byte{0, 0, 0, 0, 0, 0, 0, 1}
	sealed := func(key []byte, body ...byte) string {
		body = append(body, key...)
		sum := cursorChecksum(body)
		return base64.RawURLEncoding.EncodeToString(append(body, sum[:]...))
	}
	good := Cursor{Of: PagedCheck, Generation: 2}.Encode()
	for name, s := range map[string]string{
		"empty":            "",
		"not base64":       "!!!!",
		"padded":           good + "=",
		"too long":         strings.Repeat("A", MaxCursorBytes+1),
		"version 1":        sealed(k0, 1, PagedCheck, 2, 0, 0, 0, 0),
		"method 4":         sealed(k0, 3, 4, 2, 0, 0, 0, 0, 0),
		"check key":        sealed(k1, 3, PagedCheck, 2, 0, 0, 0, 0, 0),
		"changes key":      sealed(k1, 3, PagedChanges, 2, 1, 0, 0, 0, 0),
		"links no key":     sealed(k0, 3, PagedLinks, 2, 0, 0, 0, 0, 0),
		"links since":      sealed(k1, 3, PagedLinks, 2, 1, 0, 0, 0, 0),
		"links external":   sealed(k1, 3, PagedLinks, 2, 0, 1, 0, 0, 0),
		"short key":        sealed(nil, 3, PagedLinks, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0),
		"generation 0":     sealed(k0, 3, PagedCheck, 0, 0, 0, 0, 0, 0),
		"check since":      sealed(k0, 3, PagedCheck, 2, 1, 0, 0, 0, 0),
		"check list 2":     sealed(k0, 3, PagedCheck, 2, 0, 1, 2, 0, 0),
		"external list":    sealed(k0, 3, PagedCheck, 2, 0, 0, 1, 0, 0),
		"changes no since": sealed(k0, 3, PagedChanges, 2, 0, 0, 0, 0, 0),
		"since after":      sealed(k0, 3, PagedChanges, 2, 3, 0, 0, 0, 0),
		"changes flags":    sealed(k0, 3, PagedChanges, 2, 1, 1, 0, 0, 0),
		"flags 2":          sealed(k0, 3, PagedCheck, 2, 0, 2, 0, 0, 0),
		"long varint":      sealed(k0, 3, PagedCheck, 0x82, 0x00, 0, 0, 0, 0, 0),
		"trailing":         sealed(k0, 3, PagedCheck, 2, 0, 0, 0, 0, 0, 0),
		"short":            sealed(k0, 3, PagedCheck, 2, 0, 0, 0, 0),
		"changes link":     sealed(k0, 3, PagedChanges, 2, 1, 0, 0, 0, 1),
		"links link":       sealed(k1, 3, PagedLinks, 2, 0, 0, 3, 5, 1),
	} {
		if c, err := DecodeCursor(s); err == nil {
			t.Errorf("%s: %q decodes to %+v", name, s, c)
		}
	}
	if _, err := DecodeCursor(sealed(k0, 3, PagedCheck, 2, 0, 0, 0, 0, 0)); err != nil {
		t.Errorf("the sealed form of a good cursor: %v", err)
	}
	if _, err := DecodeCursor(sealed(k1, 3, PagedLinks, 2, 0, 0, 3, 5, 0)); err != nil {
		t.Errorf("the sealed form of a good links cursor: %v", err)
	}
	// A cursor the last docir gave (version 2, its own checksum) says so.
	v2 := "AgECAAEBCQAAAAAAAAAAxf5Ax2Dx66w" // check, generation 2, external, A 1, B 9
	if _, err := DecodeCursor(v2); err == nil || !strings.Contains(err.Error(), "version 2, which another docir gave") {
		t.Errorf("a version 2 cursor: %v", err)
	}
}

// FuzzDecodeCursor: a cursor is outside input (a client sends it back);
// DecodeCursor never panics, and what it accepts encodes to the same text.
func FuzzDecodeCursor(f *testing.F) {
	f.Add(Cursor{Of: PagedCheck, Generation: 3, External: true, Pos: PagePos{A: 1, B: 9, C: 2}}.Encode())
	f.Add(Cursor{Of: PagedChanges, Generation: 5, Since: 2, Pos: PagePos{A: 7, B: 1}}.Encode())
	f.Add("")
	f.Add(Cursor{Of: PagedLinks, Generation: 4, Key: AddressKey("glossary"), Pos: PagePos{A: 2, B: 3}}.Encode())
	f.Add("AQECAAEAA9xCpWMLEAef") // a cursor of version 1
	f.Fuzz(func(t *testing.T, s string) {
		c, err := DecodeCursor(s)
		if err != nil {
			return
		}
		if c.Encode() != s {
			t.Fatalf("%q decodes to %+v, which encodes to %q", s, c, c.Encode())
		}
	})
}
