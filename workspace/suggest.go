package workspace

import (
	"context"
	"net/url"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/query"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/ingest"
	"github.com/docir/docir/store/links"
	"github.com/docir/docir/store/passage"
)

// Suggest returns at most n addresses the corpus holds that a, an address
// naming no document, most likely meant, best first. It is data for the
// caller to show; nothing is ever read in its place.
//
// In order: a file path typed instead of an id (`docs/foo.md`, with or
// without `.md`, with or without the source folder in front); the same id
// in another case, or an id whose last segment is what was typed, or one
// that ends with what was typed or that it ends with (a site's URL path,
// below or above the folders of the ids); a folder
// (its README or index first, then what it holds) or another prefix of
// ids; then ids within a few edits of what was typed. Before them all, the
// documents whose front matter lists what was typed among its aliases
// (an Obsidian note's other names: `2FA` for Two-factor-authentication;
// a Hugo page's old paths: `memover`, typed as /memover/, for the page
// that lists /memover/: aliasForms).
// A heading typed with the address is kept on each suggestion that has
// such a section, and those come first (withHeading).
func Suggest(snap *store.Snapshot, a address.Address, n int) ([]string, error) {
	if n <= 0 {
		return nil, nil
	}
	typed := a.ID
	// The file's name as typed, or the page's as a site serves it (mdBook
	// writes its links to x.html): an agent copies either from a page's
	// text. (A trailing '/' is refused by address.Parse, with its hint.)
	noExt := typed
	for _, ext := range []string{".md", ".html", ".htm"} {
		if s, ok := strings.CutSuffix(typed, ext); ok && s != "" {
			noExt = s
			break
		}
	}
	// Or under a markdown name docir does not read (x.mdx, x.markdown):
	// renamed to x.md, as the index warning advises, the page is x.
	if ext := ingest.LookalikeExt(typed); noExt == typed && ext != "" && ingest.IsMarkdownExt(ext) && len(ext) < len(typed) {
		noExt = typed[:len(typed)-len(ext)]
	}
	t := typedID{typed: typed, noExt: noExt, lower: strings.ToLower(noExt), base: path.Base(noExt), maxEdits: min(3, max(1, len(a.ID)/4))}
	var cands []candidate
	// Ids and paths come from the manifest, not the records: a seventh of
	// the bytes (a miss at 192k documents read 94 MB of records). id and
	// recPath are views, valid during the call: a candidate keeps a copy.
	err := snap.EachDocPath("", func(id, recPath string) error {
		c, ok := t.rank(id, recPath)
		if !ok {
			return nil
		}
		c.id = strings.Clone(id)
		cands = append(cands, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(cands, func(x, y candidate) int {
		if x.tier != y.tier {
			return x.tier - y.tier
		}
		if x.dist != y.dist {
			return x.dist - y.dist
		}
		return strings.Compare(x.id, y.id)
	})
	ids, err := aliasedAs(snap, typed, n)
	if err != nil {
		return nil, err
	}
	// With a heading typed, the documents that have the section come
	// first wherever they rank, so more than n are ranked: the best
	// maxSectionLookups (a short id's prefix or a common last segment,
	// api or sdk, can match thousands of a large store's ids).
	keep := n
	if a.HasHeading() {
		keep = max(n, maxSectionLookups)
	}
	for _, c := range cands {
		if len(ids) >= keep {
			break
		}
		if !slices.Contains(ids, c.id) {
			ids = append(ids, c.id)
		}
	}
	return withHeading(snap, ids, a, n)
}

// maxSectionLookups bounds the candidates of a miss with a heading whose
// records Suggest reads to find the section typed: the best 32, in the
// order Suggest ranks them. A candidate below them that has the section
// is not looked at, so a miss reads at most 32 records besides its scan
// of the ids, at most 5 misses a read (maxSuggested).
const maxSectionLookups = 32

// withHeading is the first n of ids (best first) with a's heading, when
// it has one: the documents that have such a section, first, in the
// order of ids; another is suggested alone, as an address that reads
// (fs.md#x suggested os#x, one edit from fs, which has no section x). It
// stops reading records once n of them have the section.
func withHeading(snap *store.Snapshot, ids []string, a address.Address, n int) ([]string, error) {
	if !a.HasHeading() {
		return ids[:min(n, len(ids))], nil
	}
	var with, without []string
	for _, id := range ids {
		if len(with) >= n {
			break
		}
		rec, ok, err := snap.Record(id)
		if err != nil {
			return nil, err
		}
		if _, found := rec.FindSection(a.Heading); ok && found {
			with = append(with, id+"#"+a.Heading)
		} else {
			without = append(without, id)
		}
	}
	out := append(with, without...)
	return out[:min(n, len(out))], nil
}

// aliasedAs returns the ids of at most n documents whose front matter
// lists name among its aliases (compared as text, ignoring case, as
// `docir query aliases:NAME` does): what a vault (Obsidian's aliases) or
// a site calls a page besides its file's name. A name the query language
// cannot say as one value (a quote, a glob, a comma) looks nothing up.
// One look-up asks for every form of name aliasForms gives.
func aliasedAs(snap *store.Snapshot, name string, n int) ([]string, error) {
	if name == "" || strings.ContainsAny(name, "\"\\*?,") {
		return nil, nil
	}
	forms, err := aliasForms(snap, name)
	if err != nil {
		return nil, err
	}
	text := `aliases:"` + strings.Join(forms, `","`) + `"`
	for len(text) > query.MaxExprBytes && len(forms) > 1 {
		// A long id's last forms are left out, not the name as typed.
		forms = forms[:len(forms)-1]
		text = `aliases:"` + strings.Join(forms, `","`) + `"`
	}
	expr, err := query.Parse(text)
	if err != nil {
		return nil, nil
	}
	recs, _, _, err := matchRecords(context.Background(), snap, expr, "", n)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ID)
	}
	return ids, nil
}

// aliasForms is name, then the ways a Hugo page's front matter writes
// the site path name may be (/name and /name/; Hugo reads both as one):
// a page's path or URL pasted into get reaches Suggest as an id, its
// slashes, scheme and host taken off (address.Repair), and `get
// /memover/` should find the page that lists /memover/ among its aliases,
// as check resolves a link to /memover/ (links.hugo_aliases). The site
// path is also read below the site's base (links.base) and below the path
// of each of its URLs (links.site), as check reads a link's
// (links.Rules.SitePath): https://site/docs/memover/ with site
// https://site/docs/ is /memover/. And a name whose spaces were typed as
// '-' is read with its spaces too.
func aliasForms(snap *store.Snapshot, name string) ([]string, error) {
	cfg, err := snap.LinkConfig()
	if err != nil {
		return nil, err
	}
	paths := []string{name}
	var folders []string // what the site serves its pages below, each ending in '/'
	if b := strings.Trim(cfg.Base, "/"); b != "" {
		folders = append(folders, b+"/")
	}
	for _, site := range cfg.Site {
		if u, err := url.Parse(site); err == nil && strings.Trim(u.Path, "/") != "" {
			folders = append(folders, strings.Trim(u.Path, "/")+"/")
		}
	}
	for _, f := range folders {
		if rest, ok := strings.CutPrefix(name, f); ok && rest != "" {
			paths = append(paths, rest)
		}
	}
	forms := []string{name}
	// A name typed as an address holds '-' where it holds a space (an
	// Obsidian note's alias "Start here": address.Repair makes
	// Start-here of it).
	if spaced := strings.ReplaceAll(name, "-", " "); spaced != name && !strings.Contains(name, "/") {
		forms = append(forms, spaced)
	}
	for _, p := range paths {
		for _, f := range []string{"/" + p, "/" + p + "/"} {
			if !slices.Contains(forms, f) {
				forms = append(forms, f)
			}
		}
	}
	return forms, nil
}

// missingParts counts the folders of typed (a lower-cased path) that id
// (lower-cased) lacks, numbered or not.
func missingParts(typed, id string) int {
	have := map[string]bool{}
	for seg := range strings.SplitSeq(id, "/") {
		have[seg], have[links.Unnumbered(seg)] = true, true
	}
	n := 0
	parts := strings.Split(typed, "/")
	for _, seg := range parts[:len(parts)-1] {
		if !have[seg] {
			n++
		}
	}
	return n
}

type candidate struct {
	id   string
	tier int // lower is better
	dist int // within a tier, lower is better
}

// isFolderIndex reports whether id is the page that stands for the folder
// dir: dir/README, dir/index or dir/_index.
func isFolderIndex(id, dir string) bool {
	rest, ok := strings.CutPrefix(id, dir+"/")
	if !ok {
		return false
	}
	switch strings.ToLower(rest) {
	case "readme", "index", "_index":
		return true
	}
	return false
}

// nearID reports the edit distance from typed to id, or to id's last
// segment when what was typed has no folder, if it is at most maxEdits.
func nearID(typed, id, base string, maxEdits int) (int, bool) {
	best := maxEdits + 1
	if abs(len(typed)-len(id)) <= maxEdits {
		best = min(best, docir.EditDistance(typed, id, maxEdits))
	}
	if !strings.Contains(typed, "/") {
		if b := path.Base(id); abs(len(base)-len(b)) <= maxEdits {
			best = min(best, docir.EditDistance(base, b, maxEdits)+1)
		}
	}
	return best, best <= maxEdits
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// SuggestSections returns at most n addresses of the sections of a's
// document that a, an address naming no section of it, most likely meant,
// best first, in a's id as typed. The heading typed is compared as a slug
// with each section's: first a section whose slug is the same but for its
// '-' and '_' (build-outdir, as VitePress writes the anchor of
// `## build.outDir`, for buildoutdir); then one whose slug starts with it
// or that it starts with ("mitig" for "mitigate"; "win.setBounds" for
// `win.setBounds(bounds[, animate])`); then one a single edit away
// ("escalte"), after those, since in an API reference a getter and its
// setter are one edit apart; then one whose slug holds it (a method named
// without its object: "setBounds") or ends it (nodejs.org's older
// `fs_fs_readfile_path_options_callback`, the page's name first); then the sections that share the most
// of its words or their stems ("mitigation steps" for "mitigate"); then
// the slugs within a few edits. Within each, the nearer come first. Like Suggest, it is data:
// nothing is read in its place.
func SuggestSections(snap *store.Snapshot, a address.Address, n int) ([]string, error) {
	if n <= 0 || !a.HasHeading() {
		return nil, nil
	}
	// The record without its links (a long page has thousands), the body
	// read only when no section is named like the heading (saying).
	doc, ok, err := snap.LookupSpans(a.ID)
	if err != nil || !ok {
		return nil, err
	}
	rec, err := doc.Record()
	if err != nil {
		return nil, err
	}
	typed := address.Slug(a.Heading)
	if typed == "" {
		return nil, nil
	}
	words := strings.FieldsFunc(typed, func(r rune) bool { return r == '-' })
	bare := unpunctuated(typed)
	maxEdits := min(3, max(1, len(typed)/4))
	var cands []sectionCandidate
	var path []docir.Section // the sections that enclose sec
	for _, sec := range rec.Sections {
		for len(path) > 0 && path[len(path)-1].Level >= sec.Level {
			path = path[:len(path)-1]
		}
		// Compared in lower case: a custom anchor keeps its case
		// ({#VUE_PROD_DEVTOOLS}), and what is typed is slugged to lower.
		slug := strings.ToLower(sec.Slug)
		c := sectionCandidate{slug: sec.Slug, edits: docir.EditDistance(typed, slug, maxSortEdits)}
		nested := nestedAnchor(path, slug, bare)
		path = append(path, sec)
		switch {
		case bare == unpunctuated(slug) || nested:
			c.tier = 0
		case strings.HasPrefix(slug, typed) || strings.HasPrefix(typed, slug):
			c.tier, c.dist, c.part = 1, abs(len(slug)-len(typed)), midWord(sec.Heading, bare)
		case c.edits <= 1 && len(typed) >= 4:
			c.tier = 2
		case len(typed) >= 4 && strings.Contains(unpunctuated(slug), bare):
			c.tier, c.dist, c.part = 3, len(slug)-len(typed), midWord(sec.Heading, bare)
		case len(slug) >= 4 && strings.HasSuffix(bare, unpunctuated(slug)):
			// An anchor with the page's name before the heading's slug, as
			// nodejs.org's older ids were (fs_fs_readfile_path_options_callback).
			c.tier, c.dist = 3, len(typed)-len(slug)
		case sharedWords(words, slug) > 0:
			c.tier, c.dist = 4, -sharedWords(words, slug)
		case c.edits <= maxEdits:
			c.tier = 5
		default:
			continue
		}
		cands = append(cands, c)
	}
	slices.SortStableFunc(cands, func(x, y sectionCandidate) int {
		if x.tier != y.tier {
			return x.tier - y.tier
		}
		if x.part != y.part {
			return x.part - y.part
		}
		if x.dist != y.dist {
			return x.dist - y.dist
		}
		return x.edits - y.edits
	})
	var out []string
	for _, c := range cands[:min(n, len(cands))] {
		out = append(out, a.ID+"#"+c.slug)
	}
	if len(out) == 0 {
		// No section is named like it: the ones that say it.
		body, err := doc.Body(0, -1)
		if err != nil {
			return nil, err
		}
		for _, slug := range saying(rec, body, words, n) {
			out = append(out, a.ID+"#"+slug)
		}
	}
	return out, nil
}

// saying returns the slugs of at most n sections of rec (whose body is
// body) whose own prose says every one of words of three letters or more
// (as a word of the text, a part of one cut at its '-' or '_', or the
// word without them, that is the word or shares its stem: sameStem),
// those that say them most often first, in document order among equals.
func saying(rec *docir.Record, body []byte, words []string, n int) []string {
	words = slices.DeleteFunc(slices.Clone(words), func(w string) bool { return len(w) < 3 })
	if len(words) == 0 || n <= 0 {
		return nil
	}
	type said struct {
		slug  string
		times int
	}
	var out []said
	for _, sec := range rec.Sections {
		if sec.Start < 0 || sec.Start > sec.OwnEnd || sec.OwnEnd > len(body) {
			continue
		}
		held := make([]bool, len(words))
		times := 0
		// As the index reads it: link destinations, code fences' markup
		// and comments are not what a section says (see passage.Prose).
		text := strings.ToLower(passage.Prose(string(body[sec.Start:sec.OwnEnd]), false))
		for _, tok := range strings.FieldsFunc(text, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_'
		}) {
			forms := append(strings.FieldsFunc(tok, func(r rune) bool { return r == '-' || r == '_' }), unpunctuated(tok))
			for k, w := range words {
				if slices.ContainsFunc(forms, func(f string) bool { return sameStem(w, f) }) {
					held[k] = true
					times++
				}
			}
		}
		if !slices.Contains(held, false) {
			out = append(out, said{sec.Slug, times})
		}
	}
	slices.SortStableFunc(out, func(x, y said) int { return y.times - x.times })
	slugs := make([]string, 0, min(n, len(out)))
	for _, s := range out[:min(n, len(out))] {
		slugs = append(slugs, s.slug)
	}
	return slugs
}

// maxSortEdits bounds the edit distance that orders suggested sections:
// slugs further from what was typed than this are as far as one another.
const maxSortEdits = 16

// sectionCandidate is a section SuggestSections may suggest.
type sectionCandidate struct {
	slug  string
	tier  int // lower is better
	part  int // within a tier, 0 when what was typed ends where a word of the heading ends (midWord)
	dist  int // then, lower is better
	edits int // then, the fewer edits from what was typed (up to maxSortEdits) the better
}

// nestedAnchor reports whether bare, a typed slug without its '-' and
// '_', is slug's with the slugs of the sections that enclose it before
// it, from any of them down: svelte.dev's anchor of a heading under
// another (`load#Universal-vs-server-When-does-which-load-function-run`
// for "When does which load function run?" under "Universal vs server":
// Svelte review F5). path is the enclosing sections, outermost first.
func nestedAnchor(path []docir.Section, slug, bare string) bool {
	own := unpunctuated(slug)
	if len(path) == 0 || len(bare) <= len(own) || !strings.HasSuffix(bare, own) {
		return false
	}
	rest := bare[:len(bare)-len(own)]
	for i := len(path) - 1; i >= 0 && rest != ""; i-- {
		up := unpunctuated(strings.ToLower(path[i].Slug))
		if !strings.HasSuffix(rest, up) {
			return false
		}
		rest = rest[:len(rest)-len(up)]
	}
	return rest == ""
}

// midWord is 1 when no word of heading ends where bare, a typed slug
// without its '-' and '_', ends in it, and 0 when one does: the heading's
// text up to a character that is no letter or digit, slugged, ends in
// bare. So `fs.readFile` is the call `fs.readFile(path[, options],
// callback)` names before `fs.readFileSync(path[, options])`, whose slug
// starts with it too and is shorter (Node review F7): a name typed whole
// is a word of the heading it means, not the start of a longer one.
//
// The slug is made as it goes, in one pass: a slug without its '-' and
// '_' is the heading's letters, marks and digits, lower-cased (Slug).
func midWord(heading, bare string) int {
	var b strings.Builder
	for _, r := range strings.ToLower(address.NFC(heading)) {
		if unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r) {
			b.WriteRune(r)
			continue
		}
		if b.Len() > 0 && strings.HasSuffix(b.String(), bare) {
			return 0
		}
	}
	if strings.HasSuffix(b.String(), bare) {
		return 0
	}
	return 1
}

