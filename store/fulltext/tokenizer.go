package fulltext

import (
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/segment"
	"golang.org/x/text/unicode/norm"
)

// TokenizerName is docir's tokenizer: Unicode word segmentation (UAX #29,
// as bleve's "unicode" tokenizer), except that text in scripts written
// without spaces between words, or whose words glue on particles, comes out
// as Ideographic tokens for the cjk_bigram filter to cut into overlapping
// character pairs:
//
//   - Han, Hiragana, Katakana: as bleve's tokenizer already does;
//   - Thai, Lao, Khmer, Myanmar: UAX #29 has no rule for their word
//     boundaries, and bleve's tokenizer drops such text entirely, so a Thai
//     page's own words could never find it;
//   - Hangul: words carry particles (명령에서 = 명령 + 에서), so whole-word
//     terms would make 명령 miss it.
//
// A segment that mixes such a script with Latin letters or digits (API를)
// is split at the script change, so "api" stays a word of its own.
//
// Identifiers come out in parts (see identifiers), so "strings.Contains"
// finds "Contains", and the query "strings.Contains" scores text that
// writes it whole above text that has the two words apart (their order is
// scored at query time, see Rescore).
const TokenizerName = "docir_unicode"

func init() {
	err := registry.RegisterTokenizer(TokenizerName, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return tokenizer{}, nil
	})
	if err != nil {
		panic(err)
	}
}

type tokenizer struct{}

