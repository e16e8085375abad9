package rank

import (
	"cmp"
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/passage"
)

// Context ranks documents like Search, then plans the ordered addresses to
// read next within the token budget: the sections the ranking matched in
// the order of their scores (see steps; a small document whole), best
// first, until the next one does not fit what is left of the budget (see
// readPlan.add). Nothing planned overlaps anything planned before it. The
// documents the plan reads from carry their outline (see outline) with
// token estimates; the others none. docs/ranking.md ("The token budget")
// states the plan's rules, one sentence each.
func Context(ctx context.Context, snap *store.Snapshot, idx IndexFunc, p docir.ContextParams) (docir.ContextResult, error) {
	return contextOf(ctx, snap, idx, p, false)
}

// ReferenceContext is Context on the ranking of an exhaustive reading
// (Reference): what Context must equal, however much its reading passes
// over.
func ReferenceContext(ctx context.Context, snap *store.Snapshot, idx IndexFunc, p docir.ContextParams) (docir.ContextResult, error) {
	return contextOf(ctx, snap, idx, p, true)
}

func contextOf(ctx context.Context, snap *store.Snapshot, idx IndexFunc, p docir.ContextParams, exhaustive bool) (docir.ContextResult, error) {
	q, limit, err := CheckQuery("context", p.Query, p.Limit)
	if err != nil {
		return docir.ContextResult{}, err
	}
	budget := p.Budget
	switch {
	case budget == 0:
		budget = docir.DefaultBudget
	case budget < 0 || budget > docir.MaxBudget:
		return docir.ContextResult{}, docir.Errorf(docir.CodeInvalidParams, "budget %d: want 1 to %d tokens", budget, docir.MaxBudget)
	}
	res := docir.ContextResult{Query: q, Budget: budget, Hits: []docir.ContextHit{}, Addresses: []string{}, Generation: snap.Generation()}
	all, also, words, err := rankPlanned(ctx, snap, idx, q, limit, exhaustive)
	if err != nil {
		return docir.ContextResult{}, err
	}
	if !words {
		res.Warnings = append(res.Warnings, NoWords(q))
	} else if len(all) == 0 {
		res.Warnings = append(res.Warnings, missWarnings(q)...)
	}
	if len(all) == 0 {
		w, err := emptyStore(snap)
		if err != nil {
			return docir.ContextResult{}, err
		}
		res.Warnings = append(res.Warnings, w...)
	}
	for i := range all {
		h := all[i].hit
		h.Also = also[h.ID]
		res.Hits = append(res.Hits, docir.ContextHit{Hit: h, Tokens: all[i].whole, Outline: []docir.OutlineEntry{}})
	}
	plan := makePlan(all, budget)
	plan.mergeSubsections(all)
	// Outlines only for the documents the plan reads from.
	for i := range all {
		if len(plan.taken[all[i].rec.ID]) > 0 {
			res.Hits[i].Outline = outline(&all[i], min(max(budget/OutlineTokens, MinOutline), MaxOutline), plan.planned)
		}
	}
	res.Addresses, res.Tokens = plan.addrs, plan.used
	return res, nil
}

// makePlan plans the reads of steps(all) in order until one does not fit
// what is left of the budget, or scores under ReadFloor of the best read
// (planned or not): the plan is the best reads in order, and a later,
// smaller read that would still fit is worth less than the one left out.
// A small document whose whole read does not fit is narrowed instead: its
// matched sections follow it in steps, at their own scores. The floor is
// the best read's, not the first planned one's: with a budget too small
// for the best reads, a plan of whatever weak read fits first, and of
// reads a fifth as good as that, planned sections unrelated to the query
// (an OpenTelemetry review: `--budget 100` read `trace/sdk#enabled` for a
// question on ForceFlush).
func makePlan(all []planned, budget int) *readPlan {
	plan := newReadPlan(budget)
	best := -1.0 // the score of the best read, the first step
	for _, st := range steps(all, budget/ShortShare) {
		if best < 0 {
			best = st.score
			plan.floor = ReadFloor * best
		}
		if st.score < ReadFloor*best {
			break
		}
		plan.full = false
		added := plan.addStep(st)
		if !added && plan.full && !(st.whole && len(st.d.rec.Sections) > 0) || plan.ended {
			break
		}
	}
	return plan
}

