package fulltext

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
	index "github.com/blevesearch/bleve_index_api"
)

// MaxQueryTerms bounds the distinct terms of one query; a longer query is
// cut, keeping its first terms.
const MaxQueryTerms = 256

// Query is a free-text query prepared against one index: its positive
// terms (the words it is ranked by), each one's weight there, the pairs of
// adjacent terms that Rescore looks for in a passage's text, and what the
// query's syntax requires or excludes (see Syntax).
type Query struct {
	text   string   // the positive text (Syntax.Text)
	tokens []string // the positive terms in order, repeats included
	words  []int    // by token: the word it was cut from (see Index.Words)
	terms  []string // distinct, in order of first occurrence
	index  map[string]int
	idf    []float64 // by term: 1 + ln(passages / (df+1)) of the term as typed, as bleve's tf-idf
	df     []uint64  // by term: the passages that hold it in any of its forms (in their text or head, the more)
	// names are the terms of the text as typed, in order, when the query
	// is ranked by other words (see asTyped); else nil: tokens.
	names []string
	// forms are, by term, the other index terms of the text that share its
	// English stem (Snowball's), for a term that is an English word (see
	// expand); formIndex is the term of each form. gidf is the idf of the
	// term in any of its forms (its weight where a text holds only other
	// forms: see textWeight); idf where it has none.
	forms     [][]string
	formIndex map[string]int
	// tokenForms says a form is a term a text's tokens can be (a stem's
	// form), not only catenations (see Catenations), which no token is.
	tokenForms bool
	gidf       []float64
	// The words whose catenation (see Catenations) the index holds: in
	// the text, as one of the word's forms, and in heads (hcat, by term).
	// textCat and headCat say whether any word has one there: the bounds
	// of that field then allow it more terms than its length (normBound).
	hcat             []bool
	textCat, headCat bool
	// absentTerms and absentPairs are the words no passage holds, and the
	// pairs with such a word, that compacted dropped: the shares still
	// count them.
	absentTerms, absentPairs int
	pairs                    []pair
	at                       [][]int // term index -> the query positions it is at (0 to span-1; see extent)
	span                     int     // the query's positions: its words
	// width is past the last position when it is not span-1: a query
	// Without some words keeps the others' positions (see extent).
	width int

	required []bool   // by term: a term of a positive phrase, which every match holds
	phrases  []*Query // positive phrases of two or more words: every match has each as a run
	not      []string // excluded terms: a passage that holds one does not match
	notRuns  []*Query // excluded phrases of two or more words
	probes   []probe  // the query's terms', then its excluded phrases' (see mayHold)
	// probeStart says, by byte, whether a probe starts with it (either
	// case of a letter); probeAny that a probe is empty (see mayHold).
	probeStart *[256]bool
	probeAny   bool
}

// pair is two adjacent terms of a query, and the weight Rescore gives the
// pair when a passage has them adjacent in the same order.
type pair struct {
	a, b int // indexes into the query's terms
	idf  float64
}

// Prepare analyzes text as a query against x (see ParseSyntax for what it
// may say beyond its words). Bytes that are not UTF-8 are read as U+FFFD,
// a symbol, which no word holds: the Unicode word segmenter stops at two
// of them, and "\xff\xfe ownership" lost its word (the indexed text is
// valid UTF-8: ingest skips a file that is not).
func (x *Index) Prepare(ctx context.Context, text string) (*Query, error) {
	text = strings.ToValidUTF8(text, "\uFFFD")
	// One reader for the options' and the terms' look-ups, opened when
	// the first is made.
	var r index.IndexReader
	reader := func() (index.IndexReader, error) {
		if r == nil {
			var err error
			if r, err = x.idx.Reader(); err != nil {
				return nil, err
			}
		}
		return r, nil
	}
	defer func() {
		if r != nil {
			r.Close()
		}
	}()
	syn, err := parseSyntax(ctx, text, reader)
	if err != nil {
		return nil, err
	}
	if len(syn.Phrases) > 0 && len(syn.Not) == 0 && quotes(text) {
		syn.Phrases = nil // its words stay in Text, ranked as words
	}
	typed := syn.Text
	if len(syn.Phrases) == 0 && len(syn.Not) == 0 {
		syn.Text = questionTopic(syn.Text) // a question is ranked by its topic
	}
	topic := syn.Text != typed
	q, err := x.prepareSyntax(ctx, syn, reader)
	if err == nil && len(syn.Phrases) == 0 {
		// A word no passage holds may be words written together (splitJoined).
		var joined string
		if joined, err = x.splitJoined(ctx, q, syn.Text, reader); err == nil && joined != syn.Text {
			syn.Text = joined
			q, err = x.prepareSyntax(ctx, syn, reader)
		}
	}
	if err == nil && topic {
		q.asTyped(x, typed)
	}
	return q.compacted(), err
}

