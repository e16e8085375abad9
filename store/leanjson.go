package store

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/docir/docir/docir"
)

// decodeLean decodes a record as a ranking reads it (see Spans): the
// record without its links, anchors and terms, its front matter as raw
// JSON. It is leanRecord's json.Unmarshal, by a scanner that knows the
// record's shape: a search decodes one record for every passage it
// scores (57 for a five-word query at 38k documents), and reflection
// and the whole-value validation before it were four fifths of each
// LookupSpans.
//
// The scanner takes the record as json.Marshal writes it, string values
// decoded as encoding/json decodes them (escapes, invalid UTF-8), and
// hands anything else to encoding/json: a key with an escape or invalid
// UTF-8, a number that is not a plain integer, a null, a key it does not
// know or one it has seen (encoding/json matches keys without regard to
// case, and a repeated key decodes into what the first left). So the
// result is always encoding/json's; FuzzDecodeLean holds it to that.
func decodeLean(v []byte) (rec docir.Record, fields json.RawMessage, err error) {
	if rec, fields, ok := scanLean(v); ok {
		return rec, fields, nil
	}
	return unmarshalLean(v)
}

// scanLean is decodeLean's fast path; ok is false when v is to go to
// encoding/json.
func scanLean(v []byte) (rec docir.Record, fields json.RawMessage, ok bool) {
	s := leanScanner{b: v}
	if !s.record(&rec, &fields) || !s.end() {
		return docir.Record{}, nil, false
	}
	if rec.Sections == nil {
		rec.Sections = []docir.Section{}
	}
	return rec, fields, true
}

// unmarshalLean is decodeLean by encoding/json.
func unmarshalLean(v []byte) (rec docir.Record, fields json.RawMessage, err error) {
	var lean leanRecord
	if err := json.Unmarshal(v, &lean); err != nil {
		return docir.Record{}, nil, err
	}
	rec, fields = lean.Record, lean.Fields
	rec.Fields = nil
	rec.Sections = make([]docir.Section, len(lean.Sections))
	for i := range lean.Sections {
		rec.Sections[i] = lean.Sections[i].Section
	}
	return rec, fields, nil
}

// leanScanner reads JSON from b at i; each method reports false when the
// input is not what the fast path reads exactly (decodeLean falls back).
type leanScanner struct {
	b []byte
	i int
}

// maxLeanDepth bounds the nesting of a skipped value the scanner reads;
// a deeper one goes to encoding/json, which has its own bound.
const maxLeanDepth = 64

func (s *leanScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// byte1 consumes c after white space.
func (s *leanScanner) byte1(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// peek is the next byte after white space, 0 at the end.
func (s *leanScanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// end reports whether only white space is left.
func (s *leanScanner) end() bool {
	s.ws()
	return s.i == len(s.b)
}

// str reads a string with no escape, of valid UTF-8 and no control
// character: its bytes, unquoted.
func (s *leanScanner) str() ([]byte, bool) {
	if !s.byte1('"') {
		return nil, false
	}
	start := s.i
	n := bytes.IndexByte(s.b[start:], '"')
	if n < 0 {
		return nil, false
	}
	raw := s.b[start : start+n]
	for _, c := range raw {
		if c < 0x20 || c == '\\' {
			return nil, false
		}
	}
	if !utf8.Valid(raw) {
		return nil, false
	}
	s.i = start + n + 1
	return raw, true
}

// integer reads a plain integer (no fraction or exponent) of bits bits.
func (s *leanScanner) integer(bits int) (int64, bool) {
	s.ws()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	digits := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	if s.i == digits || s.b[digits] == '0' && s.i > digits+1 {
		return 0, false
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return 0, false
	}
	n, err := strconv.ParseInt(string(s.b[start:s.i]), 10, bits)
	return n, err == nil
}

// skip reads past one JSON value, checking its syntax as encoding/json
// does (strings are checked for their escapes, not decoded).
func (s *leanScanner) skip(depth int) bool {
	if depth > maxLeanDepth {
		return false
	}
	switch c := s.peek(); {
	case c == '{':
		s.i++
		if s.byte1('}') {
			return true
		}
		for {
			if !s.skipString() || !s.byte1(':') || !s.skip(depth+1) {
				return false
			}
			if s.byte1('}') {
				return true
			}
			if !s.byte1(',') {
				return false
			}
		}
	case c == '[':
		s.i++
		if s.byte1(']') {
			return true
		}
		for {
			if !s.skip(depth + 1) {
				return false
			}
			if s.byte1(']') {
				return true
			}
			if !s.byte1(',') {
				return false
			}
		}
	case c == '"':
		return s.skipString()
	case c == '-' || c >= '0' && c <= '9':
		return s.skipNumber()
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
				s.i += len(lit)
				return true
			}
		}
		return false
	}
}

// skipString reads past a string, escapes included, as JSON's grammar
// says (invalid UTF-8 is left to the decoder, which replaces it: a
// skipped value is never decoded).
func (s *leanScanner) skipString() bool {
	if !s.byte1('"') {
		return false
	}
	for s.i < len(s.b) {
		c := s.b[s.i]
		s.i++
		switch {
		case c == '"':
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if s.i >= len(s.b) {
				return false
			}
			e := s.b[s.i]
			s.i++
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if s.i+4 > len(s.b) {
					return false
				}
				for _, h := range s.b[s.i : s.i+4] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false
					}
				}
				s.i += 4
			default:
				return false
			}
		}
	}
	return false
}