// BigramScript reports whether r belongs to a script whose runs are cut
// into character bigrams.
func BigramScript(r rune) bool {
	if r < 0x0E00 { // below Thai: Latin, Greek, Cyrillic, Arabic, Indic...
		return false
	}
	return unicode.In(r, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar,
		unicode.Hangul, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

func (tokenizer) Tokenize(input []byte) analysis.TokenStream {
	input = cutText(input)
	toks := identifiers(input, segmentWords(input, nil))
	if !isASCII(input) {
		composeTerms(toks)
	}
	return toks
}

// composeTerms puts each term of toks in Unicode normalization form C
// (a copy where it was not; offsets stay the input's): text that writes
// "é" as "e" + U+0301, or Bengali য় as য + ◌়, and a query that types
// the composed character are one term. It runs before the filters, so
// that the bigram filter cuts Hangul written in conjoining jamo into the
// syllables a query types.
func composeTerms(toks analysis.TokenStream) {
	for _, t := range toks {
		t.Term = composeTerm(t.Term)
	}
}

// composeTerm is term in normalization form C: term itself when it is
// already (all ASCII text is), else a copy.
func composeTerm(term []byte) []byte {
	if isASCII(term) || norm.NFC.IsNormal(term) {
		return term
	}
	return norm.NFC.Bytes(term)
}

// MaxTextBytes bounds the text one analysis reads, at index and query time
// alike: a passage longer than that (a section of 256 KiB, some 40,000
// words of prose) is searchable by its first MaxTextBytes. Analysis holds
// a few hundred bytes per word, and bleve's segment builder as much per
// distinct term, so the bound keeps indexing one file within 64 MiB
// beside the file itself: before it, 4 MB of Han text (one word per
// character) took 440 MB, and 4 MB of distinct words 430 MB.
const MaxTextBytes = 256 << 10

// cutText is text cut to MaxTextBytes, at the start of a character.
func cutText[T ~string | ~[]byte](text T) T {
	if len(text) <= MaxTextBytes {
		return text
	}
	end := MaxTextBytes
	for end > 0 && !utf8.RuneStart(text[end]) {
		end--
	}
	return text[:end]
}

// A word is a run of input, before identifiers are split: [start, end).
type word struct {
	start, end int
	typ        analysis.TokenType
}

// segmentWords appends the words of input to words: the Unicode
// segmenter's, found by segmentASCII in the stretches of input that are
// ASCII. The segmenter always ends a segment before a space, a tab, a
// carriage return, and a line feed that does not follow a carriage return
// (none of them continues a segment; see segment_words.rl), so input is cut
// there into pieces that segment alone as they do in the whole; a piece
// with a byte past ASCII goes to the segmenter. (Not so in text that is not
// UTF-8: the segmenter takes it whole.)
func segmentWords(input []byte, words []word) []word {
	if words == nil {
		words = make([]word, 0, len(input)/6+1)
	}
	if k := indexNonASCII(input); k >= 0 && !utf8.Valid(input[k:]) {
		// The segmenter reads a broken sequence with the bytes after it,
		// spaces included.
		return segmentUnicode(input, 0, words)
	}
	done := 0 // input[:done] is segmented
	for done < len(input) {
		k := indexNonASCII(input[done:])
		if k < 0 {
			return segmentASCII(input[done:], done, words)
		}
		k += done
		from := k // the start of the piece that holds input[k]
		for from > done && !cutBefore(input, from) {
			from--
		}
		to := k + 1 // its end
		for to < len(input) && !cutBefore(input, to) {
			to++
		}
		words = segmentASCII(input[done:from], done, words)
		words = segmentUnicode(input[from:to], from, words)
		done = to
	}
	return words
}

// cutBefore reports whether the segmenter always ends a segment before
// input[i].
func cutBefore(input []byte, i int) bool {
	switch input[i] {
	case ' ', '\t', '\r':
		return true
	case '\n':
		return i == 0 || input[i-1] != '\r'
	}
	return false
}

// indexNonASCII returns the index of b's first byte past ASCII, or -1.
func indexNonASCII(b []byte) int {
	for i, c := range b {
		if c >= utf8.RuneSelf {
			return i
		}
	}
	return -1
}

// segmentUnicode appends the words of input, at base in the whole, by
// Unicode segmentation, and runs of bigram scripts as Ideographic words.
func segmentUnicode(input []byte, base int, out []word) []word {
	emit := func(term []byte, start int, typ analysis.TokenType) {
		out = append(out, word{base + start, base + start + len(term), typ})
	}
	seg := segment.NewWordSegmenterDirect(input)
	start := 0
	for seg.Segment() {
		b := seg.Bytes()
		typ := seg.Type()
		end := start + len(b)
		if !hasBigramScript(b) {
			if typ != segment.None {
				emit(b, start, convertType(typ))
			}
			start = end
			continue
		}
		// Split the segment into runs of bigram-script runes and the rest.
		runStart, inBigram := 0, false
		flush := func(to int) {
			if to <= runStart {
				return
			}
			run := b[runStart:to]
			switch {
			case inBigram:
				emit(run, start+runStart, analysis.Ideographic)
			case typ != segment.None && hasWordRune(run):
				emit(run, start+runStart, convertType(typ))
			}
		}
		for i := 0; i < len(b); {
			r, n := utf8.DecodeRune(b[i:])
			// Combining marks stay with the run they follow.
			bi := BigramScript(r) || (inBigram && unicode.Is(unicode.M, r))
			if i == 0 {
				inBigram = bi
			} else if bi != inBigram {
				flush(i)
				runStart, inBigram = i, bi
			}
			i += n
		}
		flush(len(b))
		start = end
	}
	return out
}

// segmentASCII segments ASCII text as the Unicode word segmenter does
// (bleve's segment package, UAX #29 with its longest-match rules), without
// its state machine: most text is ASCII, and there the rules come down to
//
//   - a word is a run of letters, digits and underscores;
//   - a colon, full stop or apostrophe between two letters, and a comma,
//     semicolon, full stop or apostrophe between two digits, joins them;
//   - a word without letters but with a digit is a number; any other word
//     (with letters, or only underscores) is alphanumeric;
//   - every other byte is a segment of its own that is not a word.
//
// The segmenter's own output is the reference (TestSegmentASCII,
// FuzzFastAnalyzer). The words' offsets are input's plus base.
func segmentASCII(input []byte, base int, out []word) []word {
	if out == nil {
		out = make([]word, 0, len(input)/6+1)
	}
	n := len(input)
	for i := 0; i < n; {
		if wordByte[input[i]]&inWord == 0 {
			i++
			continue
		}
		start := i
		var seen byte
		for i < n {
			c := wordByte[input[i]]
			if c&inWord != 0 {
				seen |= c
				i++
				continue
			}
			if c&(midLetter|midNum) != 0 && i+1 < n {
				// Both neighbours are letters, or both digits.
				both := wordByte[input[i-1]] & wordByte[input[i+1]]
				if both&letter != 0 && c&midLetter != 0 || both&digit != 0 && c&midNum != 0 {
					i++
					continue
				}
			}
			break
		}
		typ := analysis.AlphaNumeric
		if seen&(letter|digit) == digit {
			typ = analysis.Numeric
		}
		out = append(out, word{base + start, base + i, typ})
	}
	return out
}

// The classes of ASCII bytes in a word, as bits: 0 for a byte that is
// never in one.
const (
	letter = 1 << iota
	digit
	under
	midLetter // joins two letters
	midNum    // joins two digits

	inWord = letter | digit | under
)

var wordByte = func() (t [256]byte) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = letter, letter
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = digit
	}
	t['_'] = under
	t[':'] = midLetter
	t[','], t[';'] = midNum, midNum
	t['.'], t['\''] = midLetter|midNum, midLetter|midNum
	return t
}()

