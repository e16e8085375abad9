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
	"context"
	"sort"
	"strings"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/fulltext"
	"github.com/docir/docir/store/ingest"
)

// IndexFunc returns the generation's full-text index, opening it on first
// use; rank calls it only when a read needs the index.
type IndexFunc = func() (*fulltext.Index, error)

// MaxQueryBytes bounds a free-text query.
const MaxQueryBytes = 4096

// Search ranks documents for a free-text query; each hit names the section
// where the match is best.
func Search(ctx context.Context, snap *store.Snapshot, idx IndexFunc, p docir.SearchParams) (docir.SearchResult, error) {
	q, limit, err := CheckQuery("search", p.Query, p.Limit)
	if err != nil {
		return docir.SearchResult{}, err
	}
	res := docir.SearchResult{Query: q, Hits: []docir.Hit{}}
	res.Total, err = eachHit(ctx, snap, idx, q, limit, func(h *found) error {
		res.Hits = append(res.Hits, h.hit())
		return nil
	})
	if err != nil {
		return docir.SearchResult{}, err
	}
	return res, nil
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
	pc   ingest.PassageConfig // what the generation's index holds of front matter
}

// eachHit ranks documents for q and calls fn for each one still in the
// generation, in rank order, with its matched section chosen. It returns
// the number of matching passages.
func eachHit(ctx context.Context, snap *store.Snapshot, idx IndexFunc, q string, limit int, fn func(*found) error) (int, error) {
	ft, err := idx()
	if err != nil {
		return 0, err
	}
	r := &ranking{ctx: ctx, ft: ft, snap: snap, docs: map[string]*docText{}}
	// Search with the front-matter fields the generation was indexed with.
	if fm, ok, err := snap.FrontMatter(); err != nil {
		return 0, err
	} else if ok {
		r.pc.FrontMatter = fm
	}
	docs, total, err := r.rank(q, limit)
	if err != nil {
		return 0, err
	}
	for _, d := range docs {
		dt, err := r.doc(d.id)
		if err != nil {
			return 0, err
		}
		if dt == nil {
			continue
		}
		f := &found{rec: dt.rec, body: dt.body, doc: d, q: q, pc: r.pc}
		if err := r.chooseSection(f); err != nil {
			return 0, err
		}
		if err := fn(f); err != nil {
			return 0, err
		}
	}
	return total, nil
}

// ranking is one ranked read: the index, the generation, and the documents
// it has read so far.
type ranking struct {
	ctx  context.Context
	ft   *fulltext.Index
	snap *store.Snapshot
	q    *fulltext.Query
	text string               // the query as plainName has it
	docs map[string]*docText  // nil value: not in the generation
	pc   ingest.PassageConfig // the front matter the generation's index holds
}

// docText is a document read from the generation, with the text of its
// passages as the index was given them.
type docText struct {
	pc       ingest.PassageConfig
	rec      docir.Record
	body     []byte
	passages map[string]string // passage id -> text; built on first use
}

func (r *ranking) doc(id string) (*docText, error) {
	if d, ok := r.docs[id]; ok {
		return d, nil
	}
	rec, body, ok, err := r.snap.Lookup(id)
	if err != nil {
		return nil, err
	}
	var d *docText
	if ok {
		d = &docText{pc: r.pc, rec: rec, body: body}
	}
	r.docs[id] = d
	return d, nil
}

func (d *docText) passage(id string) string {
	if d.passages == nil {
		ps := d.pc.Passages(&d.rec, d.body)
		d.passages = make(map[string]string, len(ps))
		for _, p := range ps {
			d.passages[p.ID] = p.Text
		}
	}
	return d.passages[id]
}

// RescoreDepth is how many of the index's best passages are scored again on
// their text, with word order (fulltext.Index.Rescore).
//
// 40 keeps RFC document recall@1 at 0.987 (20: 0.970, 60: 0.997, at 1.5
// times the query time); the Hugo and tldr sets do not move from 20 up.
const RescoreDepth = 40

// rank scores documents for a free-text query. The index scores passages
// (section texts) on their words; the best RescoreDepth of them are scored
// again on their text, where the query's words in the query's order count.
// A document scores as its best passage, which is its matched section, and
// keeps its other matching passages in score order. Passages are read in
// growing windows until limit documents are found or the matches run out.
// total is the number of matching passages.
func (r *ranking) rank(q string, limit int) ([]rankedDoc, int, error) {
	pq, err := r.ft.Prepare(r.ctx, q)
	if err != nil {
		return nil, 0, err
	}
	r.q, r.text = pq, plainName(q)
	var docs []rankedDoc
	at := map[string]int{}
	add := func(ms []fulltext.Match) {
		for _, m := range ms {
			id, slug, _ := strings.Cut(m.ID, "#")
			i, ok := at[id]
			if !ok {
				i = len(docs)
				at[id] = i
				docs = append(docs, rankedDoc{id: id, score: m.Score})
			}
			docs[i].passages = append(docs[i].passages, passageHit{slug: slug, score: m.Score})
		}
	}
	window, offset := max(4*limit, 40, RescoreDepth), 0
	floor := 0.0 // the lowest rescored score: passages past the rescored ones score below it
	for {
		matches, total, err := r.ft.Page(r.ctx, pq, window, offset)
		if err != nil {
			return nil, 0, err
		}
		if offset == 0 {
			n := min(RescoreDepth, len(matches))
			if floor, err = r.rescore(matches[:n]); err != nil {
				return nil, 0, err
			}
		} else {
			for i := range matches {
				matches[i].Score = min(matches[i].Score, floor)
			}
		}
		add(matches)
		offset += len(matches)
		if len(docs) >= limit || len(matches) < window || uint64(offset) >= total || offset >= maxPassages {
			return docs[:min(limit, len(docs))], int(total), nil
		}
		window *= 4
	}
}

