package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/store"
)

// Links reads, for each address, the links leaving the document (or the
// section, with its subsections) and the links of the generation that
// lead into it, from the link index the refresh built: no file is read,
// nor any body but that of a bundle's page asked by its file name. A miss
// is data, with the same reasons and suggestions as Resolve. It stops, with
// get's reply_too_large (docir.Tally), as soon as the link sets gathered
// pass maxBytes (<= 0: no bound), counted link by link as they are read,
// and the misses with them, as Resolve counts them.
func (s *Service) Links(ctx context.Context, addrs []address.Address, maxBytes int) (docir.LinksResolved, error) {
	v, release, err := s.acquire(ctx)
	if err != nil {
		return docir.LinksResolved{}, err
	}
	defer release()
	snap := v.snap
	out := make([]docir.LinkResolution, len(addrs))
	tally := &docir.Tally{Bound: maxBytes}
	// read holds what each address asked so far read, so that one asked
	// again is read once; each answer gets a set of its own (a caller may
	// relabel it: federation), sharing the links of the first.
	type result struct {
		set    *docir.LinkSet
		reason string
	}
	read := map[string]result{}
	docs := newDocCache(snap, false)
	sugg := newSuggester(snap)
	for i, a := range addrs {
		if err := ctx.Err(); err != nil {
			return docir.LinksResolved{}, err
		}
		r, ok := read[a.String()]
		if !ok {
			budget := newLinkBudget(tally, a.String(), i+1, len(addrs))
			if r.set, r.reason, err = linkSet(snap, docs, a, budget); err != nil {
				return docir.LinksResolved{}, err
			}
			read[a.String()] = r
		}
		set, reason := r.set, r.reason
		if set != nil && ok {
			c := *set
			set = &c
		}
		if set != nil {
			if err := tally.AddLinks(set, i+1, len(addrs)); err != nil {
				return docir.LinksResolved{}, err
			}
		}
		out[i] = docir.LinkResolution{Set: set, Reason: reason}
		if out[i].Suggestions, err = sugg.forMiss(a, reason); err != nil {
			return docir.LinksResolved{}, err
		}
		if set == nil {
			if err := tally.AddMiss(a.String(), reason, out[i].Suggestions, i+1, len(addrs)); err != nil {
				return docir.LinksResolved{}, err
			}
		}
	}
	return docir.LinksResolved{Items: out}, nil
}

// linkBudget counts, while one link set is gathered, the bytes
// docir.Tally.AddLinks will count for it, and stops the gathering with
// get's reply_too_large as soon as they pass what the read's tally has
// left: a set too large to send is never read whole (a hub page's
// incoming links can be millions). It never stops a set the tally would
// take: its count leaves out the link rules FillResolvesWith adds.
type linkBudget struct {
	tally       *docir.Tally
	addr        string
	done, total int
	n           int // the set's bytes so far
	out, in     int // the links gathered so far
}

func newLinkBudget(t *docir.Tally, addr string, done, total int) *linkBudget {
	return &linkBudget{tally: t, addr: addr, done: done, total: total}
}

// start counts the set's own fields (as AddLinks does: a set with no
// links).
func (b *linkBudget) start(set *docir.LinkSet) {
	probe := docir.Tally{}
	_ = probe.AddLinks(&docir.LinkSet{Address: set.Address, ID: set.ID, Title: set.Title, Path: set.Path, Store: set.Store, Section: set.Section}, 0, 0)
	b.n = probe.Bytes
}

// add counts link l, gathered as outgoing or incoming.
func (b *linkBudget) add(l *docir.Link, incoming bool) error {
	if incoming {
		b.in++
	} else {
		b.out++
	}
	b.n += docir.LinkBytes(l)
	if b.tally.Bound <= 0 || b.tally.Bytes+b.n <= b.tally.Bound {
		return nil
	}
	return docir.Errorf(docir.CodeReplyTooLarge,
		"the documents asked for pass the %d-byte reply bound after %d of %d addresses (%s is more than %d bytes: read stopped at %d outgoing and %d incoming links); ask for fewer addresses, or for sections (id#heading), in several calls",
		b.tally.Bound, b.done, b.total, b.addr, b.n, b.out, b.in)
}