// asTyped keeps what the query said as typed when it is ranked by fewer
// words (a question's topic): its text and tokens name documents (Named,
// Equal, and the caller's comparison of Text with a title).
func (q *Query) asTyped(x *Index, typed string) {
	q.text = typed
	q.names = nil
	for _, t := range x.analyze(typed) {
		q.names = append(q.names, string(t.Term))
	}
}

// compacted is q without the words no passage holds in any form (df 0, no
// other form, no catenation; not a phrase's, which no passage then
// matches): such a word adds nothing to any passage's score, and what it
// takes away — its part of the shares' denominators (its term, and the
// pairs it is a word of) — is kept as a count (absentTerms, absentPairs).
// The scores are those of q to the bit; a reading keeps no count of such
// words for each passage it meets: a 4 KiB query of 700 words, most of
// them typos of a few common ones, kept 256 counts a passage where it
// needed 19. A query all of whose words are absent is kept as it is
// (nothing matches it). q may be nil.
func (q *Query) compacted() *Query {
	if q == nil || len(q.terms) == 0 {
		return q
	}
	keep := make([]int, len(q.terms)) // new index of each term, or -1
	n := 0
	for k := range q.terms {
		if q.df[k] > 0 || q.required[k] || len(q.formsOf(k)) > 0 || q.headCatenated(k) {
			keep[k] = n
			n++
		} else {
			keep[k] = -1
		}
	}
	if n == len(q.terms) || n == 0 {
		return q
	}
	out := *q
	out.terms, out.idf, out.df, out.gidf, out.at, out.required = nil, nil, nil, nil, nil, nil
	out.forms, out.hcat, out.pairs = nil, nil, nil
	out.index = make(map[string]int, n)
	out.absentTerms = q.absentTerms + len(q.terms) - n
	for k := range q.terms {
		if keep[k] < 0 {
			continue
		}
		out.appendTerm(q, k)
		out.required = append(out.required, q.required[k])
	}
	for _, p := range q.pairs {
		if keep[p.a] < 0 || keep[p.b] < 0 {
			out.absentPairs++
			continue
		}
		out.pairs = append(out.pairs, pair{a: keep[p.a], b: keep[p.b], idf: p.idf})
	}
	out.indexForms()
	out.prepareProbes()
	return &out
}

// appendTerm appends q's term k to out's terms, with its positions and
// weights, other forms and catenation (not whether it is required).
func (out *Query) appendTerm(q *Query, k int) {
	out.index[q.terms[k]] = len(out.terms)
	out.terms = append(out.terms, q.terms[k])
	out.at = append(out.at, q.at[k])
	out.idf = append(out.idf, q.idf[k])
	out.df = append(out.df, q.df[k])
	out.gidf = append(out.gidf, q.gidf[k])
	out.forms = append(out.forms, q.formsOf(k))
	out.hcat = append(out.hcat, q.headCatenated(k))
}

// termCount and pairCount are the query's words and pairs as the shares
// count them: those a passage can hold, and those compacted dropped.
func (q *Query) termCount() int { return len(q.terms) + q.absentTerms }
func (q *Query) pairCount() int { return len(q.pairs) + q.absentPairs }

// prepareSyntax is the query syn says, its terms weighed against x.
func (x *Index) prepareSyntax(ctx context.Context, syn Syntax, reader func() (index.IndexReader, error)) (*Query, error) {
	q := x.positive(syn.Text)
	q.required = make([]bool, len(q.terms))
	for _, ph := range syn.Phrases {
		sub := x.positive(ph)
		for _, t := range sub.terms {
			if k, ok := q.index[t]; ok {
				q.required[k] = true
			}
		}
		if sub.span >= 2 {
			q.phrases = append(q.phrases, sub)
		}
	}
	for _, n := range syn.Not {
		sub := x.positive(n)
		switch {
		case sub.span >= 2:
			q.notRuns = append(q.notRuns, sub)
		case len(sub.terms) > 0:
			q.not = append(q.not, sub.terms...)
		}
	}
	if len(q.terms) > 0 && !slices.ContainsFunc(q.terms, func(t string) bool { return !slices.Contains(q.not, t) }) {
		// Every word it asks for it excludes ("prometheus -prometheus"): a
		// passage that holds one does not match, so none is a word to rank
		// (a head that says it is no match of the text's).
		none := x.positive("")
		none.text, none.not, none.notRuns = q.text, q.not, q.notRuns
		q = none
	}
	if len(q.terms) > 0 {
		r, err := reader()
		if err != nil {
			return nil, err
		}
		if err := q.weigh(ctx, r, x.stemming); err != nil {
			return nil, err
		}
	}
	q.prepareProbes()
	return q, nil
}

