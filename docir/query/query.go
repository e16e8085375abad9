// Package query is the one parser and evaluator of docir's filter
// expressions, the language of `docir query` and `docir/query`:
//
//	status:accepted kind:adr            every term must hold
//	status:accepted,proposed            any of several values
//	-status:superseded                  a term that must not hold
//	path:text/*  title:*retry*          globs: * any run of characters, ? one
//	date:>=2024-01-01  size:<4096       comparisons: > >= < <=
//	date:2024-01..2024-06  date:2024..  inclusive ranges, either end open
//	date:2024-03                        a date at the precision written
//	tags:process                        a list matches when an element does
//	author.name:ada                     a dotted path into nested front matter (and lists of objects)
//	owner:*                             the field is present; -owner:* absent
//	title:"retry budget"                quotes keep spaces and commas in a value
//	"my key":v  "a:b":x                 and any front-matter key as a field
//
// Fields are a document's front matter, plus its metadata `id`, `path`,
// `title` and `size` (which win over front-matter keys of those names).
// Values compare as numbers when both sides are numbers, as dates when both
// are ISO dates (YYYY, YYYY-MM, YYYY-MM-DD, optionally with a time), at the
// precision of the value written, and else as case-insensitive text.
//
// A malformed expression is an *Error naming the term and its offset. The
// package knows nothing of bleve or of any store; it evaluates against
// docir.Record values. It also defines the keys of a field index a store
// may keep (IndexKeys) and which terms such an index answers (Lookups),
// so a filter reads candidates instead of every record.
package query

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxExprBytes bounds an expression: anything longer is refused.
const MaxExprBytes = 4096

// Op is a term's comparison.
type Op int

// The comparisons.
const (
	OpEq    Op = iota // equal, or glob match; several values: any of them
	OpLT              // <
	OpLE              // <=
	OpGT              // >
	OpGE              // >=
	OpRange           // Lo..Hi, inclusive, either end may be open
)

var opText = map[Op]string{OpLT: "<", OpLE: "<=", OpGT: ">", OpGE: ">="}

// Term is one `[-]field:value` of an expression.
type Term struct {
	Text   string   // the term as written
	Offset int      // byte offset of the term in the expression
	Not    bool     // written with a leading '-'
	Field  string   // as written, dotted for nested keys
	Op     Op       //
	Values []string // OpEq: the alternatives; comparisons: one value
	Lo, Hi string   // OpRange: the ends, "" when open
}

// Expr is a parsed expression: the conjunction of its terms.
type Expr struct {
	Source string
	Terms  []Term

	needles [][][]byte // per term, what MayMatchJSON looks for; set by Parse
}

// Error is a malformed expression. Part is the piece at fault as written,
// and Offset its byte offset in Expr.
type Error struct {
	Expr   string
	Offset int
	Part   string
	Msg    string
}

func (e *Error) Error() string {
	switch {
	case e.Part == "":
		return fmt.Sprintf("invalid query %q: %s", e.Expr, e.Msg)
	case e.Part == e.Expr:
		return fmt.Sprintf("invalid query %q: %s", e.Part, e.Msg)
	}
	return fmt.Sprintf("invalid query %q: term %q at byte %d: %s", e.Expr, e.Part, e.Offset, e.Msg)
}

// Parse parses an expression. Every term must be `field:value` (with an
// optional leading '-'); a bare word is an error that says so.
func Parse(s string) (*Expr, error) {
	if len(s) > MaxExprBytes {
		return nil, &Error{Expr: s[:64] + "…", Msg: fmt.Sprintf("expression of %d bytes, over the %d-byte bound", len(s), MaxExprBytes)}
	}
	if !utf8.ValidString(s) {
		return nil, &Error{Expr: s, Msg: "not valid UTF-8"}
	}
	p := &parser{src: s}
	e := &Expr{Source: s}
	for {
		p.skipSpace()
		if p.pos >= len(s) {
			break
		}
		t, err := p.term()
		if err != nil {
			return nil, err
		}
		e.Terms = append(e.Terms, t)
	}
	if len(e.Terms) == 0 {
		return nil, &Error{Expr: s, Msg: "empty expression; write field:value terms (id:* matches every document)"}
	}
	e.needles = make([][][]byte, len(e.Terms))
	for i := range e.Terms {
		e.needles[i] = e.Terms[i].needles()
	}
	return e, nil
}

