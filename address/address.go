// Package address owns the Address value object: the one parser of the
// `<id>` and `<id>#<heading>` forms that every command, method and peer of
// docir reads, and the one GitHub-style slug function that both ingest (to
// name sections) and lookup (to match a heading written as text) use.
//
// It imports nothing else of docir's. Parse never reads a store: it only
// decides whether a string is well formed. Whether an address resolves is a
// fact about a corpus and is answered elsewhere.
package address

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The longest address Parse accepts, in bytes, and the longest document id
// in it. Every section address ingest makes fits: an id is valid only
// within MaxIDLen, and a slug is at most MaxSlugLen, with room left for a
// repeat's "-N". (MaxLen is also what an MCP host may send 100 of, at 12
// bytes a character escaped, within the 1 MiB frame.)
const (
	MaxLen   = 768
	MaxIDLen = 512
)

// Sentinel errors: each names one class of malformed address. A *ParseError
// wraps exactly one of them, so callers branch with errors.Is.
var (
	ErrEmpty        = errors.New("empty address")
	ErrTooLong      = errors.New("address longer than 768 bytes, or document id longer than 512")
	ErrInvalidUTF8  = errors.New("address is not valid UTF-8")
	ErrSpaceInID    = errors.New("whitespace in document id")
	ErrControl      = errors.New("control character in address")
	ErrManyHashes   = errors.New("more than one '#'")
	ErrEmptyHeading = errors.New("empty heading after '#'")
	ErrLeadingSlash = errors.New("document id starts with '/'")
	// ErrURL: a page's URL (https://site/a/b/), not the id of its file.
	ErrURL        = errors.New("a URL, not an address")
	ErrBadSegment = errors.New("empty, '.' or '..' path segment in document id")
	// ErrBidi: a bidirectional control (U+200E, U+200F, U+202A..U+202E,
	// U+2066..U+2069) makes an address print unlike the bytes it holds
	// ("Trojan Source"), so two ids that look alike could name different
	// documents.
	ErrBidi = errors.New("bidirectional control character in address")
	// ErrEmptyID: nothing before the '#' ("#x", or a "# comment" line in
	// a list of addresses): not an empty path segment, but no id at all.
	ErrEmptyID = errors.New("empty document id: an address cannot start with '#'")
)

// isBidiControl reports whether r reorders the text around it on screen.
func isBidiControl(r rune) bool {
	return r == '\u200E' || r == '\u200F' || ('\u202A' <= r && r <= '\u202E') || ('\u2066' <= r && r <= '\u2069')
}

// ParseError records a malformed address and why it is malformed.
type ParseError struct {
	Input string // the text as given
	Err   error  // one of the Err* sentinels
	// Hint, when not "", is the address the input most likely meant: a
	// path or URL written for a file or a page (./a/b.md, ../a/b.md,
	// /a/b/, https://site/a/b/#c) with what makes it one taken off
	// (Repair).
	Hint string
}

func (e *ParseError) Error() string {
	msg := "malformed address " + quote(e.Input) + ": " + e.Err.Error()
	if e.Hint != "" {
		msg += "; did you mean " + quote(e.Hint) + "?"
	}
	return msg
}

func (e *ParseError) Unwrap() error { return e.Err }

// quote shows the input the way a user typed it, with control characters and
// invalid bytes escaped, and cuts very long inputs so they do not flood a
// terminal.
func quote(s string) string {
	const show = 80
	if len(s) > show {
		cut := show
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + "…"
	}
	return strconv.Quote(s)
}

// Address names a document, or one section of it.
type Address struct {
	ID      string // document id: a path-like name, '/'-separated
	Heading string // as written after '#': a slug or heading text; "" when absent
}

// Parse reads s as `<id>` or `<id>#<heading>`. A malformed address returns a
// *ParseError; a well-formed one may still name nothing in a given corpus.
// The address is in Unicode normal form C (see NFC): "cafe\u0301" and
// "caf\u00e9" are one address, as ingest gives ids and slugs in that form.
func Parse(s string) (Address, error) {
	a, err := parse(s)
	if err != nil && len(s) <= MaxLen+len("https://") {
		if r := Repair(s); r != s {
			if _, rerr := parse(r); rerr == nil {
				err.(*ParseError).Hint = r
			}
		}
	}
	return a, err
}

