package query

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/docir/docir/docir"
)

// Values returns the scalar values of field in rec as text: a list yields
// its scalar elements, a nested object nothing (but present is true). The
// built-in fields id, path, title and size (a document's metadata) win over
// front-matter keys of the same name.
func Values(rec *docir.Record, field string) (vals []string, present bool) {
	switch field {
	case "id":
		return []string{rec.ID}, true
	case "path":
		return []string{rec.Path}, true
	case "title":
		return []string{rec.Title}, true
	case "size":
		return []string{strconv.FormatInt(rec.Size, 10)}, true
	}
	v, ok := lookup(rec.Fields, field)
	if !ok {
		return nil, false
	}
	return scalars(v, nil), true
}

// FieldValue is the value of field in front matter m as a query reads it
// (lookup): what store/passage indexes of a configured front-matter field
// that names a nested one (hero.tagline).
func FieldValue(m map[string]any, field string) (any, bool) { return lookup(m, field) }

// lookup finds field in front matter: the key as written, else a key equal
// to it ignoring case, else a dotted path into nested objects.
func lookup(m map[string]any, field string) (any, bool) {
	if m == nil {
		return nil, false
	}
	if v, ok := m[field]; ok {
		return v, true
	}
	for k, v := range m {
		if strings.EqualFold(k, field) {
			return v, true
		}
	}
	head, rest, dotted := strings.Cut(field, ".")
	if !dotted {
		return nil, false
	}
	v, ok := lookup(m, head)
	if !ok {
		return nil, false
	}
	switch n := v.(type) {
	case map[string]any:
		return lookup(n, rest)
	case map[any]any:
		conv := make(map[string]any, len(n))
		for k, v := range n {
			conv[fmt.Sprint(k)] = v
		}
		return lookup(conv, rest)
	case []any:
		// A list of objects (`author: [{name: …}, …]`): the path into each
		// one, their values one list.
		var out []any
		found := false
		for _, e := range n {
			m, ok := e.(map[string]any)
			if !ok {
				continue
			}
			if v, ok := lookup(m, rest); ok {
				found = true
				if l, ok := v.([]any); ok {
					out = append(out, l...)
				} else {
					out = append(out, v)
				}
			}
		}
		return out, found
	}
	return nil, false
}

func scalars(v any, out []string) []string {
	switch x := v.(type) {
	case nil:
		return out
	case []any:
		for _, e := range x {
			switch e.(type) {
			case []any, map[string]any, map[any]any:
				continue // one level of list only
			}
			out = scalars(e, out)
		}
		return out
	case map[string]any, map[any]any:
		return out
	case string:
		return append(out, x)
	case bool:
		return append(out, strconv.FormatBool(x))
	case int:
		return append(out, strconv.Itoa(x))
	case int64:
		return append(out, strconv.FormatInt(x, 10))
	case uint64:
		return append(out, strconv.FormatUint(x, 10))
	case float64:
		return append(out, strconv.FormatFloat(x, 'f', -1, 64))
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return append(out, x.Format(time.DateOnly))
		}
		return append(out, x.Format(time.RFC3339))
	default:
		return append(out, fmt.Sprint(x))
	}
}

// Match reports whether rec satisfies every term of e.
func (e *Expr) Match(rec *docir.Record) bool {
	for i := range e.Terms {
		if e.Terms[i].match(rec) == e.Terms[i].Not {
			return false
		}
	}
	return true
}

func (t *Term) match(rec *docir.Record) bool {
	vals, present := Values(rec, t.Field)
	if !present {
		return false
	}
	if t.Op == OpEq && len(t.Values) == 1 && t.Values[0] == "*" {
		return true
	}
	for _, c := range vals {
		if t.matchOne(c) {
			return true
		}
	}
	return false
}

func (t *Term) matchOne(c string) bool {
	switch t.Op {
	case OpEq:
		for _, v := range t.Values {
			if equal(c, v) {
				return true
			}
		}
		return false
	case OpRange:
		return (t.Lo == "" || compare(c, t.Lo, true) >= 0) && (t.Hi == "" || compare(c, t.Hi, true) <= 0)
	}
	n := compare(c, t.Values[0], true)
	switch t.Op {
	case OpLT:
		return n < 0
	case OpLE:
		return n <= 0
	case OpGT:
		return n > 0
	default:
		return n >= 0
	}
}

func equal(c, v string) bool {
	if hasGlob(v) {
		return glob(strings.ToLower(v), strings.ToLower(c))
	}
	kc, kv := kinds(c, v)
	switch {
	case kc == kindDate && kv == kindDate:
		return compare(c, v, true) == 0
	case kc == kindNumber && kv == kindNumber:
		return compare(c, v, false) == 0
	}
	return strings.EqualFold(c, v)
}

