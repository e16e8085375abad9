// Package rank answers the ranked skeleton reads of one generation: it turns
// the full-text index's scored passages into ranked documents, picks each
// one's matched section, cuts its snippet, and plans what to read next
// within a token budget (`search` and `context`). Both reads walk the same
// hit loop.
//
// It reads a *store.Snapshot and its *fulltext.Index and nothing else: it
// opens, follows and releases no generation (the workspace service does),
// and it never imports workspace.
package rank

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/fulltext"
	"github.com/docir/docir/store/passage"
)

// IndexFunc returns the generation's full-text index, opening it on first
// use; rank calls it only when a read needs the index.
type IndexFunc = func() (*fulltext.Index, error)

// Search ranks documents for a free-text query; each hit names the section
// where the match is best.
func Search(ctx context.Context, snap *store.Snapshot, idx IndexFunc, p docir.SearchParams) (docir.SearchResult, error) {
	return search(ctx, snap, idx, p, false)
}

// Reference is Search by an exhaustive reading: every passage that holds a
// query word is scored on its text alone. It is what Search must answer
// (TestRankSafe), at the cost of reading the text of every such passage;
// tests and audits call it, never a transport.
func Reference(ctx context.Context, snap *store.Snapshot, idx IndexFunc, p docir.SearchParams) (docir.SearchResult, error) {
	return search(ctx, snap, idx, p, true)
}

func search(ctx context.Context, snap *store.Snapshot, idx IndexFunc, p docir.SearchParams, exhaustive bool) (docir.SearchResult, error) {
	q, limit, err := CheckQuery("search", p.Query, p.Limit)
	if err != nil {
		return docir.SearchResult{}, err
	}
	res := docir.SearchResult{Query: q, Hits: []docir.Hit{}}
	var words bool
	var also map[string][]string
	res.Total, words, also, err = eachHit(ctx, snap, idx, q, limit, exhaustive, false, func(h *found) error {
		res.Hits = append(res.Hits, h.hit())
		return nil
	})
	if err != nil {
		return docir.SearchResult{}, err
	}
	for i := range res.Hits {
		res.Hits[i].Also = also[res.Hits[i].ID]
	}
	if !words {
		res.Warnings = append(res.Warnings, NoWords(q))
	} else if len(res.Hits) == 0 {
		res.Warnings = append(res.Warnings, missWarnings(q)...)
	}
	if len(res.Hits) == 0 {
		w, err := emptyStore(snap)
		if err != nil {
			return docir.SearchResult{}, err
		}
		res.Warnings = append(res.Warnings, w...)
	}
	return res, nil
}

// emptyStore is the warning of a search or context that matched nothing
// in a generation that holds no document (a folder of .mdx pages indexes
// to none): "no documents match" would read as a fact about the query.
func emptyStore(snap *store.Snapshot) ([]string, error) {
	n, err := snap.Count()
	if err != nil || n > 0 {
		return nil, err
	}
	return []string{"the local store holds no documents: docir index reads the *.md files of its sources, and its warnings name the files it did not read"}, nil
}

// FieldTerms is the warning of a search or context that matched nothing
// and has a term written as a field filter (title:menu, kind:adr, as
// docir query takes them): search ranks words, and "title:menu" is one
// word no page writes, so "no documents match" would read as a fact about
// the corpus. "" when the query has no such term.
func FieldTerms(q string) string {
	var terms []string
	for _, t := range strings.Fields(q) {
		name, value, ok := strings.Cut(strings.TrimPrefix(t, "-"), ":")
		if ok && fieldName(name) && value != "" && !strings.HasPrefix(value, "//") {
			terms = append(terms, t)
		}
	}
	if len(terms) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: search ranks words and matches no field:value; docir query (docir/query) filters on front-matter fields and id, path, title, size", strings.Join(terms, " "))
}

// missWarnings are the warnings of a search or context that has words to
// rank and matched nothing, about how its query was read: field filters
// (FieldTerms) and lone characters of a script written without spaces
// (LoneCharacters); none when it was read as written.
func missWarnings(q string) []string {
	var out []string
	for _, w := range []string{FieldTerms(q), LoneCharacters(q)} {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// LoneCharacters is the warning of a search or context that matched
// nothing and has a word of one character of a script written without
// spaces (槽, の): the index reads such text as pairs of characters
// (fulltext.BigramScript), so one character matches only where it stands
// alone, and "no documents match" would read as a fact about the corpus
// (a review of Vue's Chinese docs: 槽 found nothing, where 插槽 is on
// hundreds of sections). "" when the query has no such word.
func LoneCharacters(q string) string {
	var lone []string
	for _, w := range strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r) }) {
		run := 0
		for i, r := range w {
			if !fulltext.BigramScript(r) {
				run = 0
				continue
			}
			run++
			next, _ := utf8.DecodeRuneInString(w[i+utf8.RuneLen(r):])
			if run == 1 && !fulltext.BigramScript(next) {
				lone = append(lone, string(r))
			}
		}
	}
	if len(lone) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: one character of a script written without spaces matches only where it stands alone (the index reads such text as pairs of characters); search for a word of two characters or more", strings.Join(lone, " "))
}