// linkSet is the links read of one address, gathered within budget, its
// document from docs (decoded once per read). A bundle's page is found by
// the name of its file too, as get finds it (lookupBundlePage, which
// reads the page's body: only for such a name).
func linkSet(snap *store.Snapshot, docs *docCache, a address.Address, budget *linkBudget) (*docir.LinkSet, string, error) {
	set, within, reason, err := linkTarget(snap, docs, a)
	if set == nil || err != nil {
		return nil, reason, err
	}
	budget.start(set)
	out, err := snap.LinksOf(set.ID)
	if err != nil {
		return nil, "", err
	}
	var broken []*docir.Link
	var held linksHeld
	for _, l := range out {
		if within(l.From) {
			if err := budget.add(&l, false); err != nil {
				return nil, "", err
			}
			held.add(l)
		}
	}
	set.Outgoing = held.all()
	for i := range set.Outgoing {
		if set.Outgoing[i].Status == docir.LinkBroken {
			broken = append(broken, &set.Outgoing[i])
		}
	}
	if err := snap.FillResolvesWith(broken); err != nil {
		return nil, "", err
	}
	err = snap.EachLinkInto(set.ID, func(l docir.Link) error {
		if !within(l.Address) {
			return nil
		}
		if err := budget.add(&l, true); err != nil {
			return err
		}
		held.add(l)
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	set.Incoming = held.all()
	return set, "", nil
}

// linksHeld gathers the links of one set while its reply bound is
// counted, so that what a read holds is close to what it counts: a hub's
// incoming links can reach the bound (hundreds of thousands), and a slice
// grown by append leaves each earlier array behind until the collector
// comes (about as much again as the set), so it fills fixed chunks and
// copies them once, at the set's length, when the set is done; and a link
// decoded from the index has strings of its own, while a hub's links say
// the same few (where each is, what it targets, its kind and status) again
// and again, so it keeps one copy of each string.
type linksHeld struct {
	chunks [][]docir.Link
	n      int
	strs   map[string]string
}

// linkChunk is the links a chunk holds (about 150 KiB).
const linkChunk = 1024

func (h *linksHeld) add(l docir.Link) {
	if h.strs == nil {
		h.strs = map[string]string{}
	}
	l.From, l.Target, l.Kind, l.Status = h.str(l.From), h.str(l.Target), h.str(l.Kind), h.str(l.Status)
	l.Address, l.URL, l.Reason = h.str(l.Address), h.str(l.URL), h.str(l.Reason)
	if k := len(h.chunks); k == 0 {
		h.chunks = append(h.chunks, nil) // grown by append: most sets are small
	} else if len(h.chunks[k-1]) >= linkChunk {
		h.chunks = append(h.chunks, make([]docir.Link, 0, linkChunk))
	}
	c := &h.chunks[len(h.chunks)-1]
	*c = append(*c, l)
	h.n++
}

// str is s as the set first held it.
func (h *linksHeld) str(s string) string {
	if s == "" {
		return ""
	}
	if t, ok := h.strs[s]; ok {
		return t
	}
	h.strs[s] = s
	return s
}

// all is the links gathered since the last all, in order (never nil), and
// starts again.
func (h *linksHeld) all() []docir.Link {
	var out []docir.Link
	if len(h.chunks) == 1 {
		out = h.chunks[0]
	} else {
		out = make([]docir.Link, 0, h.n)
		for _, c := range h.chunks {
			out = append(out, c...)
		}
	}
	h.chunks, h.n = nil, 0
	if out == nil {
		out = []docir.Link{}
	}
	return out
}

// linkTarget is what a links read of address a reads: its set with no
// links yet, and within, which reports whether an address of the document
// (id, or id#slug) lies in what was asked: the document, or the section
// and its subsections. A nil set is a miss, for reason.
func linkTarget(snap *store.Snapshot, docs *docCache, a address.Address) (*docir.LinkSet, func(string) bool, string, error) {
	d, err := docs.get(a.ID)
	if err != nil || !d.ok {
		return nil, nil, docir.ReasonNoDocument, err
	}
	rec := &d.rec
	set := &docir.LinkSet{
		Address: a.String(), ID: rec.ID, Title: rec.Title, Path: rec.Path,
		Store: docir.StoreLocal, Generation: snap.Generation(),
		Outgoing: []docir.Link{}, Incoming: []docir.Link{},
	}
	within := func(string) bool { return true }
	if a.HasHeading() {
		sec, ok, err := d.findSection(snap, a.Heading)
		if err != nil {
			return nil, nil, "", err
		}
		if !ok {
			return nil, nil, docir.ReasonNoSection, nil
		}
		if sec == nil { // an anchor of the lead: the document
			return set, within, "", nil
		}
		set.Section = &docir.SectionRef{Slug: sec.Slug, Heading: sec.Heading, Level: sec.Level}
		in := map[string]bool{}
		for _, s := range rec.Sections {
			if s.Start >= sec.Start && s.Start < sec.End {
				in[rec.ID+"#"+s.Slug] = true
			}
		}
		within = func(addr string) bool { return in[addr] }
	}
	return set, within, "", nil
}

// Check lists a page of the broken links of the generation the read holds,
// from the list the refresh kept (no record is decoded), each with the
// link rules it would resolve with (store.Snapshot.FillResolvesWith), and
// with p.External then its external links, never fetched: from p.Page.From,
// at most p.Page.Limit links (0: no limit) and no more than p.MaxBytes of
// JSON (0: wire.MaxPageBytes; less than 0: none). When links remain the
// result's More says where the next page starts. A link that alone passes
// the bound is reply_too_large. Only the page is gathered: a store with a
// million broken links is never listed whole.
func (s *Service) Check(ctx context.Context, p docir.CheckParams) (docir.CheckResult, error) {
	v, release, err := s.acquire(ctx)
	if err != nil {
		return docir.CheckResult{}, err
	}
	defer release()
	snap := v.snap
	if err := cursorGeneration("check", p.Page.Generation, snap); err != nil {
		return docir.CheckResult{}, err
	}
	res := docir.CheckResult{Generation: snap.Generation(), Broken: []docir.CheckedLink{}}
	if res.Documents, err = snap.Count(); err != nil {
		return docir.CheckResult{}, err
	}
	if res.Counts, err = snap.LinkCounts(); err != nil {
		return docir.CheckResult{}, err
	}
	if p.External {
		res.External = []docir.CheckedLink{}
	}
	pg := newPager(p.MaxBytes, p.Page.Limit, res)
	from := p.Page.From
	if from.A == 0 {
		if err := checkBroken(ctx, snap, &res, pg, from); err != nil {
			return docir.CheckResult{}, err
		}
		from = docir.PagePos{A: 1}
	}
	if p.External && pg.more == nil {
		err = snap.EachLinksFrom(ordinal(from.B), func(i int, _, path string, ls []docir.Link) error {
			var at uint64 // the link's ordinal among the document's external ones
			for _, l := range ls {
				if l.Status != docir.LinkExternal {
					continue
				}
				if at++; uint64(i) == from.B && at <= from.C {
					continue
				}
				c := docir.CheckedLink{Link: l, Path: path}
				if err := pg.take(jsonLen(c), docir.PagePos{A: 1, B: uint64(i), C: at - 1}, linkAt(c)); err != nil {
					return err
				}
				res.External = append(res.External, c)
			}
			return ctx.Err()
		})
		if err := pageEnd(err); err != nil {
			return docir.CheckResult{}, err
		}
	}
	res.More = pg.more
	return res, nil
}

// ordinal is a cursor's ordinal as an int; one past any list (a cursor
// is checksummed, so only a docir bug makes one) reads nothing.
func ordinal(n uint64) int {
	return int(min(n, math.MaxInt32))
}

// cursorGeneration refuses a page of method read on another generation
// than its cursor's (g; 0: no cursor).
func cursorGeneration(method string, g uint64, snap *store.Snapshot) error {
	if g == 0 || g == snap.Generation() {
		return nil
	}
	return docir.Errorf(docir.CodeInvalidParams,
		"%s: cursor: it was cut from generation %d; this read is pinned to generation %d (leave image_revision and binding out, or give the cursor's)", method, g, snap.Generation())
}

// LinksPage reads one page of the link set of a (docir.Reader.LinksPage).
// Its items are the set's links in their order: the outgoing ones
// (PagePos A 0, B the ordinal among them), then the incoming ones, by
// source and then the source's document order (A 1 plus the source's
// ordinal among the documents that may link to a, in id order; B the
// ordinal of the link among that source's links into the set): one
// order, the same on every read of a generation. Only the page is
// gathered, counted link by link: a hub's million incoming links are
// never read whole. A later page lists the documents before its first
// source (their ids, from the link index) and decodes the links of its
// first source again, never those of the sources before it.
func (s *Service) LinksPage(ctx context.Context, a address.Address, p docir.Page, maxBytes int) (docir.LinksResolved, error) {
	v, release, err := s.acquire(ctx)
	if err != nil {
		return docir.LinksResolved{}, err
	}
	defer release()
	snap := v.snap
	if err := cursorGeneration("links", p.Generation, snap); err != nil {
		return docir.LinksResolved{}, err
	}
	set, within, reason, err := linkTarget(snap, newDocCache(snap, false), a)
	if err != nil {
		return docir.LinksResolved{}, err
	}
	if set == nil {
		miss := docir.LinkResolution{Reason: reason}
		if miss.Suggestions, err = newSuggester(snap).forMiss(a, reason); err != nil {
			return docir.LinksResolved{}, err
		}
		return docir.LinksResolved{Items: []docir.LinkResolution{miss}}, nil
	}
	pg := newPager(maxBytes, p.Limit, docir.LinkResult{Links: *set})
	if p.From.A == 0 {
		if err := pageOutgoing(snap, set, within, pg, p.From.B); err != nil {
			return docir.LinksResolved{}, err
		}
	}
	if pg.more == nil {
		if err := pageIncoming(ctx, snap, set, within, pg, p.From); err != nil {
			return docir.LinksResolved{}, err
		}
	}
	set.More = pg.more
	return docir.LinksResolved{Items: []docir.LinkResolution{{Set: set}}}, nil
}

// pageOutgoing gathers into set the page's outgoing links, from ordinal
// start, each with the link rules it would resolve with: those of the
// links the page may hold (its limit's worth) are worked out first, so
// that each link is counted at its size.
func pageOutgoing(snap *store.Snapshot, set *docir.LinkSet, within func(string) bool, pg *pager, start uint64) error {
	all, err := snap.LinksOf(set.ID)
	if err != nil {
		return err
	}
	var out []docir.Link
	for _, l := range all {
		if within(l.From) {
			out = append(out, l)
		}
	}
	out = out[min(start, uint64(len(out))):]
	fill := out
	if pg.limit > 0 && len(fill) > pg.limit {
		fill = fill[:pg.limit]
	}
	var broken []*docir.Link
	for i := range fill {
		if fill[i].Status == docir.LinkBroken {
			broken = append(broken, &fill[i])
		}
	}
	if err := snap.FillResolvesWith(broken); err != nil {
		return err
	}
	for i, l := range out {
		if err := pg.take(jsonLen(l), docir.PagePos{B: start + uint64(i)}, linkIn(l)); err != nil {
			return pageEnd(err)
		}
		set.Outgoing = append(set.Outgoing, l)
	}
	return nil
}

// pageIncoming gathers into set the page's incoming links, from where
// from says (A 0: the first).
func pageIncoming(ctx context.Context, snap *store.Snapshot, set *docir.LinkSet, within func(string) bool, pg *pager, from docir.PagePos) error {
	first, skip := 0, uint64(0)
	if from.A > 0 {
		first, skip = ordinal(from.A-1), from.B
	}
	src, at := -1, uint64(0)
	err := snap.EachLinkIntoFrom(set.ID, first, func(i int, l docir.Link) error {
		if i != src {
			src, at = i, 0
		}
		if !within(l.Address) {
			return nil
		}
		at++
		if i == first && at <= skip {
			return nil
		}
		if err := pg.take(jsonLen(l), docir.PagePos{A: 1 + uint64(i), B: at - 1}, linkIn(l)); err != nil {
			return err
		}
		set.Incoming = append(set.Incoming, l)
		return ctx.Err()
	})
	return pageEnd(err)
}

// linkIn names a link of a link set in an error: where it is and where it
// leads.
func linkIn(l docir.Link) func() string {
	return func() string {
		return fmt.Sprintf("the link at %s line %d to %q", l.From, l.Line, docir.Clip(l.Target, 80))
	}
}

// checkBroken gathers the page's broken links into res from where from
// says (B the document's ordinal, C the link's in it), and then their link rules; the rules add
// bytes, so links are dropped from the end of the page until it fits its
// bound again.
func checkBroken(ctx context.Context, snap *store.Snapshot, res *docir.CheckResult, pg *pager, from docir.PagePos) error {
	var pos []docir.PagePos // each link's, for refit
	err := snap.BrokenLinksFrom(ordinal(from.B), func(i int, _ string, ls []docir.CheckedLink) error {
		for j, l := range ls {
			if uint64(i) == from.B && uint64(j) < from.C {
				continue
			}
			at := docir.PagePos{B: uint64(i), C: uint64(j)}
			if err := pg.take(jsonLen(l), at, linkAt(l)); err != nil {
				return err
			}
			res.Broken = append(res.Broken, l)
			pos = append(pos, at)
		}
		return ctx.Err()
	})
	if err := pageEnd(err); err != nil {
		return err
	}
	broken := make([]*docir.Link, len(res.Broken))
	for i := range res.Broken {
		broken[i] = &res.Broken[i].Link
	}
	if err := snap.FillResolvesWith(broken); err != nil {
		return err
	}
	for i := range res.Broken {
		if len(res.Broken[i].ResolvesWith) > 0 {
			pg.resize(i, jsonLen(res.Broken[i]))
		}
	}
	keep, err := pg.refit(func(i int) docir.PagePos { return pos[i] }, func(i int) string { return linkAt(res.Broken[i])() })
	res.Broken = res.Broken[:keep]
	return err
}

// linkAt names a checked link in an error: where it is and where it
// leads.
func linkAt(l docir.CheckedLink) func() string {
	return func() string {
		return fmt.Sprintf("the link at %s:%d (%s) to %q", l.Path, l.Line, l.From, docir.Clip(l.Target, 80))
	}
}

// pager gathers one page of a paged read (check, changes): the items,
// in their order, while they fit its byte bound and its limit. The first
// that does not is where the next page starts (more).
type pager struct {
	bound, limit int   // <= 0: none
	n            int   // the page's bytes: the result around the items, and the items so far
	sizes        []int // the bytes of each item taken, in order
	more         *docir.PagePos
}

// errPageFull stops the gathering of a page: the next item is more.
var errPageFull = errors.New("the page is full")

// newPager bounds a page at maxBytes (0: wire.MaxPageBytes; less than 0:
// none) and limit items (0: none); head is the result with no items,
// whose bytes, and those of the longest Next, the page holds first.
func newPager(maxBytes, limit int, head any) *pager {
	switch {
	case maxBytes == 0:
		maxBytes = wire.MaxPageBytes
	case maxBytes < 0:
		maxBytes = 0
	}
	return &pager{bound: maxBytes, limit: limit, n: jsonLen(head) + len(`,"next":""`) + docir.MaxCursorBytes}
}

// take counts an item of size bytes (its JSON) at pos. When it does not
// fit, the page ends before it (more is pos) and take answers errPageFull;
// one that does not fit an empty page is reply_too_large, naming it.
func (p *pager) take(size int, pos docir.PagePos, what func() string) error {
	full := p.limit > 0 && len(p.sizes) >= p.limit
	if !full && p.bound > 0 && p.n+size+1 > p.bound {
		if len(p.sizes) == 0 {
			return p.tooLarge(size, what)
		}
		full = true
	}
	if full {
		p.more = &pos
		return errPageFull
	}
	p.n += size + 1 // and its comma
	p.sizes = append(p.sizes, size)
	return nil
}

func (p *pager) tooLarge(size int, what func() string) error {
	return docir.Errorf(docir.CodeReplyTooLarge, "%s is %d bytes of JSON, more than a page holds (%d bytes)", what(), size, p.bound)
}

// resize sets the bytes of item i, which grew.
func (p *pager) resize(i, size int) {
	p.n += size - p.sizes[i]
	p.sizes[i] = size
}

// refit drops items from the end of the page until it fits its bound
// again, and returns how many it keeps; the first dropped is where the
// next page starts (pos gives its position, what names it when not even
// the first item fits).
func (p *pager) refit(pos func(i int) docir.PagePos, what func(i int) string) (int, error) {
	k := len(p.sizes)
	for p.bound > 0 && p.n > p.bound && k > 0 {
		k--
		p.n -= p.sizes[k] + 1
	}
	if k == len(p.sizes) {
		return k, nil
	}
	if k == 0 {
		return 0, p.tooLarge(p.sizes[0], func() string { return what(0) })
	}
	at := pos(k)
	p.more, p.sizes = &at, p.sizes[:k]
	return k, nil
}

// pageEnd is the error of a page's gathering: none when the page filled.
func pageEnd(err error) error {
	if errors.Is(err, errPageFull) {
		return nil
	}
	return err
}

// jsonLen is the bytes of v's JSON as encoding/json writes it (<, > and &
// escaped: at least what a reply takes, which does not escape them).
func jsonLen(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// Changes lists a page of the documents and sections that differ between
// two retained generations: p.Since and p.Until (0: the generation the
// read holds, the current one unless it is pinned). It reads only what may
// differ (store.Snapshot.Diff), then the records and bodies of the
// documents that did, to tell which of their sections changed: a section
// whose own text (its heading line to the next heading) differs, or that
// one side lacks. The page is bounded as Check's (p.Page, p.MaxBytes), and
// only the changed documents the page reaches are read for their sections.
func (s *Service) Changes(ctx context.Context, p docir.ChangesParams) (docir.ChangesResult, error) {
	if p.SinceReceipt != "" {
		return docir.ChangesResult{}, docir.Errorf(docir.CodeInternal, "changes: a receipt is read by the caller, not the store")
	}
	if p.Since == 0 {
		return docir.ChangesResult{}, docir.Errorf(docir.CodeInvalidParams, "changes: since: want a generation (1 or more) or a binding receipt")
	}
	v, release, err := s.acquire(ctx)
	if err != nil {
		return docir.ChangesResult{}, err
	}
	defer release()
	// Other generations are pinned through the service itself: a view's
	// own Pin answers its generation only.
	base := &Service{cfg: s.cfg, st: s.st}
	until := v
	if p.Until != 0 && p.Until != v.snap.Generation() {
		u, err := base.Pin(ctx, p.Until)
		if err != nil {
			return docir.ChangesResult{}, err
		}
		defer u.Close()
		until = u.s.pin
	}
	if p.Since > until.snap.Generation() {
		if p.Until == 0 {
			// No until asked for: the read's own generation (the current
			// one, unless the read is pinned) is before since.
			return docir.ChangesResult{}, docir.Errorf(docir.CodeInvalidParams, "changes: since %d is after generation %d, the one this read holds (the current one unless pinned): since names an earlier one", p.Since, until.snap.Generation())
		}
		return docir.ChangesResult{}, docir.Errorf(docir.CodeInvalidParams, "changes: since %d is after until %d", p.Since, until.snap.Generation())
	}
	since, err := base.Pin(ctx, p.Since)
	if err != nil {
		return docir.ChangesResult{}, err
	}
	defer since.Close()
	return diffGenerations(ctx, since.Snapshot(), until.snap, p.Page, p.MaxBytes)
}

// diffGenerations is a page of the changes reply from generation old to
// new. Its items, in order: documents added, changed and removed (each
// sorted; PagePos.A is the ordinal among them all), then for each changed
// document, in the order of its sections' addresses (id#), its sections
// added, changed and removed (each sorted; A is the number of documents
// plus the document's index in that order, B the section's ordinal among
// the document's). So each list of the reply holds its addresses sorted,
// and the pages of a list, joined, are the list.
func diffGenerations(ctx context.Context, old, cur *store.Snapshot, page docir.Page, maxBytes int) (docir.ChangesResult, error) {
	res := docir.ChangesResult{
		Since: old.Generation(), Until: cur.Generation(),
		Documents: emptyChanges(), Sections: emptyChanges(),
	}
	added, changed, removed, err := cur.Diff(old)
	if err != nil {
		return docir.ChangesResult{}, err
	}
	pg := newPager(maxBytes, page.Limit, res)
	from := page.From
	var at uint64
	docLists := listsOf(&res.Documents)
	for k, ids := range [][]string{added, changed, removed} {
		for _, id := range ids {
			if at >= from.A {
				if err := pg.take(jsonLen(id), docir.PagePos{A: at}, quoted(id)); err != nil {
					return pagedChanges(res, pg, err)
				}
				*docLists[k] = append(*docLists[k], id)
			}
			at++
		}
	}
	bySection := slices.Clone(changed)
	slices.SortFunc(bySection, func(a, b string) int { return strings.Compare(a+"#", b+"#") })
	secLists := listsOf(&res.Sections)
	for _, id := range bySection {
		if err := ctx.Err(); err != nil {
			return docir.ChangesResult{}, err
		}
		a := at
		at++
		if a < from.A {
			continue
		}
		secs, err := sectionChanges(old, cur, id)
		if err != nil {
			return docir.ChangesResult{}, err
		}
		var b uint64
		for k, addrs := range secs {
			for _, addr := range addrs {
				if a > from.A || b >= from.B {
					if err := pg.take(jsonLen(addr), docir.PagePos{A: a, B: b}, quoted(addr)); err != nil {
						return pagedChanges(res, pg, err)
					}
					*secLists[k] = append(*secLists[k], addr)
				}
				b++
			}
		}
	}
	return res, nil
}

// pagedChanges ends a page of changes: with More when it filled, or the
// error that stopped it.
func pagedChanges(res docir.ChangesResult, pg *pager, err error) (docir.ChangesResult, error) {
	if err := pageEnd(err); err != nil {
		return docir.ChangesResult{}, err
	}
	res.More = pg.more
	return res, nil
}

func quoted(s string) func() string {
	return func() string { return fmt.Sprintf("the address %q", docir.Clip(s, 80)) }
}

// sectionChanges lists the sections of document id added, changed and
// removed from old to cur, each sorted; none when either lacks it. A
// changed lead (leadText) is listed as the document's own address among
// the changed: it is what reads it.
func sectionChanges(old, cur *store.Snapshot, id string) ([3][]string, error) {
	var out [3][]string
	orec, obody, ok1, err := old.Lookup(id)
	if err != nil {
		return out, err
	}
	nrec, nbody, ok2, err := cur.Lookup(id)
	if err != nil || !ok1 || !ok2 {
		return out, err
	}
	if !bytes.Equal(leadText(&orec, obody), leadText(&nrec, nbody)) {
		// The lead has no address of its own: the document's reads it.
		out[1] = append(out[1], id)
	}
	before := map[string][]byte{}
	for _, s := range orec.Sections {
		before[s.Slug] = ownText(obody, s)
	}
	for _, s := range nrec.Sections {
		addr := id + "#" + s.Slug
		was, ok := before[s.Slug]
		switch {
		case !ok:
			out[0] = append(out[0], addr)
		case !bytes.Equal(was, ownText(nbody, s)):
			out[1] = append(out[1], addr)
		}
		delete(before, s.Slug)
	}
	for slug := range before {
		out[2] = append(out[2], id+"#"+slug)
	}
	for _, l := range out {
		slices.SortFunc(l, strings.Compare)
	}
	return out, nil
}

// listsOf is c's lists in the order of a page: added, changed, removed.
func listsOf(c *docir.ChangeLists) [3]*[]string {
	return [3]*[]string{&c.Added, &c.Changed, &c.Removed}
}

func emptyChanges() docir.ChangeLists {
	return docir.ChangeLists{Added: []string{}, Changed: []string{}, Removed: []string{}}
}

// ownText is a section's own text: its heading line to the next heading
// of any level, without the white space that ends it (a section followed
// by a new one gains the blank line that sets the heading apart, and
// that is not an edit of its text).
func ownText(body []byte, s docir.Section) []byte {
	if s.Start > s.OwnEnd || s.OwnEnd > len(body) {
		return nil
	}
	return bytes.TrimRight(body[s.Start:s.OwnEnd], " \t\r\n")
}

// leadText is the text of rec's lead: its markdown before its first
// heading (all of it, without headings), less the white space around it.
func leadText(rec *docir.Record, body []byte) []byte {
	from, to := rec.LeadSpan(len(body))
	if from >= to {
		return nil
	}
	return bytes.TrimSpace(body[from:to])
}

// Links reads the links of addresses on the view's generation.
func (v *View) Links(ctx context.Context, addrs []address.Address, maxBytes int) (docir.LinksResolved, error) {
	return v.s.Links(ctx, addrs, maxBytes)
}

// LinksPage reads a page of the link set of a on the view's generation.
func (v *View) LinksPage(ctx context.Context, a address.Address, p docir.Page, maxBytes int) (docir.LinksResolved, error) {
	return v.s.LinksPage(ctx, a, p, maxBytes)
}

// Check lists the broken links of the view's generation.
func (v *View) Check(ctx context.Context, p docir.CheckParams) (docir.CheckResult, error) {
	return v.s.Check(ctx, p)
}

// Changes lists what changed from p.Since to p.Until (0: the view's
// generation).
func (v *View) Changes(ctx context.Context, p docir.ChangesParams) (docir.ChangesResult, error) {
	return v.s.Changes(ctx, p)
}
