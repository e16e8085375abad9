package workspace

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SnippetMax is the most bytes a snippet holds.
const SnippetMax = 240

// Snippet returns at most limit bytes of text around the first place a word of
// the query occurs (case-insensitively), whitespace folded, cut on rune
// boundaries, with "…" where text was cut. Highlighting is left to the
// printer: the wire carries plain text.
func Snippet(text, query string, limit int) string {
	text = strings.Join(strings.Fields(text), " ")
	if len(text) <= limit {
		return text
	}
	at := -1
	lower := strings.ToLower(text)
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
		if len(w) < 2 {
			continue
		}
		if i := strings.Index(lower, w); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	// ToLower can change byte lengths; only trust the offset if it lines up.
	if at < 0 || len(lower) != len(text) {
		at = 0
	}
	const ellipsis = "…"
	budget := limit - 2*len(ellipsis)
	start := max(0, at-budget/4)
	end := min(len(text), start+budget)
	if end == len(text) {
		start = max(0, end-budget)
	}
	for start > 0 && !utf8.RuneStart(text[start]) {
		start++
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end--
	}
	out := text[start:end]
	if start > 0 {
		out = ellipsis + out
	}
	if end < len(text) {
		out += ellipsis
	}
	return out
}