// fieldName reports whether s is a field name as docir query writes one:
// a letter or '_', then letters, digits, '_', '-' and '.'.
func fieldName(s string) bool {
	for i, r := range s {
		switch {
		case r == '_' || unicode.IsLetter(r):
		case i > 0 && (unicode.IsDigit(r) || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// NoWords is the warning of a search or context whose query has no word to
// rank: punctuation and symbols alone ("+=", "??") make no term, and an
// excluded word only takes passages away, so nothing can match. Without it,
// "no documents match" would read as a fact about the corpus.
func NoWords(q string) string {
	return fmt.Sprintf("%q has no word to search for: punctuation and symbols are not indexed, and -word only excludes", q)
}

// passageHit is one passage of a ranked document: the section it is
// ("" for the text before the first heading) and its score.
type passageHit struct {
	slug  string
	score float64
}

// rankedDoc is one document of a ranking, with its matching passages best
// first.
type rankedDoc struct {
	id       string
	score    float64
	passages []passageHit
}

// found is one ranked document with its record and body, its matched
// section settled: what a hit, an outline and a read plan are made from.
type found struct {
	rec  docir.Record
	body []byte
	doc  rankedDoc
	q    string
	pc   passage.Config // what the generation's index holds of front matter
	r    *ranking       // the ranking that found it
	dt   *docText       // the document as the ranking read it
	// made is the hit, once made (see hit), and prose the matched
	// section's own text as a reader reads it (passage.Prose), which the
	// snippet is cut from and sameText compares.
	made  *docir.Hit
	prose string
}

// cutter is the document's passage.Cutter (see docText.cutter).
func (f *found) cutter() *passage.Cutter {
	rec, _ := f.dt.doc.Record() // decoded already: f.rec is a copy of it
	return f.dt.cutter(rec)
}

// sectionScores are the document's sections scored on what the query says
// beyond its title (see beyondTitle), best first, those that score 0 left
// out: the ranking reads the best passages of the whole corpus, and the
// section of a top document that answers may not be among them (the
// Debian section of an installation page whose short "Package managers"
// heading matched better). Nil when the query has nothing beyond the title.
func (f *found) sectionScores() ([]passageHit, error) {
	b, err := f.r.beyondTitle(&f.rec)
	if err != nil {
		return nil, err
	}
	var out []passageHit
	for _, h := range b.sections {
		if h.score > 0 {
			out = append(out, h)
		}
	}
	sort.SliceStable(out, func(a, c int) bool { return out[a].score > out[c].score })
	return out, nil
}

// passageScores are the document's passages scored on the whole query,
// best first, those that score 0 left out: every passage, not only those
// the ranking read (which depends on what it could pass over), so that a
// plan's "sections that score at least half the best" is that, exactly.
// The lead and the head are slug "". None when what matched is the
// document itself (the query's words are all its title's, or it names
// it): the title is in every passage's text, and the sections' scores
// then say only how short each is.
func (f *found) passageScores() ([]passageHit, error) {
	r, rec := f.r, &f.rec
	if shared, beyond := r.titleWords(rec); shared && !beyond || r.names(rec) > 0 {
		return nil, nil
	}
	b, err := r.beyondTitleOf(rec, true)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(b.all)
	sort.SliceStable(out, func(a, c int) bool { return out[a].score > out[c].score })
	return out, nil
}

// eachHit ranks limit documents for q and calls fn for each one still in
// the generation, in rank order, with its matched section chosen: a hit
// that says again what those before it say is not one of them
// (sameText); also is the matched sections left out so, by the id of the
// hit they repeat. A context's ranking
// (plan) is filled from further down to limit hits that are not repeats. It returns the
// number of matching passages, and whether the query has a word to rank
// (see NoWords).
func eachHit(ctx context.Context, snap *store.Snapshot, idx IndexFunc, q string, limit int, exhaustive, plan bool, fn func(*found) error) (total int, words bool, also map[string][]string, err error) {
	ft, err := idx()
	if err != nil {
		return 0, false, nil, err
	}
	r := &ranking{ctx: ctx, ft: ft, snap: snap, docs: map[string]*docText{}, exhaustive: exhaustive, plan: plan}
	// Search with the front-matter fields the generation was indexed with.
	if fm, ok, err := snap.FrontMatter(); err != nil {
		return 0, false, nil, err
	} else if ok {
		r.pc.FrontMatter = fm
	}
	docs, total, err := r.rank(q, limit)
	if err != nil {
		return 0, false, nil, err
	}
	same := sameText{also: map[string][]string{}, limit: limit}
	given, read := 0, map[string]bool{}
	for window := limit; ; {
		for _, d := range docs {
			if given == limit {
				break
			}
			if read[d.id] {
				continue // given, or repeated, in a narrower window
			}
			read[d.id] = true
			f, err := r.found(d, q)
			if err != nil {
				return 0, false, nil, err
			}
			if f == nil {
				continue
			}
			if same.repeats(f) {
				delete(r.beyond, d.id)
				f.dt.passages = nil
				continue
			}
			if err := fn(f); err != nil {
				return 0, false, nil, err
			}
			given++
			// fn has read what it needs of the document's passages: a
			// document of many sections need not hold them past its turn.
			delete(r.beyond, d.id)
			f.dt.passages = nil
		}
		if !r.plan || given == limit || len(docs) < window || window >= docir.MaxLimit {
			break
		}
		// A context's hits said again what hits before them said: rank a
		// wider window, to plan as many documents as asked for that say
		// something of their own (see sameText), up to the most a search
		// may ask for — as wide as the repeats so far say it takes, twice
		// the last at least. A search gives the limit documents ranked,
		// repeats folded into also: filling them from further down ranks
		// as deep as the copies are many (five copies of a corpus: a search
		// 3.0× the time of one without the rule), and a search's reader
		// sees what was folded and may ask for more.
		window = min(max(2*window, (window*limit+given-1)/max(given, 1)), docir.MaxLimit)
		if docs, _, err = r.rank(q, window); err != nil {
			return 0, false, nil, err
		}
	}
	return total, len(r.q.Terms()) > 0, same.also, nil
}

// found is the ranked document d as a hit: its record and body, its
// matched section settled; nil when it is no longer in the generation.
func (r *ranking) found(d rankedDoc, q string) (*found, error) {
	dt, err := r.doc(d.id)
	if err != nil || dt == nil {
		return nil, err
	}
	body, err := dt.wholeBody()
	if err != nil {
		return nil, err
	}
	rec, err := dt.record()
	if err != nil {
		return nil, err
	}
	f := &found{rec: *rec, body: body, doc: d, q: q, pc: r.pc, r: r, dt: dt}
	byDocumentOrder(f.doc.passages, rec)
	if err := r.chooseSection(f); err != nil {
		return nil, err
	}
	if err := f.speakingSection(); err != nil {
		return nil, err
	}
	return f, nil
}

// sameText finds the hits that say again what the hits given before them
// say: a hit whose matched section holds no line, as a reader reads it
// (passage.Prose: markup blanked, spaces trimmed, blank lines left out),
// that a matched section given before it does not hold. A generated
// reference repeats a section on every page — the Cargo book's "Manifest
// Options" on each command's page, differing in the ids of their HTML
// tags; Helm's "Options inherited from parent commands" — and 27 copies of
// one filled a search's hits and a context's plan, the FAQ entry that
// answered ("How can Cargo work offline?") 28th. Such a hit is not given;
// its matched section is listed in the also of the hit given before it
// that shares the most of its lines (the first on a tie), at most limit
// there. A context's plan applies the same rule to its reads (readPlan.addOf).
// A matched section of no prose lines is never a repeat.
type sameText struct {
	lines map[string][]int    // a line of a hit given -> the hits that hold it, by their place
	given []string            // the hits given, by place: their ids
	also  map[string][]string // by a hit's id: the matched sections that repeat it
	limit int
}

// repeats reports whether f says nothing the hits given before it do not
// (and lists it), else records its lines as a hit given.
func (s *sameText) repeats(f *found) bool {
	h := f.hit()
	lines := textLines(f.prose)
	if len(lines) > 0 && len(s.given) > 0 {
		shared := make([]int, len(s.given))
		all := true
		for _, l := range lines {
			at, ok := s.lines[l]
			if !ok {
				all = false
				break
			}
			for _, i := range at {
				shared[i]++
			}
		}
		if all {
			best := 0
			for i, n := range shared {
				if n > shared[best] {
					best = i
				}
			}
			if id := s.given[best]; len(s.also[id]) < s.limit {
				s.also[id] = append(s.also[id], h.MatchedSection)
			}
			return true
		}
	}
	if s.lines == nil {
		s.lines = map[string][]int{}
	}
	place := len(s.given)
	s.given = append(s.given, h.ID)
	for _, l := range lines {
		if at := s.lines[l]; len(at) == 0 || at[len(at)-1] != place {
			s.lines[l] = append(at, place)
		}
	}
	return false
}

// ranking is one ranked read: the index, the generation, and the documents
// it has read so far.
type ranking struct {
	ctx  context.Context
	ft   *fulltext.Index
	snap *store.Snapshot
	q    *fulltext.Query
	text string              // the query as plainName has it
	docs map[string]*docText // nil value: not in the generation; see forget
	// room is how many documents docs holds before forget sweeps it, and
	// board the ranking's board (nil until rank makes it).
	room  int
	board *board
	pc    passage.Config // the front matter the generation's index holds
	// exhaustive: every passage that holds a query word is scored on its
	// text alone (Reference), not read rank-safely.
	exhaustive bool
	// plan: the ranking is a context's, whose plan reads every passage's
	// score on the whole query (found.passageScores).
	plan     bool
	beyond   map[string]beyond          // by document: see beyondTitle
	headings map[string][]string        // a heading's terms in order, by its text: see heading
	words    map[string][]int           // by a heading's text, the word of each of its terms: see headingWords
	titles   map[string]map[string]bool // a document's title terms, by its id: see titleTerms
	// namedSecs are the sections the query names, by document id (see
	// namedSections), and qwords its terms by the word they were cut
	// from (see queryWords): each asked for twice or more a document.
	namedSecs map[string]map[string]float64
	qwords    [][]string
	asked     map[string]bool  // the query's terms: see queryTerms
	sc        *fulltext.Scorer // see scorer
}

// scorer scores passages for the ranking in memory it reuses.
func (r *ranking) scorer() *fulltext.Scorer {
	if r.sc == nil {
		r.sc = r.ft.Scorer()
	}
	return r.sc
}

// docText is a document read from the generation, with the passages the
// ranking has cut of it as the index was given them. Its body is read as
// far as the passages it is asked for need (a section of a long document
// reads that section), or whole once asked for (wholeBody); its front
// matter is decoded when a passage or a name needs it (record).
type docText struct {
	pc        passage.Config
	doc       *store.Spans
	body      []byte                      // the whole body, once read
	passages  map[string]fulltext.Passage // by passage id, cut on first use
	cut       *passage.Cutter             // finds each passage's section, once the record is read (see cutter)
	pairs     []byte                      // its passages' pair filters, once read (see pairFilters)
	pairsRead bool
}

// pairFilters is the pair filters of the document's passages
// (fulltext.Pairs), read once; nil when the store has none for it.
func (d *docText) pairFilters() ([]byte, error) {
	if !d.pairsRead {
		var err error
		if d.pairs, err = d.doc.Pairs(); err != nil {
			return nil, err
		}
		d.pairsRead = true
	}
	return d.pairs, nil
}

func (r *ranking) doc(id string) (*docText, error) {
	if d, ok := r.docs[id]; ok {
		return d, nil
	}
	if len(r.docs) >= max(r.room, docsKept) {
		r.forget()
	}
	doc, ok, err := r.snap.LookupSpans(id)
	if err != nil {
		return nil, err
	}
	var d *docText
	if ok {
		d = &docText{pc: r.pc, doc: doc}
	}
	r.docs[id] = d
	return d, nil
}

// docsKept is the fewest documents the ranking keeps read (r.docs) before
// it forgets those that cannot rank (forget).
const docsKept = 1024

// forget drops from the documents read (r.docs) those that cannot rank: not
// on the board, or on it below its limit-th score, which only rises. A
// query whose words every passage holds reads every document; what it
// keeps is then the documents that can still rank, not the corpus. One
// that is asked for again is read again. The next sweep waits until the
// documents kept have doubled: a sweep costs a look at each.
func (r *ranking) forget() {
	if r.board != nil {
		th := r.board.theta()
		for id := range r.docs {
			if d, ok := r.board.docs[id]; !ok || d.score < th {
				delete(r.docs, id)
			}
		}
	}
	r.room = 2 * len(r.docs)
}

// record is the document's record with its front matter.
func (d *docText) record() (*docir.Record, error) {
	if _, err := d.doc.Fields(); err != nil {
		return nil, err
	}
	return d.doc.Record()
}

// wholeBody reads the document's whole body, once.
func (d *docText) wholeBody() ([]byte, error) {
	if d.body == nil {
		b, err := d.doc.Body(0, -1)
		if err != nil {
			return nil, err
		}
		d.body = b
	}
	return d.body, nil
}

// passage is the document's passage with id (empty when it has none),
// cut from the body if it was read whole, else from the bytes it needs,
// and kept for the ranking's next ask.
func (d *docText) passage(id string) (fulltext.Passage, error) {
	return d.passageKept(id, true)
}

// passageKept is passage, keeping what it cuts only when keep is true: a
// reader of every passage of a document once (beyondTitle) keeps none, or
// a document of n sections would hold n passages for the whole request.
func (d *docText) passageKept(id string, keep bool) (fulltext.Passage, error) {
	if p, ok := d.passages[id]; ok {
		return p, nil
	}
	var p fulltext.Passage
	rec, err := d.doc.Record() // its front matter only for the head: see PassageSpan
	if err != nil {
		return p, err
	}
	if id == rec.ID+passage.HeadSuffix {
		if rec, err = d.record(); err != nil {
			return p, err
		}
	}
	cut := d.cutter(rec)
	if d.body != nil {
		p, _ = cut.Passage(d.body, id)
	} else if from, to, ok := cut.PassageSpan(id); ok {
		w, err := d.doc.Body(from, to)
		if err != nil {
			return p, err
		}
		p, _ = cut.PassageIn(w, from, id)
	}
	if !keep {
		return p, nil
	}
	if d.passages == nil {
		d.passages = map[string]fulltext.Passage{}
	}
	d.passages[id] = p
	return p, nil
}

// cutter is the document's passage.Cutter, built once: a ranking may cut
// every passage of a document, and a plan read any of its sections, and a
// scan of its sections for each would be quadratic in them. rec is the
// document's record (d.doc.Record: the Cutter reads its front matter once
// decoded, for the head).
func (d *docText) cutter(rec *docir.Record) *passage.Cutter {
	if d.cut == nil {
		d.cut = d.pc.Cutter(rec)
	}
	return d.cut
}

// rank ranks documents for a free-text query: each scores as its best
// passage (fulltext's score: its words, their pairs and run in the query's
// order), and a document the query names (its title or description, see
// names) goes above every document the query only matches. The ranking is
// the one an exhaustive reading of every passage that holds a query word
// would give (Reference), read rank-safely: passages are scored in order of
// their bound (the best score their term counts allow) until no bound left
// can reach the limit-th document's score (see fulltext's retrieve.go). A
// document keeps its scored passages, best first. total is the number of
// passages that hold a query word.
func (r *ranking) rank(q string, limit int) ([]rankedDoc, int, error) {
	// A ranking read again over a wider window (eachHit's fill) reads the
	// query it prepared, and its count is the first reading's.
	again := r.q != nil
	if !again {
		pq, err := r.ft.Prepare(r.ctx, q)
		if err != nil {
			return nil, 0, err
		}
		r.q, r.text = pq, plainName(pq.Text())
	}
	pq := r.q
	if len(pq.Terms()) == 0 {
		return nil, 0, nil
	}
	rt, err := r.ft.Retrieve(r.ctx, pq)
	if err != nil {
		return nil, 0, err
	}
	defer rt.Close()
	// The count of matching passages needs none of the ranking: it runs
	// beside it, on the process's other core (a cold search is a fresh
	// process), and is waited for before the reading closes.
	var total uint64
	var totalErr error
	counted := make(chan struct{})
	go func() {
		defer close(counted)
		if !again {
			total, totalErr = rt.Total()
		}
	}()
	defer func() { <-counted }() // before rt closes, however the reading ends
	b := &board{k: limit, docs: map[string]*rankedDoc{}}
	r.board = b
	scored := map[uint64]bool{}
	if r.exhaustive {
		cands, err := rt.Candidates(0)
		if err != nil {
			return nil, 0, err
		}
		if err := r.score(rt, b, cands, scored); err != nil {
			return nil, 0, err
		}
	} else {
		// A staged reading: the passages that hold every word first (a
		// first limit-th score, cheaply), then the rarest term's passages,
		// then the next term's, until no passage left unread can pass the
		// limit-th score.
		score := func(cands []fulltext.Candidate) error { return r.score(rt, b, cands, scored) }
		if err := rt.Pilot(score); err != nil {
			return nil, 0, err
		}
		for i := range rt.Stages() {
			if err := rt.Stage(i, b.theta(), score); err != nil {
				return nil, 0, err
			}
			if rest := rt.Rest(i); rest < b.theta() || rest == 0 {
				break // every passage not read bounds below θ (or matches nothing)
			}
		}
	}
	named, err := r.named(rt, b)
	if err != nil {
		return nil, 0, err
	}
	<-counted
	if totalErr != nil {
		return nil, 0, totalErr
	}
	return b.ranking(named, limit), int(total), nil
}

// score scores candidates on the board, best bound first, until the next
// bound cannot pass the board's limit-th score (an exhaustive ranking
// scores them all), skipping passages already scored and those that
// cannot raise their document's score.
func (r *ranking) score(rt *fulltext.Retrieval, b *board, cands []fulltext.Candidate, scored map[uint64]bool) error {
	// Best bound first: a heap, since the reading usually stops long
	// before the last candidate.
	h := &byBound{cands: cands}
	heap.Init(h)
	for h.Len() > 0 {
		c := heap.Pop(h).(*fulltext.Candidate)
		if scored[c.Number()] {
			continue
		}
		if !r.exhaustive && c.Bound < b.theta() {
			return nil // a passage that bounds at θ may tie the limit-th document, and win on its id
		}
		scored[c.Number()] = true
		id, err := rt.ID(c)
		if err != nil {
			return err
		}
		docID, slug, _ := strings.Cut(id, "#")
		if d, ok := b.docs[docID]; ok && !r.exhaustive && d.score > c.Bound {
			// Cannot raise its document's score: a document scores as its
			// best passage. One that may tie it is scored: of passages
			// that tie, the first in the document is the hit's
			// (byDocumentOrder), as an exhaustive reading finds.
			continue
		}
		if !r.exhaustive && !c.Exact {
			// Its text is read only if the pairs it holds can reach θ.
			fb, err := r.filterBound(rt, c, id, docID)
			if err != nil {
				return err
			}
			if fb < b.theta() {
				continue
			}
			if d, ok := b.docs[docID]; ok && d.score > fb {
				continue
			}
		}
		score, ok, err := r.passageScore(rt, c, id, docID)
		if err != nil {
			return err
		}
		if ok { // else gone from the generation
			b.add(docID, slug, score)
		}
	}
	return nil
}

// byBound is a max-heap of candidates by bound (the first read first among
// equals).
type byBound struct {
	cands []fulltext.Candidate
	idx   []int32
}

func (h *byBound) Len() int {
	if h.idx == nil {
		h.idx = make([]int32, len(h.cands))
		for i := range h.idx {
			h.idx[i] = int32(i)
		}
	}
	return len(h.idx)
}

func (h *byBound) Less(i, j int) bool {
	a, b := &h.cands[h.idx[i]], &h.cands[h.idx[j]]
	if a.Bound != b.Bound {
		return a.Bound > b.Bound
	}
	return h.idx[i] < h.idx[j]
}

func (h *byBound) Swap(i, j int) { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }
func (h *byBound) Push(any)      { panic("byBound: push") }
func (h *byBound) Pop() any {
	n := len(h.idx) - 1
	c := &h.cands[h.idx[n]]
	h.idx = h.idx[:n]
	return c
}

// named finds the documents the query names and returns each one's level
// (see names); those that can rank among the limit first get their exact
// score, their best passage's, on the board.
//
// A named document goes above every document the query only matches, so
// its score decides its place among named documents even when it is far
// below the limit-th score θ that the reading stopped at. What the reading
// left unread bounds below θ (or below its document's score): so a named
// document whose score on the board is at least θ has its exact score
// (exact), and any other scores below θ (inexact), under every exact one
// of its level. Level by level, best first: the exact ones take their
// places; when places remain, the inexact ones of the level are read,
// best bound first, each whole (every passage of it that can raise its
// score), until the next one's bound cannot reach the places left.
func (r *ranking) named(rt *fulltext.Retrieval, b *board) (map[string]int, error) {
	cands, err := rt.Named()
	if err != nil || len(cands) == 0 {
		return nil, err
	}
	out := map[string]int{}
	for i := range cands {
		id, err := rt.ID(&cands[i])
		if err != nil {
			return nil, err
		}
		docID, _, _ := strings.Cut(id, "#")
		if _, ok := out[docID]; ok {
			continue
		}
		d, err := r.doc(docID)
		if err != nil {
			return nil, err
		}
		if d == nil {
			continue
		}
		rec, err := d.record()
		if err != nil {
			return nil, err
		}
		level := r.names(rec)
		if level < 3 {
			if l, _ := r.headingNamed(rec); l > 0 {
				level = 2 + l // a FAQ's entry names its page below a title, above a file name
			}
		}
		if level > 0 {
			out[docID] = level
		}
	}
	if r.exhaustive {
		return out, nil // every passage that holds a query word was scored
	}
	theta := b.theta()
	exact := func(id string) bool {
		d, ok := b.docs[id]
		return ok && d.score >= theta
	}
	levels := map[int][]string{} // the inexact documents of each level
	exactAt := map[int]int{}
	for id, level := range out {
		if exact(id) {
			exactAt[level]++
		} else {
			levels[level] = append(levels[level], id)
		}
	}
	places := b.k
	for level := 6; level >= 1 && places > 0; level-- {
		places -= exactAt[level]
		if places <= 0 {
			break // the exact ones fill the places: the inexact score below them
		}
		docs := levels[level]
		sort.Strings(docs) // an order that does not depend on the map's
		if err := r.readWhole(rt, b, docs, places); err != nil {
			return nil, err
		}
		places -= len(docs)
	}
	return out, nil
}

// readWhole puts on the board the exact scores of those of docs (named
// documents of one level, each scoring below θ) that can take one of
// places: best bound first (a document's bound is its passages' best),
// until the next bound is below the places-th exact score read; a
// document is read passage by passage, best bound first, while a bound can
// raise its score.
func (r *ranking) readWhole(rt *fulltext.Retrieval, b *board, docs []string, places int) error {
	type whole struct {
		id    string
		cands []fulltext.Candidate
		bound float64
	}
	// Their passages, looked up in one reading of the index.
	var ids []string
	for _, id := range docs {
		d, err := r.doc(id)
		if err != nil {
			return err
		}
		if d == nil {
			continue // gone from the generation: it has no passages to read
		}
		rec, err := d.record()
		if err != nil {
			return err
		}
		ids = append(ids, rec.ID, rec.ID+passage.HeadSuffix)
		for _, sec := range rec.Sections {
			ids = append(ids, rec.ID+"#"+sec.Slug)
		}
	}
	cands, err := rt.Passages(ids)
	if err != nil {
		return err
	}
	at := map[string]int{}
	all := make([]whole, len(docs))
	for i, id := range docs {
		all[i].id, at[id] = id, i
	}
	for _, c := range cands {
		pid, err := rt.ID(&c)
		if err != nil {
			return err
		}
		docID, _, _ := strings.Cut(pid, "#")
		if i, ok := at[docID]; ok {
			all[i].cands = append(all[i].cands, c)
			all[i].bound = max(all[i].bound, c.Bound)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].bound > all[j].bound })
	var read []float64 // the exact scores read, best first
	for _, w := range all {
		if len(read) >= places && w.bound < read[places-1] {
			break // neither this one nor any after it reaches a place
		}
		sort.SliceStable(w.cands, func(i, j int) bool { return w.cands[i].Bound > w.cands[j].Bound })
		for i := range w.cands {
			c := &w.cands[i]
			if d, ok := b.docs[w.id]; ok && d.score > c.Bound {
				break // no passage left can raise its score, or tie it (byDocumentOrder)
			}
			if c.Bound <= 0 {
				break // it holds no query word, nor do those after it
			}
			pid, err := rt.ID(c)
			if err != nil {
				return err
			}
			score, ok, err := r.passageScore(rt, c, pid, w.id)
			if err != nil {
				return err
			}
			if _, slug, _ := strings.Cut(pid, "#"); ok && !b.holds(w.id, slug, score) {
				b.add(w.id, slug, score) // a passage the reading scored is on the board already
			}
		}
		if d, ok := b.docs[w.id]; ok {
			read = append(read, d.score)
			sort.Sort(sort.Reverse(sort.Float64Slice(read)))
		}
	}
	return nil
}

// filterBound is candidate c's bound by its passage's pair filter
// (fulltext's FilterBound), or c.Bound when the store has none for it.
// c is passage id of document docID.
func (r *ranking) filterBound(rt *fulltext.Retrieval, c *fulltext.Candidate, id, docID string) (float64, error) {
	d, err := r.doc(docID)
	if err != nil || d == nil {
		return c.Bound, err
	}
	enc, err := d.pairFilters()
	if err != nil || enc == nil {
		return c.Bound, err
	}
	fb, _ := rt.FilterBound(c, enc, id[len(docID):])
	return fb, nil
}

// passageScore scores candidate c, passage id of document docID: from
// the index when its bound is exact, else on its text (the reference: on
// its text alone, no memory shared between passages). ok is false when
// the document is gone from the generation.
func (r *ranking) passageScore(rt *fulltext.Retrieval, c *fulltext.Candidate, id, docID string) (score float64, ok bool, err error) {
	d, err := r.doc(docID)
	if err != nil || d == nil {
		return 0, false, err
	}
	if c.Exact && !r.exhaustive {
		return c.Bound, true, nil
	}
	p, err := d.passage(id)
	if err != nil {
		return 0, false, err
	}
	if r.exhaustive {
		return r.ft.ScorePassage(r.q, p), true, nil
	}
	return rt.Score(c, p.Text), true, nil
}

// holds reports whether the board has document docID's passage slug at
// score already.
func (b *board) holds(docID, slug string, score float64) bool {
	if d, ok := b.docs[docID]; ok {
		for _, p := range d.passages {
			if p.slug == slug && p.score == score {
				return true
			}
		}
	}
	return false
}

// board is the documents a ranking has scored, each with its passages, and
// the limit-th best document score among them (theta): the score a
// passage must pass to change the top of the ranking.
type board struct {
	k     int
	docs  map[string]*rankedDoc
	order []string // documents in the order first scored
	th    float64
	dirty bool
}

// add records a passage's score; one that scores 0 (a phrase it lacks, an
// excluded word) does not match.
func (b *board) add(docID, slug string, score float64) {
	if score <= 0 {
		return
	}
	d, ok := b.docs[docID]
	if !ok {
		d = &rankedDoc{id: docID}
		b.docs[docID] = d
		b.order = append(b.order, docID)
	}
	d.passages = append(d.passages, passageHit{slug: slug, score: score})
	if score > d.score {
		d.score = score
		b.dirty = b.dirty || score > b.th
	}
}

// theta is the limit-th best document score, 0 while fewer documents
// matched.
func (b *board) theta() float64 {
	if !b.dirty {
		return b.th
	}
	b.dirty = false
	if len(b.docs) < b.k {
		b.th = 0
		return 0
	}
	scores := make([]float64, 0, len(b.docs))
	for _, d := range b.docs {
		scores = append(scores, d.score)
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(scores)))
	b.th = scores[b.k-1]
	return b.th
}

// ranking lists the named documents first (as written before once
// analyzed, then by score), then the others by score, documents of equal
// score by id (so that the order does not depend on the order they were
// read in), at most limit, each with its passages best first.
func (b *board) ranking(named map[string]int, limit int) []rankedDoc {
	out := make([]rankedDoc, 0, len(b.docs))
	for _, id := range b.order {
		d := b.docs[id]
		sort.SliceStable(d.passages, func(i, j int) bool { return d.passages[i].score > d.passages[j].score })
		out = append(out, *d)
	}
	sort.SliceStable(out, func(i, j int) bool {
		ni, nj := named[out[i].id], named[out[j].id]
		if ni != nj {
			return ni > nj
		}
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].id < out[j].id
	})
	return out[:min(limit, len(out))]
}

// names tells how the query equals one of the document's names: 6 one of
// passage.Config.Names (its title, its description) as written, up to
// case and spacing; 5 one of them once analyzed (up to plurals and
// punctuation); 2 and 1 the same of its file's name (passage.FileName),
// which a reader also types but which says less of the page than its
// title: a query equal to a title goes to that page before the pages of
// that file name; 0 not at all. (4 and 3 are a question heading's, a
// FAQ's entry, which names its section: below the page that question
// titles, above a file name; see named.)
func (r *ranking) names(rec *docir.Record) int {
	best := 0
	for _, n := range r.pc.Names(rec) {
		if l := r.nameLevel(n); l > 0 {
			if best = max(best, 4+l); best == 6 {
				return best
			}
		}
	}
	if best == 0 {
		if f := passage.FileName(rec); f != "" {
			best = r.nameLevel(f)
		}
	}
	return best
}

// nameLevel tells how the query equals the name n: 2 as written, up to
// case and spacing; 1 once analyzed (up to plurals and punctuation); 0
// not at all.
func (r *ranking) nameLevel(n string) int {
	switch {
	case strings.EqualFold(plainName(n), r.text):
		return 2
	case r.ft.Equal(r.q, n):
		return 1
	}
	return 0
}

// headingNamed tells how the query equals one of the document's question
// headings (passage.QuestionHeading: a FAQ's entry names its section), as
// names does its names, and that section's slug: the first heading the
// query says as written, else the first it says once analyzed.
func (r *ranking) headingNamed(rec *docir.Record) (level int, slug string) {
	for _, s := range rec.Sections {
		if !passage.QuestionHeading(s.Heading) {
			continue
		}
		if l := r.nameLevel(s.Heading); l > level {
			if level, slug = l, s.Slug; level == 2 {
				break
			}
		}
	}
	return level, slug
}

// plainName is a name or query as compared for equality: spaces folded,
// final punctuation dropped ("Transpile Sass to CSS." says "Transpile Sass
// to CSS").
func plainName(s string) string {
	return strings.TrimRight(strings.Join(strings.Fields(s), " "), ".:;!?")
}

// speakingSection: a section that says nothing past its heading
// (passage.QuietPassage: a generated page's footer, a heading left for
// later) is not a hit's matched section, since a read of it returns its
// heading alone: the document's best passage that says something is, of
// every passage scored on the query (see passageScores: so a rank-safe
// reading chooses as an exhaustive one), or else the document itself.
// The document's score does not change.
func (f *found) speakingSection() error {
	d := &f.doc
	if len(d.passages) == 0 || d.passages[0].slug == "" {
		return nil
	}
	cut := f.cutter()
	var failed error
	quiet := func(slug string) bool {
		i, ok := cut.Section(slug)
		if !ok {
			return false
		}
		q, err := f.quietSection(i)
		failed = cmp.Or(failed, err)
		return q
	}
	if !quiet(d.passages[0].slug) {
		return failed
	}
	all, err := f.passageScores()
	if err != nil {
		return err
	}
	for _, p := range all {
		if p.score > 0 && (p.slug == "" || !quiet(p.slug)) {
			promote(d, p.slug, p.score)
			return failed
		}
	}
	promote(d, "", 0)
	return failed
}

// quietSection says section i of the document says nothing past its
// heading, from its passage as the ranking cut it to score it
// (passage.QuietPassage), not by cutting it again.
func (f *found) quietSection(i int) (bool, error) {
	sec := f.rec.Sections[i]
	if sec.OwnEnd != sec.End {
		return false, nil
	}
	p, err := f.dt.passageKept(f.rec.ID+"#"+sec.Slug, false)
	if err != nil {
		return false, err
	}
	return passage.QuietPassage(p.Text), nil
}

// chooseSection settles which of a ranked document's sections is its
// matched section. The title is part of every passage's text, so a query
// that names the document scores its shortest sections highest on the
// title's words alone:
//
//   - when the query's words are all the title's (or it equals a name of
//     the document, see names), what matched is the document itself, and
//     the matched section is its lead (see leadSlug), never a short
//     section that only carries the title;
//   - when the query has words beyond the title ("retry budget examples"),
//     the sections are compared on those words only, and the best of them
//     goes first.
//
// The document's score does not change.
func (r *ranking) chooseSection(f *found) error {
	rec, d := &f.rec, &f.doc
	if len(rec.Sections) == 0 {
		return nil
	}
	shared, beyond := r.titleWords(rec)
	if shared && !beyond || r.names(&f.rec) > 0 {
		promote(d, "", 0)
		return nil
	}
	if level, slug := r.headingNamed(rec); level > 0 {
		promote(d, slug, 0) // the FAQ entry the query asks
		return nil
	}
	if !shared {
		return r.headingSays(rec, d)
	}
	if len(rec.Sections) < 2 {
		return nil
	}
	// The best of the document's passages on the words beyond the title.
	b, err := r.beyondTitle(rec)
	if err != nil {
		return err
	}
	named := r.namedSections(rec)
	best, bestNamed, bestSlug := 0.0, 0.0, ""
	for _, h := range b.whole {
		if h.score > best {
			best, bestSlug = h.score, h.slug
		}
	}
	for _, h := range b.sections {
		if n := named[h.slug]; n > bestNamed || n == bestNamed && h.score > best {
			best, bestNamed, bestSlug = h.score, n, h.slug
		}
	}
	if best > 0 || bestNamed > 0 {
		promote(d, bestSlug, best)
		return nil
	}
	// No passage holds a word beyond the title ("adr" of "ADR 25: Use
	// Elasticache for Redis"): only the title matched, in every passage
	// alike, and the best of them is the shortest (a record's two-word
	// *Status*). What matched is the document.
	promote(d, "", 0)
	return nil
}

// headingSays promotes, when the query shares no word with the document's
// title, the section whose own heading says the query (its words in order,
// adjacent: "8.0.0" in "8.0.0 November 28, 2021"), as a page's title does
// its page: of those sections, the one whose heading is most nearly the
// query (the largest share of its own heading's words that are the
// query's: "Bulk strings" before its subsection "Null bulk strings"), then
// the one that scores best on the whole query, if one scores above 0 (a
// section the query excludes, or that lacks its phrase, scores 0). Every
// such section is scored, whichever passages the ranking read, so a
// rank-safe reading chooses as an exhaustive one does.
func (r *ranking) headingSays(rec *docir.Record, d *rankedDoc) error {
	var says []docir.Section
	for _, sec := range rec.Sections {
		if r.q.SaidBy(r.heading(sec.Heading), func() []int { return r.headingWords(sec.Heading) }) {
			says = append(says, sec)
		}
	}
	if len(says) == 0 {
		return nil
	}
	dt, err := r.doc(rec.ID)
	if err != nil || dt == nil {
		return err
	}
	qs, sc := []*fulltext.Query{r.q}, []float64{0}
	best, bestShare, bestSlug := 0.0, 0.0, ""
	for _, sec := range says {
		p, err := dt.passageKept(rec.ID+"#"+sec.Slug, false)
		if err != nil {
			return err
		}
		r.scorer().ScoreEach(qs, p, sc)
		share := r.ownShare(sec.Heading)
		if sc[0] > 0 && (share > bestShare || share == bestShare && sc[0] > best) {
			best, bestShare, bestSlug = sc[0], share, sec.Slug
		}
	}
	if best > 0 {
		promote(d, bestSlug, best)
	}
	return nil
}

// ownShare is the share of the distinct words of heading that are the
// query's: how nearly the heading is the query (see headingSays and
// namedSections).
func (r *ranking) ownShare(heading string) float64 {
	asked := r.queryTerms()
	var own []string
	said := 0
	for _, t := range r.heading(heading) {
		if !slices.Contains(own, t) {
			own = append(own, t)
			if asked[t] {
				said++
			}
		}
	}
	return float64(said) / float64(max(len(own), 1))
}

// namedSections are the sections of rec that the query names, each with
// the share of its own heading's words that are the query's. A query
// names a section when the document's title and the section's heading path
// (its own heading and those above it, a heading that is the title left
// out) say every word of the query, and the heading path says at least
// one that the title does not: on a page titled "Tooltips", "adding
// tooltips" names "Adding tooltips" (every word of whose heading is the
// query's: 1) and "Adding abbreviations" (one of two: 0.5). The first is
// chosen (chooseSection), as a page's exact title chooses the page. (The
// share is of the own heading, not the path: "Model for Input" and "Model
// for Output" under "Models for Input and Output" have one path's words.)
// A heading that says the query, its words in order and adjacent
// (Query.SaidBy), counts 1 more: "RESP3 to Lua type conversion" names
// that section before its sibling "Lua to RESP3 type conversion", whose
// heading has the same words.
func (r *ranking) namedSections(rec *docir.Record) map[string]float64 {
	if n, ok := r.namedSecs[rec.ID]; ok {
		return n
	}
	n := r.sectionsNamed(rec)
	if r.namedSecs == nil {
		r.namedSecs = map[string]map[string]float64{}
	}
	r.namedSecs[rec.ID] = n
	return n
}

// sectionsNamed works namedSections out.
func (r *ranking) sectionsNamed(rec *docir.Record) map[string]float64 {
	title := r.titleTerms(rec)
	asked := r.queryTerms()
	type open struct {
		level int
		words []string // the distinct words of its heading path
	}
	var stack []open
	out := map[string]float64{}
	for _, sec := range rec.Sections {
		for len(stack) > 0 && stack[len(stack)-1].level >= sec.Level {
			stack = stack[:len(stack)-1]
		}
		var words []string
		if len(stack) > 0 {
			words = slices.Clone(stack[len(stack)-1].words)
		}
		if sec.Heading != rec.Title {
			for _, t := range r.heading(sec.Heading) {
				if !slices.Contains(words, t) {
					words = append(words, t)
				}
			}
		}
		stack = append(stack, open{sec.Level, words})
		all, beyond := true, false
		for t := range asked {
			all = all && (title[t] || slices.Contains(words, t))
			beyond = beyond || !title[t] && slices.Contains(words, t)
		}
		if !all || !beyond {
			continue
		}
		share := 0.0 // a heading that repeats the title says nothing of its own
		if sec.Heading != rec.Title {
			share = r.ownShare(sec.Heading)
		}
		if r.q.SaidBy(r.heading(sec.Heading), func() []int { return r.headingWords(sec.Heading) }) {
			share++ // its heading says the query, in its order: above a sibling with the same words
		}
		out[sec.Slug] = share
	}
	return out
}

// titleWords says whether the query has words of rec's title (shared) and
// words that are not (beyond). A word cut into parts is the title's only
// if every part is: "fs.readFile" is not the word "file" of a page titled
// *File system*.
//
// A function word beyond the title ("the", "to": fulltext.FunctionWord)
// is neither: it says how the query asks, not which section it asks for.
// So a query of the title's words and function words names the document
// (a review of Go's design proposals: "the godebug proposal" matched the
// three-line #implementation, the shortest section that says "the", and
// a page's exact title with one of to, of, the or is matched a section
// other than its top for 85 to 92 of 93 pages). Where the query has
// other words beyond the title, its function words are compared with
// them (beyondTitle): a span of a section's text is matched by its
// words in order, function words too (left out, section accuracy on the
// PowerShell spans fell from 238 to 228 of 250).
func (r *ranking) titleWords(rec *docir.Record) (shared, beyond bool) {
	title := r.titleTerms(rec)
	for _, w := range r.queryWords() {
		if functionWord(title, w) {
			continue
		}
		if inTitle(title, w) {
			shared = true
		} else {
			beyond = true
		}
	}
	return shared, beyond
}

// inTitle says whether every term of a query word is one of title's.
func inTitle(title map[string]bool, word []string) bool {
	for _, t := range word {
		if !title[t] {
			return false
		}
	}
	return true
}

// functionWord says whether a query word is one function word that the
// title does not hold (see titleWords).
func functionWord(title map[string]bool, word []string) bool {
	return len(word) == 1 && !title[word[0]] && fulltext.FunctionWord(word[0])
}

// titleSaid are the terms of title that the query says as the title's:
// a title term the query has only as a part of a word beyond the title
// ("file" of "fs.readFile" on *File system*) is not, and is scored with
// the words beyond it (beyondTitle).
func (r *ranking) titleSaid(title map[string]bool) map[string]bool {
	beyond := map[string]bool{}
	for _, w := range r.queryWords() {
		if !inTitle(title, w) {
			for _, t := range w {
				beyond[t] = true
			}
		}
	}
	said := map[string]bool{}
	for t := range title {
		if !beyond[t] {
			said[t] = true
		}
	}
	return said
}

// beyond is a document's passages scored on what a query says beyond the
// document's title: its lead and head (slug ""), and its sections, in
// document order. For a plan (ranking.plan), all is every passage scored
// on the whole query, those that score 0 left out (see
// found.passageScores).
type beyond struct {
	whole, sections []passageHit
	all             []passageHit
	// pruned: only the passages the best of them needs were scored
	// (beyondRead), not every passage; every: all was scored (each
	// passage on the whole query).
	pruned, every bool
}

// beyondTitle scores the passages of rec on what the query says beyond the
// document's title, once per document: the matched section is chosen by it
// (chooseSection) and a context plan reads a top document's other sections
// by it (found.sectionScores). Empty when the query says nothing beyond the
// title.
func (r *ranking) beyondTitle(rec *docir.Record) (beyond, error) {
	return r.beyondTitleOf(rec, false)
}

// beyondTitleOf is beyondTitle, with every passage scored, on the words
// beyond the title and on the whole query (beyond.all), when every is true:
// a search reads only the passages the best of them needs, and scores none
// on the whole query, which a plan (r.plan) and a best section that says
// nothing (speakingSection) need.
func (r *ranking) beyondTitleOf(rec *docir.Record, every bool) (beyond, error) {
	if b, ok := r.beyond[rec.ID]; ok && (!every || b.every) {
		return b, nil
	}
	title := r.titleSaid(r.titleTerms(rec))
	var b beyond
	if rest := r.q.Without(title); len(rest.Terms()) > 0 {
		d, err := r.doc(rec.ID)
		if err != nil || d == nil {
			return b, err
		}
		if _, err := d.wholeBody(); err != nil { // every passage of it is read
			return b, err
		}
		// A plan scores every passage on the whole query too, from the
		// same analysis, and so does a query with a phrase: the words
		// beyond the title are scored without it (Without), and a passage
		// that lacks it is no match, whatever they score.
		phrased, whole := !r.q.Plain(), r.plan || every
		b.every = whole
		qs := []*fulltext.Query{rest}
		if whole || phrased {
			qs = append(qs, r.q)
		}
		// A search (not a plan, nor the exhaustive reference) needs the
		// best of them only: the passages beyondRead scored; one whose
		// bound is below the best score found is left out.
		var read map[string]float64
		if len(qs) == 1 && !r.exhaustive && !every {
			var err error
			if read, err = r.beyondRead(rec, rest); err != nil {
				return b, err
			}
			b.pruned = true
		}
		sc := make([]float64, len(qs))
		score := func(id, slug string, to *[]passageHit) error {
			known, ok := read[id]
			if read != nil && !ok {
				return nil // it cannot be the best
			}
			p, err := d.passageKept(id, false)
			if err != nil || p.Text == "" && p.Head == "" {
				return err
			}
			if ok {
				sc[0] = known
			} else {
				r.scorer().ScoreEach(qs, p, sc)
			}
			if phrased && sc[1] == 0 {
				sc[0] = 0
			}
			if p.Text != "" {
				*to = append(*to, passageHit{slug: slug, score: sc[0]})
			}
			if whole && sc[1] > 0 {
				b.all = append(b.all, passageHit{slug: slug, score: sc[1]})
			}
			return nil
		}
		if err := score(rec.ID, "", &b.whole); err != nil {
			return b, err
		}
		if err := score(rec.ID+passage.HeadSuffix, "", &b.whole); err != nil {
			return b, err
		}
		for _, sec := range rec.Sections {
			if err := score(rec.ID+"#"+sec.Slug, sec.Slug, &b.sections); err != nil {
				return b, err
			}
		}
	}
	if r.beyond == nil {
		r.beyond = map[string]beyond{}
	}
	r.beyond[rec.ID] = b
	return b, nil
}

// beyondRead scores the passages of rec on rest (the words beyond its
// title) that the best of them needs, by passage id: best bound first
// (each one's bound from the index, Retrieval.Passages), until a bound is
// below the best score found, which no passage left can then reach, nor
// tie (the bounds are let a rounding's slack). The sections the query names
// (namedSections) are scored whatever their bound: they are chosen before
// a better score. So chooseSection chooses as when every passage is scored
// (TestRankSafe compares it with the exhaustive reading, which scores
// them all), on the same scores (Scorer.ScoreEach). A passage the index
// does not hold for rest (one that holds a word the query excludes) is
// scored as before.
func (r *ranking) beyondRead(rec *docir.Record, rest *fulltext.Query) (map[string]float64, error) {
	d, err := r.doc(rec.ID)
	if err != nil || d == nil {
		return nil, err
	}
	rt, err := r.ft.Retrieve(r.ctx, rest)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	type passageOf struct {
		id, slug string
		bound    float64
		always   bool // named by the query, or not held for rest: scored whatever its bound
	}
	ps := []passageOf{{id: rec.ID}, {id: rec.ID + passage.HeadSuffix}}
	for _, sec := range rec.Sections {
		ps = append(ps, passageOf{id: rec.ID + "#" + sec.Slug, slug: sec.Slug})
	}
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.id
	}
	cands, err := rt.Passages(ids)
	if err != nil {
		return nil, err
	}
	held := map[string]float64{} // the bound of each passage the index holds for rest
	for i := range cands {
		id, err := rt.ID(&cands[i])
		if err != nil {
			return nil, err
		}
		held[id] = cands[i].Bound
	}
	named := r.namedSections(rec)
	for i := range ps {
		b, ok := held[ps[i].id]
		ps[i].bound, ps[i].always = b, !ok || ps[i].slug != "" && named[ps[i].slug] > 0
	}
	slices.SortStableFunc(ps, func(a, b passageOf) int {
		if a.always != b.always {
			if a.always {
				return -1
			}
			return 1
		}
		return cmp.Compare(b.bound, a.bound)
	})
	read := map[string]float64{}
	qs, sc := []*fulltext.Query{rest}, []float64{0}
	best := 0.0
	for _, p := range ps {
		if !p.always && p.bound < best*(1-1e-9) {
			break // best bound first: none after it reaches the best
		}
		pass, err := d.passageKept(p.id, false)
		if err != nil {
			return nil, err
		}
		r.scorer().ScoreEach(qs, pass, sc)
		read[p.id] = sc[0]
		best = max(best, sc[0])
	}
	return read, nil
}