// unpunctuated is slug without its '-' and '_': the slugs GitHub and
// VitePress give one heading (buildoutdir, build-outdir) are the same so.
func unpunctuated(slug string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' {
			return -1
		}
		return r
	}, slug)
}

// sharedWords counts the words of a typed slug that are words of slug, or
// share their stem with one: a common start of five bytes, or the whole of
// the shorter word of four or more ("mitigation" and "mitigate").
func sharedWords(words []string, slug string) int {
	have := strings.Split(slug, "-")
	n := 0
	for _, w := range words {
		if len(w) > 1 && slices.ContainsFunc(have, func(h string) bool { return sameStem(w, h) }) {
			n++
		}
	}
	return n
}

func sameStem(a, b string) bool {
	if a == b {
		return true
	}
	p := 0
	for p < min(len(a), len(b)) && a[p] == b[p] {
		p++
	}
	return p >= 5 || p >= 4 && p == min(len(a), len(b))
}

// numbered reports whether typed is a number alone and name opens with
// the same number (zeros before it aside) and then '-', '_' or '.': the
// number prefix of a record's file name (links.Unnumbered's).
func numbered(typed, name string) bool {
	if typed == "" || strings.TrimLeft(typed, "0123456789") != "" {
		return false
	}
	rest := links.Unnumbered(name) // the name less its number prefix and separator
	if rest == name {
		return false
	}
	return strings.TrimLeft(name[:len(name)-len(rest)-1], "0") == strings.TrimLeft(typed, "0")
}

