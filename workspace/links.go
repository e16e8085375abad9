package workspace

import (
	"bytes"
	"context"
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
// pass maxBytes (<= 0: no bound), counted link by link as they are read.
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
	suggested := 0
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
		if suggested < maxSuggested {
			if out[i].Suggestions, err = suggestions(snap, a, reason, &suggested); err != nil {
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
	d, err := docs.get(a.ID)
	if err != nil || !d.ok {
		return nil, docir.ReasonNoDocument, err
	}
	rec := &d.rec
	set := &docir.LinkSet{
		Address: a.String(), ID: rec.ID, Title: rec.Title, Path: rec.Path,
		Store: docir.StoreLocal, Generation: snap.Generation(),
		Outgoing: []docir.Link{}, Incoming: []docir.Link{},
	}
	// within reports whether an address of the document (id, or id#slug)
	// lies in what was asked: the document, or the section and its
	// subsections.
	within := func(string) bool { return true }
	if a.HasHeading() {
		sec, ok := d.findSection(a.Heading)
		if !ok {
			return nil, docir.ReasonNoSection, nil
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
	budget.start(set)
	out, err := snap.LinksOf(rec.ID)
	if err != nil {
		return nil, "", err
	}
	var broken []*docir.Link
	for _, l := range out {
		if within(l.From) {
			if err := budget.add(&l, false); err != nil {
				return nil, "", err
			}
			set.Outgoing = append(set.Outgoing, l)
		}
	}
	for i := range set.Outgoing {
		if set.Outgoing[i].Status == docir.LinkBroken {
			broken = append(broken, &set.Outgoing[i])
		}
	}
	if err := snap.FillResolvesWith(broken); err != nil {
		return nil, "", err
	}
	err = snap.EachLinkInto(rec.ID, func(l docir.Link) error {
		if !within(l.Address) {
			return nil
		}
		if err := budget.add(&l, true); err != nil {
			return err
		}
		set.Incoming = append(set.Incoming, l)
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return set, "", nil
}

// Check lists the broken links of the generation the read holds, from
// the list the refresh kept (no record is decoded), each with the link
// rules it would resolve with (store.Snapshot.FillResolvesWith), and with
// p.External its external links, never fetched. It stops with
// reply_too_large as soon as the links gathered pass p.MaxBytes (0: the
// reply bound of docir serve, which could not send more): a store with a
// million broken links is never listed whole to be refused once encoded.
func (s *Service) Check(ctx context.Context, p docir.CheckParams) (docir.CheckResult, error) {
	v, release, err := s.acquire(ctx)
	if err != nil {
		return docir.CheckResult{}, err
	}
	defer release()
	snap := v.snap
	res := docir.CheckResult{Generation: snap.Generation(), Broken: []docir.CheckedLink{}}
	if res.Documents, err = snap.Count(); err != nil {
		return docir.CheckResult{}, err
	}
	if res.Counts, err = snap.LinkCounts(); err != nil {
		return docir.CheckResult{}, err
	}
	b := newCheckBudget(p.MaxBytes, res.Counts)
	err = snap.BrokenLinks(func(_ string, ls []docir.CheckedLink) error {
		for _, l := range ls {
			if err := b.add(&l); err != nil {
				return err
			}
			res.Broken = append(res.Broken, l)
		}
		return ctx.Err()
	})
	if err != nil {
		return docir.CheckResult{}, err
	}
	broken := make([]*docir.Link, len(res.Broken))
	for i := range res.Broken {
		broken[i] = &res.Broken[i].Link
	}
	if err := snap.FillResolvesWith(broken); err != nil {
		return docir.CheckResult{}, err
	}
	if err := b.addRules(res.Broken); err != nil {
		return docir.CheckResult{}, err
	}
	if p.External {
		res.External = []docir.CheckedLink{}
		err = snap.EachLinks(func(_, path string, ls []docir.Link) error {
			for _, l := range ls {
				if l.Status == docir.LinkExternal {
					c := docir.CheckedLink{Link: l, Path: path}
					if err := b.add(&c); err != nil {
						return err
					}
					res.External = append(res.External, c)
				}
			}
			return ctx.Err()
		})
		if err != nil {
			return docir.CheckResult{}, err
		}
	}
	return res, nil
}

// checkBudget counts the bytes of the links a check gathers, as
// docir.Tally counts a get's (docir.LinkBytes, and the path), against its
// bound (<= 0: none).
type checkBudget struct {
	bound, n         int
	broken, external int // the links gathered so far
	counts           docir.LinkCounts
}

func newCheckBudget(maxBytes int, counts docir.LinkCounts) *checkBudget {
	switch {
	case maxBytes == 0:
		maxBytes = wire.MaxReplyBytes
	case maxBytes < 0:
		maxBytes = 0
	}
	return &checkBudget{bound: maxBytes, n: 256, counts: counts}
}

// add counts link l (broken or external) and says whether it passes the bound.
func (b *checkBudget) add(l *docir.CheckedLink) error {
	if l.Status == docir.LinkExternal {
		b.external++
	} else {
		b.broken++
	}
	return b.count(docir.LinkBytes(&l.Link) + len(l.Path) + 12)
}

// addRules counts the link rules FillResolvesWith set on ls.
func (b *checkBudget) addRules(ls []docir.CheckedLink) error {
	n := 0
	for _, l := range ls {
		for _, r := range l.ResolvesWith {
			n += len(r) + 3
		}
	}
	return b.count(n)
}

func (b *checkBudget) count(n int) error {
	b.n += n
	if b.bound <= 0 || b.n <= b.bound {
		return nil
	}
	return docir.Errorf(docir.CodeReplyTooLarge,
		"check: the links listed pass the %d-byte reply bound after %d of %d broken links and %d of %d external ones; fix some, or leave targets out of the check with links.ignore (docs/links.md)",
		b.bound, b.broken, b.counts.Broken, b.external, b.counts.External)
}

// Changes lists the documents and sections that differ between two
// retained generations: p.Since and p.Until (0: the generation the read
// holds, the current one unless it is pinned). It reads only what may
// differ (store.Snapshot.Diff), then the records and bodies of the
// documents that did, to tell which of their sections changed: a section
// whose own text (its heading line to the next heading) differs, or that
// one side lacks.
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
		return docir.ChangesResult{}, docir.Errorf(docir.CodeInvalidParams, "changes: since %d is after until %d", p.Since, until.snap.Generation())
	}
	since, err := base.Pin(ctx, p.Since)
	if err != nil {
		return docir.ChangesResult{}, err
	}
	defer since.Close()
	return diffGenerations(ctx, since.Snapshot(), until.snap)
}

// diffGenerations is the changes reply from generation old to new.
func diffGenerations(ctx context.Context, old, cur *store.Snapshot) (docir.ChangesResult, error) {
	res := docir.ChangesResult{
		Since: old.Generation(), Until: cur.Generation(),
		Documents: emptyChanges(), Sections: emptyChanges(),
	}
	added, changed, removed, err := cur.Diff(old)
	if err != nil {
		return docir.ChangesResult{}, err
	}
	res.Documents.Added, res.Documents.Removed = append(res.Documents.Added, added...), append(res.Documents.Removed, removed...)
	for _, id := range changed {
		if err := ctx.Err(); err != nil {
			return docir.ChangesResult{}, err
		}
		res.Documents.Changed = append(res.Documents.Changed, id)
		orec, obody, ok1, err := old.Lookup(id)
		if err != nil {
			return docir.ChangesResult{}, err
		}
		nrec, nbody, ok2, err := cur.Lookup(id)
		if err != nil {
			return docir.ChangesResult{}, err
		}
		if !ok1 || !ok2 {
			continue
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
				res.Sections.Added = append(res.Sections.Added, addr)
			case !bytes.Equal(was, ownText(nbody, s)):
				res.Sections.Changed = append(res.Sections.Changed, addr)
			}
			delete(before, s.Slug)
		}
		for slug := range before {
			res.Sections.Removed = append(res.Sections.Removed, id+"#"+slug)
		}
	}
	for _, l := range []*[]string{&res.Sections.Added, &res.Sections.Changed, &res.Sections.Removed} {
		slices.SortFunc(*l, strings.Compare)
	}
	return res, nil
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

// Links reads the links of addresses on the view's generation.
func (v *View) Links(ctx context.Context, addrs []address.Address, maxBytes int) (docir.LinksResolved, error) {
	return v.s.Links(ctx, addrs, maxBytes)
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