// titleTerms are the terms of rec's title and of its file name
// (passage.FileName), analyzed once a ranking (a document's section choice
// asks for them three times: titleWords, beyondTitle, namedSections). Both
// name the document, and both are in every passage's head
// (passage.headingPath), so a query word found only there tells no
// section from another: "cert" of 0007-puppet-cert-management.md, titled
// *Puppet certificate management*, scored as a word beyond the title, made
// the shortest section the match (a record's two-word *Status*). The
// folders above are not the document's name but its collection's, and a
// section's text that says one ("deploy" of host-and-deploy/) still
// counts.
func (r *ranking) titleTerms(rec *docir.Record) map[string]bool {
	if t, ok := r.titles[rec.ID]; ok {
		return t
	}
	t := map[string]bool{}
	for _, s := range [...]string{rec.Title, passage.FileName(rec)} {
		for _, term := range r.ft.Terms(s) {
			t[term] = true
		}
		for _, w := range r.ft.CatenationWords(s) {
			t[w] = true // "statefulset" typed is the title's StatefulSet
		}
	}
	if r.titles == nil {
		r.titles = map[string]map[string]bool{}
	}
	r.titles[rec.ID] = t
	return t
}

// queryWords are the query's terms by the word they were cut from
// (fulltext.Query.Words), worked out once a ranking.
func (r *ranking) queryWords() [][]string {
	if r.qwords == nil {
		r.qwords = r.q.Words()
	}
	return r.qwords
}

