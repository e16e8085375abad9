package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"path"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/store/links"
)

// The link index: each body layer holds, for the documents whose links it
// (re)resolved, the links resolved against its generation, and the index
// that finds the documents to resolve again when a file changes. Like the
// rest of a layer it is written once, when the layer is sealed (Publish),
// and read through the chain: a newer layer's entry shadows an older one,
// a tombstone says it is gone.
//
//	links   id -> linkEntry (JSON): the document's links, resolved, in
//	        document order, and the candidate files they were looked up in
//	linkto  file key + 0x00 + id -> "1": document id has a link that may
//	        lead to the file (a candidate up to the first that exists)
//	broken  id -> []docir.CheckedLink (JSON): the document's broken links,
//	        for check, which reads only this bucket
//	linkfold  lower-cased file key + 0x00 + file key -> "1": the files by
//	        their path in lower case, for links.ignore_case
//	linkalias "a" + alias path + 0x00 + id -> "1": the documents that
//	        declare each Hugo alias (links.AliasPath) or Jekyll
//	        redirect_from path (links.RedirectPath), for
//	        links.hugo_aliases; and "d" + id + 0x00 + alias path -> "1",
//	        the aliases of each document. Kept whatever the rules say, so
//	        that check names the rule and turning it on re-reads nothing
//
// and in the generation's meta, link_rules (the site base and ignore
// patterns, JSON), link_counts (docir.LinkCounts, JSON) and link_aliases
// ("1": linkalias holds every document's aliases; a store sealed by a
// docir before it has none, and its next seal indexes every document).
//
// A link looked up among the aliases has the linkto key "\x01" + the
// alias path (no file key starts so), so that a change of the documents
// that declare it resolves it again; one that resolves through an alias
// has its document's file key too, so that LinksInto finds it.
//
// Sealing resolves again exactly the documents whose resolution may have
// changed: the documents the layer puts or deletes, and the documents
// with a link that may lead to a file the layer adds, removes or changes
// (content or id), found through linkto. A change of the source folders
// or of the link rules resolves every document again. A refresh that
// changes nothing publishes nothing, and so costs nothing here.
var (
	bucketLinks  = []byte("links")
	bucketLinkTo = []byte("linkto")
	bucketBroken = []byte("broken")
	bucketFold   = []byte("linkfold")
	bucketAlias  = []byte("linkalias")

	keyLinkRules   = []byte("link_rules")
	keyLinkCounts  = []byte("link_counts")
	keyLinkAliases = []byte("link_aliases")
	// aliasIndexVersion is keyLinkAliases' value: AliasIndexVersion.
	aliasIndexVersion = []byte(AliasIndexVersion)
)

// AliasIndexVersion says what a generation's alias index holds (its
// keyLinkAliases): "1", Hugo's aliases; "2", and Jekyll's redirect_from
// (recordAliases); "3", and MyST labels (labelAlias) and pages' own
// paths (permalinkAlias). A generation whose index is of another version is
// indexed again by the next seal (sealAliases), as one that kept none,
// and a refresh publishes one for it (Snapshot.AliasIndexCurrent; the
// ingest settings digest holds the version, so no quick check of the
// folders skips that refresh).
const AliasIndexVersion = "3"

// LinkConfig is what a store is told of its links besides its sources
// (docir.yaml's links:). The generation records it; a change resolves
// every link again.
type LinkConfig struct {
	Base   string   `json:"base,omitempty"`   // the site base of root-relative links; "" or "/": the site root
	Ignore []string `json:"ignore,omitempty"` // target patterns not checked (links.Match)
	// Site are the URLs the site is served at (links.Rules.Site): a link
	// to a URL below one is a root-relative link.
	Site []string `json:"site,omitempty"`
	// IgnoreCase lets a path that names no file name one whose path
	// differs in case only (Hugo lower-cases URLs).
	IgnoreCase bool `json:"ignore_case,omitempty"`
	// DefinitionIDs makes definition terms anchors (Hugo's
	// autoDefinitionTermID).
	DefinitionIDs bool `json:"definition_ids,omitempty"`
	// RootFallback tries a relative path below each source folder too
	// (links.Rules.RootFallback).
	RootFallback bool `json:"root_fallback,omitempty"`
	// MkDocsAnchors lets an anchor name a section by the anchor MkDocs
	// gives its heading (links.MkDocsAnchors) when no slug is the anchor.
	MkDocsAnchors bool `json:"mkdocs_anchors,omitempty"`
	// VitePressAnchors lets an anchor name a section by the anchor
	// VitePress gives its heading (links.VitePressAnchors), as written or
	// slugified as VitePress 2 slugifies a link's anchor, before any slug
	// (targetAnchors.find).
	VitePressAnchors bool `json:"vitepress_anchors,omitempty"`
	// DirectoryURLs reads a relative link not written as a markdown file
	// path from the page's own URL folder (links.Rules.DirectoryURLs).
	DirectoryURLs bool `json:"directory_urls,omitempty"`
	// HugoAliases lets a root-relative link whose path names no file
	// lead to the document that declares the path among its front
	// matter's Hugo aliases or Jekyll redirect_from paths
	// (links.AliasPath, links.RedirectPath; resolver.alias).
	HugoAliases bool `json:"hugo_aliases,omitempty"`
	// BlackfridayAnchors lets an anchor name a section by the anchor Hugo
	// gives its heading with autoHeadingIDType "blackfriday"
	// (links.BlackfridayAnchors) when no slug is the anchor.
	BlackfridayAnchors bool `json:"blackfriday_anchors,omitempty"`
	// MDNAnchors lets an anchor name a section by the anchor MDN Web Docs
	// gives its heading (links.MDNAnchors: formal_syntax, result_2) when
	// no slug is the anchor.
	MDNAnchors bool `json:"mdn_anchors,omitempty"`
	// NumberPrefixes lets a link's path name a file or folder by its name
	// without its number prefix (links.Unnumbered: 20-load.md is load), as
	// Docusaurus and svelte.dev serve them: a candidate file that is not
	// there is looked up so, and so is a page name alone (root_fallback).
	NumberPrefixes bool `json:"number_prefixes,omitempty"`
	// Wikilinks resolves wikilinks ([[Note]]: resolver.wiki); off, they
	// are unchecked (docir.ReasonWikilink): outside a vault `[[x]]` is a
	// TOML table or an array, seldom a link.
	Wikilinks bool `json:"wikilinks,omitempty"`
	// ReadmeFirst names a folder by its README.md before its index.md
	// (links.Rules.ReadmeFirst). No setting: a refresh sets it when no
	// site generator's marks stand by the sources (PlainRepository), and
	// a change of it, as of any rule, resolves every link again.
	ReadmeFirst bool `json:"readme_first,omitempty"`
}

// LinkRuleDirectoryURLs, LinkRuleVitePressAnchors, LinkRuleHugoAliases,
// LinkRuleBlackfridayAnchors, LinkRuleMDNAnchors and
// LinkRuleNumberPrefixes name links.directory_urls,
// links.vitepress_anchors, links.hugo_aliases, links.blackfriday_anchors,
// links.mdn_anchors and links.number_prefixes in
// docir.CheckedLink.ResolvesWith, as
// docir.LinkRuleRootFallback and the others name theirs.
const (
	LinkRuleDirectoryURLs      = "links.directory_urls"
	LinkRuleVitePressAnchors   = "links.vitepress_anchors"
	LinkRuleHugoAliases        = "links.hugo_aliases"
	LinkRuleBlackfridayAnchors = "links.blackfriday_anchors"
	LinkRuleMDNAnchors         = "links.mdn_anchors"
	LinkRuleNumberPrefixes     = "links.number_prefixes"
)

// Equal reports whether c and o are the same rules, every field
// compared (a rule left out here would let a refresh that changes only it
// keep the links resolved by the old rules: TestLinkRulesChangeRepublishes).
func (c LinkConfig) Equal(o LinkConfig) bool {
	return c.Base == o.Base && slices.Equal(c.Ignore, o.Ignore) && slices.Equal(c.Site, o.Site) && c.IgnoreCase == o.IgnoreCase &&
		c.DefinitionIDs == o.DefinitionIDs && c.RootFallback == o.RootFallback && c.MkDocsAnchors == o.MkDocsAnchors &&
		c.DirectoryURLs == o.DirectoryURLs && c.VitePressAnchors == o.VitePressAnchors && c.HugoAliases == o.HugoAliases &&
		c.BlackfridayAnchors == o.BlackfridayAnchors && c.MDNAnchors == o.MDNAnchors && c.Wikilinks == o.Wikilinks &&
		c.NumberPrefixes == o.NumberPrefixes && c.ReadmeFirst == o.ReadmeFirst
}

// linkEntry is one document's resolved links.
type linkEntry struct {
	Path   string       `json:"path"`           // the document's path below its source folder (Record.Path)
	Keys   []string     `json:"keys,omitempty"` // the linkto keys (file keys) its links were looked up in
	Links  []docir.Link `json:"links"`
	Counts [4]int       `json:"counts"` // resolved, broken, external, unchecked
}

func (e *linkEntry) count(l docir.Link) {
	switch l.Status {
	case docir.LinkResolved:
		e.Counts[0]++
	case docir.LinkBroken:
		e.Counts[1]++
	case docir.LinkExternal:
		e.Counts[2]++
	default:
		e.Counts[3]++
	}
}

// linkMeta is the part of a stored record the link index reads.
type linkMeta struct {
	Path     string          `json:"path"`
	Links    []docir.LinkRef `json:"links"`
	Sections []struct {
		Slug  string          `json:"slug"`
		Links []docir.LinkRef `json:"links"`
	} `json:"sections"`
}

// anchorMeta is the part of a stored record that says which anchors a
// link may name in it.
type anchorMeta struct {
	Anchors   []string        `json:"anchors"`
	Terms     []string        `json:"terms"`
	ListTerms []string        `json:"list_terms"`
	Sections  []anchorSection `json:"sections"`
}