type parser struct {
	src string
	pos int
}

func (p *parser) skipSpace() {
	for p.pos < len(p.src) {
		r, n := utf8.DecodeRuneInString(p.src[p.pos:])
		if !unicode.IsSpace(r) {
			return
		}
		p.pos += n
	}
}

// word returns the raw text of the term starting at p.pos, up to the next
// whitespace outside quotes, for error messages.
func (p *parser) rawTerm(start int) string {
	inQuote := false
	i := start
	for i < len(p.src) {
		r, n := utf8.DecodeRuneInString(p.src[i:])
		switch {
		case r == '\\' && inQuote && i+n < len(p.src):
			_, m := utf8.DecodeRuneInString(p.src[i+n:])
			i += n + m
			continue
		case r == '"':
			inQuote = !inQuote
		case unicode.IsSpace(r) && !inQuote:
			return p.src[start:i]
		}
		i += n
	}
	return p.src[start:i]
}

func (p *parser) fail(start int, format string, args ...any) error {
	return &Error{Expr: p.src, Offset: start, Part: p.rawTerm(start), Msg: fmt.Sprintf(format, args...)}
}

func isFieldRune(r rune) bool {
	return r == '_' || r == '-' || r == '.' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

func (p *parser) term() (Term, error) {
	start := p.pos
	t := Term{Offset: start}
	if p.src[p.pos] == '-' {
		t.Not = true
		p.pos++
	}
	fstart := p.pos
	if p.pos < len(p.src) && p.src[p.pos] == '"' {
		// A quoted name: any front-matter key, as written ("my key",
		// "a:b"), as docir fields lists it.
		name, err := p.quoted(start)
		if err != nil {
			return t, err
		}
		if name == "" {
			return t, p.fail(start, "empty field name in quotes")
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return t, p.fail(start, "a quoted field name is followed by ':' and a value")
		}
		t.Field = name
		return p.rest(t, start)
	}
	for p.pos < len(p.src) {
		r, n := utf8.DecodeRuneInString(p.src[p.pos:])
		if !isFieldRune(r) {
			break
		}
		p.pos += n
	}
	t.Field = p.src[fstart:p.pos]
	if p.pos >= len(p.src) || p.src[p.pos] != ':' {
		if p.pos < len(p.src) && !unicode.IsSpace(rune(p.src[p.pos])) && p.src[p.pos] != ':' {
			r, _ := utf8.DecodeRuneInString(p.src[p.pos:])
			if t.Field == "" {
				return t, p.fail(start, "a term is field:value; %q cannot start a field name", r)
			}
			return t, p.fail(start, "field names hold letters, digits, '_', '-' and '.'; %q is not allowed", r)
		}
		return t, p.fail(start, "a term is field:value (free text belongs to `docir search`)")
	}
	if t.Field == "" {
		return t, p.fail(start, "missing field name before ':'")
	}
	if err := checkField(t.Field); err != "" {
		return t, p.fail(start, "field %q: %s", t.Field, err)
	}
	return p.rest(t, start)
}

// rest reads the rest of the term t that starts at start, from the ':'
// after its field name: the operator and the values; a value of `size`,
// which is always a number, must be one (see sizeValues).
func (p *parser) rest(t Term, start int) (Term, error) {
	t, err := p.restValues(t, start)
	if err == nil && t.Field == "size" {
		if v, ok := sizeValues(t); !ok {
			return t, p.fail(start, "size is a document's size in bytes, a number: %q is not one (write 40000, not 40k)", v)
		}
	}
	return t, err
}

// sizeValues reports whether every value of a `size` term can compare with
// a size, and the first that cannot: a glob matches text, and a value that
// is no number compares with a number as text ("7350" > "40k"), which no
// reader means.
func sizeValues(t Term) (string, bool) {
	for _, v := range append([]string{t.Lo, t.Hi}, t.Values...) {
		if v != "" && !(t.Op == OpEq && hasGlob(v)) && kindOf(v) != kindNumber {
			return v, false
		}
	}
	return "", true
}

// restValues is rest without the check of size's values.
func (p *parser) restValues(t Term, start int) (Term, error) {
	p.pos++ // ':'
	// Operator.
	rest := p.src[p.pos:]
	for _, op := range []struct {
		text string
		op   Op
	}{{">=", OpGE}, {"<=", OpLE}, {">", OpGT}, {"<", OpLT}} {
		if strings.HasPrefix(rest, op.text) {
			t.Op = op.op
			p.pos += len(op.text)
			break
		}
	}
	vals, err := p.values(start)
	if err != nil {
		return t, err
	}
	t.Text = p.src[start:p.pos]
	if len(vals) == 0 {
		return t, p.fail(start, "missing value after %q", p.src[start:p.pos])
	}
	if t.Op != OpEq {
		if len(vals) != 1 {
			return t, p.fail(start, "a comparison takes one value, not a list")
		}
		if strings.Contains(vals[0], "..") {
			return t, p.fail(start, "write a range as field:LO..HI, without %s", opText[t.Op])
		}
		if hasGlob(vals[0]) {
			return t, p.fail(start, "a comparison takes no glob")
		}
		if msg := checkValue(vals[0]); msg != "" {
			return t, p.fail(start, "%s", msg)
		}
		t.Values = vals
		return t, nil
	}
	if len(vals) == 1 && strings.Contains(vals[0], "..") {
		lo, hi, _ := strings.Cut(vals[0], "..")
		switch {
		case strings.Contains(hi, ".."):
			return t, p.fail(start, "a range has one '..'")
		case lo == "" && hi == "":
			return t, p.fail(start, "a range needs at least one end")
		case hasGlob(lo) || hasGlob(hi):
			return t, p.fail(start, "a range takes no glob")
		}
		for _, v := range []string{lo, hi} {
			if msg := checkValue(v); v != "" && msg != "" {
				return t, p.fail(start, "%s", msg)
			}
		}
		if lo != "" && hi != "" && compare(lo, hi, false) > 0 && !(kindOf(lo) == kindDate && kindOf(hi) == kindDate && strings.HasPrefix(hi, lo)) {
			return t, p.fail(start, "range %s..%s is empty: the low end is above the high end", lo, hi)
		}
		t.Op, t.Lo, t.Hi = OpRange, lo, hi
		return t, nil
	}
	for _, v := range vals {
		if msg := checkValue(v); msg != "" {
			return t, p.fail(start, "%s", msg)
		}
	}
	t.Values = vals
	return t, nil
}

// values reads a comma-separated list of bare or quoted values, up to the
// next whitespace outside quotes.
func (p *parser) values(start int) ([]string, error) {
	var vals []string
	for {
		var b strings.Builder
		quoted := false
		for p.pos < len(p.src) {
			r, n := utf8.DecodeRuneInString(p.src[p.pos:])
			if unicode.IsSpace(r) || r == ',' {
				break
			}
			if r == '"' {
				if quoted || b.Len() > 0 {
					return nil, p.fail(start, "a quote may only open a value")
				}
				s, err := p.quoted(start)
				if err != nil {
					return nil, err
				}
				b.WriteString(s)
				quoted = true
				continue
			}
			if quoted {
				return nil, p.fail(start, "text after a closing quote")
			}
			if unicode.IsControl(r) {
				return nil, p.fail(start, "control character %U in a value", r)
			}
			b.WriteRune(r)
			p.pos += n
		}
		if b.Len() == 0 && !quoted {
			if p.pos < len(p.src) && p.src[p.pos] == ',' {
				return nil, p.fail(start, "empty value in a list")
			}
			if len(vals) > 0 {
				return nil, p.fail(start, "empty value at the end of a list")
			}
			return nil, nil
		}
		vals = append(vals, b.String())
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		return vals, nil
	}
}

func (p *parser) quoted(start int) (string, error) {
	p.pos++ // opening quote
	var b strings.Builder
	for p.pos < len(p.src) {
		r, n := utf8.DecodeRuneInString(p.src[p.pos:])
		p.pos += n
		switch {
		case r == '"':
			return b.String(), nil
		case r == '\\':
			if p.pos >= len(p.src) {
				return "", p.fail(start, "unterminated quote")
			}
			e, m := utf8.DecodeRuneInString(p.src[p.pos:])
			if e != '"' && e != '\\' {
				return "", p.fail(start, `only \" and \\ are escapes inside quotes`)
			}
			p.pos += m
			b.WriteRune(e)
		case unicode.IsControl(r):
			return "", p.fail(start, "control character %U in a value", r)
		default:
			b.WriteRune(r)
		}
	}
	return "", p.fail(start, "unterminated quote")
}

func checkField(f string) string {
	if strings.HasPrefix(f, "-") {
		return "a field name cannot start with '-'"
	}
	for _, seg := range strings.Split(f, ".") {
		if seg == "" {
			return "empty segment in a dotted field name"
		}
	}
	return ""
}

// checkValue reports what is wrong with a value that looks like a date but
// is not one (2024-13-01), so a typo is not silently compared as text.
func checkValue(v string) string {
	if !looksDateish(v) {
		return ""
	}
	if _, err := parseDate(v); err != nil {
		return err.Error()
	}
	return ""
}

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?") }

// ParseSort parses a --sort value: a field name, "-field" for descending.
func ParseSort(s string) (field string, desc bool, err error) {
	in := s
	if strings.HasPrefix(s, "-") {
		desc, s = true, s[1:]
	}
	bad := func(msg string) error { return &Error{Expr: in, Part: in, Msg: "sort: " + msg} }
	if s == "" {
		return "", false, bad("missing field name")
	}
	for _, r := range s {
		if !isFieldRune(r) {
			return "", false, bad(fmt.Sprintf("field names hold letters, digits, '_', '-' and '.'; %q is not allowed", r))
		}
	}
	if msg := checkField(s); msg != "" {
		return "", false, bad(msg)
	}
	return s, desc, nil
}

// String prints the expression back in a normal form: one space between
// terms, as written otherwise.
func (e *Expr) String() string {
	parts := make([]string, len(e.Terms))
	for i, t := range e.Terms {
		parts[i] = t.Text
	}
	return strings.Join(parts, " ")
}

// Fields lists the distinct fields the expression names, in order.
func (e *Expr) Fields() []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range e.Terms {
		if !seen[t.Field] {
			seen[t.Field] = true
			out = append(out, t.Field)
		}
	}
	return out
}