// parse is Parse without the hint.
func parse(s string) (Address, error) {
	in := s
	fail := func(err error) (Address, error) {
		return Address{}, &ParseError{Input: in, Err: err}
	}
	if s == "" {
		return fail(ErrEmpty)
	}
	if len(s) > MaxLen {
		return fail(ErrTooLong)
	}
	if !utf8.ValidString(s) {
		return fail(ErrInvalidUTF8)
	}
	if s = NFC(s); len(s) > MaxLen {
		return fail(ErrTooLong)
	}
	id, heading, hasHash := strings.Cut(s, "#")
	if hasHash && strings.Contains(heading, "#") {
		return fail(ErrManyHashes)
	}
	if len(id) > MaxIDLen {
		return fail(ErrTooLong)
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return fail(ErrControl)
		}
		if isBidiControl(r) {
			return fail(ErrBidi)
		}
	}
	if schemeEnd(id) > 0 {
		return fail(ErrURL)
	}
	if strings.IndexFunc(id, unicode.IsSpace) >= 0 {
		return fail(ErrSpaceInID)
	}
	if id == "" {
		return fail(ErrEmptyID)
	}
	if strings.HasPrefix(id, "/") {
		return fail(ErrLeadingSlash)
	}
	for seg := range strings.SplitSeq(id, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fail(ErrBadSegment)
		}
	}
	if hasHash && heading == "" {
		return fail(ErrEmptyHeading)
	}
	return Address{ID: id, Heading: heading}, nil
}

// Repair is s with what makes a path or a URL of a page out of an
// address taken off: a URL's scheme and host, a leading "./", "../" (any
// number of them) or "/", a trailing "/" or ".md" of the id (the part
// before '#'), and its whitespace, which a file's name may hold and its id
// holds as '-' ("My Note.md" is My-Note: docs/ingest.md). A shell
// completes a page bundle's folder as "templates/menu/", a browser copies
// "https://site/templates/menu/#overview", a page's relative link says
// "../templates/menu.md#overview"; the address is "templates/menu" (with
// "#overview"). Of a heading path (Obsidian's "Note#Part#Detail") the last
// heading is kept: its section is the one meant. Parse offers it as a hint; it is never read in the
// input's place.
func Repair(s string) string {
	if i := schemeEnd(s); i > 0 {
		rest := s[i:]
		j := strings.IndexAny(rest, "/#")
		if j < 0 {
			return s
		}
		s = rest[j:]
	}
	id, heading, hasHash := strings.Cut(s, "#")
	for {
		t := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(id, "../"), "./"), "/")
		if t == id {
			break
		}
		id = t
	}
	id = strings.TrimSuffix(strings.TrimRight(id, "/"), ".md")
	id = Hyphenated(id)
	if hasHash {
		// A heading path (Obsidian's [[Note#Part#Detail]]) names its
		// last heading's section.
		if i := strings.LastIndexByte(heading, '#'); i >= 0 && i+1 < len(heading) {
			heading = heading[i+1:]
		}
		return id + "#" + heading
	}
	return id
}

// schemeEnd is the offset just past the "scheme://" s opens with (a
// letter, then letters, digits, '+', '-' or '.': RFC 3986), 0 for none.
func schemeEnd(s string) int {
	i := strings.Index(s, "://")
	if i <= 0 {
		return 0
	}
	for k, c := range []byte(s[:i]) {
		letter := 'a' <= c|0x20 && c|0x20 <= 'z'
		if !letter && (k == 0 || !('0' <= c && c <= '9') && c != '+' && c != '-' && c != '.') {
			return 0
		}
	}
	return i + 3
}

// Hyphenated is s with each white space character turned into '-': what
// ingest makes of a file's path for its id ("my notes.md" is my-notes),
// and Repair of an address typed with spaces.
func Hyphenated(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return '-'
		}
		return r
	}, s)
}

// MustParse is Parse for addresses known at compile time; it panics on error.
func MustParse(s string) Address {
	a, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return a
}

// String prints the address back in the form Parse reads.
func (a Address) String() string {
	if a.Heading == "" {
		return a.ID
	}
	return a.ID + "#" + a.Heading
}

// HasHeading reports whether the address names a section.
func (a Address) HasHeading() bool { return a.Heading != "" }

// Document returns the address of the whole document a names.
func (a Address) Document() Address { return Address{ID: a.ID} }

// ParseAll parses every string of a list, in order, and fails on the first
// malformed one with its *ParseError: a list with a typo in it reads
// nothing. It is the one parser of address lists (RPC params, CLI
// arguments, `get -` input).
func ParseAll(raw []string) ([]Address, error) {
	out := make([]Address, len(raw))
	for i, s := range raw {
		a, err := Parse(s)
		if err != nil {
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}

// NFC returns s in Unicode normalization form C, s itself when it already
// is (all ASCII text is). Ids, headings' slugs and the addresses typed to
// reach them are compared in this form: a file named on macOS (whose file
// systems have stored names decomposed, "e" + U+0301) and the same name
// typed on a keyboard (composed, U+00E9) are the same document.
func NFC(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			// Not from i: a mark there may compose with the letter before.
			if norm.NFC.IsNormalString(s) {
				return s
			}
			return norm.NFC.String(s)
		}
	}
	return s
}