// rankPlanned ranks documents for q as search does, each as the read plan
// sees it, with the matched sections left out as repeats (see eachHit),
// and says whether the query has a word to rank (see NoWords).
func rankPlanned(ctx context.Context, snap *store.Snapshot, idx IndexFunc, q string, limit int, exhaustive bool) ([]planned, map[string][]string, bool, error) {
	var all []planned
	_, words, also, err := eachHit(ctx, snap, idx, q, limit, exhaustive, true, func(f *found) error {
		sections, err := f.sectionScores()
		if err != nil {
			return err
		}
		matched, err := f.passageScores()
		if err != nil {
			return err
		}
		quiet, err := quietSections(f, f.doc.passages, matched, sections)
		if err != nil {
			return err
		}
		tc := newTokenCounter(f.body)
		start := min(f.rec.BodyStart, len(f.body))
		all = append(all, planned{rec: f.rec, doc: f.doc, hit: f.hit(), tc: tc, whole: tc.count(start, len(f.body)), size: len(f.body),
			lead: leadSlug(&f.rec, f.body), sections: sections, matched: matched, cut: f.cutter(), body: f.body, blank: emptyPage(&f.rec, f.body), quiet: quiet})
		return nil
	})
	return all, also, words, err
}

// OutlineDepth is how many heading levels an outline shows, from the
// document's top level down; a section the plan reads, and the sections
// around it, show at any depth. An outline holds at most one entry per
// OutlineTokens tokens of the budget, at least MinOutline and at most
// MaxOutline, besides the planned sections and their ancestors, which it
// always holds. A context reply must stay within the order of magnitude of
// its budget: a 4,000-token plan once came with 283 KB of outlines of 676
// long design documents.
const (
	OutlineDepth  = 2
	OutlineTokens = 100
	MinOutline    = 8
	MaxOutline    = 40
)

// outline lists a planned document's sections with the tokens a read of
// each would return: those within OutlineDepth levels of its top level, at
// most n of them, and at every level the sections planned (planned holds
// their addresses) with their ancestors, so that every heading the plan
// recommends is in its outline.
func outline(d *planned, n int, planned map[string]bool) []docir.OutlineEntry {
	secs := d.rec.Sections
	top := 0
	for _, sec := range secs {
		if top == 0 || sec.Level < top {
			top = sec.Level
		}
	}
	// Keep the planned sections and their ancestors: walking back from a
	// planned section, each section of a lower level is an ancestor.
	keep := make([]bool, len(secs))
	for i, sec := range secs {
		if !planned[d.rec.ID+"#"+sec.Slug] {
			continue
		}
		keep[i] = true
		level := sec.Level
		for j := i - 1; j >= 0 && level > top; j-- {
			if secs[j].Level < level {
				keep[j], level = true, secs[j].Level
			}
		}
	}
	out := []docir.OutlineEntry{}
	shown := 0
	for i, sec := range secs {
		switch {
		case keep[i]:
		case sec.Level < top+OutlineDepth && shown < n:
			shown++
		default:
			continue
		}
		out = append(out, docir.OutlineEntry{
			Address: d.rec.ID + "#" + sec.Slug,
			Heading: sec.Heading,
			Level:   sec.Level,
			Tokens:  d.tc.count(sec.Start, sec.End),
		})
	}
	return out
}

// planned is one ranked document as the read plan sees it.
type planned struct {
	rec      docir.Record
	doc      rankedDoc
	hit      docir.Hit // as search shows it
	tc       tokenCounter
	whole    int                // tokens of the whole document
	size     int                // bytes of its file
	lead     string             // its lead section's slug (see leadSlug)
	sections []passageHit       // every section scored on the query's words beyond the title, best first
	matched  []passageHit       // every passage scored on the query, best first (see found.passageScores)
	cut      *passage.Cutter    // finds a section by its slug (its sections are rec's; built on first use when nil)
	body     []byte             // its file's bytes (nil in tests of plans alone)
	blank    bool               // it says nothing past its front matter (see emptyPage)
	quiet    map[string]bool    // whether each section steps may read says nothing past its heading (see quietSections)
	score    map[string]float64 // the score steps gives each section it plans, by slug
	best     map[string]float64 // by slug, the best score of a section and its subsections (see bests)
}