// kinds of scalar values, for comparison.
type kind int

const (
	kindText kind = iota
	kindNumber
	kindDate
)

func kindOf(s string) kind {
	if s == "" || !(s[0] >= '0' && s[0] <= '9' || s[0] == '-' || s[0] == '+' || s[0] == '.' || s[0] == 'i' || s[0] == 'I' || s[0] == 'n' || s[0] == 'N') {
		return kindText // cannot be a number or a date: skip the parsers
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil && s != "" && !strings.ContainsAny(s, "xXpP_") && !isNaNInf(s) {
		return kindNumber
	}
	if looksDateish(s) {
		if _, err := parseDate(s); err == nil {
			return kindDate
		}
	}
	return kindText
}

func isNaNInf(s string) bool {
	l := strings.ToLower(strings.TrimLeft(s, "+-"))
	return l == "nan" || l == "inf" || l == "infinity"
}

// looksDateish: four digits, then '-' and a digit.
func looksDateish(s string) bool {
	return len(s) >= 6 && isDigits(s[:4]) && s[4] == '-' && s[5] >= '0' && s[5] <= '9'
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// parseDate checks YYYY-MM, YYYY-MM-DD and YYYY-MM-DD followed by 'T' or
// ' ' and anything (a time, compared as text). It returns the date part.
func parseDate(s string) (string, error) {
	date := s
	if len(s) > 10 {
		if s[10] != 'T' && s[10] != ' ' && s[10] != 't' {
			return "", fmt.Errorf("%q: a date is YYYY-MM or YYYY-MM-DD, optionally followed by a time", s)
		}
		date = s[:10]
	}
	switch {
	case len(date) == 7 && isDigits(date[5:7]):
	case len(date) == 10 && isDigits(date[5:7]) && date[7] == '-' && isDigits(date[8:10]):
	default:
		return "", fmt.Errorf("%q: a date is YYYY-MM or YYYY-MM-DD", s)
	}
	if m, _ := strconv.Atoi(date[5:7]); m < 1 || m > 12 {
		return "", fmt.Errorf("%q: month %s is not 01 to 12", s, date[5:7])
	}
	if len(date) == 10 {
		if d, _ := strconv.Atoi(date[8:10]); d < 1 || d > 31 {
			return "", fmt.Errorf("%q: day %s is not 01 to 31", s, date[8:10])
		}
	}
	return date, nil
}
