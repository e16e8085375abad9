package workspace

import (
	"context"
	"strings"

	"github.com/docir/docir/docir"
)

// Context ranks documents like Search and adds, for each, its outline with
// token estimates, then the ordered addresses to read next within the token
// budget: each document's matched section in rank order (a small document
// whole), then its other matching sections, as long as they fit.
func (s *Service) Context(ctx context.Context, p docir.ContextParams) (docir.ContextResult, error) {
	q := strings.TrimSpace(p.Query)
	if q == "" {
		return docir.ContextResult{}, docir.Errorf(docir.CodeInvalidParams, "context: empty query")
	}
	limit, err := checkLimit(p.Limit)
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
	snap, err := s.Snapshot(ctx)
	if err != nil {
		return docir.ContextResult{}, err
	}
	docs, _, err := s.rank(ctx, snap, q, limit)
	if err != nil {
		return docir.ContextResult{}, err
	}
	res := docir.ContextResult{Query: q, Budget: budget, Hits: []docir.ContextHit{}, Addresses: []string{}, Generation: snap.Generation()}
	plan := newReadPlan(budget)
	var seconds []func()
	for _, d := range docs {
		rec, body, ok, err := snap.Lookup(d.id)
		if err != nil {
			return docir.ContextResult{}, err
		}
		if !ok {
			continue
		}
		ch := docir.ContextHit{Hit: hitOf(&rec, body, d, q), Tokens: EstimateTokens(body[min(rec.BodyStart, len(body)):]), Outline: []docir.OutlineEntry{}}
		for _, sec := range rec.Sections {
			ch.Outline = append(ch.Outline, docir.OutlineEntry{
				Address: rec.ID + "#" + sec.Slug,
				Heading: sec.Heading,
				Level:   sec.Level,
				Tokens:  EstimateTokens(body[sec.Start:sec.End]),
			})
		}
		res.Hits = append(res.Hits, ch)
		// First pass: the best passage of each document, or the whole
		// document when it is small.
		plan.addBest(&rec, body, d)
		// Second pass, after every document's best: its other matching
		// passages.
		seconds = append(seconds, func() { plan.addRest(&rec, body, d) })
	}
	for _, f := range seconds {
		f()
	}
	res.Addresses, res.Tokens = plan.addrs, plan.used
	return res, nil
}

// MaxBudget bounds a context request's token budget.
const MaxBudget = 1 << 20

// SmallDocTokens: a document of at most this many tokens is read whole
// rather than by its matched section.
const SmallDocTokens = 600

// EstimateTokens estimates the tokens an LLM tokenizer makes of text: one
// per four bytes, rounded up.
func EstimateTokens(text []byte) int { return (len(text) + 3) / 4 }

// readPlan collects the addresses to read within a budget, never naming a
// range already covered.
type readPlan struct {
	budget, used int
	addrs        []string
	taken        map[string][][2]int // doc id -> byte ranges already planned
}

func newReadPlan(budget int) *readPlan {
	return &readPlan{budget: budget, addrs: []string{}, taken: map[string][][2]int{}}
}

// add plans reading addr (bytes [from,to) of its document) if it fits and
// overlaps nothing planned.
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

func (p *readPlan) addBest(rec *docir.Record, body []byte, d rankedDoc) {
	start := min(rec.BodyStart, len(body))
	whole := EstimateTokens(body[start:])
	if whole <= SmallDocTokens && p.add(rec.ID, rec.ID, 0, len(body), whole) {
		return
	}
	if len(d.passages) == 0 {
		return
	}
	p.addPassage(rec, body, d.passages[0])
}

func (p *readPlan) addRest(rec *docir.Record, body []byte, d rankedDoc) {
	for _, ph := range d.passages[min(1, len(d.passages)):] {
		p.addPassage(rec, body, ph)
	}
}

func (p *readPlan) addPassage(rec *docir.Record, body []byte, ph passageHit) {
	if ph.slug == "" {
		// The text before the first heading has no address of its own; the
		// document is its address.
		whole := EstimateTokens(body[min(rec.BodyStart, len(body)):])
		p.add(rec.ID, rec.ID, 0, len(body), whole)
		return
	}
	for _, sec := range rec.Sections {
		if sec.Slug == ph.slug {
			p.add(rec.ID, rec.ID+"#"+sec.Slug, sec.Start, sec.End, EstimateTokens(body[sec.Start:sec.End]))
			return
		}
	}
}
