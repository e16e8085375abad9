package rank

import (
	"context"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// Context ranks documents like Search, then plans the ordered addresses to
// read next within the token budget: each document's matched section in
// rank order (a small document whole), then the other sections that
// matched it well, while they fit. Nothing planned overlaps anything
// planned before it. The documents the plan reads from carry their outline
// (see outline) with token estimates; the others none.
func Context(ctx context.Context, snap *store.Snapshot, idx IndexFunc, p docir.ContextParams) (docir.ContextResult, error) {
	q, limit, err := CheckQuery("context", p.Query, p.Limit)
	if err != nil {
		return docir.ContextResult{}, err
	}
	budget := p.Budget
	switch {
	case budget == 0:
		budget = docir.DefaultBudget
	case budget < 0 || budget > MaxBudget:
		return docir.ContextResult{}, docir.Errorf(docir.CodeInvalidParams, "budget %d: want 1 to %d tokens", budget, MaxBudget)
	}
	res := docir.ContextResult{Query: q, Budget: budget, Hits: []docir.ContextHit{}, Addresses: []string{}, Generation: snap.Generation()}
	var all []planned
	_, err = eachHit(ctx, snap, idx, q, limit, false, func(f *found) error {
		tc := newTokenCounter(f.body)
		start := min(f.rec.BodyStart, len(f.body))
		ch := docir.ContextHit{Hit: f.hit(), Tokens: tc.count(start, len(f.body)), Outline: []docir.OutlineEntry{}}
		res.Hits = append(res.Hits, ch)
		all = append(all, planned{rec: f.rec, doc: f.doc, tc: tc, whole: ch.Tokens, size: len(f.body), lead: leadSlug(&f.rec, f.body)})
		return nil
	})
	if err != nil {
		return docir.ContextResult{}, err
	}
	plan := newReadPlan(budget)
	// First pass: the best section of each document, in rank order, or the
	// whole document when it is small.
	for i := range all {
		plan.addBest(&all[i])
	}
	// Second pass: the other sections that matched each document well.
	for i := range all {
		plan.addRest(&all[i])
	}
	// Outlines only for the documents the plan reads from.
	for i := range all {
		if len(plan.taken[all[i].rec.ID]) > 0 {
			res.Hits[i].Outline = outline(&all[i], min(max(budget/OutlineTokens, MinOutline), MaxOutline))
		}
	}
	res.Addresses, res.Tokens = plan.addrs, plan.used
	return res, nil
}

// OutlineDepth is how many heading levels an outline shows, from the
// document's top level down. An outline holds at most one entry per
// OutlineTokens tokens of the budget, at least MinOutline and at most
// MaxOutline. A context reply must stay within the order of magnitude of
// its budget: a 4,000-token plan once came with 283 KB of outlines of 676
// long design documents.
const (
	OutlineDepth  = 2
	OutlineTokens = 100
	MinOutline    = 8
	MaxOutline    = 40
)

// outline lists a planned document's sections down to OutlineDepth levels
// below its top level, at most n of them, with the tokens a read of each
// would return.
func outline(d *planned, n int) []docir.OutlineEntry {
	out := []docir.OutlineEntry{}
	top := 0
	for _, sec := range d.rec.Sections {
		if top == 0 || sec.Level < top {
			top = sec.Level
		}
	}
	for _, sec := range d.rec.Sections {
		if sec.Level >= top+OutlineDepth {
			continue
		}
		if len(out) == n {
			break
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
	rec   docir.Record
	doc   rankedDoc
	tc    tokenCounter
	whole int    // tokens of the whole document
	size  int    // bytes of its file
	lead  string // its lead section's slug (see leadSlug)
}

// MaxBudget bounds a context request's token budget.
const MaxBudget = 1 << 20

// SmallDocTokens: a document of at most this many tokens is read whole
// rather than by its matched section.
const SmallDocTokens = 600

// EstimateTokens estimates the tokens an LLM tokenizer makes of text: a
// quarter token per byte, plus a quarter for each character of three or
// more UTF-8 bytes (Han, kana, Hangul, Thai, Indic scripts...), so that each
// of those counts one token; rounded up. Measured against two real BPE
// vocabularies in docs/ranking.md: within a few percent on English prose.
func EstimateTokens(text []byte) int {
	return newTokenCounter(text).count(0, len(text))
}

// tokenCounter estimates the tokens of byte ranges of one body in constant
// time, after one pass over it.
type tokenCounter struct {
	wide []int32 // wide[i]: wide characters in body[:i]
}

func newTokenCounter(body []byte) tokenCounter {
	wide := make([]int32, len(body)+1)
	for i, c := range body {
		wide[i+1] = wide[i]
		if c >= 0xE0 {
			wide[i+1]++
		}
	}
	return tokenCounter{wide: wide}
}

// count estimates the tokens of body[from:to] by the rule EstimateTokens
// states.
func (t tokenCounter) count(from, to int) int {
	return (to - from + int(t.wide[to]-t.wide[from]) + 3) / 4
}

// readPlan collects the addresses to read within a budget, never naming a
// range that overlaps one already planned (a section and its parent, or a
// document and its sections).
type readPlan struct {
	budget, used int
	addrs        []string
	taken        map[string][][2]int // doc id -> byte ranges already planned
}

func newReadPlan(budget int) *readPlan {
	return &readPlan{budget: budget, addrs: []string{}, taken: map[string][][2]int{}}
}

// add plans reading addr (bytes [from,to) of document id, estimated at
// tokens) if it fits and overlaps nothing planned.
func (p *readPlan) add(id, addr string, from, to, tokens int) bool {
	for _, r := range p.taken[id] {
		if from < r[1] && r[0] < to {
			return false
		}
	}
	if p.used+tokens > p.budget {
		return false
	}
	p.used += tokens
	p.addrs = append(p.addrs, addr)
	p.taken[id] = append(p.taken[id], [2]int{from, to})
	return true
}

func (p *readPlan) addBest(d *planned) {
	if d.whole <= SmallDocTokens && p.add(d.rec.ID, d.rec.ID, 0, d.size, d.whole) {
		return
	}
	if len(d.doc.passages) > 0 {
		p.addPassage(d, d.doc.passages[0])
	}
}

// WellMatched is the share of a document's best passage score another of
// its passages must reach to be read in the second pass.
const WellMatched = 0.5

func (p *readPlan) addRest(d *planned) {
	if len(d.doc.passages) < 2 {
		return
	}
	floor := WellMatched * d.doc.passages[0].score
	for _, ph := range d.doc.passages[1:] {
		if ph.score >= floor {
			p.addPassage(d, ph)
		}
	}
}

func (p *readPlan) addPassage(d *planned, ph passageHit) {
	slug := ph.slug
	if slug == "" {
		slug = d.lead
	}
	if slug == "" {
		// The text before the first heading has no address of its own; the
		// document is its address.
		p.add(d.rec.ID, d.rec.ID, 0, d.size, d.whole)
		return
	}
	for _, sec := range d.rec.Sections {
		if sec.Slug == slug {
			p.add(d.rec.ID, d.rec.ID+"#"+sec.Slug, sec.Start, sec.End, d.tc.count(sec.Start, sec.End))
			return
		}
	}
}
