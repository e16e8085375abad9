package links

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// VitePressAnchors returns the anchors VitePress gives a document's
// headings, in order: each heading's VitePressSlug, made unique as
// markdown-it-anchor (and @mdit/plugin-anchor, which replaced it in
// VitePress 2) does. An empty slug is "heading" (@mdit/plugin-anchor's
// placeholder); a slug taken already gets "-1", then "-2", …, counted
// from 1 for each heading and skipping any that is taken, so that
// "Examples", "Examples", "Examples" are examples, examples-1 and
// examples-2, and "A", "A-1", "A" are a, a-1 and a-2. A heading with an
// id of its own ({#id}) is not told apart here, as in MkDocsAnchors: its
// text takes an anchor too, where VitePress gives it only its id, so in a
// document that gives a heading an id a later repeated heading may be
// numbered otherwise than VitePress numbers it.
func VitePressAnchors(headings []string) []string {
	return uniqueAnchors(headings, func(h string, taken map[string]bool) string {
		slug := VitePressSlug(h)
		if slug == "" {
			slug = "heading"
		}
		id := slug
		for n := 1; taken[id]; n++ {
			id = slug + "-" + strconv.Itoa(n)
		}
		return id
	})
}

// VitePressSlug is the slug VitePress's default markdown.anchor.slugify,
// @mdit-vue/shared's slugify, makes of a heading's text: the text is
// decomposed (NFKD) and its combining diacritics (U+0300–U+036F) and
// control characters (U+0000–U+001F, tab and line feed included) are
// dropped; each run of white space and of the ASCII punctuation
// ~`!@#$%^&*()-_+=[]{}|\;:"'<>,.?/ and the curly quotes “”‘’ becomes
// one '-'; '-' is trimmed from both ends; a slug that starts with a digit
// gets '_' before it; and it is lower-cased as JavaScript does (a final
// capital sigma is 'ς'). Every other character is kept, so "server.open"
// is server-open, "`index.html` and Project Root" (code spans count as
// their text) is index-html-and-project-root, "Лед üäöß" is лед-uaoß, and
// "1a" is _1a. VitePress 2 slugifies a link's anchor too: #Server.Open
// finds server-open, as the slug of a slug is itself.
func VitePressSlug(heading string) string {
	var b strings.Builder
	sep := false // a run of separators written as one '-'
	for _, r := range norm.NFKD.String(strings.ToValidUTF8(heading, "\uFFFD")) {
		switch {
		case r >= 0x300 && r <= 0x36f, r <= 0x1f:
			// dropped, and no break in a run of separators
		case isVitePressSeparator(r):
			sep = true
		default:
			if sep && b.Len() > 0 {
				b.WriteByte('-')
			}
			sep = false
			b.WriteRune(r)
		}
	}
	s := b.String()
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		s = "_" + s
	}
	return jsLower(s)
}

// isVitePressSeparator reports whether r is in @mdit-vue/shared's rSpecial:
// JavaScript's \s or one of its punctuation characters (the white space
// below U+0020 is a control character, dropped before).
func isVitePressSeparator(r rune) bool {
	if r < utf8.RuneSelf {
		return strings.ContainsRune(" ~`!@#$%^&*()-_+=[]{}|\\;:\"'<>,.?/", r)
	}
	switch r {
	case '“', '”', '‘', '’', // the curly quotes
		'\u00a0', '\u1680', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff': // \s
		return true
	}
	return r >= '\u2000' && r <= '\u200a' // \s
}

// jsLower lower-cases s as JavaScript's String.prototype.toLowerCase does:
// each character by its simple lower-case mapping, except a capital sigma
// at the end of a word (Unicode's Final_Sigma: a cased letter before it
// and none after it, case-ignorable characters skipped), which is 'ς'.
// (The other special lower-casings are of 'İ', which NFKD has decomposed
// already, and of some languages, which toLowerCase does not apply.)
func jsLower(s string) string {
	if !strings.ContainsRune(s, 'Σ') {
		return strings.ToLower(s)
	}
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if r == 'Σ' && casedAround(rs[:i], -1) && !casedAround(rs[i+1:], 1) {
			b.WriteRune('ς')
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// casedAround reports whether the first character of rs that is not
// case-ignorable, looking from its end (dir -1) or its start (dir 1), is
// cased.
func casedAround(rs []rune, dir int) bool {
	i, end := 0, len(rs)
	if dir < 0 {
		i, end = len(rs)-1, -1
	}
	for ; i != end; i += dir {
		r := rs[i]
		if !caseIgnorable(r) {
			return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
				unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
		}
	}
	return false
}

// caseIgnorable is Unicode's Case_Ignorable: the marks, format characters,
// modifier letters and symbols, and the word-break MidLetter, MidNumLet
// and Single_Quote characters that a slug can still hold.
func caseIgnorable(r rune) bool {
	switch r {
	case '\u00b7', '\u0387', '\u05f4', '\u2027', '\u00ad':
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