// weigh finds the query's words' other forms in r (expand, with stemming
// "english"), and sets each word's idf as typed and in any form, and its
// pairs' idf.
func (q *Query) weigh(ctx context.Context, r index.IndexReader, stemming string) error {
	q.forms = make([][]string, len(q.terms))
	// A term's weight is the text's and the heads' alike: the passages
	// that hold it are at least as many as in either.
	text, head, err := docFreqs(ctx, r, q.terms)
	if err != nil {
		return err
	}
	// With stemming, every word is read in its other forms; without, a
	// word no passage holds as typed ("hashing", where pages write
	// "hash" and "hashes"): what it would match otherwise is nothing.
	if err := q.expand(ctx, r, func(k int) bool { return stemming == StemEnglish || text[k]+head[k] == 0 }); err != nil {
		return err
	}
	if err := q.catenations(ctx, r); err != nil {
		return err
	}
	total, err := r.DocCount()
	if err != nil {
		return err
	}
	n := len(q.terms)
	q.idf, q.gidf, q.df = make([]float64, n), make([]float64, n), make([]uint64, n)
	idf := func(df uint64) float64 { return 1 + math.Log(float64(total)/float64(df+1)) }
	for k := range q.terms {
		df := max(text[k], head[k])
		q.idf[k], q.df[k] = idf(df), df
		q.gidf[k] = q.idf[k]
		if len(q.forms[k]) == 0 && !q.headCatenated(k) {
			continue
		}
		// In any form: the passages whose text holds one (heads are
		// matched as typed, or as the word's catenation).
		inText, err := countPassages(ctx, r, append([]string{q.terms[k]}, q.forms[k]...), nil)
		if err != nil {
			return err
		}
		inHead := head[k]
		if q.headCatenated(k) {
			if inHead, err = countPassages(ctx, r, nil, []string{q.terms[k], catTerm(q.terms[k])}); err != nil {
				return err
			}
		}
		q.df[k] = max(inText, inHead)
		q.gidf[k] = idf(q.df[k])
	}
	// A pair is at least as rare as the rarer of its words: its idf is at
	// least that word's, the least the index can prove of it without
	// positions. A pair of common words ("of the") weighs as a common
	// word, one with a rare word as the rare word. Pairs are of the words
	// as typed.
	for i := range q.pairs {
		q.pairs[i].idf = max(q.idf[q.pairs[i].a], q.idf[q.pairs[i].b])
	}
	return nil
}

// Joined words: MinJoinedPart is the fewest letters of a word a joined
// word is read as, MaxJoinedParts the most such words, and MaxJoinedBytes
// the longest joined word looked at (see splitJoined).
const (
	MinJoinedPart  = 3
	MaxJoinedParts = 3
	MaxJoinedBytes = 40
)

