package fulltext

import (
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"
)

// fastAnalyzer is docir's analysis chain (see newMapping) with a fast path
// for ASCII text, which is most of what is indexed and searched: there the
// tokenizer and the filters come down to one pass over the words and one
// over the bytes, with no copies. Other text goes through the chain itself,
// less the width and bigram filters where they change nothing (see
// analyzeChain). Both paths give the same tokens as the chain: terms,
// positions, offsets and types (TestFastAnalyzer, FuzzFastAnalyzer).
//
// Analyze rewrites its input in place, as the chain's lower-case filter
// does; the terms it returns are slices of it.
type fastAnalyzer struct {
	chain *analysis.DefaultAnalyzer
	us    bool // the chain's plural filter is PluralName's, not bleve's
}

// newFastAnalyzer returns the fast analyzer for a's chain, or nil when a is
// not docir's chain (an index some other build wrote; it is then analyzed
// by its own chain).
func newFastAnalyzer(a analysis.Analyzer) *fastAnalyzer {
	an, ok := a.(*analysis.DefaultAnalyzer)
	if !ok || an.CharFilters != nil || len(an.TokenFilters) != 5 {
		return nil
	}
	if _, ok := an.Tokenizer.(tokenizer); !ok {
		return nil
	}
	f := an.TokenFilters
	_, w := f[0].(*cjk.CJKWidthFilter)
	_, l := f[1].(*lowercase.LowerCaseFilter)
	_, b := f[2].(*cjk.CJKBigramFilter)
	_, p := f[3].(*en.PossessiveFilter)
	_, bleves := f[4].(*en.EnglishPluralStemmerFilter)
	_, ours := f[4].(pluralFilter)
	if !w || !l || !b || !p || !bleves && !ours {
		return nil
	}
	return &fastAnalyzer{chain: an, us: ours}
}

func (a *fastAnalyzer) Analyze(input []byte) analysis.TokenStream {
	input = cutText(input)
	if isASCII(input) {
		toks := identifiers(input, segmentASCII(input, 0, nil))
		// Every term is a slice of input: lower-casing input lower-cases
		// them all, once each byte.
		for i, c := range input {
			if 'A' <= c && c <= 'Z' {
				input[i] = c + 'a' - 'A'
			}
		}
		for _, t := range toks {
			t.Term = a.stem(possessiveASCII(t.Term))
		}
		return toks
	}
	toks := identifiers(input, segmentWords(input, nil))
	composeTerms(toks)
	if wide(toks) {
		for _, f := range a.chain.TokenFilters {
			toks = f.Filter(toks)
		}
		return toks
	}
	one := make(analysis.TokenStream, 1)
	for _, t := range toks {
		if isASCII(t.Term) {
			lowerASCII(t.Term)
			t.Term = a.stem(possessiveASCII(t.Term))
			continue
		}
		one[0] = t
		a.filterNarrow(one)
	}
	return toks
}

// filterNarrow runs the chain's filters on toks, less the width and
// bigram filters, which change nothing of tokens that are neither full
// width nor ideographic.
func (a *fastAnalyzer) filterNarrow(toks analysis.TokenStream) analysis.TokenStream {
	for _, f := range a.chain.TokenFilters {
		switch f.(type) {
		case *cjk.CJKWidthFilter, *cjk.CJKBigramFilter:
			continue
		}
		toks = f.Filter(toks)
	}
	return toks
}

// wide reports whether toks has a token that the width or bigram filter
// changes: an ideographic one, or one with a full- or half-width form.
func wide(toks analysis.TokenStream) bool {
	for _, t := range toks {
		if t.Type == analysis.Ideographic || hasWidthForm(t.Term) {
			return true
		}
	}
	return false
}

func lowerASCII(b []byte) {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
}

// analyzeChain runs the chain an on input. Its filters work token by token,
// and the width and bigram filters change only full-width and ideographic
// tokens, so text without such tokens skips them: the same terms, for a
// third less time.
func analyzeChain(an *analysis.DefaultAnalyzer, input []byte) analysis.TokenStream {
	toks := an.Tokenizer.Tokenize(input)
	w := wide(toks)
	for _, f := range an.TokenFilters {
		switch f.(type) {
		case *cjk.CJKWidthFilter, *cjk.CJKBigramFilter:
			if !w {
				continue
			}
		}
		toks = f.Filter(toks)
	}
	return toks
}

// possessiveASCII is the possessive_en filter for a lower-case ASCII term:
// "docir's" -> "docir".
func possessiveASCII(t []byte) []byte {
	if n := len(t); n >= 2 && t[n-1] == 's' && t[n-2] == '\'' {
		return t[:n-2]
	}
	return t
}