// anchorSection is what anchorMeta reads of one section.
type anchorSection struct {
	Slug      string   `json:"slug"`
	Heading   string   `json:"heading"`
	Anchors   []string `json:"anchors"`
	Terms     []string `json:"terms"`
	ListTerms []string `json:"list_terms"`
}

// noteChange records, as Apply writes them, what the seal must resolve
// again: the documents put or deleted, and the files whose document is
// new, gone, or another (content or id).
func (p *Pending) noteChange(c chain, ch Change) {
	if p.linkIDs == nil {
		p.linkIDs, p.linkKeys = map[string]bool{}, map[string]bool{}
	}
	for _, id := range ch.Delete {
		p.linkIDs[id] = true
	}
	for _, d := range ch.Put {
		p.linkIDs[d.Record.ID] = true
	}
	for k, e := range ch.Files {
		old, _ := c.get(bucketFiles, []byte(k))
		var o fileEntryView
		var err error
		if old != nil {
			o, err = viewFileEntry(old)
		}
		switch {
		case old == nil && e == nil:
		case old == nil || e == nil || err != nil:
			p.linkKeys[k] = true
		case string(o.id) != e.ID || !bytes.Equal(o.digest, e.Digest[:]):
			p.linkKeys[k] = true
		}
		// An id that comes or goes (a file added or removed, or its id
		// another): the links that looked it up (resolver.byID).
		if newID := idOf(e); p.linkKeys[k] && err == nil && string(o.id) != newID {
			if p.idKeys == nil {
				p.idKeys = map[string]bool{}
			}
			if old != nil {
				p.idKeys[idLinkKey(string(o.id))] = true
			}
			if newID != "" {
				p.idKeys[idLinkKey(newID)] = true
			}
		}
	}
}

// idOf is the id of a file entry, "" for none (a file removed).
func idOf(e *FileEntry) string {
	if e == nil {
		return ""
	}
	return e.ID
}

// idLinkKey is the linkto key of a lookup of the document id (resolver.byID):
// no file key starts with 0x05.
func idLinkKey(id string) string { return "\x05" + id }

// byID is the document whose id a candidate file's path spells, below a
// source whose ids are read from front matter by name (links.Rules
// NameIDs): Docusaurus serves a page at its folder and its `id:`, and
// its links name it so ("/users/configs" for users/Shared_Configurations.md
// with `id: configs`), not by its file. Each id looked up goes into keys
// (idLinkKey), so that a document that takes or drops it resolves the
// link again.
func (r *resolver) byID(files []links.File, keys map[string]bool) string {
	for _, f := range files {
		i := slices.Index(r.rules.Roots, f.Root)
		if i < 0 || i >= len(r.rules.NameIDs) || !r.rules.NameIDs[i] {
			continue
		}
		rel, ok := strings.CutSuffix(f.Rel, ".md")
		if !ok || rel == "" {
			continue
		}
		id := rel
		if prefix := strings.Trim(r.rules.Prefixes[i], "/"); prefix != "" {
			id = prefix + "/" + rel
		}
		keys[idLinkKey(id)] = true
		if key, _ := r.c.get(bucketManifest, []byte(id)); key != nil {
			keys[string(key)] = true // its file's key, by which LinksInto finds the link
			return id
		}
	}
	return ""
}

// sealLinks resolves again the links of the documents whose resolution may
// have changed (see the top of this file) and writes them, the linkto
// index and the broken list into the new layer, and the counts into its
// meta.
func (p *Pending) sealLinks() error {
	var rules links.Rules
	var all bool
	var counts docir.LinkCounts
	r := &resolver{targets: map[string]*targetAnchors{}}
	err := p.db.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		var err error
		if rules, r.cfg, err = linkRulesOf(meta); err != nil {
			return err
		}
		all = !bytes.Equal(meta.Get(keySources), p.prevSources) || !bytes.Equal(meta.Get(keyLinkRules), p.prevLinkRules)
		if v := meta.Get(keyLinkCounts); v != nil && !all {
			if err := json.Unmarshal(v, &counts); err != nil {
				return fmt.Errorf("link counts: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return p.damaged("%v", err)
	}
	if err := p.sealFold(); err != nil {
		return err
	}
	if err := p.sealAliases(); err != nil {
		return err
	}
	todo, err := p.linksToResolve(all)
	if err != nil {
		return err
	}
	r.rules = rules
	w := linkToWrites{tombstones: len(p.lower) > 0}
	err = p.eachInBatches(todo, func(c chain, id string) error {
		r.c = c
		return p.resolveDoc(c, r, id, &counts, all, &w)
	}, func(c chain) error {
		return w.flush(c.top().Bucket(bucketLinkTo))
	})
	if err != nil {
		return err
	}
	v, err := json.Marshal(counts)
	if err != nil {
		return err
	}
	return p.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keyLinkCounts, v) })
}