// splitJoined reads a query word that is two or three words written
// together as those words, adjacent: "pagesize" as "page size",
// "stringscontainsany" as "strings contains any" — words a text writes
// apart, or an identifier typed without its dot, whose parts the
// tokenizer indexes apart (see identifiers), so that typed as one
// lower-case word it matched nothing (an identifier cut only by its case
// or a hyphen, baseURL or Get-ChildItem, is found by its catenation: see
// Catenations). A word is read so only when no
// passage holds it, nor another English form of it (q, the query as
// typed, weighed it: its df is 0; "hashing" is "hash" in another form,
// not "hash" and the "ing" of "`OR`ing": see weigh), it
// is ASCII letters only (one term, MaxJoinedBytes at most), and it is
// MaxJoinedParts or fewer words the index holds, each of MinJoinedPart
// letters or more; of such readings, the one whose first word is longest
// (then its second). A word that is no such join stays as typed. The
// index is asked only about the parts of a word no passage holds: a
// query whose words all match costs no look-up more. It returns text
// itself when no word is read so.
func (x *Index) splitJoined(ctx context.Context, q *Query, text string, reader func() (index.IndexReader, error)) (string, error) {
	var err error
	held := map[string]bool{}
	holds := func(w string) bool { // whether some passage holds w's one term
		if v, ok := held[w]; ok || err != nil {
			return v
		}
		if terms := x.tokens(w); len(terms) == 1 {
			var r index.IndexReader
			var t, h []uint64
			if r, err = reader(); err == nil {
				t, h, err = docFreqs(ctx, r, terms)
			}
			held[w] = err == nil && t[0]+h[0] > 0
		}
		return held[w]
	}
	fields := strings.Fields(text)
	changed := false
	for i, w := range fields {
		if len(w) < 2*MinJoinedPart || len(w) > MaxJoinedBytes || !asciiLetters(w) {
			continue
		}
		terms := x.tokens(w)
		if len(terms) != 1 {
			continue
		}
		if k, ok := q.index[terms[0]]; !ok || q.df[k] > 0 {
			continue // held (or past MaxQueryTerms, unweighed)
		}
		if parts := joinedParts(w, MaxJoinedParts, holds); len(parts) > 1 {
			fields[i], changed = strings.Join(parts, " "), true
		}
	}
	if err != nil || !changed {
		return text, err
	}
	return strings.Join(fields, " "), nil
}

// joinedParts splits w into at most n words that holds says the index
// holds, each of MinJoinedPart letters or more, the first as long as it
// can be; nil when there is no such split.
func joinedParts(w string, n int, holds func(string) bool) []string {
	if n <= 1 || len(w) < 2*MinJoinedPart {
		return nil
	}
	for i := len(w) - MinJoinedPart; i >= MinJoinedPart; i-- {
		if !holds(w[:i]) {
			continue
		}
		if rest := w[i:]; holds(rest) {
			return []string{w[:i], rest}
		} else if more := joinedParts(rest, n-1, holds); more != nil {
			return append([]string{w[:i]}, more...)
		}
	}
	return nil
}

func asciiLetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// parseSyntax is ParseSyntaxWith, a "-word" being an option when some
// passage's text writes it as one (a flag term: see flags.go), looked up
// with the reader that reader opens.
func parseSyntax(ctx context.Context, text string, reader func() (index.IndexReader, error)) (Syntax, error) {
	var err error
	option := func(w string) bool {
		k := flagKey(w)
		if k == "" || err != nil {
			return false
		}
		var r index.IndexReader
		if r, err = reader(); err != nil {
			return false
		}
		var tfr index.TermFieldReader
		if tfr, err = r.TermFieldReader(ctx, []byte(flagTerm(k)), FieldText, false, false, false); err != nil {
			return false
		}
		defer tfr.Close()
		return tfr.Count() > 0
	}
	syn := ParseSyntaxWith(text, option)
	return syn, err
}

// positive is the terms, positions and pairs of text, analyzed as a
// query's words (no weights).
func (x *Index) positive(text string) *Query {
	stream := x.analyze(text)
	toks := make([]string, len(stream))
	for i, t := range stream {
		toks[i] = string(t.Term)
	}
	q := &Query{text: text, tokens: toks, words: wordsOf(text, stream), index: map[string]int{}}
	for _, t := range toks {
		if _, ok := q.index[t]; !ok && len(q.terms) < MaxQueryTerms {
			q.index[t] = len(q.terms)
			q.terms = append(q.terms, t)
		}
	}
	if len(q.terms) == 0 {
		return q
	}
	// Positions, numbered from 0; tokens at one position count once.
	q.at = make([][]int, len(q.terms))
	q.span = -1
	last := -1
	for i, t := range toks {
		k, ok := q.index[t]
		if !ok {
			continue
		}
		if stream[i].Position != last {
			last = stream[i].Position
			q.span++
		}
		if !slices.Contains(q.at[k], q.span) {
			q.at[k] = append(q.at[k], q.span)
		}
	}
	q.span++
	q.pairs = pairsOf(q, stream, toks)
	return q
}

