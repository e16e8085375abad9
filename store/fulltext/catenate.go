package fulltext

import (
	"context"
	"slices"
	"unicode/utf8"
	"unsafe"

	"github.com/blevesearch/bleve/v2/analysis"
	index "github.com/blevesearch/bleve_index_api"
)

// Catenations. An identifier is indexed as its parts (see identifiers):
// "baseURL" as "base" and "url", so that "base URL", "baseURL" and
// "BaseURL" find one another. One who types the identifier in lower case,
// as most search boxes let one, types "baseurl", which is none of those
// terms. So the parts that an identifier's case changes cut are also
// indexed written together and lower-cased, as a catenation term
// (catTerm: "\x03baseurl"): "ByLinkTitle" also "\x03bylinktitle",
// "strings.ContainsAny" also "\x03containsany" (a dot or an underscore is
// typed, so it still cuts). Words joined by a hyphen are one word written
// two ways ("read-only" and "readonly", "built-in" and "builtin",
// "back-pressure" and "backpressure"), so a single hyphen joins as a case
// change does: "read-only" is also "\x03readonly", "Get-ChildItem"
// "\x03getchilditem". The rule is on the terms alone: a run of two or
// more terms each of which touches the one before (begins at the byte
// where it ends, which in ASCII only a cut at a case change makes, or one
// byte past it, a '-') is a catenation, when its bytes are ASCII; its
// word, without its hyphens, goes through the analysis a word does
// (possessive, plural, MaxTermBytes), so "PageEntries" is
// "\x03pageentry", as the word "pageentries" is "pageentry".
//
// A catenation overlaps its parts, so it is not counted in the field's
// length (as Lucene's norms discount overlapping tokens): a page full of
// identifiers scores on its words as it did without them. It has no
// position: word order (pairs and runs) is of the parts. At query time a
// typed word whose catenation term the index holds reads it as another
// form of the word (weigh, and the union cursor of stemming's forms), in
// the text and in the head; the query side makes no catenation of what
// was typed ("baseURL" typed is its parts, as before). Since catenations
// are outside the length, the terms a passage holds can exceed it, by at
// most half of it (each catenation spans two terms or more): the bounds
// of a query whose words have catenations allow that (catenated).

// catTerm is the index term of the catenation written w.
func catTerm(w string) string { return "\x03" + w }

// catenator follows the terms of a text, in order, and says where a run
// of touching terms ends (see Catenations).
type catenator struct {
	start, end, parts int
}

// next notes the term [start, end), hyphen saying that the byte before
// start is a '-'; it reports the span of the catenation that the terms
// before ended, if they made one.
func (c *catenator) next(start, end int, hyphen bool) (from, to int, ok bool) {
	if c.parts > 0 && (start == c.end || hyphen && start == c.end+1) {
		c.end = end
		c.parts++
		return 0, 0, false
	}
	from, to, ok = c.start, c.end, c.parts >= 2
	c.start, c.end, c.parts = start, end, 1
	return from, to, ok
}

// last is the span of the catenation the last terms make, if they do.
func (c *catenator) last() (from, to int, ok bool) {
	return c.start, c.end, c.parts >= 2
}

// eachCatenation calls fn with the span of each catenation of toks, whose
// Start and End are offsets into text (see Catenations), in order.
func eachCatenation[T string | []byte](text T, toks analysis.TokenStream, fn func(from, to int)) {
	if !catenable(text) {
		return
	}
	var c catenator
	emit := func(from, to int, ok bool) {
		if ok && isASCII(text[from:to]) {
			fn(from, to)
		}
	}
	for _, t := range toks {
		if t.Start < 0 || t.Start > t.End || t.End > len(text) {
			// Not a span of text (the chain's tokens of invalid UTF-8
			// may count another buffer's bytes): no catenation holds it.
			emit(c.last())
			c = catenator{}
			continue
		}
		emit(c.next(t.Start, t.End, hyphenBefore(text, t.Start)))
	}
	emit(c.last())
}

// hyphenBefore reports whether the byte before text[i] is a '-'.
func hyphenBefore[T string | []byte](text T, i int) bool {
	return i > 0 && text[i-1] == '-'
}

// catenable reports whether text's catenations are read: when it is valid
// UTF-8 (the terms of invalid text may be cut from a copy with
// replacement characters, whose offsets are not text's).
func catenable[T string | []byte](text T) bool {
	switch t := any(text).(type) {
	case string:
		return utf8.ValidString(t)
	case []byte:
		return utf8.Valid(t)
	}
	return false
}

// catenation is the index term of the catenation text[from:to] (see
// Catenations): catTerm of its bytes but its hyphens, lower-cased and
// analyzed as an ASCII word is, made in buf (a larger one when buf is
// short).
func catenation[T ~string | ~[]byte](a *fastAnalyzer, text T, from, to int, buf []byte) []byte {
	b := append(buf[:0], '\x03')
	for i := from; i < to && len(b) <= MaxTermBytes; i++ { // ASCII: every byte is a character
		if text[i] != '-' {
			b = append(b, text[i])
		}
	}
	lowerASCII(b[1:])
	w := a.stem(possessiveASCII(b[1:]))
	if len(w) > 0 && &w[0] == &b[1] {
		return b[:1+len(w)] // the word cut at its end, in place
	}
	return append(b[:1], w...) // the stemmer rewrote it ("policies": policy)
}

// eachCatenationTerm calls fn with the index term of each catenation of
// text, whose terms are toks (see Catenations). The term is valid during
// the call. A nil analyzer (an index of another build's chain) knows no
// catenations.
func (a *fastAnalyzer) eachCatenationTerm(text string, toks analysis.TokenStream, fn func(term string)) {
	if a == nil {
		return
	}
	var buf [64]byte
	eachCatenation(text, toks, func(from, to int) {
		t := catenation(a, text, from, to, buf[:0])
		fn(unsafe.String(unsafe.SliceData(t), len(t)))
	})
}

// catenations finds, for each of the query's words, whether the index
// holds its catenation (see Catenations): in a text, it is one of the
// word's forms; in a head, hcat says so. A phrase's word (required) is as
// written, as with stemming. One look-up of the dictionary for all.
func (q *Query) catenations(ctx context.Context, r index.IndexReader) error {
	q.hcat = make([]bool, len(q.terms))
	q.textCat, q.headCat = false, false
	cats := make([]string, len(q.terms))
	for k, t := range q.terms {
		cats[k] = catTerm(t)
	}
	text, head, err := docFreqs(ctx, r, cats)
	if err != nil {
		return err
	}
	for k := range q.terms {
		if q.required != nil && q.required[k] {
			continue
		}
		if text[k] > 0 {
			q.forms[k] = append(q.forms[k], cats[k])
			q.textCat = true
		}
		if head[k] > 0 {
			q.hcat[k], q.headCat = true, true
		}
	}
	if q.textCat {
		q.indexForms()
	}
	return nil
}

// headTerms are the terms a head may match the query's words by: each
// word as typed, and its catenation where heads hold it.
func (q *Query) headTerms() []string {
	if !q.headCat {
		return q.terms
	}
	out := slices.Clone(q.terms)
	for k, t := range q.terms {
		if q.headCatenated(k) {
			out = append(out, catTerm(t))
		}
	}
	return out
}

// headCatenated reports whether heads hold term k's catenation.
func (q *Query) headCatenated(k int) bool { return k < len(q.hcat) && q.hcat[k] }
