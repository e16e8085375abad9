package federation

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/query"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/workspace"
)

// RRFK is the k of reciprocal-rank fusion: a document ranked r (from 1) by
// a store earns 1/(RRFK+r) from it, and its fused score is the sum over the
// stores that ranked it. 60 is the constant of Cormack, Clarke and Büttcher
// (SIGIR 2009): large enough that a store's first few ranks weigh about the
// same, so that no store's scale of scores decides the merge.
const RRFK = 60

// slot is how one store answered a skeleton read.
type slot[T any] struct {
	store string
	v     T
	err   error
}

// askAll runs one skeleton read on every store at once, at most r.parallel
// at a time, and returns each store's answer in store order: local first,
// then the peers in declaration order. A peer's failure (or a reply that
// check refuses) is data in its slot. A local failure is returned as the
// error of the read, except a local store with nothing indexed and nothing
// to index, which answers as an empty store. The warnings are the local
// store's as it said them, then each peer's, named, unless the local store
// said the same (a query with no word to rank is one warning, not one a
// store).
func askAll[T any](ctx context.Context, r *Reader,
	ask func(context.Context, docir.Reader) (T, error),
	check func(T) error,
	warns func(T) []string,
) (out []slot[T], warnings []string, err error) {
	out = make([]slot[T], 1+len(r.peers))
	var g errgroup.Group
	g.SetLimit(r.parallel)
	g.Go(func() error {
		v, err := ask(ctx, r.local)
		out[0] = slot[T]{store: docir.StoreLocal, v: v, err: err}
		return nil
	})
	for i, p := range r.peers {
		g.Go(func() error {
			v, err := call(ctx, p, ask)
			if err == nil {
				if cerr := check(v); cerr != nil {
					err = &PeerError{Peer: p.Name, Err: cerr}
				}
			}
			out[i+1] = slot[T]{store: p.Name, v: v, err: err}
			return nil
		})
	}
	_ = g.Wait()
	if err := cancelled(ctx); err != nil {
		return nil, nil, err
	}
	switch err := out[0].err; {
	case docir.CodeOf(err) == docir.CodeNoStore:
		out[0].err = nil
	case err != nil:
		return nil, nil, err
	}
	said := map[string]bool{} // what the local store said: a peer saying it too adds nothing
	for i, s := range out {
		switch {
		case s.err != nil:
			warnings = append(warnings, fmt.Sprintf("%v; its hits are left out", s.err))
		case i == 0:
			for _, w := range warns(s.v) {
				warnings, said[w] = append(warnings, w), true // the local store's own, as it said them
			}
		default:
			if r.pinned {
				warnings = append(warnings, UnpinnedWarning(s.store))
			}
			warnings = append(warnings, passOn(s.store, warns(s.v), func(w string) bool { return said[w] })...)
		}
	}
	return out, warnings, nil
}

// statuses reports how each store answered, in store order.
func statuses[T any](all []slot[T]) []docir.StoreStatus {
	out := make([]docir.StoreStatus, len(all))
	for i, s := range all {
		out[i] = docir.StoreStatus{Store: s.store, Status: StatusOK}
		if s.err != nil {
			out[i].Status, out[i].Error = StatusFailed, peerCause(s.err)
		}
	}
	return out
}

// pick is one entry of a fused ranking: the nearest store that ranked the
// key, where it ranked it there, and the fused score.
type pick struct {
	key   string
	store int // index into the store lists
	rank  int // index into that store's list
	best  int // the best (lowest) rank any store gave the key
	score float64
}