// queryTerms are the query's distinct terms, as a set.
func (r *ranking) queryTerms() map[string]bool {
	if r.asked == nil {
		r.asked = map[string]bool{}
		for _, t := range r.q.Terms() {
			r.asked[t] = true
		}
	}
	return r.asked
}

// heading is a heading's terms in order, analyzed once a ranking:
// documents of one template share their headings (every KEP asks "How can
// this feature be enabled / disabled in a live cluster?"), and a heading
// is read both for the words it holds (namedSections) and for the query
// said in it (headingSays).
func (r *ranking) heading(heading string) []string {
	if ts, ok := r.headings[heading]; ok {
		return ts
	}
	ts := r.ft.Tokens(heading)
	if r.headings == nil {
		r.headings = map[string][]string{}
	}
	r.headings[heading] = ts
	return ts
}

// headingWords numbers the word each of a heading's terms was cut from
// (fulltext.Index.Words), once a ranking: a heading that holds the query's
// terms says it only as whole words (Query.SaidBy).
func (r *ranking) headingWords(heading string) []int {
	if ws, ok := r.words[heading]; ok {
		return ws
	}
	_, ws := r.ft.Words(heading)
	if r.words == nil {
		r.words = map[string][]int{}
	}
	r.words[heading] = ws
	return ws
}