// pairsOf lists the pairs of q's terms at adjacent positions of stream, in
// order, each once; a term is never paired with itself.
func pairsOf(q *Query, stream analysis.TokenStream, toks []string) []pair {
	var out []pair
	seen := map[[2]int]bool{}
	for i := range stream {
		a, ok := q.index[toks[i]]
		if !ok {
			continue
		}
		p := stream[i].Position
		j := i + 1
		for j < len(stream) && stream[j].Position == p {
			j++
		}
		for ; j < len(stream) && stream[j].Position == p+1; j++ {
			b, ok := q.index[toks[j]]
			k := [2]int{a, b}
			if !ok || a == b || seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, pair{a: a, b: b})
		}
	}
	return out
}

// Text is the query's positive text: its words and the words of its
// phrases, without its syntax.
func (q *Query) Text() string { return q.text }

// Plain reports whether the query is words only: no phrase, no exclusion.
// Only a plain query can name a document (see Index.Named).
func (q *Query) Plain() bool {
	return len(q.phrases) == 0 && len(q.not) == 0 && len(q.notRuns) == 0 && !slices.Contains(q.required, true)
}

// SaidBy reports whether toks (a text's terms in order: Index.Tokens, with
// the words they were cut from, asked for only if needed: Index.Words) hold
// the query's, in the same order, adjacent: the text says the query, up to
// case, plural and punctuation.
func (q *Query) SaidBy(toks []string, words func() []int) bool {
	n := len(q.tokens)
	if n == 0 {
		return false
	}
	var ws []int
	for i := 0; i+n <= len(toks); i++ {
		if !slices.Equal(toks[i:i+n], q.tokens) {
			continue
		}
		// Whole words of toks: "fs.Stats" is not said by fs.StatWatcher,
		// nor "fs.mkdir" by fs.mkdirSync.
		if ws == nil {
			ws = words()
		}
		if (i == 0 || ws[i-1] != ws[i]) && (i+n == len(toks) || ws[i+n] != ws[i+n-1]) {
			return true
		}
	}
	return false
}

// Words groups the query's terms by the word they were cut from: for each
// word of the query (a run of input between the segmenter's cuts: see
// Index.Words), its terms, in order, repeats dropped.
func (q *Query) Words() [][]string {
	var out [][]string
	for i, t := range q.tokens {
		if i == 0 || q.words[i] != q.words[i-1] {
			out = append(out, nil)
		}
		if w := &out[len(out)-1]; !slices.Contains(*w, t) {
			*w = append(*w, t)
		}
	}
	return out
}

// Equal reports whether text analyzes to the query's terms, in the same
// order: the query says text, up to case, plural and punctuation.
func (x *Index) Equal(q *Query, text string) bool {
	toks := q.nameTokens()
	return len(toks) > 0 && slices.Equal(toks, x.tokens(text))
}

// nameTokens are the terms of the query as typed, in order: what names a
// document (see asTyped).
func (q *Query) nameTokens() []string {
	if q.names != nil {
		return q.names
	}
	return q.tokens
}

// Without returns q without the terms of known, and without the pairs that
// hold one: what the query says beyond a document's title, say. What the
// query excludes it still excludes; its phrases are not kept.
func (q *Query) Without(known map[string]bool) *Query {
	out := &Query{text: q.text, index: map[string]int{}, not: q.not, notRuns: q.notRuns}
	for i, t := range q.tokens {
		if !known[t] {
			out.tokens = append(out.tokens, t)
			out.words = append(out.words, q.words[i])
		}
	}
	// The words left keep their positions: a run of them in the text is
	// in order only where they were adjacent in the query.
	kept := map[int]bool{}
	for k, t := range q.terms {
		if !known[t] {
			out.appendTerm(q, k)
			for _, p := range q.at[k] {
				kept[p] = true
			}
		}
	}
	out.span = len(kept)
	for p := range kept {
		out.width = max(out.width, p+1)
	}
	for _, p := range q.pairs {
		a, b := q.terms[p.a], q.terms[p.b]
		if !known[a] && !known[b] {
			out.pairs = append(out.pairs, pair{a: out.index[a], b: out.index[b], idf: p.idf})
		}
	}
	out.required = make([]bool, len(out.terms))
	out.textCat, out.headCat = q.textCat, q.headCat
	out.absentTerms, out.absentPairs = q.absentTerms, q.absentPairs
	out.indexForms()
	out.prepareProbes()
	return out
}

// extent is how many positions the query's positions run over: span, or
// more for a query Without some words, whose others keep their positions
// (two words are adjacent only where they were in the query).
func (q *Query) extent() int { return max(q.span, q.width) }