// rrf fuses rankings of keys by reciprocal-rank fusion, one pick per
// distinct key, best first. lists[i] is store i's ranking (nil for a store
// that failed); a key that several stores rank is one pick with the sum of
// its scores, placed at the nearest of those stores. Ties keep store order,
// then rank.
func rrf(lists [][]string) []pick {
	var order []*pick
	byKey := map[string]*pick{}
	for i, l := range lists {
		for rank, key := range l {
			p := byKey[key]
			if p == nil {
				p = &pick{key: key, store: i, rank: rank, best: rank}
				byKey[key] = p
				order = append(order, p)
			}
			p.best = min(p.best, rank)
			p.score += 1 / float64(RRFK+rank+1)
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].score > order[j].score })
	out := make([]pick, len(order))
	for i, p := range order {
		out[i] = *p
	}
	return out
}

// fusedTotal estimates the matches across stores: the sum of each store's
// total, less the hits that fused into one.
func fusedTotal(totals, returned []int, distinct int) int {
	// A peer's total is outside input: the sum saturates at the largest
	// int rather than wrapping around to a small (or negative) number.
	sum, got := 0, 0
	for i := range totals {
		sum += min(max(totals[i], returned[i]), math.MaxInt-sum)
		got += returned[i]
	}
	return max(sum-(got-distinct), distinct)
}

// hitLists are the stores' rankings of document ids, with their totals and
// how many hits each returned; nil for a store that failed.
func hitLists(all []slot[docir.SearchResult]) (lists [][]string, totals, returned []int) {
	lists = make([][]string, len(all))
	totals, returned = make([]int, len(all)), make([]int, len(all))
	for i, s := range all {
		if s.err != nil {
			continue
		}
		for _, h := range s.v.Hits {
			lists[i] = append(lists[i], h.ID)
		}
		totals[i], returned[i] = s.v.Total, len(s.v.Hits)
	}
	return lists, totals, returned
}

// takeHits turns the first limit picks into hits: each shown as the
// nearest store that ranked it has it, labelled with that store. With
// fused, its score is the fused score (stores' own scores are not
// comparable); else the store's own (a query's 1).
func takeHits(all []slot[docir.SearchResult], picks []pick, limit int, fused bool) ([]docir.Hit, []string) {
	hits := make([]docir.Hit, 0, min(limit, len(picks)))
	for _, p := range picks[:min(limit, len(picks))] {
		h := clipHit(all[p.store].v.Hits[p.rank], p.store > 0)
		h.Store = all[p.store].store
		if fused {
			h.Score = p.score
		}
		hits = append(hits, h)
	}
	return fitPeerHits(hits)
}

// MaxHitText bounds the bytes of a peer's hit's title and of its path,
// as a merged read shows them: past it they are clipped, with "…". A
// hit's path is its document's id (at most address.MaxIDLen) with the
// ending of its file's name, and its title is a one-line label beside an
// address: the bound is the longest address (address.MaxLen), which every
// path a store writes fits. A peer sent a hit whose title was 200,000
// bytes, and the served read failed whole (reply_too_large), the local
// hits lost with it; its snippet was already clipped (docir.SnippetMax).
// The hit stays: its id, which get reads, is whole.
const MaxHitText = address.MaxLen

// MaxPeerHitBytes bounds what a merged skeleton read carries of its peers'
// hits, as JSON: half a served reply (docir/wire.MaxReplyBytes), so that
// the local store's own hits, which its own bounds keep within a reply,
// always have room. A peer's hit is a few hundred bytes, its outline a few
// KB: only a peer that sends more than a reply's worth reaches it (a
// review: ten context hits of 100 outline entries of 2,000-byte headings,
// or twenty search hits of 100 also addresses, made the served read
// reply_too_large, the local hits lost). Past it, peers' outlines are left
// out first, largest first, then their also lists, then their hits from
// the last, each store's with a warning.
const MaxPeerHitBytes = wire.MaxReplyBytes / 2

// fitPeerHits keeps the peers' part of hits within MaxPeerHitBytes,
// leaving out the peers' also lists, then their hits from the last; the
// warnings say which store's were left out. The local store's hits are
// never touched.
func fitPeerHits(hits []docir.Hit) ([]docir.Hit, []string) {
	return fitPeers(hits, func(h *docir.Hit) string { return h.Store }, nil,
		func(h *docir.Hit) bool { cut := len(h.Also) > 0; h.Also = nil; return cut })
}