// byDocumentOrder sorts a document's passages best first, those of equal
// score in the order the document has them (its lead, "", first): which of
// two passages that tie is the hit's does not depend on the order a
// reading scored them in.
func byDocumentOrder(ps []passageHit, rec *docir.Record) {
	var order map[string]int // by slug, made on the first tie (a page of many like sections ties often)
	at := func(slug string) int {
		if order == nil {
			order = make(map[string]int, len(rec.Sections)+1)
			order[""] = -1
			for i, s := range rec.Sections {
				if _, ok := order[s.Slug]; !ok {
					order[s.Slug] = i
				}
			}
		}
		if i, ok := order[slug]; ok {
			return i
		}
		return -1
	}
	slices.SortStableFunc(ps, func(a, b passageHit) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(at(a.slug), at(b.slug))
	})
}

// promote puts the passage slug first among d's passages, keeping its score
// if d has it (else score).
func promote(d *rankedDoc, slug string, score float64) {
	if len(d.passages) > 0 && d.passages[0].slug == slug {
		return
	}
	first := passageHit{slug: slug, score: score}
	rest := []passageHit{first}
	for _, p := range d.passages {
		if p.slug == slug {
			first.score = p.score
			rest[0] = first
			continue
		}
		rest = append(rest, p)
	}
	d.passages = rest
}