// stem is the chain's plural filter for a lower-case ASCII term:
// stemASCII, and pluralMore when the chain is PluralName's.
func (a *fastAnalyzer) stem(t []byte) []byte {
	if a.us {
		return pluralMore(stemASCII(t))
	}
	return stemASCII(t)
}

// stemASCII is the stemmer_en_plural filter for a lower-case ASCII term,
// rule for rule (bleve's en.stem, after OpenSearch's
// EnglishPluralStemFilter). It cuts t, or returns a new slice where a
// letter changes ("policies" -> "policy"): terms may share bytes.
func stemASCII(t []byte) []byte {
	n := len(t)
	if n < 3 || t[n-1] != 's' {
		return t
	}
	switch t[n-2] {
	case 'u', 's':
		return t
	case 'e':
		if n > 4 && t[n-3] == 'i' {
			out := make([]byte, n-2)
			copy(out, t[:n-3])
			out[n-3] = 'y'
			return out
		}
		if n > 3 {
			if n > 4 && t[n-3] == 'x' {
				return t[:n-2]
			}
			if t[n-3] == 'o' {
				if hasSuffixException(t, oesExceptions) {
					return t[:n-1]
				}
				return t[:n-2]
			}
			if n > 4 {
				if t[n-4] == 's' && (t[n-3] == 'h' || t[n-3] == 's') {
					return t[:n-2]
				}
				if t[n-4] == 'c' && t[n-3] == 'h' {
					if hasSuffixException(t, chesExceptions) {
						return t[:n-1]
					}
					return t[:n-2]
				}
			}
		}
	}
	return t[:n-1]
}

// The stemmer's exceptions: words that lose only their "s".
var (
	oesExceptions  = []string{"shoes", "canoes", "oboes"}
	chesExceptions = []string{"cliches", "avalanches", "mustaches", "moustaches", "quiches", "headaches", "heartaches", "porsches", "tranches", "caches"}
)

// hasSuffixException reports whether t and one of the exceptions agree on
// their common tail: the stemmer's test, which "aches" passes for "caches".
func hasSuffixException(t []byte, exceptions []string) bool {
	for _, e := range exceptions {
		i, j := len(e)-1, len(t)-1
		for i >= 0 && j >= 0 && e[i] == t[j] {
			i--
			j--
		}
		if i < 0 || j < 0 {
			return true
		}
	}
	return false
}

// passageDocument is the document bleve's mapping makes of a passage (an
// analyzed text field, and the empty _all field the mapping always adds,
// which excludes it), analyzed by an: the same postings, without walking
// the passage by reflection (TestPassageDocument).
func passageDocument(p Passage, an *fastAnalyzer) *document.Document {
	doc := document.NewDocument(p.ID)
	doc.AddField(&passageField{name: FieldText, value: []byte(p.Text), an: an, names: p.Names})
	doc.AddField(&passageField{name: FieldHead, value: []byte(p.Head), an: an})
	doc.AddField(document.NewCompositeFieldWithIndexingOptions("_all", true, []string{}, []string{FieldText, FieldHead}, index.IndexField|index.IncludeTermVectors))
	doc.SetIndexed()
	return doc
}

// passageField is a passage's text as bleve's text field holds it, analyzed
// into what the index keeps of it, the frequency of each term and the
// count of terms, without making tokens first where the text is ASCII
// (see countASCII).
type passageField struct {
	name   string // FieldText or FieldHead
	value  []byte
	an     *fastAnalyzer
	names  []string // see Passage.Names
	length int
	freqs  index.TokenFrequencies
}

func (f *passageField) Name() string                                     { return f.name }
func (f *passageField) ArrayPositions() []uint64                         { return []uint64{} }
func (f *passageField) Options() index.FieldIndexingOptions              { return index.IndexField }
func (f *passageField) Value() []byte                                    { return f.value }
func (f *passageField) NumPlainTextBytes() uint64                        { return uint64(len(f.value)) }
func (f *passageField) EncodedFieldType() byte                           { return 't' }
func (f *passageField) AnalyzedLength() int                              { return f.length }
func (f *passageField) AnalyzedTokenFrequencies() index.TokenFrequencies { return f.freqs }

// Size is what bleve counts the field's memory as (for its statistics):
// its text, and about as much again for its terms.
func (f *passageField) Size() int {
	return 64 + 2*len(f.value) + 64*len(f.freqs)
}

