package fulltext

import (
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/segment"
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
	out := make(analysis.TokenStream, 0, len(input)/6+1)
	slab := make([]analysis.Token, 0, cap(out))
	pos := 1
	emit := func(term []byte, start int, typ analysis.TokenType) {
		if len(slab) == cap(slab) {
			slab = make([]analysis.Token, 0, 256)
		}
		slab = append(slab, analysis.Token{Term: term, Start: start, End: start + len(term), Position: pos, Type: typ})
		out = append(out, &slab[len(slab)-1])
		pos++
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
