package fulltext

import (
	"github.com/blevesearch/bleve/v2/analysis"
)

// scratch is the memory one Retrieval's scoring reuses from candidate to
// candidate: the copy of a passage's text that analysis lower-cases, its
// words, tokens, and the walk's tables. A cold search scores a hundred or
// more passages, and each one's analysis allocated as much again as its
// text many times over, all of it fresh pages to a process that has just
// started (see docs/ranking.md, "Speed"). It is not safe for concurrent
// use: a Retrieval scores one candidate at a time.
type scratch struct {
	text  []byte
	words []word
	slab  []analysis.Token
	toks  analysis.TokenStream
	at    []int
	order order
	pairs []int32  // the walk's pair counts (see walkInto)
	seen  []uint64 // the walk's marks of a pair's second words
	here  []int32  // the walk's longest runs into a group, by query position
	// hashes are the tokens' term hashes, for a pair filter (textFilter).
	hashes []uint64
}

// reset makes the buffers free for the next candidate: what they held
// before must no longer be read.
func (s *scratch) reset() {
	s.text, s.slab, s.toks = s.text[:0], s.slab[:0], s.toks[:0]
}

// analyzeInto is x.analyze(text) into s's buffers when the index has the
// fast analyzer (see fastAnalyzer.analyzeInto).
func (x *Index) analyzeInto(s *scratch, text string) analysis.TokenStream {
	if s == nil || x.fast == nil {
		return x.analyze(text)
	}
	return x.fast.analyzeInto(s, text)
}

// analyzeInto is a.Analyze of a copy of text (the same tokens:
// FuzzFastAnalyzer), made in s's buffers when text is ASCII; the tokens are
// valid until s.reset, and what s held before stays valid. Other text is
// analyzed the ordinary way.
func (a *fastAnalyzer) analyzeInto(s *scratch, text string) analysis.TokenStream {
	if !isASCII(text) {
		return a.Analyze([]byte(text))
	}
	from := len(s.text)
	s.text = append(s.text, text...)
	input := cutText(s.text[from:len(s.text):len(s.text)])
	s.words = segmentASCII(input, 0, s.words[:0])
	first := len(s.toks)
	eachTerm(input, s.words, func(start, end, pos int, typ analysis.TokenType) {
		if len(s.slab) == cap(s.slab) {
			// A new array, not a grown one: the tokens already made
			// stay where s.toks points.
			s.slab = make([]analysis.Token, 0, max(256, 2*cap(s.slab)))
		}
		s.slab = append(s.slab, analysis.Token{Term: input[start:end], Start: start, End: end, Position: pos, Type: typ})
		s.toks = append(s.toks, &s.slab[len(s.slab)-1])
	})
	lowerASCII(input)
	toks := s.toks[first:len(s.toks):len(s.toks)]
	for _, t := range toks {
		t.Term = a.stem(possessiveASCII(t.Term))
	}
	return toks
}
