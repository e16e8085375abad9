package docir

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clip shortens s to at most n bytes, cut on a rune boundary, followed by
// "…" when it was cut: how much of outside input a message quotes, and how
// long a value or snippet a reply carries.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// EditDistance is the Levenshtein distance between a and b in bytes, or
// limit+1 as soon as it must exceed limit: a distance up to limit is
// exact. It is how near a typed id, heading or config key is to one that
// exists.
func EditDistance(a, b string, limit int) int {
	var bufs [2][64]int
	prev, cur := bufs[0][:0], bufs[1][:0]
	if len(b) >= len(bufs[0]) {
		prev, cur = make([]int, 0, len(b)+1), make([]int, 0, len(b)+1)
	}
	prev, cur = prev[:len(b)+1], cur[:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Printable is s with every character that could drive a terminal or
// reorder a line escaped as in Go source (\x1b, \u202e): C0 and C1
// controls, DEL, Unicode format characters (bidirectional overrides and
// isolates among them) and U+FFFD (what invalid UTF-8 decodes to). With
// lines, tab and line feed are kept: a message for stderr, which may span
// lines; without, they are escaped too: text someone else supplied (a
// peer's warning), kept to one line of docir's own.
func Printable(s string, lines bool) string {
	return escape(s, func(r rune) bool {
		return lines && (r == '\n' || r == '\t') || !(unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError)
	})
}

// TerminalText is text from the corpus (a body, a title, a snippet) as a
// terminal may show it: escaped as Printable escapes, but for the format
// characters that scripts and emoji are written with, which are kept —
// the zero-width non-joiner and joiner of Persian and Indic words and of
// emoji sequences, the soft hyphen, the word joiner, tag characters.
// What is escaped is what can drive a terminal or reorder what it shows:
// C0 and C1 controls, DEL, invalid UTF-8 (as U+FFFD: a lone byte 0x9b is
// a CSI to an 8-bit terminal) and the bidirectional embeddings, overrides
// and isolates (U+202A–U+202E, U+2066–U+2069), the characters of
// "Trojan Source" text. Lines as in Printable, and with lines a CR that
// ends a line (a CRLF file's) is kept too; a CR elsewhere overwrites a
// line and is escaped.
func TerminalText(s string, lines bool) string {
	clean := func(r rune) bool {
		return lines && (r == '\n' || r == '\t') ||
			!(unicode.IsControl(r) || r == utf8.RuneError || '\u202a' <= r && r <= '\u202e' || '\u2066' <= r && r <= '\u2069')
	}
	if !lines || !strings.Contains(s, "\r\n") {
		return escape(s, clean)
	}
	parts := strings.Split(s, "\r\n")
	for i, p := range parts {
		parts[i] = escape(p, clean)
	}
	return strings.Join(parts, "\r\n")
}

// escape is s with every rune that is not clean written as Go source
// writes it in a quoted string, without the quotes.
func escape(s string, clean func(rune) bool) string {
	if strings.IndexFunc(s, func(r rune) bool { return !clean(r) }) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if clean(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRuneToASCII(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// OneLine is s with every tab, CR and line feed made a space: a field of
// a line docir writes (a table cell, a header), so that text from a file
// or a peer (a title written over two lines in front matter) does not
// start a line of its own.
func OneLine(s string) string {
	if !strings.ContainsAny(s, "\t\r\n") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, s)
}