// fitPeerContext is fitPeerHits for a context's hits: their outlines are
// left out first, largest first.
func fitPeerContext(hits []docir.ContextHit) ([]docir.ContextHit, []string) {
	return fitPeers(hits, func(h *docir.ContextHit) string { return h.Store },
		func(h *docir.ContextHit) int { return len(h.Outline) },
		func(h *docir.ContextHit) bool {
			cut := len(h.Outline) > 0
			h.Outline = []docir.OutlineEntry{}
			return cut
		},
		func(h *docir.ContextHit) bool { cut := len(h.Also) > 0; h.Also = nil; return cut })
}

// fitPeers keeps the JSON of the hits not of the local store (store says
// whose a hit is) within MaxPeerHitBytes: each step in turn leaves
// something out of the peers' hits (true when it did), largest first
// (by larger, when not nil), until they fit; then the peers' hits go,
// from the last. The warnings name the stores whose hits were cut.
func fitPeers[T any](hits []T, store func(*T) string, larger func(*T) int, steps ...func(*T) bool) ([]T, []string) {
	size := func(h *T) int { b, _ := json.Marshal(h); return len(b) }
	total, order := 0, []int{}
	for i := range hits {
		if store(&hits[i]) != docir.StoreLocal {
			total += size(&hits[i])
			order = append(order, i)
		}
	}
	if total <= MaxPeerHitBytes {
		return hits, nil
	}
	if larger != nil {
		slices.SortStableFunc(order, func(a, b int) int { return larger(&hits[b]) - larger(&hits[a]) })
	}
	cut := map[string]bool{}
	for _, step := range steps {
		for _, i := range order {
			if h := &hits[i]; total > MaxPeerHitBytes {
				before := size(h)
				if step(h) {
					cut[store(h)] = true
					total -= before - size(h)
				}
			}
		}
	}
	for i := len(hits) - 1; i >= 0 && total > MaxPeerHitBytes; i-- {
		if store(&hits[i]) != docir.StoreLocal {
			total -= size(&hits[i])
			cut[store(&hits[i])] = true
			hits = slices.Delete(hits, i, i+1)
		}
	}
	return hits, cutWarnings(cut)
}

// cutWarnings are the warnings of the stores whose hits fitPeerHits or
// fitPeerContext cut, in name order.
func cutWarnings(cut map[string]bool) []string {
	var out []string
	for _, store := range slices.Sorted(maps.Keys(cut)) {
		out = append(out, fmt.Sprintf("peer %s: its hits passed %d bytes, half a reply: their outlines, also lists or the last of them were left out", store, MaxPeerHitBytes))
	}
	return out
}

// clipHit is h with its snippet within docir.SnippetMax and, a peer's
// hit, its title and path within MaxHitText. The local store's hits are
// shown as the store has them, as they are without peers.
func clipHit(h docir.Hit, peer bool) docir.Hit {
	if peer {
		h.Title, h.Path = docir.Clip(h.Title, MaxHitText), docir.Clip(h.Path, MaxHitText)
	}
	h.Snippet = docir.Clip(h.Snippet, docir.SnippetMax)
	return h
}

func searchWarnings(r docir.SearchResult) []string { return r.Warnings }
func searchCheck(r docir.SearchResult) error       { return checkHits(r.Hits) }