// kinds classifies a candidate and a value together: a four-digit year
// compared with a date is a date.
func kinds(c, v string) (kind, kind) {
	kc, kv := kindOf(c), kindOf(v)
	if kc == kindDate && kv == kindNumber && len(v) == 4 && isDigits(v) {
		kv = kindDate
	}
	if kv == kindDate && kc == kindNumber && len(c) == 4 && isDigits(c) {
		kc = kindDate
	}
	return kc, kv
}

// compare orders candidate c against value v: numerically when both are
// numbers, as dates when both are dates (with trunc, c cut to v's precision
// first, so 2024-06-15 equals 2024-06), else as case-folded text.
func compare(c, v string, trunc bool) int {
	kc, kv := kinds(c, v)
	switch {
	case kc == kindNumber && kv == kindNumber:
		a, _ := strconv.ParseFloat(c, 64)
		b, _ := strconv.ParseFloat(v, 64)
		if math.IsNaN(a) || math.IsNaN(b) {
			return strings.Compare(c, v)
		}
		return cmp.Compare(a, b)
	case kc == kindDate && kv == kindDate:
		if trunc && len(c) > len(v) {
			c = c[:len(v)]
		}
		return strings.Compare(c, v)
	}
	return strings.Compare(strings.ToLower(c), strings.ToLower(v))
}

// glob matches s against pattern p: '*' is any run of characters ('/'
// included), '?' one character. Both are already case-folded.
func glob(p, s string) bool {
	// Iterative matching with one backtrack point per '*'.
	var px, sx, nextPx, nextSx int
	nextSx = -1
	for px < len(p) || sx < len(s) {
		if px < len(p) {
			switch p[px] {
			case '*':
				nextPx, nextSx = px, sx+1
				px++
				continue
			case '?':
				if sx < len(s) {
					_, n := utf8.DecodeRuneInString(s[sx:])
					px++
					sx += n
					continue
				}
			default:
				if sx < len(s) && p[px] == s[sx] {
					px++
					sx++
					continue
				}
			}
		}
		if nextSx > 0 && nextSx <= len(s) {
			px, sx = nextPx, nextSx
			for sx < len(s) && !utf8.RuneStart(s[sx]) {
				sx++
				nextSx++
			}
			continue
		}
		return false
	}
	return true
}

// Sort orders records by field (descending when desc), documents without
// the field last either way, ties by id. A list sorts by its first element.
// Values compare as in a term: numbers as numbers, dates as dates, else
// case-folded text.
func Sort(recs []*docir.Record, field string, desc bool) {
	type key struct {
		has   bool
		kind  kind
		num   float64
		text  string // as written, for dates; lower-cased otherwise
		year4 bool   // a four-digit number, which compares with dates as a year
	}
	keys := make(map[*docir.Record]key, len(recs))
	for _, r := range recs {
		vals, ok := Values(r, field)
		if !ok || len(vals) == 0 {
			continue
		}
		v := vals[0]
		k := key{has: true, kind: kindOf(v), text: v}
		switch k.kind {
		case kindNumber:
			k.num, _ = strconv.ParseFloat(v, 64)
			k.year4 = len(v) == 4 && isDigits(v)
		case kindText:
			k.text = strings.ToLower(v)
		}
		keys[r] = k
	}
	slices.SortStableFunc(recs, func(a, b *docir.Record) int {
		ka, kb := keys[a], keys[b]
		switch {
		case ka.has && !kb.has:
			return -1
		case !ka.has && kb.has:
			return 1
		case ka.has && kb.has:
			var n int
			switch {
			case ka.kind == kindNumber && kb.kind == kindNumber && !math.IsNaN(ka.num) && !math.IsNaN(kb.num):
				n = cmp.Compare(ka.num, kb.num)
			case ka.kind == kb.kind || (ka.kind == kindDate && kb.year4) || (kb.kind == kindDate && ka.year4):
				n = strings.Compare(ka.text, kb.text)
			default:
				n = strings.Compare(strings.ToLower(ka.text), strings.ToLower(kb.text))
			}
			if desc {
				n = -n
			}
			if n != 0 {
				return n
			}
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// Summary describes why rec matched: the fields e names (then the extra
// fields, such as a sort field) with their values in rec, "field: value"
// joined by " · ", at most limit bytes.
func (e *Expr) Summary(rec *docir.Record, limit int, extra ...string) string {
	var parts []string
	fields := e.Fields()
	for _, f := range extra {
		if f != "" && !slices.Contains(fields, f) {
			fields = append(fields, f)
		}
	}
	for _, f := range fields {
		vals, ok := Values(rec, f)
		if !ok {
			continue
		}
		parts = append(parts, f+": "+strings.Join(vals, ", "))
	}
	s := strings.Join(parts, " · ")
	if len(s) <= limit {
		return s
	}
	const ellipsis = "…"
	cut := limit - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}