// typedID is a missed id as typed, and the forms of it Suggest compares
// each id of the store with.
type typedID struct {
	typed, noExt, lower, base string
	maxEdits                  int
}

// rank places the id (of the file recPath) among the suggestions for
// what was typed: its tier and distance, or false when it is none.
func (t typedID) rank(id, recPath string) (candidate, bool) {
	typed, noExt, lower, base, maxEdits := t.typed, t.noExt, t.lower, t.base, t.maxEdits
	c := candidate{dist: 0}
	lid := strings.ToLower(id)
	recNoExt := strings.TrimSuffix(recPath, ".md")
	switch {
	case typed == recPath || noExt == recNoExt || noExt == id && typed != id:
		c.tier = 0 // a file path: docs/foo.md, foo.md, foo
	case strings.HasSuffix(noExt, "/"+recNoExt):
		// The file's path with folders in front (the source folder:
		// corpus/docs/foo.md), after the file of that whole path: in a
		// code repository many files are README.md, and tsdb/README.md
		// is tsdb's before the top-level one's.
		c.tier, c.dist = 0, len(noExt)-len(recNoExt)
	case lid == lower || path.Base(id) == noExt:
		c.tier = 1
	case strings.HasSuffix(lower, "/"+lid):
		// A site's URL path for the page, in another case and below
		// the folders the site serves it under (MDN's
		// Web/CSS/color for css/color): the longest such id first.
		c.tier, c.dist = 1, len(lower)-len(id)
	case strings.HasSuffix(lid, "/"+lower):
		// What was typed below the folder the site leaves out of its
		// URLs (Hugo's permalinks: the Docker docs serve
		// manuals/engine/install at /engine/install/).
		c.tier, c.dist = 1, len(id)-len(noExt)
	case links.Unnumbered(path.Base(lid)) == links.Unnumbered(path.Base(lower)) && path.Base(lower) != "":
		// The page by its name without its number prefix, and
		// without folders the site leaves out of its URLs
		// (svelte.dev serves kit/20-core-concepts/20-load.md at
		// /docs/kit/load; Docusaurus 01-intro.md at /intro): the
		// fewer of the other parts typed the id lacks, the nearer.
		c.tier, c.dist = 2, missingParts(lower, lid)
	case numbered(path.Base(lower), path.Base(lid)):
		// A record by its number (a design proposal's, an RFC's,
		// an ADR's: 43651 for 43651-type-parameters, 15 for
		// 0015-use-terraform), as people name one.
		c.tier, c.dist = 2, len(id)
	case isFolderIndex(id, noExt):
		c.tier = 2
	case strings.HasPrefix(id, noExt):
		c.tier, c.dist = 3, len(id)-len(noExt)
	case strings.HasPrefix(recNoExt, noExt) || strings.Contains(noExt, "/") && strings.HasPrefix(recNoExt, noExt[strings.Index(noExt, "/")+1:]):
		c.tier, c.dist = 3, len(recNoExt)-len(noExt) // a prefix of the file's path
	default:
		d, ok := nearID(noExt, id, base, maxEdits)
		if !ok {
			return candidate{}, false
		}
		c.tier, c.dist = 4, d
	}
	return c, true
}