// eachInBatches calls fn with each of ids in turn, in write
// transactions of the new layer of at most 2048 ids each, and the chain
// each transaction reads; then end, when not nil, in the same transaction.
func (p *Pending) eachInBatches(ids []string, fn func(c chain, id string) error, end func(c chain) error) error {
	const perTx = 2048
	for len(ids) > 0 {
		batch := ids[:min(perTx, len(ids))]
		ids = ids[len(batch):]
		err := p.db.Update(func(tx *bolt.Tx) error {
			c, done, err := p.chain(tx)
			if err != nil {
				return err
			}
			defer done()
			for _, id := range batch {
				if err := fn(c, id); err != nil {
					return err
				}
			}
			if end != nil {
				return end(c)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// linkRulesOf reads the rules a generation's links are resolved by from
// its meta bucket: the source folders and the link configuration.
func linkRulesOf(meta *bolt.Bucket) (links.Rules, LinkConfig, error) {
	var rules links.Rules
	var srcs []Source
	if v := meta.Get(keySources); v != nil {
		if err := json.Unmarshal(v, &srcs); err != nil {
			return rules, LinkConfig{}, fmt.Errorf("sources: %w", err)
		}
	}
	var cfg LinkConfig
	if v := meta.Get(keyLinkRules); v != nil {
		if err := json.Unmarshal(v, &cfg); err != nil {
			return rules, LinkConfig{}, fmt.Errorf("link rules: %w", err)
		}
	}
	for _, s := range srcs {
		rules.Roots = append(rules.Roots, s.Path)
		rules.Prefixes = append(rules.Prefixes, s.Prefix)
		rules.NameIDs = append(rules.NameIDs, s.FrontMatterID == FrontMatterIDName)
	}
	rules.Base, rules.Ignore, rules.RootFallback, rules.Site = cfg.Base, cfg.Ignore, cfg.RootFallback, cfg.Site
	rules.DirectoryURLs, rules.ReadmeFirst = cfg.DirectoryURLs, cfg.ReadmeFirst
	return rules.Normalize(), cfg, nil
}

// linksToResolve lists, sorted, the documents whose links the seal
// resolves again: with all, every document that has or had links; else
// the documents the layer changed and those with a link that may lead to
// a file it changed.
func (p *Pending) linksToResolve(all bool) ([]string, error) {
	ids := maps.Clone(p.linkIDs)
	if ids == nil {
		ids = map[string]bool{}
	}
	err := p.db.View(func(tx *bolt.Tx) error {
		c, done, err := p.chain(tx)
		if err != nil {
			return err
		}
		defer done()
		if all {
			for _, b := range [][]byte{bucketDocs, bucketLinks} {
				if err := c.each(b, false, func(k, _ []byte, _ int) error {
					ids[string(k)] = true
					return nil
				}); err != nil {
					return err
				}
			}
			return nil
		}
		keys := slices.Sorted(maps.Keys(p.linkKeys))
		for _, a := range slices.Sorted(maps.Keys(p.aliasPaths)) {
			keys = append(keys, aliasLinkKey(a))
		}
		names := map[string]bool{} // the note names of the files changed, for wikilinks
		for key := range p.linkKeys {
			if root, rel, err := splitFileKey([]byte(key)); err == nil {
				names[noteNameKey(noteName(rel))] = true
				// Its lookups without number prefixes (number_prefixes).
				names[noteNameKey(links.Unnumbered(noteName(rel)))] = true
				names[unnumberedKey(root, rel)] = true
			}
		}
		keys = append(keys, slices.Sorted(maps.Keys(names))...)
		keys = append(keys, slices.Sorted(maps.Keys(p.idKeys))...)
		for _, key := range keys {
			err := linkersOf(c, key, func(id []byte) { ids[string(id)] = true })
			if err != nil {
				return err
			}
		}
		return nil
	})
	return slices.Sorted(maps.Keys(ids)), err
}

// aliasLinkKey is the linkto key of a lookup of the alias path a.
func aliasLinkKey(a string) string { return "\x01" + a }

// indexAliases keeps the alias index (linkalias) in step with the
// documents ch deletes and puts, as Apply writes them into c's top layer.
func (p *Pending) indexAliases(c chain, ch Change) error {
	for _, id := range ch.Delete {
		if err := p.setAliases(c, id, nil); err != nil {
			return err
		}
	}
	for _, d := range ch.Put {
		if err := p.setAliases(c, d.Record.ID, recordAliases(d.Record.Path, d.Record.Fields, recordLabels(&d.Record))); err != nil {
			return err
		}
	}
	return nil
}

// recordAliases are the alias paths the front matter fields of the
// document whose file is rel below its source folder declare: Hugo's
// aliases (links.AliasPath) and Jekyll's redirect_from
// (links.RedirectPath; jekyll-redirect-from, which GitHub Pages and
// GitHub's own docs use); and its MyST labels, each as labelAlias; sorted,
// each once.
func recordAliases(rel string, fields map[string]any, labels []string) []string {
	var out []string
	for _, a := range links.Aliases(fields["aliases"]) {
		if p, ok := links.AliasPath(rel, a); ok {
			out = append(out, p)
		}
	}
	for _, a := range links.Aliases(fields["redirect_from"]) {
		if p, ok := links.RedirectPath(a); ok {
			out = append(out, p)
		}
	}
	for _, l := range labels {
		out = append(out, labelAlias(l))
	}
	for _, key := range []string{"permalink", "url"} {
		if p, ok := pagePath(fields[key]); ok {
			out = append(out, permalinkAlias(p))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// pagePath is the site path (links.RedirectPath's form) a page's
// front-matter `permalink:` (Jekyll's) or `url:` (Hugo's) serves it at: a
// path from the site's root, "/docs/x/"; false for anything else (a URL,
// a pattern such as Jekyll's "/:categories/:title/").
func pagePath(v any) (string, bool) {
	p, ok := v.(string)
	if !ok || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.Contains(p, ":") {
		return "", false
	}
	return links.RedirectPath(p)
}

// permalinkAlias is the alias index's entry of a page's own path
// (pagePath): looked up for every root-relative link, whatever the rules.
func permalinkAlias(p string) string { return "\x07" + p }

// labelAlias is the alias index's entry of a MyST label (no alias path
// starts with 0x06: they start with '/').
func labelAlias(label string) string { return "\x06" + label }

// recordLabels are the MyST labels of rec, its lead's and its sections'.
func recordLabels(rec *docir.Record) []string {
	out := slices.Clone(rec.Labels)
	for _, s := range rec.Sections {
		out = append(out, s.Labels...)
	}
	return out
}

// label is the document a link leads to by a MyST label: a MyST page's
// `[text](label)` names a target (`(label)=` before a heading) of any page
// of the project, as Sphinx resolves it, where no file is at the path.
// Of the documents that hold the label (the alias index), the first in
// id order; "" for none. The lookup (aliasLinkKey of labelAlias) and the
// document's file key go into keys, as for an alias.
func (r *resolver) label(label string, keys map[string]bool) string {
	return r.aliased(labelAlias(label), keys)
}

// setAliases makes the alias index say that document id declares the
// alias paths cur (sorted, each once), noting in p.aliasPaths each path
// it adds or drops.
func (p *Pending) setAliases(c chain, id string, cur []string) error {
	var old []string
	prefix := []byte("d" + id + "\x00")
	err := c.eachFrom(bucketAlias, prefix, false, func(k, _ []byte, _ int) error {
		if !bytes.HasPrefix(k, prefix) {
			return errStop
		}
		old = append(old, string(k[len(prefix):]))
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return err
	}
	if len(old) == 0 && len(cur) == 0 {
		return nil
	}
	if p.aliasPaths == nil {
		p.aliasPaths = map[string]bool{}
	}
	b := c.top().Bucket(bucketAlias)
	for _, a := range old {
		if _, found := slices.BinarySearch(cur, a); found {
			continue
		}
		p.aliasPaths[a] = true
		for _, k := range []string{"a" + a + "\x00" + id, "d" + id + "\x00" + a} {
			var err error
			if len(p.lower) == 0 {
				err = b.Delete([]byte(k))
			} else {
				err = b.Put([]byte(k), tombstone)
			}
			if err != nil {
				return err
			}
		}
	}
	for _, a := range cur {
		if slices.Contains(old, a) {
			continue
		}
		p.aliasPaths[a] = true
		if err := errors.Join(b.Put([]byte("a"+a+"\x00"+id), []byte("1")), b.Put([]byte("d"+id+"\x00"+a), []byte("1"))); err != nil {
			return err
		}
	}
	return nil
}

// sealAliases indexes the aliases of every document when the previous
// generation kept no alias index (sealed by a docir before it, or
// refreshed by one, which left entries of the documents it changed as
// they were: those of a document gone are dropped), and records that this
// one keeps it.
func (p *Pending) sealAliases() error {
	if !p.aliasIndexed {
		ids := map[string]bool{}
		err := p.db.View(func(tx *bolt.Tx) error {
			c, done, err := p.chain(tx)
			if err != nil {
				return err
			}
			defer done()
			err = c.each(bucketDocs, false, func(k, _ []byte, _ int) error {
				ids[string(k)] = true
				return nil
			})
			if err != nil {
				return err
			}
			return c.eachFrom(bucketAlias, []byte("d"), false, func(k, _ []byte, _ int) error {
				if k[0] != 'd' {
					return errStop
				}
				id, _, _ := bytes.Cut(k[1:], []byte{0})
				ids[string(id)] = true
				return nil
			})
		})
		if err != nil && !errors.Is(err, errStop) {
			return err
		}
		err = p.eachInBatches(slices.Sorted(maps.Keys(ids)), func(c chain, id string) error {
			raw, _ := c.get(bucketDocs, []byte(id))
			if raw == nil {
				return p.setAliases(c, id, nil)
			}
			var rec docir.Record // its path, front matter and labels (read once for every document)
			if err := json.Unmarshal(raw, &rec); err != nil {
				return p.damaged("record %q: %v", id, err)
			}
			return p.setAliases(c, id, recordAliases(rec.Path, rec.Fields, recordLabels(&rec)))
		}, nil)
		if err != nil {
			return err
		}
	}
	return p.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keyLinkAliases, aliasIndexVersion) })
}

// linkersOf calls fn with every document that linkto says may link to the
// file key (under the key itself, or lower-cased when links ignore case).
func linkersOf(c chain, key string, fn func(id []byte)) error {
	keys := []string{key}
	if f := strings.ToLower(key); f != key {
		keys = append(keys, f)
	}
	for _, k := range keys {
		prefix := []byte(k + "\x00")
		err := c.eachFrom(bucketLinkTo, prefix, false, func(k, _ []byte, _ int) error {
			if !bytes.HasPrefix(k, prefix) {
				return errStop
			}
			fn(k[len(prefix):])
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			return err
		}
	}
	return nil
}

// sealFold keeps the files by their lower-cased path (linkfold) in step
// with the files the layer adds and removes.
func (p *Pending) sealFold() error {
	return p.db.Update(func(tx *bolt.Tx) error {
		c, done, err := p.chain(tx)
		if err != nil {
			return err
		}
		defer done()
		files, fold := c.buckets(bucketFiles), tx.Bucket(bucketFold)
		for _, key := range slices.Sorted(maps.Keys(p.linkKeys)) {
			k := []byte(strings.ToLower(key) + "\x00" + key)
			if v, _ := files.get([]byte(key)); v != nil {
				err = fold.Put(k, []byte("1"))
			} else if len(p.lower) == 0 {
				err = fold.Delete(k)
			} else {
				err = fold.Put(k, tombstone)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// errStop ends a walk early.
var errStop = errors.New("stop")

// resolveDoc resolves the links of document id against the chain c (the
// new generation) and writes its entry, its linkto keys and its broken
// links, adjusting counts by the difference from its previous entry.
func (p *Pending) resolveDoc(c chain, r *resolver, id string, counts *docir.LinkCounts, all bool, w *linkToWrites) error {
	tx := c.top()
	del := func(b *bolt.Bucket, k []byte) error {
		if len(p.lower) == 0 {
			return b.Delete(k)
		}
		return b.Put(k, tombstone)
	}
	var old linkEntry
	if v, _ := c.get(bucketLinks, []byte(id)); v != nil {
		if err := json.Unmarshal(v, &old); err != nil {
			return p.damaged("links of %q: %v", id, err)
		}
	}
	cur, err := p.currentLinks(c, r, id)
	if err != nil {
		return err
	}
	path := cur.Path
	if !all {
		counts.Resolved -= old.Counts[0]
		counts.Broken -= old.Counts[1]
		counts.External -= old.Counts[2]
		counts.Unchecked -= old.Counts[3]
	}
	counts.Resolved += cur.Counts[0]
	counts.Broken += cur.Counts[1]
	counts.External += cur.Counts[2]
	counts.Unchecked += cur.Counts[3]

	linksB, broken := tx.Bucket(bucketLinks), tx.Bucket(bucketBroken)
	// linkto: drop the keys no longer looked up, add the new ones (in
	// key order, once the batch is resolved: linkToWrites).
	had := make(map[string]bool, len(old.Keys))
	for _, k := range old.Keys {
		had[k] = true
	}
	for _, k := range cur.Keys {
		if had[k] {
			delete(had, k)
			continue
		}
		w.add(k+"\x00"+id, true)
	}
	for k := range had {
		w.add(k+"\x00"+id, false)
	}
	if len(cur.Links) == 0 {
		if len(old.Links) > 0 || len(old.Keys) > 0 {
			if err := del(linksB, []byte(id)); err != nil {
				return err
			}
		}
	} else {
		v, err := json.Marshal(cur)
		if err != nil {
			return err
		}
		if err := linksB.Put([]byte(id), v); err != nil {
			return err
		}
	}
	var bad []docir.CheckedLink
	for _, l := range cur.Links {
		if l.Status == docir.LinkBroken {
			bad = append(bad, docir.CheckedLink{Link: l, Path: path})
		}
	}
	if len(bad) == 0 {
		if old.Counts[1] > 0 || all {
			if v, _ := c.get(bucketBroken, []byte(id)); v != nil {
				return del(broken, []byte(id))
			}
		}
		return nil
	}
	v, err := json.Marshal(bad)
	if err != nil {
		return err
	}
	return broken.Put([]byte(id), v)
}

// linkToWrites are the linkto keys a batch of resolveDoc calls adds and
// drops, written in key order when the batch ends. A linkto key leads with
// the target, so one document's keys fall all over the bucket, and bbolt
// splits a node only when the transaction commits: put as they came, a
// batch's keys went into one ever larger node, each moving the half after
// it (quadratic: 50 s to index 2,000 pages of 50 links each, a review
// found). In order, each lands at the node's end. The keys of a batch are
// distinct (each ends with its document's id), so their order changes
// nothing else.
type linkToWrites struct {
	keys       []string
	put        []bool
	tombstones bool // a drop writes a tombstone (the new layer has layers below)
}

func (w *linkToWrites) add(key string, put bool) {
	w.keys = append(w.keys, key)
	w.put = append(w.put, put)
}

// flush writes the batch's keys into b in key order and empties w.
func (w *linkToWrites) flush(b *bolt.Bucket) error {
	order := make([]int, len(w.keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, c int) int { return strings.Compare(w.keys[a], w.keys[c]) })
	for _, i := range order {
		var err error
		switch k := []byte(w.keys[i]); {
		case w.put[i]:
			err = b.Put(k, []byte("1"))
		case w.tombstones:
			err = b.Put(k, tombstone)
		default:
			err = b.Delete(k)
		}
		if err != nil {
			return err
		}
	}
	w.keys, w.put = w.keys[:0], w.put[:0]
	return nil
}

// currentLinks resolves the links of document id as the chain c holds it;
// none when c holds no such document.
func (p *Pending) currentLinks(c chain, r *resolver, id string) (linkEntry, error) {
	raw, _ := c.get(bucketDocs, []byte(id))
	if raw == nil {
		return linkEntry{}, nil
	}
	var m linkMeta
	if err := json.Unmarshal(raw, &m); err != nil {
		return linkEntry{}, p.damaged("record %q: %v", id, err)
	}
	// Its file: relative links start from its folder. A document
	// written without a file (a store's own tests) has none, and its
	// relative links lead outside every source.
	root, rel := "", m.Path
	if key, _ := c.get(bucketManifest, []byte(id)); key != nil {
		var err error
		if root, rel, err = splitFileKey(key); err != nil {
			return linkEntry{}, p.damaged("%v", err)
		}
	}
	cur := r.resolve(id, root, rel, &m)
	cur.Path = m.Path
	return cur, nil
}

// resolver resolves links against one chain, caching the anchors of the
// documents links lead to.
type resolver struct {
	rules   links.Rules
	cfg     LinkConfig
	c       chain
	targets map[string]*targetAnchors // id -> its anchors; nil: no such document
	names   *noteNames                // the documents by file name, for wikilinks (made on first use; may be shared)
	// snapNames, when set, gives names on first use instead: the
	// snapshot's, made once (Snapshot.noteNames) and never changed after.
	snapNames func() *noteNames
}

// noteNames are a chain's documents by the name of their file, for
// wikilinks (resolver.wiki): lower-cased, without ".md", its last
// segment -> the documents whose file has it, each with its path so
// (below its source folder). Made on the first wikilink a resolver reads.
type noteNames struct {
	by map[string][]noteFile
	// plain are the files by their names without number prefixes
	// (links.Unnumbered, for links.number_prefixes): by the last segment
	// so (a noteName), and by unnumberedKey of the whole path.
	plain map[string][]noteFile
}

type noteFile struct{ rel, id, key string } // key: its file key

// maxTargets bounds the resolver's cache of target documents.
const maxTargets = 4096

// resolve resolves the links of the record m of document id, whose file
// is rel below root.
func (r *resolver) resolve(id, root, rel string, m *linkMeta) linkEntry {
	var e linkEntry
	keys := map[string]bool{}
	add := func(from string, refs []docir.LinkRef) {
		for _, ref := range refs {
			l := r.link(id, root, rel, ref, keys)
			l.From = from
			e.count(l)
			e.Links = append(e.Links, l)
		}
	}
	add(id, m.Links)
	for _, s := range m.Sections {
		add(id+"#"+s.Slug, s.Links)
	}
	e.Keys = slices.Sorted(maps.Keys(keys))
	return e
}

// link resolves one link; the file keys it looked up go into keys.
func (r *resolver) link(id, root, rel string, ref docir.LinkRef, keys map[string]bool) docir.Link {
	if ref.Kind == docir.LinkWiki {
		return r.wiki(id, ref, keys)
	}
	l := docir.Link{Line: ref.Line, Column: ref.Column, Target: ref.Target, Kind: ref.Kind}
	if p, ok := links.LiquidPath(ref.Target); ok {
		ref.Target = p // as Jekyll's Liquid renders it; l keeps what is written
	}
	t := r.rules.Classify(root, rel, ref)
	switch {
	case t.Status == docir.LinkExternal:
		l.Status, l.URL = t.Status, t.URL
		return l
	case t.Status != "":
		l.Status, l.Reason = t.Status, t.Reason
		return l
	}
	target := ""
	if t.Self {
		target = id
	} else if path.Ext(links.TargetPath(ref.Target)) == "" {
		// A path without an extension is a URL, and where ids are read
		// by name a URL names the page by its id before any file: React
		// Native's docs link [Introduction](getting-started) to
		// introduction.md, whose id is getting-started, while
		// getting-started.md has the id environment-setup.
		target = r.byID(t.Files, keys)
	}
	if target == "" && !t.Self {
		for _, f := range t.Files {
			if target = r.file(FileKey(f.Root, f.Rel), keys); target != "" {
				break
			}
		}
		if r.cfg.NumberPrefixes {
			for _, f := range t.Files {
				if target != "" {
					break
				}
				target = r.unnumberedFile(f.Root, f.Rel, keys)
			}
		}
	}
	if target == "" {
		target = r.byID(t.Files, keys)
	}
	if target == "" && t.PageName != "" {
		target = r.pageNamed(t.PageName, keys)
	}
	if target == "" && r.cfg.HugoAliases {
		target = r.alias(ref, keys)
	}
	if target == "" {
		if p, ok := r.rules.SitePath(ref); ok { // a page's own path (permalink:)
			target = r.aliased(permalinkAlias(p), keys)
		}
	}
	if target == "" && t.Anchor == "" && len(t.Files) > 0 && !strings.HasPrefix(ref.Target, "/") {
		// A MyST label written as a path ([text](toc/numbering)).
		if label := links.TargetPath(ref.Target); label != "" {
			if target = r.label(label, keys); target != "" {
				return r.toAnchor(l, target, label)
			}
		}
	}
	if target == "" {
		switch {
		case t.OrURL != "":
			l.Status, l.URL = docir.LinkExternal, t.OrURL // no page of that name: a URL
		case t.NotMarkdown:
			l.Status, l.Reason = docir.LinkUnchecked, docir.ReasonNotMarkdown
		default:
			l.Status, l.Reason = docir.LinkBroken, docir.ReasonNoDocument
		}
		return l
	}
	resolved := r.toAnchor(l, target, t.Anchor)
	if t.Self && resolved.Status == docir.LinkBroken {
		// MyST: `[](#label)` names a target anywhere in the project,
		// as {ref} does (49 of the MyST and Jupyter Book docs' 71
		// broken links were to labels of other pages).
		if other := r.label(t.Anchor, keys); other != "" {
			return r.toAnchor(l, other, t.Anchor)
		}
	}
	return resolved
}

// toAnchor is l resolved to anchor in document target: to the document for no
// anchor, to the section that holds the anchor (resolver.anchor), or
// broken, no_section, naming the document and the heading asked for.
func (r *resolver) toAnchor(l docir.Link, target, anchor string) docir.Link {
	if anchor == "" {
		l.Status, l.Address = docir.LinkResolved, target
		return l
	}
	if addr, ok := r.anchor(target, anchor); ok {
		l.Status, l.Address = docir.LinkResolved, addr
	} else {
		l.Status, l.Reason, l.Address = docir.LinkBroken, docir.ReasonNoSection, target+"#"+anchor
	}
	return l
}

// wiki resolves the wikilink ref of document id, with links.wikilinks on
// (else it is unchecked, docir.ReasonWikilink), as Obsidian does: its
// target is a note's name ("My Note"), or a path to it ("folder/My
// Note"), without ".md" or with it, in any case: the document whose file,
// below its source folder, is that path, else the one whose path ends
// with it, the shortest (then the first in byte order). Then "#Heading"
// as any anchor (the last part of "#A#B", Obsidian's heading path), and
// "#^block" to the section whose text ends a block with that id (a
// document anchor "^block": markdown's blockIDs), else broken. A target
// that is no note and has an extension (![[diagram.png]]) is a file docir
// does not track: unchecked, not_markdown. links.ignore applies. The
// name looked up goes into keys (noteNameKey), so that a file of that
// name added or removed resolves the link again, and so does the file key
// of the note it leads to (LinksInto reads by it).
func (r *resolver) wiki(id string, ref docir.LinkRef, keys map[string]bool) docir.Link {
	l := docir.Link{Line: ref.Line, Column: ref.Column, Target: ref.Target, Kind: ref.Kind}
	if !r.cfg.Wikilinks {
		l.Status, l.Reason = docir.LinkUnchecked, docir.ReasonWikilink
		return l
	}
	if r.rules.Ignored(ref.Target) {
		l.Status, l.Reason = docir.LinkUnchecked, docir.ReasonIgnored
		return l
	}
	name, anchor, _ := strings.Cut(ref.Target, "#")
	name = strings.TrimSpace(name)
	target := id
	if name != "" {
		if target = r.note(name, keys); target == "" && ref.Alt != "" {
			// A GitHub wiki writes [[text|Page]], the page after '|'
			// ([[here|https://…]] is a URL).
			if strings.Contains(ref.Alt, "://") {
				l.Status, l.URL = docir.LinkExternal, ref.Alt
				return l
			}
			if alt, altAnchor, _ := strings.Cut(ref.Alt, "#"); strings.TrimSpace(alt) != "" {
				if target = r.note(strings.TrimSpace(alt), keys); target != "" {
					anchor = altAnchor
				}
			}
		}
		if target == "" {
			if path.Ext(name) != "" {
				l.Status, l.Reason = docir.LinkUnchecked, docir.ReasonNotMarkdown
			} else {
				l.Status, l.Reason = docir.LinkBroken, docir.ReasonNoDocument
			}
			return l
		}
	}
	if i := strings.LastIndexByte(anchor, '#'); i >= 0 {
		anchor = anchor[i+1:]
	}
	return r.toAnchor(l, target, strings.TrimSpace(anchor))
}

// noteNameKey is the linkto key of a wikilink's lookup of the note name
// (lower-cased, the last segment of its path without ".md"): a file of
// that name added or removed resolves again the documents that hold one.
func noteNameKey(name string) string { return "\x02" + name }

// noteName is the name a wikilink's lookup of path p goes by.
func noteName(p string) string {
	return path.Base(strings.ToLower(strings.TrimSuffix(p, ".md")))
}

// noteFiles are the files of the sources whose name (noteName) is key,
// read from the files bucket on the first call a resolver makes.
func (r *resolver) noteFiles(key string) []noteFile {
	r.useSnapNames()
	if r.names == nil {
		r.names = &noteNames{}
	}
	if r.names.by == nil {
		r.names.build(r.c, r.cfg.NumberPrefixes)
	}
	return r.names.by[key]
}

// useSnapNames takes the snapshot's index of names, if it has one to give
// and r has none yet.
func (r *resolver) useSnapNames() {
	if r.names == nil && r.snapNames != nil {
		r.names = r.snapNames()
	}
}

// build indexes the chain's files into n, with their names without number
// prefixes when plain.
func (n *noteNames) build(c chain, plain bool) {
	n.by, n.plain = map[string][]noteFile{}, nil
	if plain {
		n.plain = map[string][]noteFile{}
	}
	_ = c.each(bucketFiles, false, func(k, v []byte, _ int) error {
		_, rel, err := splitFileKey(k)
		e, verr := viewFileEntry(v)
		if err != nil || verr != nil {
			return nil
		}
		name := noteName(rel)
		f := noteFile{rel: strings.ToLower(strings.TrimSuffix(rel, ".md")), id: string(e.id), key: string(k)}
		n.by[name] = append(n.by[name], f)
		if n.plain != nil {
			root, _, _ := splitFileKey(k)
			if u := links.Unnumbered(name); u != name {
				n.plain[noteNameKey(u)] = append(n.plain[noteNameKey(u)], f)
			}
			n.plain[unnumberedKey(root, rel)] = append(n.plain[unnumberedKey(root, rel)], f)
		}
		return nil
	})
}

// unnumberedKey is the linkto key of a lookup of the file rel below root
// by its path without number prefixes (links.UnnumberedPath), lower-cased.
func unnumberedKey(root, rel string) string {
	return "\x04" + FileKey(root, strings.ToLower(links.UnnumberedPath(rel)))
}

// plainFiles are the files whose path (or, for a noteNameKey, name)
// without number prefixes is key (see noteNames.plain).
func (r *resolver) plainFiles(key string) []noteFile {
	r.useSnapNames()
	if r.names == nil {
		r.names = &noteNames{}
	}
	if r.names.plain == nil {
		// Made (again, in place, so that it stays shared) with the number
		// prefixes indexed: one made by a resolver without the rule has
		// none. (Before, a new index was made for this resolver alone,
		// once per rule set of every FillResolvesWith.)
		r.names.build(r.c, true)
	}
	return r.names.plain[key]
}

// unnumberedFile is the document of the one file below root whose path
// without number prefixes is rel's (kit/core-concepts/page-options.md
// for kit/20-core-concepts/40-page-options.md), in rel's case unless
// ignore_case; "" for none, or for several.
func (r *resolver) unnumberedFile(root, rel string, keys map[string]bool) string {
	key := unnumberedKey(root, rel)
	keys[key] = true
	want := links.UnnumberedPath(rel)
	var found []noteFile
	for _, f := range r.plainFiles(key) {
		_, frel, err := splitFileKey([]byte(f.key))
		if err == nil && (links.UnnumberedPath(frel) == want || r.cfg.IgnoreCase) {
			found = append(found, f)
		}
	}
	return onlyFile(found, keys)
}

// onlyFile is the document of the one file found, its file key put in keys
// (a change to it resolves the link again); "" for none, or for several.
func onlyFile(found []noteFile, keys map[string]bool) string {
	if len(found) != 1 {
		return ""
	}
	keys[found[0].key] = true
	return found[0].id
}

// note is the document a wikilink names by name (see wiki), or "": a
// name with spaces is also the file whose name has '-' for each (a GitHub
// wiki's [[Getting Started]] is Getting-Started.md).
func (r *resolver) note(name string, keys map[string]bool) string {
	if id := r.noteAsNamed(name, keys); id != "" || !strings.Contains(name, " ") {
		return id
	}
	return r.noteAsNamed(strings.ReplaceAll(name, " ", "-"), keys)
}

// noteAsNamed is note, for name as written.
func (r *resolver) noteAsNamed(name string, keys map[string]bool) string {
	want := strings.ToLower(strings.TrimSuffix(strings.Trim(name, "/"), ".md"))
	key := noteName(want)
	keys[noteNameKey(key)] = true
	best, exact := noteFile{}, false
	for _, f := range r.noteFiles(key) {
		isExact := f.rel == want
		if !isExact && !strings.HasSuffix(f.rel, "/"+want) {
			continue
		}
		if best.id == "" || isExact && !exact || isExact == exact && (len(f.rel) < len(best.rel) || len(f.rel) == len(best.rel) && f.rel < best.rel) {
			best, exact = f, isExact
		}
	}
	if best.key != "" {
		keys[best.key] = true // what LinksInto of the note reads by (linkto)
	}
	return best.id
}

// pageNamed is the document of the one file of the sources whose name is
// name (in any case with links.ignore_case), as Hugo's GetPage finds a page by its
// file's name when the path has no '/' and names no file ("" when no page,
// or several, have it: Hugo refuses an ambiguous name). The name looked
// up goes into keys (noteNameKey, shared with wikilinks' names), so that
// a file of that name added or removed resolves the link again, and so
// does the file key of the page it leads to.
func (r *resolver) pageNamed(name string, keys map[string]bool) string {
	key := noteName(strings.ToLower(name))
	keys[noteNameKey(key)] = true
	var found []noteFile
	for _, f := range r.noteFiles(key) {
		if _, rel, err := splitFileKey([]byte(f.key)); err == nil && path.Base(rel) == name ||
			r.cfg.IgnoreCase && path.Base(f.rel)+".md" == strings.ToLower(name) {
			found = append(found, f)
		}
	}
	if len(found) == 0 && r.cfg.NumberPrefixes {
		// The one page whose name without its number prefix is name.
		plain := noteNameKey(links.Unnumbered(key))
		keys[plain] = true
		for _, f := range r.plainFiles(plain) {
			if _, rel, err := splitFileKey([]byte(f.key)); err == nil && links.Unnumbered(path.Base(rel)) == links.Unnumbered(name) ||
				r.cfg.IgnoreCase && links.Unnumbered(path.Base(f.rel))+".md" == strings.ToLower(links.Unnumbered(name)) {
				found = append(found, f)
			}
		}
	}
	return onlyFile(found, keys)
}

// file returns the document id of the file key, or "" when no file is
// there; with ignore_case, of a file whose key differs in case only (the
// first in key order). The key it looked up goes into keys (lower-cased
// with ignore_case, so that a file of any case added later is found).
func (r *resolver) file(key string, keys map[string]bool) string {
	files := r.c.buckets(bucketFiles)
	id := func(k []byte) string {
		if v, _ := files.get(k); v != nil {
			if e, err := viewFileEntry(v); err == nil {
				return string(e.id)
			}
		}
		return ""
	}
	if !r.cfg.IgnoreCase {
		keys[key] = true
		return id([]byte(key))
	}
	fold := strings.ToLower(key)
	keys[fold] = true
	if found := id([]byte(key)); found != "" {
		return found
	}
	found := ""
	prefix := []byte(fold + "\x00")
	_ = r.c.eachFrom(bucketFold, prefix, false, func(k, _ []byte, _ int) error {
		if !bytes.HasPrefix(k, prefix) {
			return errStop
		}
		if found = id(k[len(prefix):]); found != "" {
			return errStop
		}
		return nil
	})
	return found
}

// alias is the document a root-relative link leads to through a Hugo
// alias (links.hugo_aliases): of the documents that declare the path it
// names (links.Rules.SitePath) among their aliases, the first in id
// order, so that a clash resolves the same way every time (Hugo writes
// one redirect page per path, whichever page it renders last); "" for
// none. Its lookup (aliasLinkKey) and the document's file key go into
// keys.
func (r *resolver) alias(ref docir.LinkRef, keys map[string]bool) string {
	p, ok := r.rules.SitePath(ref)
	if !ok {
		return ""
	}
	return r.aliased(p, keys)
}

// aliased is the first document, in id order, that the alias index says
// declares a (an alias path, or a labelAlias), "" for none; its lookup
// (aliasLinkKey) and the document's file key go into keys.
func (r *resolver) aliased(a string, keys map[string]bool) string {
	keys[aliasLinkKey(a)] = true
	prefix := []byte("a" + a + "\x00")
	found := ""
	_ = r.c.eachFrom(bucketAlias, prefix, false, func(k, _ []byte, _ int) error {
		if !bytes.HasPrefix(k, prefix) {
			return errStop
		}
		id := k[len(prefix):]
		if key, _ := r.c.get(bucketManifest, id); key != nil {
			found = string(id)
			keys[string(key)] = true
			return errStop
		}
		return nil
	})
	return found
}

// anchor resolves the anchor of a link to document id by the chain of
// targetAnchors.find under the resolver's rules.
func (r *resolver) anchor(id, anchor string) (string, bool) {
	t := r.anchors(id)
	if t == nil {
		return "", false
	}
	return t.find(r.cfg, id, anchor)
}

// find resolves the anchor of a link to document id, whose anchors t
// holds, under the rules cfg: with vitepress_anchors, first the section
// VitePress gives the anchor to (the anchor as written, or slugified as
// VitePress 2 slugifies a link's anchor), since on a VitePress site that
// is where a browser lands even when another section's slug is the
// anchor (`## server.open` is server-open there, `## Server Open` its
// slug here); then a section by its slug (as get finds one: the slug,
// else the anchor read as heading text), else an id the document's HTML
// defines (or one a heading in a block quote or a list is given, also
// by the anchor read as heading text), else (with definition_ids) a definition term's id, else (with
// mkdocs_anchors) the anchor MkDocs gives a heading, else (with
// blackfriday_anchors) the one Hugo's blackfriday rule gives it, else
// (with mdn_anchors) MDN's; the address of the section that holds it (the
// document's own for its lead).
func (t *targetAnchors) find(cfg LinkConfig, id, anchor string) (string, bool) {
	if cfg.VitePressAnchors {
		vp := t.generatorAnchors(&t.vitepress, links.VitePressAnchors)
		for _, a := range []string{anchor, links.VitePressSlug(anchor)} {
			if s, ok := vp[a]; ok {
				return id + "#" + s, true
			}
		}
	}
	if strings.HasPrefix(anchor, "^") {
		// An Obsidian block id ("^37066d"): the section whose text
		// ends a block with it, and nothing else (no slug holds '^').
		addr, ok := t.html[anchor]
		return addr, ok
	}
	slug := address.Slug(anchor)
	for _, s := range []string{anchor, address.NFC(anchor), slug} {
		if t.slugs[s] {
			return id + "#" + s, true
		}
	}
	// A heading whose text ends in a space its page does not show
	// ("Configuration&#x20;", as GitBook writes one) is slugged with a
	// '-' for it ("configuration-"); GitBook's anchor, and get, leave it
	// out. Only such a '-', and the anchor as written: a heading with an
	// id of its own ({#custom}) is not found by its text, as on the site.
	for _, sec := range t.sections {
		if trimmed := strings.TrimRight(sec.Slug, "-"); trimmed != sec.Slug && (trimmed == anchor || trimmed == address.NFC(anchor)) {
			return id + "#" + sec.Slug, true
		}
	}
	if addr, ok := t.html[anchor]; ok {
		return addr, true
	}
	// A heading in a block quote or a list is an anchor, not a section
	// (docir.Record.FindSection): read as heading text, as a section's.
	if addr, ok := t.html[slug]; ok {
		return addr, true
	}
	if cfg.DefinitionIDs {
		for _, s := range []string{anchor, slug} {
			if addr, ok := t.terms[s]; ok {
				return addr, true
			}
		}
	}
	if cfg.MkDocsAnchors {
		if s, ok := t.generatorAnchors(&t.mkdocs, links.MkDocsAnchors)[anchor]; ok {
			return id + "#" + s, true
		}
	}
	if cfg.BlackfridayAnchors {
		if s, ok := t.generatorAnchors(&t.blackfriday, links.BlackfridayAnchors)[anchor]; ok {
			return id + "#" + s, true
		}
	}
	if cfg.MDNAnchors {
		if addr, ok := t.mdnAnchors(id)[anchor]; ok {
			return addr, true
		}
	}
	return "", false
}

// LinkRuleSections finds the sections of rec that links to rec.ID#anchor
// resolve to under the link rules this generation was resolved with
// (targetAnchors.find; an anchor percent-decoded too, as a link's is):
// what docir.Record.FindSection does not find, a definition term's id
// (links.definition_ids) or the anchor MkDocs or VitePress gives a
// heading (links.mkdocs_anchors, links.vitepress_anchors), so that get
// reads the section a link that check accepts leads to. An anchor the
// chain finds in the lead leads to the document itself, as a link to it
// does. Made once for a document, it reads the rules once and builds the
// document's anchor tables on its first Find, not on each: a get of many
// missing headings of one document is linear in them.
type LinkRuleSections struct {
	cfg LinkConfig
	rec *docir.Record
	t   *targetAnchors // built on the first Find that needs it
	at  map[string]int // a section's index in rec, by slug
}

// LinkRuleSections is rec's LinkRuleSections in this generation.
func (s *Snapshot) LinkRuleSections(rec *docir.Record) (*LinkRuleSections, error) {
	cfg, err := s.LinkConfig()
	if err != nil {
		return nil, s.damaged("link rules: %v", err)
	}
	return &LinkRuleSections{cfg: cfg, rec: rec}, nil
}

// Find is where a link to the document's anchor leads: a section, or
// (lead true) the document itself, for an anchor its lead holds; ok is
// false when it leads nowhere.
func (f *LinkRuleSections) Find(anchor string) (sec docir.Section, lead, ok bool) {
	anchors := []string{anchor}
	if d := links.Decode(anchor); d != anchor {
		anchors = append(anchors, d)
	}
	if f.t == nil {
		m := anchorMeta{Anchors: f.rec.Anchors, Terms: f.rec.Terms, ListTerms: f.rec.ListTerms}
		f.at = make(map[string]int, len(f.rec.Sections))
		for i, sec := range f.rec.Sections {
			m.Sections = append(m.Sections, anchorSection{Slug: sec.Slug, Heading: sec.Heading, Anchors: sec.Anchors, Terms: sec.Terms, ListTerms: sec.ListTerms})
			if _, ok := f.at[sec.Slug]; !ok {
				f.at[sec.Slug] = i
			}
		}
		f.t = newTargetAnchors(f.rec.ID, m)
	}
	for _, a := range anchors {
		addr, ok := f.t.find(f.cfg, f.rec.ID, a)
		if !ok {
			continue
		}
		_, slug, inSection := strings.Cut(addr, "#")
		if !inSection {
			return docir.Section{}, true, true
		}
		if i, ok := f.at[slug]; ok {
			return f.rec.Sections[i], false, true
		}
	}
	return docir.Section{}, false, false
}

// targetAnchors are the anchors of a document links may lead to: its
// sections' slugs, and the address of the section holding each HTML id
// and definition term (the first, where several do).
type targetAnchors struct {
	slugs       map[string]bool
	html, terms map[string]string
	// The sections as the record holds them, in order, and the slug of
	// each anchor MkDocs, VitePress and Hugo's blackfriday give their
	// headings (generatorAnchors: made on first use).
	sections                       []anchorSection
	mkdocs, vitepress, blackfriday map[string]string
	// The terms of its lead's MDN definition lists, and each anchor MDN
	// gives a heading or such a term -> the address that holds it
	// (mdnAnchors: made on first use).
	listTerms []string
	mdn       map[string]string
}

// generatorAnchors maps each anchor that a site generator's rule
// (links.MkDocsAnchors, links.VitePressAnchors, links.BlackfridayAnchors:
// each gives an anchor once) gives the document's headings to its
// section's slug, made into *m on first use.
func (t *targetAnchors) generatorAnchors(m *map[string]string, rule func(headings []string) []string) map[string]string {
	if *m == nil {
		headings := make([]string, len(t.sections))
		for i, s := range t.sections {
			headings[i] = s.Heading
		}
		*m = make(map[string]string, len(headings))
		for i, a := range rule(headings) {
			(*m)[a] = t.sections[i].Slug
		}
	}
	return *m
}

// mdnAnchors maps each anchor MDN's renderer gives the document's headings
// and then, numbered on from them, the terms of its MDN definition lists
// (links.MDNAnchors: rari ids the headings, then the <dt>s in document
// order) to the address of the section that holds it (the document's own
// for a term of its lead), made into t.mdn on first use. A term's anchor
// leads to its section, as a definition term's does (definition_ids).
func (t *targetAnchors) mdnAnchors(id string) map[string]string {
	if t.mdn == nil {
		var texts, addrs []string
		for _, s := range t.sections {
			texts, addrs = append(texts, s.Heading), append(addrs, id+"#"+s.Slug)
		}
		for _, term := range t.listTerms {
			texts, addrs = append(texts, term), append(addrs, id)
		}
		for _, s := range t.sections {
			for _, term := range s.ListTerms {
				texts, addrs = append(texts, term), append(addrs, id+"#"+s.Slug)
			}
		}
		t.mdn = make(map[string]string, len(texts))
		for i, a := range links.MDNAnchors(texts) {
			if _, ok := t.mdn[a]; !ok {
				t.mdn[a] = addrs[i]
			}
		}
	}
	return t.mdn
}

// newTargetAnchors holds the anchors of document id, whose record m is.
func newTargetAnchors(id string, m anchorMeta) *targetAnchors {
	t := &targetAnchors{slugs: map[string]bool{}, html: map[string]string{}, terms: map[string]string{}, sections: m.Sections, listTerms: m.ListTerms}
	add := func(into map[string]string, keys []string, addr string) {
		for _, k := range keys {
			if _, ok := into[k]; !ok {
				into[k] = addr
			}
		}
	}
	add(t.html, m.Anchors, id)
	add(t.terms, m.Terms, id)
	for _, s := range m.Sections {
		t.slugs[s.Slug] = true
		add(t.html, s.Anchors, id+"#"+s.Slug)
		add(t.terms, s.Terms, id+"#"+s.Slug)
	}
	return t
}

// anchors returns the anchors of document id, from the cache or the
// chain; nil when there is no such document.
func (r *resolver) anchors(id string) *targetAnchors {
	if t, ok := r.targets[id]; ok {
		return t
	}
	if len(r.targets) >= maxTargets {
		clear(r.targets)
	}
	var t *targetAnchors
	var m anchorMeta
	if raw, _ := r.c.get(bucketDocs, []byte(id)); raw != nil && json.Unmarshal(raw, &m) == nil {
		t = newTargetAnchors(id, m)
	}
	r.targets[id] = t
	return t
}

// LinksOf returns the resolved links of document id, in document order;
// none when it has none (or no such document).
func (s *Snapshot) LinksOf(id string) ([]docir.Link, error) {
	v, _, err := s.pointGet(bucketLinks, []byte(id))
	if v == nil || err != nil {
		return nil, err
	}
	var e linkEntry
	if err := json.Unmarshal(v, &e); err != nil {
		return nil, s.damaged("links of %q: %v", id, err)
	}
	return e.Links, nil
}

// LinksInto returns the links of the generation that resolve to document
// id (to it or to one of its sections), by source id and then line: the
// documents whose links may lead to its file (linkto), and its own.
func (s *Snapshot) LinksInto(id string) ([]docir.Link, error) {
	var out []docir.Link
	err := s.EachLinkInto(id, func(l docir.Link) error {
		out = append(out, l)
		return nil
	})
	return out, err
}

// EachLinkInto calls fn with each link LinksInto returns, in its order,
// until fn returns an error, which it returns: a caller that bounds what
// it gathers stops reading there, with no more than one source
// document's links decoded at a time.
func (s *Snapshot) EachLinkInto(id string, fn func(docir.Link) error) error {
	return s.EachLinkIntoFrom(id, 0, func(_ int, l docir.Link) error { return fn(l) })
}

// EachLinkIntoFrom is EachLinkInto from the from-th of the documents whose
// links may lead to id (in id order; 0 is the first), fn told the ordinal
// of each link's source: for a page of a hub's incoming links, the sources
// before from are listed (their ids, from the link index), never decoded.
func (s *Snapshot) EachLinkIntoFrom(id string, from int, fn func(src int, l docir.Link) error) error {
	seen := map[string]bool{id: true} // its links to its own sections too
	err := s.view(func(c chain) error {
		key, _ := c.get(bucketManifest, []byte(id))
		if key == nil {
			return nil
		}
		return linkersOf(c, string(key), func(src []byte) { seen[string(src)] = true })
	})
	if err != nil {
		return err
	}
	for i, src := range slices.Sorted(maps.Keys(seen)) {
		if i < from {
			continue
		}
		ls, err := s.LinksOf(src)
		if err != nil {
			return err
		}
		for _, l := range ls {
			if l.Status == docir.LinkResolved && (l.Address == id || strings.HasPrefix(l.Address, id+"#")) {
				if err := fn(i, l); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// BrokenLinksFrom calls fn with the broken links of each document that
// has any, in id order, from the from-th such document (0 is the first;
// those before it are counted, never decoded), fn told its ordinal, until
// fn returns an error.
func (s *Snapshot) BrokenLinksFrom(from int, fn func(i int, id string, links []docir.CheckedLink) error) error {
	return s.view(func(c chain) error {
		i := -1
		return c.each(bucketBroken, false, func(k, v []byte, _ int) error {
			if i++; i < from {
				return nil
			}
			var ls []docir.CheckedLink
			if err := json.Unmarshal(v, &ls); err != nil {
				return s.damaged("broken links of %q: %v", k, err)
			}
			return fn(i, string(k), ls)
		})
	})
}

// FillResolvesWith sets, on each broken link of ls (links of this
// generation), the link rules that
// are off in the generation's configuration and with which it would
// resolve (docir.CheckedLink.ResolvesWith): the fewest that do, each rule
// alone first, then two, and so on, the rules ranked by how many of ls's
// links each resolves alone, then by name (fillRules). A root-relative
// link that resolves under none may resolve with another site base
// (fillBase): it is named with that base
// (docir.BaseRule). A link that resolves under none of them, or one whose
// document the generation no longer holds, is left as it is. It resolves
// the links again against the same generation, so the answer is never
// stale.
func (s *Snapshot) FillResolvesWith(ls []*docir.Link) error {
	if len(ls) == 0 {
		return nil
	}
	var rules links.Rules
	var cfg LinkConfig
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		rules, cfg, err = linkRulesOf(tx.Bucket(bucketMeta))
		return err
	})
	if err != nil {
		return s.damaged("%v", err)
	}
	targets := map[string]*targetAnchors{}
	return s.view(func(c chain) error {
		names := func() *noteNames { return s.noteNames(c) }
		var at []brokenAt
		for _, l := range ls {
			if l.Status != docir.LinkBroken || l.Reason == docir.ReasonNoDefinition {
				continue // no rule defines a label
			}
			id, _, _ := strings.Cut(l.From, "#")
			key, _ := c.get(bucketManifest, []byte(id))
			if key == nil {
				continue
			}
			root, rel, err := splitFileKey(key)
			if err != nil {
				return s.damaged("%v", err)
			}
			at = append(at, brokenAt{l: l, id: id, root: root, rel: rel})
		}
		if len(at) == 0 {
			return nil
		}
		generator := generatorRules(rules.Roots)              // its stats only for a check with broken links
		s.offOnce.Do(func() { s.offSets = offRuleSets(cfg) }) // the generation's configuration: the same every call
		fillRules(at, s.offSets, generator, func() *resolver {
			return &resolver{rules: rules, cfg: cfg, c: c, targets: targets, snapNames: names}
		})
		fillBase(at, rules.Base, !cfg.IgnoreCase, func(base string, caseless bool) *resolver {
			r := &resolver{rules: rules, cfg: cfg, c: c, targets: targets, snapNames: names}
			r.rules.Base, r.cfg.Base = base, base
			r.cfg.IgnoreCase = r.cfg.IgnoreCase || caseless
			// A base is where the sources are served: a link's path below
			// it names a file. One that names a redirect (an alias) is no
			// evidence of it: with base /engine/, the Docker docs'
			// /engine/install is /install, an alias of Docker Desktop's
			// download page, not the engine's install page.
			r.cfg.HugoAliases = false
			return r
		})
		return nil
	})
}

// noteNames is the generation's index of its files by name, with number
// prefixes (noteNames.build), made on first use from c (a chain of this
// snapshot) and kept, read only, for the snapshot's life: a links read of
// many addresses fills each set's broken links in a call of its own, and
// made the index again in each (and in each rule set's resolver: 1.45 s
// for the 993 pages of the Hugo docs, a review found).
func (s *Snapshot) noteNames(c chain) *noteNames {
	s.namesOnce.Do(func() {
		s.names = &noteNames{}
		s.names.build(c, true)
	})
	return s.names
}

// brokenAt is a broken link FillResolvesWith resolves again, with the
// document that holds it and its file.
type brokenAt struct {
	l             *docir.Link
	id, root, rel string
}

// resolves reports whether r resolves the broken link b.
func (b brokenAt) resolves(r *resolver) bool {
	ref := docir.LinkRef{Target: b.l.Target, Kind: b.l.Kind, Line: b.l.Line, Column: b.l.Column}
	return r.link(b.id, b.root, b.rel, ref, map[string]bool{}).Status == docir.LinkResolved
}

// fillRules sets the ResolvesWith of each link of at that a set of sets
// resolves: the first such set, each set's rules turned on in a resolver
// of newResolver's, the sets of fewer rules first. Rules are ranked by
// how many of at's links each resolves alone (then those of the site's
// generator first, preferred, then by name), and sets of as many rules
// come in the order of their rules' ranks: several rules may resolve one
// link by chance (a heading's anchor is often the same under MkDocs',
// VitePress' and Hugo's blackfriday rules), and the links of a site are
// named with the rules that resolve most of them rather than by the
// alphabet, and on a tie with its generator's (an MkDocs site was told
// to turn on Hugo's blackfriday_anchors).
func fillRules(at []brokenAt, sets []ruleSet, preferred map[string]bool, newResolver func() *resolver) {
	if len(sets) == 0 {
		return
	}
	// A set's resolver is made on its first use: with ten rules off there
	// are 1,023 sets, and most links are settled by the widest and the
	// sets of one.
	resolvers := make([]*resolver, len(sets))
	resolverOf := func(i int) *resolver {
		if resolvers[i] == nil {
			resolvers[i] = newResolver()
			for _, on := range sets[i].on {
				on(resolvers[i])
			}
		}
		return resolvers[i]
	}
	var widest []int
	single := map[string]int{} // a rule -> its set of one
	for i, set := range sets {
		if set.widest {
			widest = append(widest, i)
		}
		if len(set.names) == 1 {
			single[set.names[0]] = i
		}
	}
	var todo []brokenAt
	var alone []map[int]bool // alone[k][i]: set of one i resolves todo[k]
	count := make([]int, len(sets))
	for _, b := range at {
		if !slices.ContainsFunc(widest, func(i int) bool { return b.resolves(resolverOf(i)) }) {
			continue
		}
		by := map[int]bool{}
		for _, i := range single {
			if b.resolves(resolverOf(i)) {
				by[i] = true
				count[i]++
			}
		}
		todo, alone = append(todo, b), append(alone, by)
	}
	if len(todo) == 0 {
		return
	}
	rank := map[string]int{} // a rule's rank: most links first, then the site's generator's, then its name
	names := slices.Sorted(maps.Keys(single))
	slices.SortStableFunc(names, func(x, y string) int {
		if n := count[single[y]] - count[single[x]]; n != 0 {
			return n
		}
		switch {
		case preferred[x] && !preferred[y]:
			return -1
		case preferred[y] && !preferred[x]:
			return 1
		}
		return 0
	})
	for r, name := range names {
		rank[name] = r
	}
	ranks := make([][]int, len(sets)) // each set's rules' ranks, ascending
	order := make([]int, len(sets))
	for i, set := range sets {
		for _, n := range set.names {
			ranks[i] = append(ranks[i], rank[n])
		}
		slices.Sort(ranks[i])
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		if n := len(ranks[x]) - len(ranks[y]); n != 0 {
			return n
		}
		return slices.Compare(ranks[x], ranks[y])
	})
	for k, b := range todo {
		for _, i := range order {
			ok := alone[k][i]
			if len(sets[i].names) > 1 {
				ok = b.resolves(resolverOf(i))
			}
			if ok {
				b.l.ResolvesWith = slices.Clip(sets[i].names) // shared by every call of the snapshot: an append copies
				break
			}
		}
	}
}

// fillBase names a site base (docir.BaseRule) on each root-relative link
// of at that no link rule resolves (ResolvesWith empty) and that resolves
// with it: a site served below a folder (vscode-docs' docs/, the source
// folder, at /docs/) writes `/docs/editor/x.md` for editor/x.md, which
// under the base "/" names docs/editor/x.md below the source folder: no
// file. The bases tried for a link are the generation's own (base, "/" by default) followed by one or more of
// the leading folders of the link's path after it (`/docs/` and
// `/docs/editor/` for `/docs/editor/x.md` under "/"), each with the
// generation's other rules as they are, and then, where ignore_case is
// off (caseless), with ignore_case on: the link is named with both
// (ResolvesWith: the base, then links.ignore_case). Of the bases that
// resolve a link, it is named with the one that resolves the most of at's
// links (then a base alone before one with ignore_case, then the shorter,
// then the first in byte order), so that the links a base resolves are
// named with one setting rather than each with its own.
func fillBase(at []brokenAt, base string, caseless bool, newResolver func(base string, caseless bool) *resolver) {
	// A base alone, or (where the generation has ignore_case off, caseless)
	// a base with ignore_case: a site whose URLs are written in another
	// case than its files (MDN's /en-US/docs/Web/CSS/Color for
	// web/css/color/index.md) resolves with neither alone.
	type try struct {
		base     string
		caseless bool
	}
	resolvers := map[try]*resolver{}
	by := map[try][]int{} // the links of at each try resolves
	// A root-relative link resolves by its kind and target alone (not by
	// the page that holds it): a site links a page from many, and each
	// target is resolved once a try.
	known := map[try]map[string]bool{}
	for i, b := range at {
		if len(b.l.ResolvesWith) > 0 {
			continue
		}
		for _, cand := range baseCandidates(base, b.l) {
			for _, t := range []try{{cand, false}, {cand, true}} {
				if t.caseless && !caseless {
					continue
				}
				r := resolvers[t]
				if r == nil {
					r = newResolver(t.base, t.caseless)
					resolvers[t], known[t] = r, map[string]bool{}
				}
				key := b.l.Kind + "\x00" + b.l.Target
				ok, seen := known[t][key]
				if !seen {
					ok = b.resolves(r)
					known[t][key] = ok
				}
				if ok {
					by[t] = append(by[t], i)
					break // the base alone is the fewer rules
				}
			}
		}
	}
	ranked := slices.SortedFunc(maps.Keys(by), func(x, y try) int {
		if n := len(by[y]) - len(by[x]); n != 0 {
			return n
		}
		if x.caseless != y.caseless {
			if x.caseless {
				return 1 // the fewer rules first
			}
			return -1
		}
		if n := len(x.base) - len(y.base); n != 0 {
			return n
		}
		return strings.Compare(x.base, y.base)
	})
	for _, t := range ranked {
		with := []string{docir.BaseRule(t.base)}
		if t.caseless {
			with = append(with, docir.LinkRuleIgnoreCase)
		}
		for _, i := range by[t] {
			if l := at[i].l; len(l.ResolvesWith) == 0 {
				l.ResolvesWith = with
			}
		}
	}
}

// baseCandidates are the site bases other than base (normalized: "/" or
// "/x/") that may resolve the root-relative link l: base followed by
// each run of the leading folders of the link's path after it, shortest
// first. None for a link that is not root-relative, or a Hugo ref.
func baseCandidates(base string, l *docir.Link) []string {
	if l.Kind == docir.LinkHugoRef || l.Kind == docir.LinkHugoRelRef {
		return nil
	}
	p := links.TargetPath(l.Target)
	if strings.HasPrefix(p, "//") || !strings.HasPrefix(p, base) {
		return nil
	}
	rest := p[len(base):]
	var out []string
	for i := 1; i < len(rest)-1; i++ {
		if rest[i] == '/' && rest[i-1] != '/' {
			out = append(out, base+rest[:i+1])
		}
	}
	return out
}

// ruleSet is a set of link rules a generation has off, each with what
// turns it on in a resolver.
type ruleSet struct {
	names []string
	on    []func(*resolver)
	// widest: no set that resolves a link a widest set leaves broken is
	// tried for it. Each rule but directory_urls only adds ways to
	// resolve, so every set of them but the one of them all lies within
	// it; directory_urls moves where a relative path starts, so the sets
	// with it and those without each have their own widest.
	widest bool
}

// offRuleSets is every non-empty set of the link rules cfg has off (a
// bit each), fewest rules first, each set's rules in the order of their
// names.
func offRuleSets(cfg LinkConfig) []ruleSet {
	type rule struct {
		name  string
		off   bool
		moves bool // not monotone: see ruleSet.widest
		on    func(*resolver)
	}
	var off []rule
	for _, r := range []rule{
		{LinkRuleBlackfridayAnchors, !cfg.BlackfridayAnchors, false, func(r *resolver) { r.cfg.BlackfridayAnchors = true }},
		{docir.LinkRuleDefinitionIDs, !cfg.DefinitionIDs, false, func(r *resolver) { r.cfg.DefinitionIDs = true }},
		{LinkRuleDirectoryURLs, !cfg.DirectoryURLs, true, func(r *resolver) { r.rules.DirectoryURLs = true }},
		{LinkRuleHugoAliases, !cfg.HugoAliases, false, func(r *resolver) { r.cfg.HugoAliases = true }},
		{docir.LinkRuleIgnoreCase, !cfg.IgnoreCase, false, func(r *resolver) { r.cfg.IgnoreCase = true }},
		{LinkRuleMDNAnchors, !cfg.MDNAnchors, false, func(r *resolver) { r.cfg.MDNAnchors = true }},
		{docir.LinkRuleMkDocsAnchors, !cfg.MkDocsAnchors, false, func(r *resolver) { r.cfg.MkDocsAnchors = true }},
		{LinkRuleNumberPrefixes, !cfg.NumberPrefixes, false, func(r *resolver) { r.cfg.NumberPrefixes = true }},
		{docir.LinkRuleRootFallback, !cfg.RootFallback, false, func(r *resolver) { r.rules.RootFallback = true }},
		{LinkRuleVitePressAnchors, !cfg.VitePressAnchors, false, func(r *resolver) { r.cfg.VitePressAnchors = true }},
	} {
		if r.off {
			off = append(off, r)
		}
	}
	all, moving := 1<<len(off)-1, 0
	for k, r := range off {
		if r.moves {
			moving |= 1 << k
		}
	}
	masks := make([]int, 0, all)
	for m := 1; m <= all; m++ {
		masks = append(masks, m)
	}
	slices.SortStableFunc(masks, func(a, b int) int { return bits.OnesCount(uint(a)) - bits.OnesCount(uint(b)) })
	sets := make([]ruleSet, len(masks))
	for i, m := range masks {
		sets[i].widest = m == all || moving != 0 && m == all&^moving
		for k, r := range off {
			if m&(1<<k) != 0 {
				sets[i].names = append(sets[i].names, r.name)
				sets[i].on = append(sets[i].on, r.on)
			}
		}
	}
	return sets
}

// EachLinksFrom calls fn with the resolved links of each document that
// has any and its path below its source folder, in id order, from the
// from-th such document (0 is the first), fn told its ordinal, until fn
// returns an error. The documents before from are counted, never decoded:
// a page of a long list starts where it starts.
func (s *Snapshot) EachLinksFrom(from int, fn func(i int, id, path string, links []docir.Link) error) error {
	return s.view(func(c chain) error {
		i := -1
		return c.each(bucketLinks, false, func(k, v []byte, _ int) error {
			if i++; i < from {
				return nil
			}
			var e linkEntry
			if err := json.Unmarshal(v, &e); err != nil {
				return s.damaged("links of %q: %v", k, err)
			}
			return fn(i, string(k), e.Path, e.Links)
		})
	})
}

// LinkCounts returns the counts of the generation's links by status,
// recorded when it was published.
func (s *Snapshot) LinkCounts() (n docir.LinkCounts, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketMeta).Get(keyLinkCounts)
		if v == nil {
			return s.damaged("no link counts")
		}
		return json.Unmarshal(v, &n)
	})
	return n, err
}

// LinkConfig returns the link rules the generation was resolved with.
func (s *Snapshot) LinkConfig() (cfg LinkConfig, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketMeta).Get(keyLinkRules); v != nil {
			return json.Unmarshal(v, &cfg)
		}
		return nil
	})
	return cfg, err
}

// AliasIndexCurrent reports whether the generation's alias index is of
// this docir's version (aliasIndexVersion): a refresh that changes no
// document still publishes a generation when it is not, so that the next
// seal makes the index again (a store kept by a docir that read Hugo's
// aliases only then reads redirect_from too).
func (s *Snapshot) AliasIndexCurrent() (ok bool, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		ok = bytes.Equal(tx.Bucket(bucketMeta).Get(keyLinkAliases), aliasIndexVersion)
		return nil
	})
	return ok, err
}

// Normalize returns c in its recorded form: the base as links.Rules
// normalizes it ("" for the site root), no empty ignore list.
func (c LinkConfig) Normalize() LinkConfig {
	if b := (links.Rules{Base: c.Base}).Normalize().Base; b == "/" {
		c.Base = ""
	} else {
		c.Base = b
	}
	if len(c.Ignore) == 0 {
		c.Ignore = nil
	}
	if len(c.Site) == 0 {
		c.Site = nil
	}
	return c
}

// damaged is the error of a generation whose link index or records do not
// read.
func (s *Snapshot) damaged(format string, args ...any) error {
	return docir.Errorf(docir.CodeStoreFormat, "%s: generation %d: %s; remove the folder and index again", s.dir, s.gen, fmt.Sprintf(format, args...))
}

// damaged is the error of a pending generation whose link index or
// records do not read.
func (p *Pending) damaged(format string, args ...any) error {
	return docir.Errorf(docir.CodeStoreFormat, "%s: building generation %d: %s; remove the folder and index again", p.dir, p.gen, fmt.Sprintf(format, args...))
}
