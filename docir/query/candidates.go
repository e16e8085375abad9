package query

import (
	"bytes"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A field index answers some terms without reading records. It maps keys
// (IndexKeys) to the documents having them (in the store, posting lists
// keyed by the key), and a term is a lookup of the keys under a prefix:
//
//	'v' path 0 value 0         a scalar value at that path
//	'p' path 0                 the path is present without a scalar value
//	                           (null, an object, an empty list)
//	'b' name 0 value 0         a built-in field's value (path, title)
//	'x' 0                      the record is irregular: verify it
//
// Paths are the dotted key chains of the front matter, values the scalars
// Values gives, both case-folded (Fold) and cut to KeyCap bytes. A record
// is irregular when a map holds two keys equal ignoring case or a key
// holding a '.': then a dotted field may resolve to another key than the
// index's, so its entries are only a superset.

// KeyCap bounds a path or value in an index key, in bytes.
const KeyCap = 200

// Key kinds.
const (
	kindPresent   = 'p'
	kindValue     = 'v'
	kindBuiltin   = 'b'
	kindIrregular = 'x'
)

// IrregularKey is the key of the irregular-record marker.
var IrregularKey = []byte{kindIrregular, 0}

// Fold maps s to a form equal for exactly the strings strings.EqualFold
// deems equal: every rune becomes the least rune of its case-folding orbit.
// A NUL becomes 0x01, so a folded string never holds the key separator.
func Fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || c == 0 || (c >= 'a' && c <= 'z') {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == 0:
			r = 1
		case r >= 'a' && r <= 'z':
			r -= 'a' - 'A'
		case r >= utf8.RuneSelf:
			m := r
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				m = min(m, f)
			}
			r = m
		}
		b.WriteRune(r)
	}
	return b.String()
}

// capped cuts s to at most KeyCap bytes on a rune boundary.
func capped(s string) string {
	if len(s) <= KeyCap {
		return s
	}
	cut := KeyCap
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

func key(kind byte, path, value string, withValue bool) []byte {
	b := make([]byte, 0, 3+len(path)+len(value))
	b = append(b, kind)
	b = append(b, path...)
	b = append(b, 0)
	if withValue {
		b = append(b, value...)
		b = append(b, 0)
	}
	return b
}

// IndexKeys lists the field-index keys of a record (without its id),
// sorted and distinct. fields must be the front matter as a JSON decoding
// gives it (the form a query evaluates), so numbers are float64.
func IndexKeys(id, path, title string, fields map[string]any) [][]byte {
	var keys [][]byte
	for name, v := range map[string]string{"path": path, "title": title} {
		keys = append(keys, key(kindBuiltin, Fold(name), capped(Fold(v)), true))
	}
	irregular := false
	var walk func(m map[string]any, prefix string)
	walk = func(m map[string]any, prefix string) {
		seen := make(map[string]bool, len(m))
		for k, v := range m {
			fk := Fold(k)
			if seen[fk] || strings.Contains(k, ".") {
				irregular = true
			}
			seen[fk] = true
			p := fk
			if prefix != "" {
				p = prefix + "." + fk
			}
			if len(p) > KeyCap {
				continue // no field a query can name (Lookup refuses it)
			}
			if n, ok := v.(map[string]any); ok {
				keys = append(keys, key(kindPresent, p, "", false))
				walk(n, p)
				continue
			}
			if l, ok := v.([]any); ok { // a list of objects: paths into each (see lookup)
				for _, e := range l {
					if n, ok := e.(map[string]any); ok {
						walk(n, p)
					}
				}
			}
			vals := scalars(v, nil)
			if len(vals) == 0 {
				keys = append(keys, key(kindPresent, p, "", false))
			}
			for _, s := range vals {
				keys = append(keys, key(kindValue, p, capped(Fold(s)), true))
			}
		}
	}
	walk(fields, "")
	if irregular {
		keys = append(keys, bytes.Clone(IrregularKey))
	}
	slices.SortFunc(keys, bytes.Compare)
	return slices.CompactFunc(keys, bytes.Equal)
}

// Lookup is what the index answers for one term: the documents having an
// entry under any of Prefixes. Exact says those are precisely the
// documents satisfying the term (for regular records); otherwise they are
// a superset, to verify on the decoded records.
type Lookup struct {
	Term     int
	Prefixes [][]byte
	Exact    bool
}

// Lookups lists the index questions of e's terms that the index can
// answer: equality with text values, globs with a plain ASCII prefix, and
// presence, on terms not negated. A term without one is verified on the
// records the others leave.
func (e *Expr) Lookups() []Lookup {
	var out []Lookup
	for i := range e.Terms {
		if l, ok := e.Terms[i].lookup(); ok {
			l.Term = i
			out = append(out, l)
		}
	}
	return out
}

// Exact reports whether ls answer every term of e exactly, so a regular
// record in all their sets matches without decoding.
func (e *Expr) Exact(ls []Lookup) bool {
	if len(ls) != len(e.Terms) {
		return false
	}
	for _, l := range ls {
		if !l.Exact {
			return false
		}
	}
	return true
}

func (t *Term) lookup() (Lookup, bool) {
	if t.Not || t.Op != OpEq {
		return Lookup{}, false
	}
	builtin := false
	switch t.Field {
	case "path", "title":
		builtin = true
	case "id", "size":
		return Lookup{}, false // not indexed: a get reads one id; size is a number
	}
	path := Fold(t.Field)
	if len(path) > KeyCap {
		return Lookup{}, false
	}
	if len(t.Values) == 1 && t.Values[0] == "*" {
		if builtin {
			return Lookup{}, false // every document
		}
		return Lookup{Prefixes: [][]byte{key(kindPresent, path, "", false), key(kindValue, path, "", false)}, Exact: true}, true
	}
	kind := byte(kindValue)
	if builtin {
		kind = kindBuiltin
	}
	l := Lookup{Exact: true}
	for _, v := range t.Values {
		if hasGlob(v) {
			// glob folds with strings.ToLower; an ASCII prefix holding no
			// 'i' (which İ lowers to, outside i's folding orbit) is a prefix
			// of the folded value of every match.
			pre := v[:strings.IndexAny(v, "*?")]
			if pre == "" || strings.ContainsAny(pre, "iI") || !isASCII(pre) {
				return Lookup{}, false
			}
			k := key(kind, path, capped(Fold(pre)), true)
			l.Prefixes = append(l.Prefixes, k[:len(k)-1])
			l.Exact = false
			continue
		}
		if kindOf(v) != kindText {
			return Lookup{}, false // numbers and dates compare by value
		}
		f := Fold(v)
		k := key(kind, path, capped(f), true)
		if len(f) > KeyCap-4 {
			k, l.Exact = k[:len(k)-1], false // a long value: its key is cut
		}
		l.Prefixes = append(l.Prefixes, k)
	}
	return l, true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
