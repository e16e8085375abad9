package workspace

import (
	"net/url"
	"strings"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// docCache holds the documents one read (a Resolve or a Links call) has
// looked up, each decoded once: a read of many sections of one long
// document decodes its record once, not once per address (a record with
// thousands of sections and anchors takes milliseconds to decode). It
// holds at most maxCachedDocs documents and maxCachedBytes of their
// bodies and records (estimated: cachedBytes), and starts again empty
// when either would be passed, so a read of many documents keeps no more
// than a few.
type docCache struct {
	snap     *store.Snapshot
	withBody bool // Resolve's: the body too; Links' needs the record alone
	docs     map[string]*cachedDoc
	bytes    int
	decoded  int // documents looked up in the store: tests count them
}

// cachedDoc is one document of a docCache: what Lookup (or Record)
// answered for an id, with lookupBundlePage's answer for a bundle page's
// file name.
type cachedDoc struct {
	rec   docir.Record
	body  []byte
	ok    bool
	finds int           // sections looked up
	index *sectionIndex // made at the second
	// linkRules finds sections by the generation's link rules, made at
	// the first heading the record does not find (see findSection).
	linkRules *store.LinkRuleSections
}

const (
	maxCachedDocs  = 8
	maxCachedBytes = 64 << 20
)

func newDocCache(snap *store.Snapshot, withBody bool) *docCache {
	return &docCache{snap: snap, withBody: withBody, docs: map[string]*cachedDoc{}}
}

// get is document id (a bundle's page by the name of its file too, as
// lookupBundlePage finds it); ok is false in the answer when there is no
// such document.
func (c *docCache) get(id string) (*cachedDoc, error) {
	if d, ok := c.docs[id]; ok {
		return d, nil
	}
	c.decoded++
	d := &cachedDoc{}
	var err error
	if c.withBody {
		d.rec, d.body, d.ok, err = c.snap.Lookup(id)
	} else {
		d.rec, d.ok, err = c.snap.Record(id)
	}
	if err == nil && !d.ok {
		d.rec, d.body, d.ok, err = lookupBundlePage(c.snap, id)
		if !c.withBody {
			d.body = nil
		}
	}
	if err != nil {
		return nil, err
	}
	n := cachedBytes(d)
	if len(c.docs) >= maxCachedDocs || c.bytes+n > maxCachedBytes {
		clear(c.docs)
		c.bytes = 0
	}
	if n <= maxCachedBytes {
		c.docs[id] = d
		c.bytes += n
	}
	return d, nil
}

// cachedBytes estimates the memory a cached document holds: its body,
// and its record's sections, anchors and terms.
func cachedBytes(d *cachedDoc) int {
	n := len(d.body) + len(d.rec.Title) + len(d.rec.Path) + 256
	refs := func(ls []docir.LinkRef, ids ...[]string) {
		for _, l := range ls {
			n += len(l.Target) + len(l.Kind) + 48
		}
		for _, l := range ids {
			for _, a := range l {
				n += len(a) + 16
			}
		}
	}
	refs(d.rec.Links, d.rec.Anchors, d.rec.Terms)
	for _, s := range d.rec.Sections {
		n += len(s.Slug) + len(s.Heading) + 128
		refs(s.Links, s.Anchors, s.Terms)
	}
	return n
}

// findSection is d.rec.FindSection(heading): the first lookup asks the
// record itself; from the second on, a document asked for several
// sections answers from an index of them (sectionIndex) instead of
// slugging every heading again for each. A heading neither finds is
// looked up as a link's anchor under the link rules of the generation
// (store.LinkRuleSections: a definition term's id, an MkDocs anchor,
// made once for the document), so that get reads every anchor check
// accepts. A nil section with ok is the document itself: an anchor its
// lead holds, which a link resolves to the document.
func (d *cachedDoc) findSection(snap *store.Snapshot, heading string) (sec *docir.Section, ok bool, err error) {
	d.finds++
	if d.finds < 2 {
		if s, ok := d.rec.FindSection(heading); ok {
			return &s, true, nil
		}
	} else {
		if d.index == nil {
			d.index = newSectionIndex(d.rec.Sections)
		}
		if i, ok := d.index.find(heading); ok {
			return &d.rec.Sections[i], true, nil
		}
	}
	if d.linkRules == nil {
		f, err := snap.LinkRuleSections(&d.rec)
		if err != nil {
			return nil, false, err
		}
		d.linkRules = f
	}
	s, lead, ok := d.linkRules.Find(heading)
	if !ok || lead {
		return nil, ok, nil
	}
	return &s, true, nil
}

// sectionIndex answers docir.Record.FindSection from maps: each holds,
// for a key, the first section (in the record's order) that FindSection's
// pass of the same kind finds by it (TestSectionIndexIsFindSection).
type sectionIndex struct {
	slug, heading, headingSlug, anchor map[string]int
	dashed                             map[string]int // a slug or heading's slug that ends in '-', by what is left without them
	underscored                        map[string]int // a slug with '_', by its '_'s written '-'
}

func newSectionIndex(secs []docir.Section) *sectionIndex {
	x := &sectionIndex{slug: map[string]int{}, heading: map[string]int{}, headingSlug: map[string]int{}, anchor: map[string]int{}, dashed: map[string]int{}, underscored: map[string]int{}}
	first := func(m map[string]int, k string, i int) {
		if _, ok := m[k]; !ok {
			m[k] = i
		}
	}
	for i, s := range secs {
		first(x.slug, s.Slug, i)
		first(x.heading, s.Heading, i)
		first(x.headingSlug, address.Slug(s.Heading), i)
		for _, a := range s.Anchors {
			first(x.anchor, a, i)
		}
		for _, cand := range [...]string{s.Slug, address.Slug(s.Heading)} {
			if t := strings.TrimRight(cand, "-"); t != cand && t != "" {
				first(x.dashed, t, i)
			}
		}
		if strings.Contains(s.Slug, "_") {
			first(x.underscored, strings.ReplaceAll(s.Slug, "_", "-"), i)
		}
	}
	return x
}

// find is the index of the section FindSection finds by heading.
func (x *sectionIndex) find(heading string) (int, bool) {
	if i, ok := x.slug[heading]; ok {
		return i, true
	}
	if i, ok := x.heading[heading]; ok {
		return i, true
	}
	slug := address.Slug(heading)
	if i, ok := x.slug[slug]; ok {
		return i, true
	}
	if i, ok := x.headingSlug[slug]; ok {
		return i, true
	}
	if i, ok := x.anchor[heading]; ok {
		return i, true
	}
	if i, ok := x.anchor[slug]; ok {
		return i, true
	}
	if i, ok := x.dashed[slug]; ok {
		return i, true
	}
	if i, ok := x.underscored[slug]; ok && strings.Contains(slug, "-") {
		return i, true
	}
	if u := address.Unemphasized(heading); u != heading {
		us := address.Slug(u)
		i, ok := x.slug[us]
		if j, ok2 := x.headingSlug[us]; ok2 && (!ok || j < i) {
			i, ok = j, true
		}
		if ok {
			return i, true
		}
	}
	if strings.Contains(heading, "%") {
		if d, err := url.PathUnescape(heading); err == nil && d != heading && d != "" {
			return x.find(address.NFC(d))
		}
	}
	return 0, false
}