// Search asks every store for the query at once and merges their rankings
// by reciprocal-rank fusion; each hit names its store, and Stores says how
// each store answered. A peer that failed is a warning, not an error. A
// request the local store refuses (an empty query, a limit out of range)
// is the caller's error.
func (r *Reader) Search(ctx context.Context, p docir.SearchParams) (docir.SearchResult, error) {
	all, warnings, err := askAll(ctx, r,
		func(ctx context.Context, s docir.Reader) (docir.SearchResult, error) { return s.Search(ctx, p) },
		searchCheck, searchWarnings)
	if err != nil {
		return docir.SearchResult{}, err
	}
	lists, totals, returned := hitLists(all)
	picks := rrf(lists)
	hits, cut := takeHits(all, picks, orDefault(p.Limit, docir.DefaultLimit), true)
	return docir.SearchResult{
		Query:    strings.TrimSpace(p.Query),
		Hits:     hits,
		Total:    fusedTotal(totals, returned, len(picks)),
		Stores:   statuses(all),
		Warnings: append(warnings, cut...),
	}, nil
}

// orDefault is n, or def when n is 0 (the request shapes' "default").
func orDefault(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}

// Query asks every store for the expression at once. Query hits are not
// ranked but ordered, so the merge keeps the order asked for: without a
// sort, id order; sorted by id, title or path (which hits carry), that
// order across stores; sorted by any other field, each store's list is in
// that order and the merge takes them rank by rank (every store's first,
// nearest store first, then every store's second, ...). A document several
// stores match is one hit, shown as the nearest of them has it. A bad
// expression is the caller's error before any store is asked; so is a
// request the local store refuses.
func (r *Reader) Query(ctx context.Context, p docir.QueryParams) (docir.SearchResult, error) {
	expr, field, desc, err := workspace.ParseQuery(p)
	if err != nil {
		return docir.SearchResult{}, err
	}
	all, warnings, err := askAll(ctx, r,
		func(ctx context.Context, s docir.Reader) (docir.SearchResult, error) { return s.Query(ctx, p) },
		searchCheck, searchWarnings)
	if err != nil {
		return docir.SearchResult{}, err
	}
	lists, totals, returned := hitLists(all)
	picks := rrf(lists)
	switch field {
	case "":
		sort.SliceStable(picks, func(i, j int) bool { return picks[i].key < picks[j].key })
	case "id", "title", "path":
		recs := make([]*docir.Record, len(picks))
		at := make(map[*docir.Record]pick, len(picks))
		for i, pk := range picks {
			h := all[pk.store].v.Hits[pk.rank]
			recs[i] = &docir.Record{ID: h.ID, Title: h.Title, Path: h.Path}
			at[recs[i]] = pk
		}
		query.Sort(recs, field, desc)
		for i, rec := range recs {
			picks[i] = at[rec]
		}
	default:
		sort.SliceStable(picks, func(i, j int) bool {
			if picks[i].best != picks[j].best {
				return picks[i].best < picks[j].best
			}
			return picks[i].store < picks[j].store
		})
	}
	hits, cut := takeHits(all, picks, orDefault(p.Limit, docir.DefaultLimit), false)
	return docir.SearchResult{
		Query:    expr.String(),
		Hits:     hits,
		Total:    fusedTotal(totals, returned, len(picks)),
		Stores:   statuses(all),
		Warnings: append(warnings, cut...),
	}, nil
}

// checkContext checks a store's context reply: its hits as checkHits does,
// each outline entry and each address to read an address of a document
// that was ranked, and no address listed twice (a store plans a read
// once).
func checkContext(r docir.ContextResult) error {
	hits := make([]docir.Hit, len(r.Hits))
	for i, h := range r.Hits {
		hits[i] = h.Hit
	}
	if err := checkHits(hits); err != nil {
		return err
	}
	ids := map[string]bool{}
	for i, h := range r.Hits {
		ids[h.ID] = true
		for _, o := range h.Outline {
			a, err := address.Parse(o.Address)
			if err != nil || a.ID != h.ID || o.Tokens < 0 {
				return garbage("hit %d: outline entry %q is not a section of %q", i, o.Address, h.ID)
			}
		}
		if h.Tokens < 0 {
			return garbage("hit %d: %d tokens", i, h.Tokens)
		}
	}
	planned := map[string]bool{}
	for _, s := range r.Addresses {
		a, err := address.Parse(s)
		if err != nil {
			return garbage("addresses: %v", err)
		}
		if !ids[a.ID] {
			return garbage("address %q names no ranked document", s)
		}
		if planned[s] {
			return garbage("address %q is listed again", s)
		}
		planned[s] = true
	}
	return nil
}