// bests is, by slug, the best score of each of d's sections and its
// subsections (subtreeBests of score), worked out once a plan.
func (d *planned) bests() map[string]float64 {
	if d.best == nil {
		d.best = subtreeBests(d.rec.Sections, d.score)
	}
	return d.best
}

// ShortShare: a document is short, and read whole rather than by its
// matched sections, when it takes at most 1/ShortShare of the budget (1,000
// tokens of the default 4,000): the section scores that choose among a
// document's sections are least sure where a question is not worded as the
// page is, and a short page read whole holds whichever section answers, at
// a cost bounded by what the caller said it would read.
const ShortShare = 4

// EstimateTokens estimates the tokens an LLM tokenizer makes of text: a
// quarter token per byte, plus a quarter for each character of three or
// more UTF-8 bytes (Han, kana, Hangul, Thai, Indic scripts...), so that each
// of those counts one token; rounded up. Measured against two real BPE
// vocabularies in docs/ranking.md: within a few percent on English prose.
func EstimateTokens(text []byte) int {
	return newTokenCounter(text).count(0, len(text))
}

// tokenCounter estimates the tokens of byte ranges of one body in constant
// time, after one pass over it. It keeps a count of the wide characters
// before every tokenBlock-th byte, not before every byte (4 bytes of
// memory per byte of the body, for each document a plan considers: 93 MB
// for 200 documents of 116 KB), and counts those of the rest of a block
// when asked.
type tokenCounter struct {
	body []byte
	wide []int32 // wide[k]: wide characters in body[:k*tokenBlock]
}

// tokenBlock is the bytes of a body per count a tokenCounter keeps.
const tokenBlock = 64

func newTokenCounter(body []byte) tokenCounter {
	wide := make([]int32, len(body)/tokenBlock+1)
	n := int32(0)
	for i, c := range body {
		if i%tokenBlock == 0 {
			wide[i/tokenBlock] = n
		}
		if c >= 0xE0 {
			n++
		}
	}
	if len(body)%tokenBlock == 0 {
		wide[len(body)/tokenBlock] = n
	}
	return tokenCounter{body: body, wide: wide}
}

// wideBefore is the number of wide characters in body[:i].
func (t tokenCounter) wideBefore(i int) int {
	k := i / tokenBlock
	n := int(t.wide[k])
	for _, c := range t.body[k*tokenBlock : i] {
		if c >= 0xE0 {
			n++
		}
	}
	return n
}

// count estimates the tokens of body[from:to] by the rule EstimateTokens
// states.
func (t tokenCounter) count(from, to int) int {
	return (to - from + t.wideBefore(to) - t.wideBefore(from) + 3) / 4
}

// readPlan collects the addresses to read within a budget, never naming a
// range that overlaps one already planned (a section and its parent, or a
// document and its sections).
type readPlan struct {
	budget, used int
	full         bool    // the last read refused fits the budget but not what is left of it
	ended        bool    // a read taken in parts ran out of budget (see addFromTop): the plan is over
	floor        float64 // no read scores under it (ReadFloor of the best read; see makePlan)
	addrs        []string
	planned      map[string]bool     // the addresses in addrs
	taken        map[string][][2]int // doc id -> byte ranges already planned
	lines        map[string]bool     // each line of prose of the reads planned (see addOf)
}

func newReadPlan(budget int) *readPlan {
	return &readPlan{budget: budget, addrs: []string{}, planned: map[string]bool{}, taken: map[string][][2]int{}, lines: map[string]bool{}}
}