// rescore scores ms again on their passages' text and sorts them best
// first (index order among equals); it returns the lowest score. A passage
// whose document is gone keeps its place with its index score.
func (r *ranking) rescore(ms []fulltext.Match) (float64, error) {
	floor := 0.0
	for i := range ms {
		id, _, _ := strings.Cut(ms[i].ID, "#")
		d, err := r.doc(id)
		if err != nil {
			return 0, err
		}
		if d != nil {
			ms[i].Score = r.ft.Rescore(r.q, d.passage(ms[i].ID))
		}
		if i == 0 || ms[i].Score < floor {
			floor = ms[i].Score
		}
	}
	// A query that equals a document's title or description asks for that
	// document: it goes above every document that the query only matches,
	// and one that says it as written (up to case and spacing) above one
	// equal only once analyzed ("Glob patterns" above "glob pattern").
	top := 0.0
	for _, m := range ms {
		top = max(top, m.Score)
	}
	named := map[string]int{}
	for i := range ms {
		id, _, _ := strings.Cut(ms[i].ID, "#")
		d := r.docs[id]
		if d == nil {
			continue
		}
		is, ok := named[id]
		if !ok {
			is = r.names(d)
			named[id] = is
		}
		ms[i].Score += float64(is) * top
	}
	sort.SliceStable(ms, func(a, b int) bool { return ms[a].Score > ms[b].Score })
	return floor, nil
}

// names tells how the query equals one of the document's names (see
// ingest.PassageConfig.Names): 2 as written, up to case and spacing; 1 once
// analyzed (up to plurals and punctuation); 0 not at all.
func (r *ranking) names(d *docText) int {
	best := 0
	for _, n := range r.pc.Names(&d.rec) {
		switch {
		case strings.EqualFold(plainName(n), r.text):
			return 2
		case r.ft.Equal(r.q, n):
			best = 1
		}
	}
	return best
}

// plainName is a name or query as compared for equality: spaces folded,
// final punctuation dropped ("Transpile Sass to CSS." says "Transpile Sass
// to CSS").
func plainName(s string) string {
	return strings.TrimRight(strings.Join(strings.Fields(s), " "), ".:;!?")
}

// maxPassages bounds how many passages one ranking reads.
const maxPassages = 20000

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
	title := map[string]bool{}
	for _, t := range r.ft.Terms(rec.Title) {
		title[t] = true
	}
	shared, beyond := false, false
	for _, t := range r.q.Terms() {
		if title[t] {
			shared = true
		} else {
			beyond = true
		}
	}
	if shared && !beyond || r.names(&docText{rec: f.rec}) > 0 {
		promote(d, "", 0)
		return nil
	}
	if !shared || len(rec.Sections) < 2 {
		return nil
	}
	// Score the document's passages on the words beyond the title.
	d2, err := r.doc(rec.ID)
	if err != nil || d2 == nil {
		return err
	}
	rest := r.q.Without(title)
	best, bestSlug := 0.0, ""
	ids := make([]string, 0, len(rec.Sections)+2)
	ids = append(ids, rec.ID, rec.ID+ingest.HeadSuffix)
	for _, sec := range rec.Sections {
		ids = append(ids, rec.ID+"#"+sec.Slug)
	}
	for _, id := range ids {
		text := d2.passage(id)
		if text == "" {
			continue
		}
		if sc := r.ft.Rescore(rest, text); sc > best {
			_, slug, _ := strings.Cut(id, "#")
			best, bestSlug = sc, slug
		}
	}
	if best > 0 {
		promote(d, bestSlug, best)
	}
	return nil
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
	from, to := min(rec.MarkdownStart, len(body)), min(rec.Sections[0].Start, len(body))
	if from < to && strings.TrimSpace(ingest.Prose(string(body[from:to]), true)) != "" {
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
	rec, body, d := &f.rec, f.body, f.doc
	hit := docir.Hit{ID: rec.ID, Title: rec.Title, Path: rec.Path, Store: docir.StoreLocal, Score: d.score, MatchedSection: rec.ID}
	slug, prefix := "", ""
	if len(d.passages) > 0 {
		slug = d.passages[0].slug
	}
	if slug == "" {
		slug = leadSlug(rec, body)
		prefix = f.pc.FrontMatterProse(rec)
	}
	from, to := min(rec.MarkdownStart, len(body)), len(body)
	if len(rec.Sections) > 0 {
		to = min(rec.Sections[0].Start, len(body))
	}
	if slug != "" {
		hit.MatchedSection = rec.ID + "#" + slug
		for _, sec := range rec.Sections {
			if sec.Slug == slug {
				from, to = sec.Start, sec.OwnEnd
				break
			}
		}
	}
	if from <= to && to <= len(body) {
		text := ingest.Prose(string(body[from:to]), from == rec.MarkdownStart)
		if prefix != "" {
			text = prefix + "\n" + text
		}
		hit.Snippet = Snippet(text, f.q, SnippetMax)
	}
	return hit
}

// CheckQuery checks the query and limit of a search or context request and
// returns the trimmed query and the limit (DefaultLimit for 0).
func CheckQuery(method, query string, limit int) (string, int, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return "", 0, docir.Errorf(docir.CodeInvalidParams, "%s: empty query", method)
	}
	if len(q) > MaxQueryBytes {
		return "", 0, docir.Errorf(docir.CodeInvalidParams, "%s: query of %d bytes, over the %d-byte bound", method, len(q), MaxQueryBytes)
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