// Context asks every store at once, fuses the ranked documents as Search
// does, and plans one list of addresses to read within the budget: the
// stores' own plans merged by reciprocal-rank fusion of their positions,
// keeping only the addresses of a document from the store whose hit was
// kept, each counted with its store's token estimate, ending at the first
// that would go over what is left of the budget (one over the whole
// budget is passed over), as each store's own plan ends (docs/ranking.md,
// the token budget). Generation is the local store's. A request the
// local store refuses (empty query, limit or budget out of range) is the
// caller's error.
func (r *Reader) Context(ctx context.Context, p docir.ContextParams) (docir.ContextResult, error) {
	all, warnings, err := askAll(ctx, r,
		func(ctx context.Context, s docir.Reader) (docir.ContextResult, error) { return s.Context(ctx, p) },
		checkContext,
		func(r docir.ContextResult) []string { return r.Warnings })
	if err != nil {
		return docir.ContextResult{}, err
	}

	lists := make([][]string, len(all))
	for i, s := range all {
		if s.err != nil {
			continue
		}
		for _, h := range s.v.Hits {
			lists[i] = append(lists[i], h.ID)
		}
	}
	picks := rrf(lists)
	picks = picks[:min(orDefault(p.Limit, docir.DefaultLimit), len(picks))]
	budget := orDefault(p.Budget, docir.DefaultBudget)
	res := docir.ContextResult{Query: strings.TrimSpace(p.Query), Budget: budget, Hits: []docir.ContextHit{}, Addresses: []string{},
		Stores: statuses(all), Warnings: warnings, Generation: all[0].v.Generation}
	owner := map[string]int{} // doc id -> the store whose hit was kept
	for _, pk := range picks {
		h := all[pk.store].v.Hits[pk.rank]
		h.Hit = clipHit(h.Hit, pk.store > 0)
		h.Store, h.Score = all[pk.store].store, pk.score
		res.Hits = append(res.Hits, h)
		owner[h.ID] = pk.store
	}
	var cut []string
	if res.Hits, cut = fitPeerContext(res.Hits); cut != nil {
		res.Warnings = append(res.Warnings, cut...)
		clear(owner) // a hit left out plans no read
		for _, h := range res.Hits {
			for i := range all {
				if all[i].store == h.Store {
					owner[h.ID] = i
				}
			}
		}
	}

	// Each store's plan, keeping only the documents it owns, with the
	// tokens its own outline gives each address.
	tokens := map[string]int{}
	plans := make([][]string, len(all))
	for i, s := range all {
		if s.err != nil {
			continue
		}
		est := s.v.AddressTokens()
		for _, addr := range s.v.Addresses {
			a, _ := address.Parse(addr) // checked by checkContext
			t, known := est[addr]
			if at, ok := owner[a.ID]; !ok || at != i || !known {
				continue
			}
			plans[i] = append(plans[i], addr)
			tokens[addr] = t
		}
	}
	for _, pk := range rrf(plans) {
		// A peer's estimate is outside input (checkContext refuses only
		// negative ones): compared with what is left, never summed first,
		// so an estimate near the largest int cannot wrap the sum around.
		t := tokens[pk.key]
		if t > budget-res.Tokens {
			if t <= budget {
				break // the plan ends where the budget does, as a store's own plan does
			}
			continue // a read over the whole budget is never planned
		}
		res.Tokens += t
		res.Addresses = append(res.Addresses, pk.key)
	}
	return res, nil
}