// add plans reading addr (bytes [from,to) of document id, estimated at
// tokens) if it fits and overlaps nothing planned. A read that fits the
// budget but not what is left of it sets full (see makePlan); one over the
// whole budget does not (no plan of this budget could hold it).
func (p *readPlan) add(id, addr string, from, to, tokens int) bool {
	for _, r := range p.taken[id] {
		if from < r[1] && r[0] < to {
			return false
		}
	}
	if p.used+tokens > p.budget {
		p.full = tokens <= p.budget
		return false
	}
	p.used += tokens
	p.addrs = append(p.addrs, addr)
	p.planned[addr] = true
	p.taken[id] = append(p.taken[id], [2]int{from, to})
	return true
}

// addOf is add of a read of d, unless it says nothing the plan does not
// read already: every line of it, as a reader reads it (passage.Prose:
// markup blanked, spaces trimmed, blank lines left out), is a line of a
// read planned before. A generated reference repeats a section on every
// page, word for word or with a line or two more on some (the Cargo
// book's "Manifest Options" on each command's page, whose copies differ
// only in the ids of their HTML tags or in options of their own; Helm's
// "Options inherited from parent commands"), and seven copies of one read
// once took a plan's whole budget. A line is the unit because a copy
// keeps its lines: a read that rewraps or rewords one says it anew, and is
// read. A read of no prose lines is read (rule 7 of context decides on
// those). A read over the whole budget is refused by add unlooked at.
func (p *readPlan) addOf(d *planned, addr string, from, to, tokens int) bool {
	var lines []string
	if d.body != nil && from >= 0 && to <= len(d.body) && from < to && tokens <= p.budget {
		lines = proseLines(string(d.body[from:to]), from == 0)
		if len(lines) > 0 && p.readsAll(lines) {
			return false
		}
	}
	if !p.add(d.rec.ID, addr, from, to, tokens) {
		return false
	}
	for _, l := range lines {
		p.lines[l] = true // the plan's budget bounds them
	}
	return true
}

// readsAll reports whether every one of lines is a line of a read planned.
func (p *readPlan) readsAll(lines []string) bool {
	for _, l := range lines {
		if !p.lines[l] {
			return false
		}
	}
	return true
}

// proseLines is text's lines as a reader reads them (see addOf): lead
// says text opens a document (passage.Prose).
func proseLines(text string, lead bool) []string {
	return textLines(passage.Prose(text, lead))
}

