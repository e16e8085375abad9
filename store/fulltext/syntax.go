package fulltext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Syntax is what a search query says beyond its words: phrases that must
// occur as written, and words and phrases that must not occur.
//
//	retry budget            the words, ranked (no operator: every word counts, none is required)
//	"retry budget"          a phrase: a passage matches only if it has these words adjacent, in this order
//	retry -timeout          a word after "-" excludes every passage that has it
//	retry -"circuit breaker"  a phrase after "-" excludes every passage that has it
//
// (ParseSyntaxWith: a "-word" that the documents write as a command-line
// option, "-Depth", is that option, a word.)
//
// A "-" inside a word ("kube-scheduler", "--force") or alone is a plain
// character, and so is a quote that no later quote closes (with a "-"
// before it): a query pasted from a text with a stray quote is its words.
// Words and phrases are analyzed as any text is (case, plurals, identifiers
// in parts).
type Syntax struct {
	// Text is the query's positive text, in order: its words and the words
	// of its phrases, quotes removed. It is what the query is ranked by.
	Text string
	// Phrases are the positive phrases, each as written between its quotes.
	Phrases []string
	// Not are the excluded words and phrases, as written.
	Not []string
}

// ParseSyntax splits a query into its positive text, its phrases and what
// it excludes (see Syntax).
func ParseSyntax(q string) Syntax {
	return ParseSyntaxWith(q, nil)
}

// ParseSyntaxWith is ParseSyntax where option(w) says whether "-w" names a
// command-line option (see flags.go): such a "-w" is the word w, ranked in
// its place, not an exclusion. A quoted -"w" always excludes. option may be
// nil: no word is an option.
func ParseSyntaxWith(q string, option func(w string) bool) Syntax {
	var s Syntax
	var text []string
	for i := 0; i < len(q); {
		r, size := utf8.DecodeRuneInString(q[i:])
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		neg := false
		if r == '-' && i+1 < len(q) && (q[i+1] == '"' || !isSpaceByte(q[i+1]) && q[i+1] != '-') {
			neg = true
			i++
		}
		if q[i] == '"' {
			end := strings.IndexByte(q[i+1:], '"')
			if end < 0 {
				// An unclosed quote is a character (a pasted sentence with
				// a stray quote must not turn the rest into a phrase), and
				// so is the "-" before it.
				i++
				continue
			}
			phrase := q[i+1 : i+1+end]
			i += 2 + end
			if strings.TrimSpace(phrase) == "" {
				continue
			}
			if neg {
				s.Not = append(s.Not, phrase)
			} else {
				s.Phrases = append(s.Phrases, phrase)
				text = append(text, phrase)
			}
			continue
		}
		j := i
		for j < len(q) {
			r, size := utf8.DecodeRuneInString(q[j:])
			if unicode.IsSpace(r) || r == '"' {
				break
			}
			j += size
		}
		if j == i { // a quote right after "-" was taken above; this is a lone '"' run
			j = i + 1
		}
		if neg && (option == nil || !option(q[i:j])) {
			s.Not = append(s.Not, q[i:j])
		} else {
			text = append(text, q[i:j])
		}
		i = j
	}
	s.Text = strings.Join(text, " ")
	return s
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}