// Analyze counts the text's terms, and adds one name term per name (of at
// most MaxNameTerms terms) and, to the text field, one flag term per
// option the text writes (see flags.go). Name and flag terms are not
// counted in the length: the passage's words score as they would without
// them.
func (f *passageField) Analyze() {
	f.length, f.freqs = f.an.count(f.value)
	if f.name == FieldText {
		eachFlag(cutText(f.value), func(k string) { f.addOnce(flagTerm(k)) })
	}
	for _, n := range f.names {
		if toks := analyzeTokens(f.an, n); len(toks) > 0 && len(toks) <= MaxNameTerms {
			f.addOnce(nameTerm(toks))
		}
	}
}

// addOnce adds the term key once, outside the field's length.
func (f *passageField) addOnce(key string) {
	if _, ok := f.freqs[key]; ok {
		return
	}
	tf := &index.TokenFreq{Term: []byte(key)}
	tf.SetFrequency(1)
	f.freqs[key] = tf
}

// wordPool holds the word buffers of count.
var wordPool = sync.Pool{New: func() any { return new([]word) }}

// slabPool holds the slabs count carves its term counts from: many
// passages' terms to one allocation, where a slab per passage left most of
// its last 64 entries unused (44 MB allocated for the RFCs' 10.8k
// passages). A slab lives as long as a passage that holds one of its
// entries: the passages of a batch or two.
var slabPool = sync.Pool{New: func() any { return new([]index.TokenFreq) }}

// slabLen is how many term counts one slab holds (56 KiB).
const slabLen = 1024

// count analyzes text as the fast analyzer does and counts its terms,
// without making tokens where it can: text with ideographic or full-width
// words goes through the chain.
func (a *fastAnalyzer) count(text []byte) (int, index.TokenFrequencies) {
	text = cutText(text)
	buf := wordPool.Get().(*[]word)
	defer wordPool.Put(buf)
	words := segmentWords(text, (*buf)[:0])
	*buf = words
	ascii := isASCII(text)
	if !ascii {
		for _, w := range words {
			if w.typ == analysis.Ideographic || hasWidthForm(text[w.start:w.end]) {
				return a.countChain(text)
			}
		}
	}
	// Terms are cut from text (identifiers split at case changes) and read
	// from its copy with ASCII letters in lower case; a term past ASCII is
	// a copy, in normal form C (composeTerm), that goes through the
	// chain's filters.
	lower := make([]byte, len(text))
	for i, c := range text {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	freqs := make(index.TokenFrequencies, len(words)/2+1)
	slabp := slabPool.Get().(*[]index.TokenFreq)
	defer slabPool.Put(slabp)
	slab := *slabp
	defer func() { *slabp = slab }()
	var one analysis.TokenStream
	add := func(b []byte) {
		// The key shares the term's bytes, which nothing writes once
		// lower is made (stemASCII and the filters copy what they
		// change).
		key := unsafe.String(unsafe.SliceData(b), len(b))
		if tf, ok := freqs[key]; ok {
			tf.SetFrequency(tf.Frequency() + 1)
			return
		}
		if len(slab) == cap(slab) {
			slab = make([]index.TokenFreq, 0, slabLen)
		}
		slab = append(slab, index.TokenFreq{Term: b})
		tf := &slab[len(slab)-1]
		tf.SetFrequency(1)
		freqs[key] = tf
	}
	// Catenations are terms too, outside the length (see Catenations).
	var cat catenator
	cats := ascii || utf8.Valid(text)
	catenate := func(from, to int, ok bool) {
		if ok && cats && (ascii || isASCII(text[from:to])) {
			add(catenation(a, lower, from, to, nil))
		}
	}
	n := 0
	eachTerm(text, words, func(start, end, _ int, _ analysis.TokenType) {
		n++
		catenate(cat.next(start, end, hyphenBefore(text, start)))
		if ascii || isASCII(text[start:end]) {
			add(a.stem(possessiveASCII(lower[start:end])))
			return
		}
		if one == nil {
			one = analysis.TokenStream{new(analysis.Token)}
		}
		*one[0] = analysis.Token{Term: composeTerm(append([]byte(nil), text[start:end]...))}
		add(a.filterNarrow(one)[0].Term)
	})
	catenate(cat.last())
	return n, freqs
}

// countChain is count of text through the chain itself, with its
// catenations (outside the length: see Catenations).
func (a *fastAnalyzer) countChain(text []byte) (int, index.TokenFrequencies) {
	toks := analyzeChain(a.chain, text)
	freqs := analysis.TokenFrequency(toks, nil, index.IndexField)
	eachCatenation(text, toks, func(from, to int) {
		term := catenation(a, text, from, to, nil)
		if tf, ok := freqs[string(term)]; ok {
			tf.SetFrequency(tf.Frequency() + 1)
			return
		}
		tf := &index.TokenFreq{Term: term}
		tf.SetFrequency(1)
		freqs[string(term)] = tf
	})
	return len(toks), freqs
}
