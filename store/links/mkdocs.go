package links

import (
	"strings"

	"golang.org/x/text/unicode/norm"
)

// MkDocsAnchors returns the anchors MkDocs gives a document's headings, in
// order: Python-Markdown's toc extension (its default slugify and unique),
// which is not GitHub's. A heading's text is decomposed (NFKD) and kept to
// ASCII, every character but a letter, a digit, '_', '-' and white space
// is dropped, the ends are trimmed of white space, it is lower-cased, and
// each run of '-' and white space becomes one '-': "HEAD / Branch
// Tracking" is head-branch-tracking (GitHub: head--branch-tracking), "How
// often … repository ?" ends in "repository" (GitHub: "repository-"),
// "Café" is cafe. A repeated (or empty) anchor gets "_1", "_2": the second
// "Examples" is examples_1 (GitHub: examples-1). A heading with an id of
// its own ({#id}) is not told apart here: its id is its slug, which a link
// finds as it is, but its text takes an anchor too, where MkDocs reserves
// the ids first; so in a document that gives a heading an id, a later
// heading may be numbered otherwise than MkDocs numbers it (the record does
// not say which slugs were written as ids).
func MkDocsAnchors(headings []string) []string {
	return uniqueAnchors(headings, func(h string, taken map[string]bool) string {
		id := mkdocsSlug(h)
		for id == "" || taken[id] {
			id = nextCount(id)
		}
		return id
	})
}

// uniqueAnchors gives each heading, in order, the anchor a generator's
// rule makes of it, given the anchors the headings before it took.
func uniqueAnchors(headings []string, anchor func(heading string, taken map[string]bool) string) []string {
	out := make([]string, len(headings))
	taken := make(map[string]bool, len(headings))
	for i, h := range headings {
		out[i] = anchor(h, taken)
		taken[out[i]] = true
	}
	return out
}

// mkdocsSlug is Python-Markdown's toc.slugify(value, "-") with unicode off.
func mkdocsSlug(heading string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(heading) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + 'a' - 'A')
		case isPySpace(r):
			b.WriteRune(' ')
		}
	}
	var out strings.Builder
	sep := false // a run of '-' and white space is one '-'
	for _, r := range strings.TrimSpace(b.String()) {
		if r == '-' || r == ' ' {
			sep = true
			continue
		}
		if sep {
			out.WriteByte('-')
			sep = false
		}
		out.WriteRune(r)
	}
	if sep {
		out.WriteByte('-') // a trailing '-' that was not white space
	}
	return out.String()
}

// isPySpace reports whether r, an ASCII character, is white space to
// Python's re \s and str.strip (the four information separators are).
func isPySpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\f', '\v', '\x1c', '\x1d', '\x1e', '\x1f':
		return true
	}
	return false
}

// nextCount is the next id Python-Markdown's unique tries: "x_1" → "x_2",
// "x_09" → "x_10" (the count read as a number, of any size), anything else
// gets "_1".
func nextCount(id string) string {
	if i := strings.LastIndexByte(id, '_'); i >= 0 && isDigits(id[i+1:]) {
		return id[:i] + "_" + increment(strings.TrimLeft(id[i+1:], "0"))
	}
	return id + "_1"
}

// increment adds one to a decimal number without leading zeros ("" is 0).
func increment(n string) string {
	b := []byte(n)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < '9' {
			b[i]++
			return string(b)
		}
		b[i] = '0'
	}
	return "1" + string(b)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
