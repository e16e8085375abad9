package query

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// MayMatchJSON reports whether the record whose JSON encoding is raw could
// satisfy e, without decoding it: false only when some term that must hold
// compares its field to plain values (letters, digits, space, - _ . / :),
// or globs whose longest run between wildcards is plain, none of which
// occurs in raw ignoring ASCII case. Such a value occurs
// verbatim in the JSON of any field equal to it (or, for a date, starting
// with it), so false is exact; true means "decode and Match".
func (e *Expr) MayMatchJSON(raw []byte) bool {
	checked := false
	for _, needles := range e.needles {
		if needles == nil {
			continue
		}
		// Letters that fold to k and s outside ASCII (K KELVIN SIGN, ſ LONG
		// S) would make an ASCII search miss an EqualFold match.
		if !checked {
			if bytes.Contains(raw, kelvin) || bytes.Contains(raw, longS) {
				return true
			}
			checked = true
		}
		found := false
		for _, n := range needles {
			if containsFoldASCII(raw, n) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

var (
	kelvin = []byte("\u212a")
	longS  = []byte("\u017f")
)

// needles are the lower-cased values a record must hold one of for t to
// hold, or nil when t gives no such condition. Parse works them out once
// per expression; MayMatchJSON runs per record.
func (t *Term) needles() [][]byte {
	if t.Not || t.Op != OpEq {
		return nil
	}
	out := make([][]byte, 0, len(t.Values))
	for _, v := range t.Values {
		if hasGlob(v) {
			// The longest run between wildcards must occur as written.
			frag := ""
			for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == '*' || r == '?' }) {
				if len(f) > len(frag) {
					frag = f
				}
			}
			if !plainValue(frag) {
				return nil
			}
			out = append(out, bytes.ToLower([]byte(frag)))
			continue
		}
		if !plainValue(v) {
			return nil
		}
		if k := kindOf(v); k == kindNumber || (k == kindText && looksDateish(v)) {
			return nil // numbers compare by value: 2.0 equals 2
		}
		out = append(out, bytes.ToLower([]byte(v)))
	}
	return out
}

// plainValue: a value the JSON encoder writes as is, with no glob.
func plainValue(v string) bool {
	if v == "" || !utf8.ValidString(v) {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == ' ' || c == '-' || c == '_' || c == '.' || c == '/' || c == ':':
		default:
			return false
		}
	}
	return true
}

// containsFoldASCII reports whether s contains the lower-case ASCII needle
// n, ignoring the case of ASCII letters in s.
func containsFoldASCII(s, n []byte) bool {
	if len(n) == 0 {
		return true
	}
	first := n[0]
	upper := first
	if first >= 'a' && first <= 'z' {
		upper = first - 'a' + 'A'
	}
	for i := 0; i+len(n) <= len(s); i++ {
		c := s[i]
		if c != first && c != upper {
			continue
		}
		j := 1
		for ; j < len(n); j++ {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != n[j] {
				break
			}
		}
		if j == len(n) {
			return true
		}
	}
	return false
}
