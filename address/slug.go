package address

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Slug returns the GitHub-style anchor of a heading's text: lower-cased,
// every character that is not a letter, a mark, a number, '-', '_' or a space
// dropped, and each space turned into '-', in Unicode normal form C (see
// NFC: GitHub's rule does not normalize, but a heading written decomposed
// would then miss every address typed composed, and the reverse). It is the only slug function in
// docir: ingest names sections with it and lookup matches heading text with it.
//
// A heading whose text yields no characters at all gets the slug "section",
// so that every section stays addressable (GitHub would give it an empty
// anchor, which an address cannot spell).
func Slug(heading string) string {
	var b strings.Builder
	b.Grow(len(heading))
	for _, r := range strings.ToLower(NFC(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_':
			b.WriteRune(r)
		case unicode.IsLetter(r), unicode.IsMark(r), unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "section"
	}
	return cutSlug(b.String())
}

// MaxSlugLen bounds a slug, in bytes: a longer one (a heading of some 35
// English words, or 110 Cyrillic letters) is cut at a character boundary.
// GitHub's anchors have no bound; docir's addresses do (MaxLen), and its
// hits and outlines print them: with the longest id and a repeat's "-N" a
// section's address stays within MaxLen. A link or an address that spells
// the whole slug still finds the section: its slug is cut alike.
const MaxSlugLen = 224

func cutSlug(s string) string {
	if len(s) <= MaxSlugLen {
		return s
	}
	end := MaxSlugLen
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end]
}

// Slugger hands out unique slugs within one document the way GitHub does:
// the first "Examples" is "examples", the next "examples-1", then
// "examples-2", skipping any suffix a literal heading already took.
// The zero value is ready to use.
type Slugger struct {
	seen map[string]int
}

// Next returns the unique slug for the next heading with the given text.
func (s *Slugger) Next(heading string) string {
	return s.unique(Slug(heading))
}

// Take returns the unique slug for the next heading when its author gave it
// an id (a `{#id}` heading attribute): the id as written, or, when an
// earlier heading took it, the id with -1, -2 as Next would (cut to
// MaxSlugLen as a slug is). Later headings' slugs skip it.
func (s *Slugger) Take(id string) string {
	return s.unique(cutSlug(id))
}

func (s *Slugger) unique(base string) string {
	if s.seen == nil {
		s.seen = make(map[string]int)
	}
	slug := base
	for {
		if _, taken := s.seen[slug]; !taken {
			break
		}
		s.seen[base]++
		slug = base + "-" + strconv.Itoa(s.seen[base])
	}
	s.seen[slug] = 0
	return slug
}

// Unemphasized is heading text as markdown writes it with its '_'
// emphasis delimiters taken off: a run of '_' with no letter or number on
// one of its sides ("Event: 'activate' _macOS_", "_Readonly_"), which
// CommonMark reads as emphasis and a rendered heading does not show. A
// '_' inside a word (snake_case) stays. '*' needs no such pass: Slug drops
// it. A section is found by the text of its heading copied from the
// markdown this way (docir.Record.FindSection).
func Unemphasized(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	word := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); {
		if rs[i] != '_' {
			b.WriteRune(rs[i])
			i++
			continue
		}
		j := i
		for j < len(rs) && rs[j] == '_' {
			j++
		}
		if i > 0 && word(rs[i-1]) && j < len(rs) && word(rs[j]) {
			b.WriteString(string(rs[i:j]))
		}
		i = j
	}
	return b.String()
}