// isASCII reports whether b is all ASCII.
func isASCII[T ~string | ~[]byte](b T) bool {
	for i := 0; i < len(b); i++ {
		if b[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// identifiers makes the terms of words: each word, or in its stead an
// identifier's parts. A word with inner dots or underscores, or with case
// changes ("strings.Contains", "about_Classes", "ByLinkTitle",
// "HTMLParser"), is its parts ("strings", "contains"; "about", "classes";
// "by", "link", "title"; "html", "parser"), at consecutive positions, so
// that word order (Rescore) reads "the strings.Contains method" as "the
// strings contains method". Parts are cut at '.', '_', a lower-case letter
// followed by an upper-case one, and the last upper-case letter of a run
// followed by a lower-case one; digits stay with their letters. Words
// joined by hyphens ("kube-scheduler") are already words of their own.
//
// The whole identifier (and the hyphenated whole) was a term of its own
// too, until measured: on the RFCs it was 45% of the distinct terms and
// 10% of a from-scratch index's CPU, and no evaluation set ranked better
// with it (the RFC name + heading set ranked slightly worse).
//
// Terms are slices of input, and none overlaps another.
func identifiers(input []byte, words []word) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(words)+len(words)/8+1)
	slab := make([]analysis.Token, 0, cap(out))
	eachTerm(input, words, func(start, end, pos int, typ analysis.TokenType) {
		if len(slab) == cap(slab) {
			slab = make([]analysis.Token, 0, 256)
		}
		slab = append(slab, analysis.Token{Term: input[start:end], Start: start, End: end, Position: pos, Type: typ})
		out = append(out, &slab[len(slab)-1])
	})
	return out
}

// MaxTermBytes bounds a term: a longer one keeps its first MaxTermBytes
// bytes (cut at a character boundary), at index and query time alike. The
// index's term dictionary (vellum's builder) keeps about 130 bytes per
// byte of the term it is adding, so one 4 MB word (a base64 blob, a line
// of one character) took 510 MB to index; no word one searches for is
// longer (Lucene's standard tokenizer cuts at 255 characters).
const MaxTermBytes = 256

// eachTerm calls emit for each term of words, in order (see identifiers):
// its bytes input[start:end] (at most MaxTermBytes of them), its position
// and its type.
func eachTerm(input []byte, words []word, emit func(start, end, pos int, typ analysis.TokenType)) {
	pos := 1
	var parts [][2]int
	for _, w := range words {
		parts = splitIdentifier(input[w.start:w.end], parts[:0])
		if len(parts) == 0 {
			emit(w.start, cutTerm(input, w.start, w.end), pos, w.typ)
			pos++
			continue
		}
		for _, p := range parts {
			emit(w.start+p[0], cutTerm(input, w.start+p[0], w.start+p[1]), pos, w.typ)
			pos++
		}
	}
}

// cutTerm is the end of the term input[start:end] cut to MaxTermBytes, at
// the start of a character.
func cutTerm(input []byte, start, end int) int {
	if end-start <= MaxTermBytes {
		return end
	}
	end = start + MaxTermBytes
	for end > start && !utf8.RuneStart(input[end]) {
		end--
	}
	return end
}

// splitIdentifier appends the byte ranges of a word's parts to parts[:0],
// or returns parts[:0] when it is one part.
func splitIdentifier(w []byte, parts [][2]int) [][2]int {
	sp := splitter{parts: parts[:0]}
	var prev, prev2 byte
	for i, c := range w {
		switch {
		case c >= utf8.RuneSelf:
			return splitUnicode(w, parts[:0])
		case c == '.' || c == '_':
			sp.cut(i, i+1)
		case isUpper(c) && isLower(prev):
			sp.cut(i, i)
		case isLower(c) && isUpper(prev) && isUpper(prev2):
			sp.cut(i-1, i-1) // "HTMLParser": the P starts the next part
		}
		prev2, prev = prev, c
	}
	return sp.end(len(w))
}

// splitUnicode is splitIdentifier rune by rune, for a word past ASCII.
func splitUnicode(w []byte, parts [][2]int) [][2]int {
	sp := splitter{parts: parts}
	var prev, prev2 rune
	for i := 0; i < len(w); {
		r, n := utf8.DecodeRune(w[i:])
		switch {
		case r == '.' || r == '_':
			sp.cut(i, i+n)
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			sp.cut(i, i)
		case unicode.IsLower(r) && unicode.IsUpper(prev) && unicode.IsUpper(prev2):
			at := i - utf8.RuneLen(prev)
			sp.cut(at, at)
		}
		prev2, prev = prev, r
		i += n
	}
	return sp.end(len(w))
}

// splitter collects the parts of a word as it is cut.
type splitter struct {
	parts [][2]int
	from  int // where the next part starts
}

// cut ends a part at at (if it is not empty); the next starts at next.
func (sp *splitter) cut(at, next int) {
	if at > sp.from {
		sp.parts = append(sp.parts, [2]int{sp.from, at})
	}
	sp.from = next
}

// end cuts the last part of a word n bytes long and returns the parts: none
// for a word with no cut, or with one part.
func (sp *splitter) end(n int) [][2]int {
	if sp.from == 0 {
		return sp.parts[:0]
	}
	sp.cut(n, n)
	if len(sp.parts) < 2 {
		return sp.parts[:0]
	}
	return sp.parts
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

func hasBigramScript(b []byte) bool {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if BigramScript(r) {
			return true
		}
		i += n
	}
	return false
}

func hasWordRune(b []byte) bool {
	for _, r := range string(b) {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			return true
		}
	}
	return false
}

func convertType(t int) analysis.TokenType {
	switch t {
	case segment.Ideo, segment.Kana:
		return analysis.Ideographic
	case segment.Number:
		return analysis.Numeric
	}
	return analysis.AlphaNumeric
}