// textLines is the lines of prose (passage.Prose's), spaces trimmed, blank
// ones left out.
func textLines(prose string) []string {
	var lines []string
	for l := range strings.Lines(prose) {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// step is one read a plan may take: a matched section of a ranked
// document, or a small document whole, with the score it is read in order
// of.
type step struct {
	d     *planned
	ph    passageHit
	whole bool
	score float64
}

// ReadFloor is the share of the plan's first read below which a read is
// not planned (makePlan). One rule for every read, a document's other
// sections and other documents' sections alike: a plan that runs out of
// reads worth making ends short rather than padding its budget with
// sections that match only the query's commonest words. A floor trades a
// plan's recall for its bytes; a fifth is chosen to lie well under the
// share at which answers are found (docs/performance.md, round 12), not at
// its edge.
const ReadFloor = 0.2

// steps lists the reads a plan may take, best first. A document's matched
// section is read at the document's score; its other sections at their
// own: a section the ranking matched at its own score, and a section
// scored on the words beyond the title (see found.sectionScores) at the
// document's score times its share of the best such section — so that a
// document's sections are read in the order of what they say beyond its
// title, and a section of the best document that outscores the best of
// the next one is read before it. A short document
// (at most short tokens) is one read, whole, before its sections. Equal
// scores keep rank order.
func steps(all []planned, short int) []step {
	// A document's read is never scored under a document the ranking put
	// after it: one the query names (its title, a FAQ entry's heading)
	// ranks first whatever its score, and its matched section is read
	// first too. Ranked by score alone, each is its own score.
	ranked := make([]float64, len(all))
	for i := len(all) - 1; i >= 0; i-- {
		ranked[i] = all[i].doc.score
		if i+1 < len(all) {
			ranked[i] = max(ranked[i], ranked[i+1])
		}
	}
	var out []step
	for i := range all {
		d := &all[i]
		if d.blank {
			continue
		}
		if d.whole <= short || len(d.doc.passages) == 0 {
			// Whole, first; its sections after, for when it does not fit
			// (they overlap it when it does, and are skipped).
			out = append(out, step{d: d, whole: true, score: ranked[i]})
		}
		score := map[string]float64{}
		var order []string
		take := func(slug string, sc float64) {
			if old, ok := score[slug]; !ok {
				order = append(order, slug)
			} else if old >= sc {
				return
			}
			score[slug] = sc
		}
		if len(d.doc.passages) > 0 { // the matched section
			take(d.doc.passages[0].slug, max(d.doc.passages[0].score, ranked[i]))
		}
		for _, ph := range d.matched {
			take(ph.slug, ph.score)
		}
		for _, ph := range d.sections {
			if best := d.sections[0].score; best > 0 {
				take(ph.slug, d.doc.score*(ph.score/best)) // the best section's share is 1: it ties the matched one
			}
		}
		d.score = score
		for _, slug := range order {
			if !d.quiet[slug] {
				out = append(out, step{d: d, ph: passageHit{slug: slug}, score: score[slug]})
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].score > out[b].score })
	return out
}

// emptyPage reports whether a document has no prose past its front
// matter (passage.Prose: markup that is not prose, a shortcode that lists
// a section's pages, is blank): a site's section page whose title and
// fields are all it holds. Its hit says all a read of it would, so no
// plan reads it.
func emptyPage(rec *docir.Record, body []byte) bool {
	if len(rec.Sections) > 0 {
		return false
	}
	text := string(body[min(rec.MarkdownStart, len(body)):])
	return !passage.SaysSomething(text) && strings.TrimSpace(passage.Prose(text, true)) == ""
}

// quietSections are the slugs, of the sections steps may read (those of
// the passage lists given: the ranking scored and cut them already), that
// say nothing past their headings (passage.QuietPassage): no plan reads
// one. A section no list names is never a step, and is not looked at.
func quietSections(f *found, lists ...[]passageHit) (map[string]bool, error) {
	quiet := map[string]bool{} // each slug looked at: whether it is quiet
	cut := f.cutter()
	for _, l := range lists {
		for _, ph := range l {
			if _, seen := quiet[ph.slug]; seen || ph.slug == "" {
				continue
			}
			i, ok := cut.Section(ph.slug)
			if !ok {
				continue
			}
			q, err := f.quietSection(i)
			if err != nil {
				return nil, err
			}
			quiet[ph.slug] = q
		}
	}
	return quiet, nil
}

// addStep plans a step if it fits and overlaps nothing planned, and says
// whether it did.
func (p *readPlan) addStep(st step) bool {
	if st.whole {
		return p.addOf(st.d, st.d.rec.ID, 0, st.d.size, st.d.whole)
	}
	return p.addPassage(st.d, st.ph)
}

func (p *readPlan) addPassage(d *planned, ph passageHit) bool {
	slug := ph.slug
	if slug == "" {
		slug = d.lead
	}
	if slug == "" {
		// The text before the first heading has no address of its own; the
		// document is its address — unless no plan of this budget could
		// hold it whole: then it is read from its top.
		if d.whole <= p.budget || len(d.rec.Sections) == 0 {
			return p.addOf(d, d.rec.ID, 0, d.size, d.whole)
		}
		return p.addFromTop(d, topBestFirst(d.rec.Sections, d.bests()))
	}
	if d.cut == nil { // a plan made of planned values alone (tests)
		d.cut = passage.Config{}.Cutter(&d.rec)
	}
	i, ok := d.cut.Section(slug) // the first section with slug, as a scan finds it
	if !ok {
		return false
	}
	sec := d.rec.Sections[i]
	tokens := d.tc.count(sec.Start, sec.End)
	if tokens > p.budget && sec.OwnEnd < sec.End && len(d.doc.passages) > 0 && ph.slug == d.doc.passages[0].slug {
		// The hit's matched section, which no plan of this budget holds
		// whole, and it has subsections: it is read as them, best first
		// (a page under one heading that holds the rest, as mdBook and
		// Node's API docs write them). Another section of the document
		// over the budget is skipped: the ranking did not choose it.
		secs := d.rec.Sections
		return p.addFromTop(d, bestFirst(secs[i:subtreeEnd(secs, i)], d.bests()))
	}
	return p.addOf(d, d.rec.ID+"#"+sec.Slug, sec.Start, sec.End, tokens)
}

// addFromTop plans the sections secs of a document, a whole document or
// one section with its subsections, that matched (its title, its lead)
// but are over the whole budget, in the order given (document order for
// a page the query names, whose sections are not scored; else best first:
// topBestFirst, bestFirst), each with its subsections while it fits what
// is left of the budget, else its own subsections in its place, until a
// section without subsections does not fit (the plan then ends, as
// makePlan ends it at a read that does not fit). What the ranking put
// first must not be skipped for its size, leaving the plan to the hits
// after it; but once the first of scored sections is read, one whose
// best (its own or a subsection's) is under the plan's floor is not
// (rule 6). It says whether it planned anything.
func (p *readPlan) addFromTop(d *planned, secs []docir.Section) bool {
	scored := false
	for _, sec := range secs {
		scored = scored || d.score[sec.Slug] > 0
	}
	added := false
	for _, sec := range secs {
		if scored && added && d.bests()[sec.Slug] < p.floor {
			// Under the floor, its subsections too (rule 6), once the
			// best of them is read: what the ranking put first is not
			// skipped for its size.
			continue
		}
		p.full = false
		if p.addOf(d, d.rec.ID+"#"+sec.Slug, sec.Start, sec.End, d.tc.count(sec.Start, sec.End)) {
			added = true
			continue
		}
		if sec.OwnEnd >= sec.End && p.full {
			p.ended = true // a section with no subsections to narrow it to does not fit
			break
		}
	}
	return added
}

// subtreeBests is, by slug, the best score of each of a document's
// sections (secs, in document order) and its subsections: one pass from
// the end, each section taking the bests of the sections it holds from a
// stack (a document of stacked headings, each holding the rest, is
// linear too).
func subtreeBests(secs []docir.Section, score map[string]float64) map[string]float64 {
	best := make(map[string]float64, len(secs))
	type open struct {
		start int
		best  float64
	}
	var stack []open // the sections after i not yet taken by one that holds them, nearest last
	for i := len(secs) - 1; i >= 0; i-- {
		b := score[secs[i].Slug]
		for len(stack) > 0 && stack[len(stack)-1].start < secs[i].End {
			b = max(b, stack[len(stack)-1].best)
			stack = stack[:len(stack)-1]
		}
		best[secs[i].Slug] = b
		stack = append(stack, open{secs[i].Start, b})
	}
	return best
}

// bestFirst orders secs, a section and its subsections in document
// order, for addFromTop: the section, then each of its subsections with
// its own subsections after it, the subsection that holds the best score
// (its own or one of its subsections', best: subtreeBests of the scores
// steps gives a document's sections) first, document order on a tie. So a matched
// section too large to read is read where the query's words are, not
// from its top: Node's modules page, one `#` heading over the budget that
// matched by its opening paragraph, was read from "Enabling" down, its
// answer ("Cycles") eighth.
func bestFirst(secs []docir.Section, best map[string]float64) []docir.Section {
	return appendBestFirst(make([]docir.Section, 0, len(secs)), secs, best)
}

// topBestFirst orders a document's sections (secs, in document order) as
// bestFirst orders one section's: its top-level sections (those no other
// holds), each with its subsections after it, the one that holds the best
// score first, document order on a tie. A document whose sections were
// not scored (the query names it: their scores would say only how short
// each is) is in document order, read from its top.
func topBestFirst(secs []docir.Section, best map[string]float64) []docir.Section {
	var tops [][2]int
	for i := 0; i < len(secs); i = subtreeEnd(secs, i) {
		tops = append(tops, [2]int{i, subtreeEnd(secs, i)})
	}
	return appendParts(make([]docir.Section, 0, len(secs)), secs, tops, best)
}

// appendBestFirst appends secs to out as bestFirst orders them: one slice
// for every level, where a slice a level held as many sections as a
// document has (stacked headings, each holding the next: 9,990 of them
// took 8.9 GB).
func appendBestFirst(out, secs []docir.Section, best map[string]float64) []docir.Section {
	if len(secs) <= 2 {
		return append(out, secs...)
	}
	return appendParts(append(out, secs[0]), secs, subsections(secs, 0), best)
}

// appendParts appends the parts of secs (ranges of it, each a section with
// its subsections) to out, the part that holds the best score (best, by
// the part's first section: subtreeBests) first, document order on a tie,
// each as appendBestFirst orders it.
func appendParts(out, secs []docir.Section, ranges [][2]int, best map[string]float64) []docir.Section {
	slices.SortStableFunc(ranges, func(a, b [2]int) int {
		return cmp.Compare(best[secs[b[0]].Slug], best[secs[a[0]].Slug])
	})
	for _, r := range ranges {
		out = appendBestFirst(out, secs[r[0]:r[1]], best)
	}
	return out
}

// subsections are the direct subsections of secs[i] (secs in document
// order), each as the range of secs it spans with its own subsections:
// [its index, the index just past them).
func subsections(secs []docir.Section, i int) [][2]int {
	var out [][2]int
	for j, end := i+1, subtreeEnd(secs, i); j < end; {
		k := subtreeEnd(secs, j)
		out = append(out, [2]int{j, k})
		j = k
	}
	return out
}

// subtreeEnd is the index just past secs[i]'s subsections, theirs
// included (secs in document order).
func subtreeEnd(secs []docir.Section, i int) int {
	end := i + 1
	for end < len(secs) && secs[end].Start < secs[i].End {
		end++
	}
	return end
}

// mergeSubsections reads a section whose every subsection (two or more)
// the plan reads as one read, in the place of the first of them (rule 4
// of context: a read of each is a call of each, and the section with its
// subsections is what they are, with only the text before its first
// subsection added): Docker's "port already allocated errors" planned its
// "Error message", "Cause" and "Solution" as three reads among others.
// Deepest sections first, so that merged sections merge again upward; a
// merge that would pass the budget is not made.
func (p *readPlan) mergeSubsections(all []planned) {
	at := map[string]int{} // a planned address -> its place in addrs
	for i, a := range p.addrs {
		at[a] = i
	}
	for di := range all {
		d := &all[di]
		if len(p.taken[d.rec.ID]) < 2 {
			continue
		}
		secs := d.rec.Sections
		// Deepest first: a section after all of its subsections.
		order := make([]int, len(secs))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return secs[order[a]].Level > secs[order[b]].Level })
		for _, i := range order {
			sec := secs[i]
			if sec.OwnEnd >= sec.End {
				continue // no subsections
			}
			var kids []int // its direct subsections
			for _, r := range subsections(secs, i) {
				kids = append(kids, r[0])
			}
			first, tokens := len(p.addrs), 0
			for _, k := range kids {
				pos, ok := at[d.rec.ID+"#"+secs[k].Slug]
				if !ok {
					first = -1
					break
				}
				first = min(first, pos)
				tokens += d.tc.count(secs[k].Start, secs[k].End)
			}
			if len(kids) < 2 || first < 0 || d.body == nil || sec.OwnEnd > len(d.body) ||
				!passage.QuietPassage(string(d.body[sec.Start:sec.OwnEnd])) {
				continue
			}
			whole := d.tc.count(sec.Start, sec.End)
			if p.used-tokens+whole > p.budget {
				continue
			}
			addr := d.rec.ID + "#" + sec.Slug
			drop := map[string]bool{}
			for _, k := range kids {
				drop[d.rec.ID+"#"+secs[k].Slug] = true
			}
			var addrs []string
			for i, a := range p.addrs {
				delete(p.planned, a) // a merged subsection's too: the outline shows what is planned
				switch {
				case i == first:
					addrs = append(addrs, addr)
				case drop[a]:
					continue
				default:
					addrs = append(addrs, a)
				}
			}
			p.addrs, p.used = addrs, p.used-tokens+whole
			clear(at)
			for i, a := range p.addrs {
				at[a], p.planned[a] = i, true
			}
			p.taken[d.rec.ID] = append(p.taken[d.rec.ID], [2]int{sec.Start, sec.End})
		}
	}
}