// Terms returns the query's distinct positive terms.
func (q *Query) Terms() []string { return q.terms }

// probe is what a paragraph must contain, ignoring ASCII case, to hold a
// term (see mayHold).
type probe struct {
	s string
	// never: the term cannot come from ASCII text (it is not ASCII).
	never bool
	// hyphens: the term is a catenation's (see Catenations), which the
	// text may write with hyphens between its letters ("read-only").
	hyphens bool
}

// prepareProbes sets the probes of the query's terms and of its excluded
// phrases' terms.
func (q *Query) prepareProbes() {
	q.probes = q.probes[:0]
	for k, t := range q.terms {
		p := newProbe(t)
		// A head that holds the word's catenation may write it with
		// hyphens ("whatsnew" in the path whats-new/unix).
		p.hyphens = q.headCatenated(k)
		q.probes = append(q.probes, p)
	}
	for _, fs := range q.forms {
		for _, f := range fs {
			if w, ok := strings.CutPrefix(f, catTerm("")); ok {
				p := newProbe(w)
				p.hyphens = true
				q.probes = append(q.probes, p)
				continue
			}
			q.probes = append(q.probes, newProbe(f))
		}
	}
	for _, nr := range q.notRuns {
		for _, t := range nr.terms {
			q.probes = append(q.probes, newProbe(t))
		}
	}
	q.probeStart, q.probeAny = new([256]bool), false
	for _, p := range q.probes {
		switch {
		case p.never:
		case p.s == "":
			q.probeAny = true
		default:
			c := p.s[0]
			q.probeStart[c] = true
			if 'a' <= c && c <= 'z' {
				q.probeStart[c-'a'+'A'] = true
			}
		}
	}
}

// newProbe is the probe of term t: a lower-case ASCII term comes from
// text that holds it less its last letter ("polic" for "policy", found in
// "Policies"; a term of one or two letters, as it is), because analysis
// lower-cases, splits identifiers and changes only the end of a word
// (possessives, plurals). A term that is not ASCII never comes from ASCII
// text.
func newProbe(t string) probe {
	if !isASCIILower(t) {
		return probe{never: true}
	}
	if len(t) > 2 {
		t = t[:len(t)-1]
	}
	return probe{s: t}
}

// mayHold reports whether an ASCII paragraph may hold one of the query's
// terms or of its excluded phrases' (see probe).
func (q *Query) mayHold(para string) bool {
	if q.probeAny {
		return true
	}
	if q.probeStart == nil {
		return false
	}
	// One pass over para for every probe: a byte no probe starts with
	// (the most of them) costs a look in a table.
	for i := 0; i < len(para); i++ {
		if !q.probeStart[para[i]] {
			continue
		}
		for _, p := range q.probes {
			if !p.never && p.s != "" && (hasFoldAt(para, i, p.s) || p.hyphens && hasFoldJoinedAt(para, i, p.s)) {
				return true
			}
		}
	}
	return false
}

// hasFoldAt reports whether s holds the lower-case ASCII probe p at i, up
// to the case of ASCII letters.
func hasFoldAt(s string, i int, p string) bool {
	if i+len(p) > len(s) {
		return false
	}
	for j := 0; j < len(p); j++ {
		c := s[i+j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != p[j] {
			return false
		}
	}
	return true
}

// hasFoldJoinedAt is hasFoldAt where s may have hyphens between the
// letters of p ("read-only" holds "readonl").
func hasFoldJoinedAt(s string, i int, p string) bool {
	j := 0
	for ; i < len(s) && j < len(p); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch {
		case c == p[j]:
			j++
		case c != '-' || j == 0:
			return false
		}
	}
	return j == len(p)
}

// mayHoldText reports whether text may hold one of the query's terms or of
// its excluded phrases': text past ASCII always may (analysis can fold it
// to an ASCII term), ASCII text when it holds a probe (see mayHold).
func (q *Query) mayHoldText(text string) bool {
	return !isASCII(text) || q.mayHold(text)
}

// nameTerm is the index term that a document's name holds: its analyzed
// terms joined by NUL, after a NUL, which no analyzed word holds, so that
// no word of any text is a name term. Names of more than MaxNameTerms
// terms are not indexed as names.
func nameTerm(tokens []string) string {
	return "\x00" + strings.Join(tokens, "\x00")
}

// MaxNameTerms bounds the terms of a name that is indexed as a name (see
// Passage.Names).
const MaxNameTerms = 64
