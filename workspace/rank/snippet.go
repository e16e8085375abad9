package rank

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docir/docir/store/fulltext"
)

const ellipsis = "…"

// Snippet returns at most limit bytes of text around the place where the
// most distinct words of the query occur close together (matched without
// regard to case), whitespace folded, cut on rune boundaries, with "…"
// where text was cut. Highlighting is left to the printer (see
// MatchSpans): the wire carries plain text.
func Snippet(text, query string, limit int) string {
	text = strings.Join(strings.Fields(plainHeadings(text)), " ")
	if len(text) <= limit {
		return text
	}
	budget := limit - 2*len(ellipsis)
	at := 0
	if spans := MatchSpans(text, query); len(spans) > 0 {
		at = densest(spans, budget)
	}
	start := max(0, at-budget/6)
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
	// Prefer to start and end on a word boundary when one is near.
	if start > 0 {
		if i := strings.IndexByte(text[start:min(end, start+24)], ' '); i >= 0 {
			start += i + 1
		}
	}
	if end < len(text) {
		if i := strings.LastIndexByte(text[max(start, end-24):end], ' '); i >= 0 {
			end = max(start, end-24) + i
		}
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

// plainHeadings drops the markup of headings, the leading #s of an ATX
// heading and the underline of a setext one, and the line markup around
// text a reader reads as prose: a block quote's '>'s, a GitHub alert's
// "[!NOTE]" and a code fence's line (its code stays).
func plainHeadings(text string) string {
	if !strings.Contains(text, "#") && !strings.Contains(text, "\n=") && !strings.Contains(text, "\n-") &&
		!strings.Contains(text, ">") && !strings.Contains(text, "```") && !strings.Contains(text, "~~~") {
		return text
	}
	lines := strings.Split(text, "\n")
	out := lines[:0]
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if q := unquoted(t); q != t {
			t, l = q, q
		}
		switch {
		case len(t) >= 3 && (strings.Trim(t, "`") == "" || strings.Trim(t, "~") == ""):
			continue // a fence's line
		case strings.HasPrefix(t, "#"):
			h := strings.TrimLeft(t, "#")
			if len(t)-len(h) <= 6 && (h == "" || h[0] == ' ' || h[0] == '\t') {
				l = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(h), "#"))
			}
		case i > 0 && t != "" && strings.Trim(t, "=") == "" || i > 0 && len(t) >= 2 && strings.Trim(t, "-") == "" && strings.TrimSpace(lines[i-1]) != "":
			continue // a setext underline
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// unquoted is a trimmed line without its block quote markers ("> > x" is
// "x") and the marker of a GitHub alert or an Obsidian callout after them,
// in any case, with the callout's fold sign ("> [!NOTE]" and "> [!tip]-"
// are ""; "> [!warning]+ Mind it" is "Mind it", its title).
func unquoted(t string) string {
	if !strings.HasPrefix(t, ">") {
		return t
	}
	for strings.HasPrefix(t, ">") {
		t = strings.TrimSpace(t[1:])
	}
	if rest, ok := strings.CutPrefix(t, "[!"); ok {
		if i := strings.IndexByte(rest, ']'); i > 0 && !strings.ContainsAny(rest[:i], " \t") {
			rest = rest[i+1:]
			if strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "+") {
				rest = rest[1:]
			}
			t = strings.TrimSpace(rest)
		}
	}
	return t
}

// densest returns the start of the span from which a window of width bytes
// covers the most distinct query words.
func densest(spans []Span, width int) int {
	best, bestAt := 0, spans[0].Start
	for i := range spans {
		seen := map[string]bool{}
		for j := i; j < len(spans) && spans[j].End-spans[i].Start <= width; j++ {
			seen[spans[j].Word] = true
		}
		if len(seen) > best {
			best, bestAt = len(seen), spans[i].Start
		}
	}
	return bestAt
}

// Span is one place in a text where a word of the query occurs: bytes
// [Start, End) of the text, and the (lower-cased) query word.
type Span struct {
	Start, End int
	Word       string
}

// queryWords splits a query into the lower-cased words a printer can look
// for in text: runs of letters, digits and marks. Runs in scripts written
// without spaces (Han, kana, Thai...) are looked for as written.
func queryWords(query string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r)
	}) {
		if utf8.RuneCountInString(w) < 2 && w[0] < utf8.RuneSelf {
			continue // single Latin letters and digits would light up everything
		}
		forms := []string{w, strings.TrimSuffix(w, "s")}
		if !spaced(w) {
			// As the index does: overlapping pairs of characters.
			rs := []rune(w)
			for i := 0; i+2 <= len(rs) && len(rs) > 2; i++ {
				forms = append(forms, string(rs[i:i+2]))
			}
		}
		for _, v := range forms {
			if !seen[v] && utf8.RuneCountInString(v) >= 2 {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// MatchSpans finds where the query's words occur in text, ignoring case:
// sorted, not overlapping. A word matches at the start of a word of text
// (so "budget" lights up "budgets" but not "subbudget").
func MatchSpans(text, query string) []Span {
	words := queryWords(query)
	if len(words) == 0 {
		return nil
	}
	lower := strings.ToLower(text)
	if len(lower) != len(text) {
		// Lower-casing changed byte lengths (rare letters such as 'İ'):
		// offsets would not line up, so match as written.
		lower = text
	}
	var spans []Span
	for _, w := range words {
		for from := 0; from < len(lower); {
			i := strings.Index(lower[from:], w)
			if i < 0 {
				break
			}
			i += from
			if i == 0 || !isWordRune(lastRune(lower[:i])) || !spaced(w) {
				spans = append(spans, Span{Start: i, End: i + len(w), Word: w})
			}
			from = i + len(w)
		}
	}
	sort.Slice(spans, func(a, b int) bool {
		if spans[a].Start != spans[b].Start {
			return spans[a].Start < spans[b].Start
		}
		return spans[a].End > spans[b].End
	})
	out := spans[:0]
	for _, s := range spans {
		if len(out) > 0 && s.Start < out[len(out)-1].End {
			continue
		}
		out = append(out, s)
	}
	return out
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) || r == '_'
}

// spaced reports whether w is in a script that separates words by spaces;
// words of other scripts (Han, kana, Thai...) may match anywhere.
func spaced(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return !fulltext.BigramScript(r)
}