// skipNumber reads past a number as JSON's grammar says.
func (s *leanScanner) skipNumber() bool {
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
	} else if digits() == 0 {
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}

// object reads an object whose keys are among keys, each at most once,
// calling field with the key for its value.
func (s *leanScanner) object(keys []string, field func(key string) bool) bool {
	if !s.byte1('{') {
		return false
	}
	if s.byte1('}') {
		return true
	}
	var seen uint64
	for {
		key, ok := s.str()
		if !ok || !s.byte1(':') {
			return false
		}
		k := -1
		for j, want := range keys {
			if string(key) == want {
				k = j
				break
			}
		}
		if k < 0 || seen&(1<<k) != 0 {
			return false
		}
		seen |= 1 << k
		if !field(keys[k]) {
			return false
		}
		if s.byte1('}') {
			return true
		}
		if !s.byte1(',') {
			return false
		}
	}
}

var (
	leanRecordKeys  = []string{"id", "title", "path", "fields", "size", "digest", "body_start", "markdown_start", "sections", "links", "anchors", "terms"}
	leanSectionKeys = []string{"slug", "heading", "level", "start", "own_end", "end", "line", "end_line", "links", "anchors", "terms"}
)

// text reads a string value as encoding/json decodes it: escapes decoded,
// and each byte of invalid UTF-8, and each unpaired surrogate, as U+FFFD.
// (json.Marshal escapes <, > and & by default, so a heading "Alpha ->
// Beta" or "C & D" has escapes: a design record's headings often do.)
func (s *leanScanner) text(to *string) bool {
	s.ws()
	start := s.i
	if raw, ok := s.str(); ok { // no escape, valid UTF-8: most strings
		*to = string(raw)
		return true
	}
	s.i = start
	if !s.skipString() {
		return false
	}
	v, ok := unquote(s.b[start+1 : s.i-1])
	*to = v
	return ok
}

// unquote is encoding/json's decoding of a string's bytes between its
// quotes: the escapes JSON's grammar allows, a \u surrogate pair as one
// rune and an unpaired surrogate as U+FFFD, invalid UTF-8 as U+FFFD a
// byte; false for anything the grammar refuses.
func unquote(raw []byte) (string, bool) {
	b := make([]byte, 0, len(raw))
	for r := 0; r < len(raw); {
		switch c := raw[r]; {
		case c == '\\':
			if r+1 >= len(raw) {
				return "", false
			}
			switch e := raw[r+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := getu4(raw[r:])
				if rr < 0 {
					return "", false
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, getu4(raw[r:])); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						continue
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
				continue
			default:
				return "", false
			}
			r += 2
		case c == '"' || c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(raw[r:])
			b = utf8.AppendRune(b, rr)
			r += size
		}
	}
	return string(b), true
}

// getu4 is the rune of a \uXXXX escape at the start of s, -1 if there is
// none.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

func (s *leanScanner) int(to *int) bool {
	n, ok := s.integer(strconv.IntSize)
	*to = int(n)
	return ok
}

func (s *leanScanner) record(r *docir.Record, fields *json.RawMessage) bool {
	return s.object(leanRecordKeys, func(key string) bool {
		switch key {
		case "id":
			return s.text(&r.ID)
		case "title":
			return s.text(&r.Title)
		case "path":
			return s.text(&r.Path)
		case "digest":
			return s.text(&r.Digest)
		case "size":
			n, ok := s.integer(64)
			r.Size = n
			return ok
		case "body_start":
			return s.int(&r.BodyStart)
		case "markdown_start":
			return s.int(&r.MarkdownStart)
		case "fields":
			s.ws()
			start := s.i
			if !s.skip(0) {
				return false
			}
			*fields = append(json.RawMessage(nil), s.b[start:s.i]...)
			return true
		case "sections":
			return s.sections(&r.Sections)
		default: // links, anchors, terms
			return s.skip(0)
		}
	})
}

func (s *leanScanner) sections(to *[]docir.Section) bool {
	if !s.byte1('[') {
		return false
	}
	secs := []docir.Section{}
	if !s.byte1(']') {
		for {
			var sec docir.Section
			if !s.section(&sec) {
				return false
			}
			secs = append(secs, sec)
			if s.byte1(']') {
				break
			}
			if !s.byte1(',') {
				return false
			}
		}
	}
	*to = secs
	return true
}

func (s *leanScanner) section(sec *docir.Section) bool {
	return s.object(leanSectionKeys, func(key string) bool {
		switch key {
		case "slug":
			return s.text(&sec.Slug)
		case "heading":
			return s.text(&sec.Heading)
		case "level":
			return s.int(&sec.Level)
		case "start":
			return s.int(&sec.Start)
		case "own_end":
			return s.int(&sec.OwnEnd)
		case "end":
			return s.int(&sec.End)
		case "line":
			return s.int(&sec.Line)
		case "end_line":
			return s.int(&sec.EndLine)
		default: // links, anchors, terms
			return s.skip(0)
		}
	})
}