// leadSlug names the document's lead section: "" (the document itself)
// when it has prose before its first heading, or no heading at all; else
// its first section. Template markup and comments are not prose.
func leadSlug(rec *docir.Record, body []byte) string {
	if len(rec.Sections) == 0 {
		return ""
	}
	from, to := rec.LeadSpan(len(body))
	if from < to && strings.TrimSpace(passage.Prose(string(body[from:to]), true)) != "" {
		return ""
	}
	return rec.Sections[0].Slug
}

// hit builds the skeleton hit of a ranked document: its best passage is
// the matched section, and the snippet comes from that passage's own text,
// markup that is not prose left out. When the best passage is the
// document's head or lead, the matched section is its lead section and the
// snippet reads from its front-matter prose (a description) and then the
// lead's text.
func (f *found) hit() docir.Hit {
	if f.made == nil {
		h := f.makeHit()
		f.made = &h
	}
	return *f.made
}

// makeHit is hit, made.
func (f *found) makeHit() docir.Hit {
	rec, body, d := &f.rec, f.body, f.doc
	hit := docir.Hit{ID: rec.ID, Title: rec.Title, Path: rec.Path, Store: docir.StoreLocal, Score: d.score, MatchedSection: rec.ID}
	slug, prefix := "", ""
	if len(d.passages) > 0 {
		slug = d.passages[0].slug
	}
	whole := slug == "" // the page matched as a whole: its lead, title or front matter
	if whole {
		slug = leadSlug(rec, body)
		prefix = f.pc.FrontMatterProse(rec)
	}
	from, to := rec.LeadSpan(len(body))
	if slug != "" {
		hit.MatchedSection = rec.ID + "#" + slug
		for _, sec := range rec.Sections {
			if sec.Slug == slug {
				from, to = sec.Start, sec.OwnEnd
				if sec.End > sec.OwnEnd && to <= len(body) && headingOnly(passage.Prose(string(body[from:to]), false)) {
					// A heading straight over its subsections (a runbook's
					// `# KubeletDown` over `## Meaning`): the snippet reads
					// on into them, the text a get of the section returns.
					to = min(sec.End, len(body))
				}
				break
			}
		}
	}
	if from <= to && to <= len(body) {
		text := passage.Prose(string(body[from:to]), from == rec.MarkdownStart)
		f.prose = text
		if whole {
			// What a page matched as a whole says is its title and front
			// matter too: pages that share a lead's boilerplate line
			// ("This page is for version 2") are not copies (sameText).
			f.prose = rec.Title + "\n" + prefix + "\n" + text
		}
		if prefix != "" {
			text = prefix + "\n" + text
		}
		hit.Snippet = Snippet(text, f.q, docir.SnippetMax)
	}
	return hit
}

// headingOnly reports whether text, a section's own text as prose, is its
// heading's line and nothing else.
func headingOnly(text string) bool {
	_, rest, _ := strings.Cut(strings.TrimLeft(text, " \t\r\n"), "\n")
	return strings.TrimSpace(rest) == ""
}

// CheckQuery checks the query and limit of a search or context request and
// returns the trimmed query and the limit (DefaultLimit for 0).
func CheckQuery(method, query string, limit int) (string, int, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return "", 0, docir.Errorf(docir.CodeInvalidParams, "%s: empty query", method)
	}
	if len(q) > docir.MaxQueryBytes {
		return "", 0, docir.Errorf(docir.CodeInvalidParams, "%s: query of %d bytes, over the %d-byte bound", method, len(q), docir.MaxQueryBytes)
	}
	limit, err := CheckLimit(limit)
	return q, limit, err
}

// CheckLimit checks a request's hit limit: 0 is DefaultLimit.
func CheckLimit(n int) (int, error) {
	switch {
	case n == 0:
		return docir.DefaultLimit, nil
	case n < 0 || n > docir.MaxLimit:
		return 0, docir.Errorf(docir.CodeInvalidParams, "limit %d: want 1 to %d", n, docir.MaxLimit)
	}
	return n, nil
}
