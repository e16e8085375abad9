// Package links owns how docir reads a link's target: which files of the
// store it may name, or that it is an external URL, or a target docir
// cannot check. It is pure: it knows the source folders and the rules of
// docs/links.md, and never opens a store. Package store resolves the
// candidates against a generation (the first file that exists wins; its
// document id is whatever ingest gave that file, front-matter id, prefix
// and bundle rules included) and checks the anchor against the document's
// sections by the same rules as get (docir.Record.FindSection), and, with
// links.mkdocs_anchors, by the anchors MkDocs gives headings
// (MkDocsAnchors).
//
// A target is read like this (docs/links.md has it for users):
//
//   - a reference whose label its file does not define: broken;
//   - a template expression ({{…}}) other than ref/relref: unchecked;
//   - a scheme (https:, mailto:, …) or "//host": external;
//   - "#anchor" or "": the link's own document;
//   - "/path": root-relative, below the site base (Rules.Base, "/" unless
//     configured), tried under each source folder in order;
//   - any other path: relative to the linking file's folder; with
//     Rules.DirectoryURLs, a path that is no markdown file path
//     relative to the page's own URL folder instead;
//   - Hugo's ref and relref: a path below the source folders when it
//     starts with "/", else relative to the file's folder and then, unless
//     it opens with "./" or "../" (pageRelative), below each source
//     folder; ".md" may be left out.
//
// The query (?…) is dropped; the path and anchor are percent-decoded. A
// path names a markdown file: "x.md" itself; "x", "x/" or "x.html" the
// first of x.md, x/index.md, x/_index.md, x/README.md (with
// Rules.ReadmeFirst, x/README.md before x/index.md; "x.html" then
// x.html.md); "x.mdx" and "x.markdown" x.md; a path with another
// extension that names no such file is not markdown (an image, a PDF) and
// is unchecked, not broken. A path that leaves every source folder is
// unchecked. Paths compare case-sensitively, as the file system does.
package links

import (
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/docir/docir/docir"
)

// Rules say how a store reads its links: its source folders and the
// configured site base and ignore patterns.
type Rules struct {
	// Roots are the source folders, absolute and cleaned, in config order.
	Roots []string
	// Prefixes are the sources' id prefixes, one a root ("" for none):
	// a root-relative path that starts with a source's prefix also names
	// what follows it below that source, as the source's ids do.
	Prefixes []string
	// Base is the site base of root-relative links: "/" (the default)
	// maps "/x" to x below each source folder, "/docs/" maps "/docs/x" to
	// x and leaves "/other" outside the base.
	Base string
	// Ignore are patterns of targets not to check, matched against the
	// target as written: '*' matches any run of characters ('/'
	// included), '?' any one; anything else itself.
	Ignore []string
	// RootFallback tries a relative path that names no file below each
	// source folder too, as Hugo's GetPage does (and so its embedded
	// link render hook, and ref/relref always).
	RootFallback bool
	// DirectoryURLs reads a relative path that is not written as a
	// markdown file path (no ".md" or ".mdx") from the page's own URL
	// folder, as a browser does on a site that serves x/page.md at
	// /x/page/ (Jekyll's pretty permalinks, MkDocs's use_directory_urls,
	// Hugo, Docusaurus with trailingSlash): "../other/" of x/page.md is
	// x/other. A bundle's page (index.md, _index.md, README.md) is served
	// at its folder, which is its file's folder already. A path written
	// as a file ("../other.md") is read from the file's folder, as those
	// generators rewrite it.
	DirectoryURLs bool
	// Site are the URLs the site is served at ("https://golang.org/",
	// "https://github.com/golang/proposal/blob/master/"), each ending in
	// '/': a link to a URL below one is the root-relative link of the
	// path after it ("https://golang.org/design/x" is "/design/x"), read
	// as any root-relative link (below Base, under each source folder).
	// The scheme and host compare in any case, and http and https alike.
	Site []string
	// NameIDs says, of each root, whether its documents take their ids
	// from a front-matter `id:` in their folder (front_matter_id: name,
	// as Docusaurus serves a page at its folder and id): a path there
	// that names no file also names the document whose id it spells.
	NameIDs []bool
	// ReadmeFirst names a folder by its README.md before its index.md and
	// _index.md, as GitHub shows a folder of a plain repository (no site
	// generator's marks: store.PlainRepository); else index.md, then
	// _index.md, then README.md, as Hugo, MkDocs, VitePress, Docusaurus
	// and Jekyll serve a folder. prometheus's tsdb/docs/format/index.md
	// is the disk format of the index file beside the folder's README.md.
	ReadmeFirst bool
}

// File is a candidate file: a source folder and a '/'-separated path below
// it.
type File struct {
	Root, Rel string
}

// Target is what a link names before a generation is asked.
type Target struct {
	// Status is docir.LinkExternal or docir.LinkUnchecked when no file
	// need be looked up, docir.LinkBroken for a reference whose label is
	// not defined (docir.ReasonNoDefinition); "" for an internal link.
	Status string
	URL    string // external
	Reason string // unchecked: a docir.Reason*
	// Self is a link to its own document (an anchor, or nothing).
	Self bool
	// Files are the candidates, in order: the first that exists is the
	// document the link leads to.
	Files []File
	// NotMarkdown: when no candidate exists, the target is a file docir
	// does not index (unchecked, docir.ReasonNotMarkdown), not a broken
	// link.
	NotMarkdown bool
	// Anchor is the heading part, percent-decoded; "" for none.
	Anchor string
	// OrURL, when no candidate exists, is the URL the target is (external):
	// a target whose colon may open a scheme or be part of a page's name
	// (a GitHub wiki's `Basics:-Paths`, a MyST label `references:tables`,
	// VS Code's `vscode:extension/x`) is a page where one is, else a URL.
	OrURL string
	// PageName, when no candidate exists, is a page's file name to find
	// the one page of the sources by (Hugo's GetPage reads a path without
	// a '/' so: "new-company.md" is admin/company/new-company.md when no
	// other page has that name); "" for none.
	PageName string
}

// Normalize returns r with Base in its canonical form ("/" when empty;
// one leading and one trailing '/').
func (r Rules) Normalize() Rules {
	b := strings.Trim(r.Base, "/")
	if b == "" {
		r.Base = "/"
	} else {
		r.Base = "/" + b + "/"
	}
	return r
}

// TargetPath is the path a link target names, as Classify reads it: the
// target without its anchor and query, percent-decoded.
func TargetPath(t string) string {
	p, _, _ := strings.Cut(t, "#")
	p, _, _ = strings.Cut(p, "?")
	return Decode(p)
}

// Ignored reports whether the target t, as written, matches one of the
// Ignore patterns: such a link is unchecked (ignored), whatever its kind.
func (r Rules) Ignored(t string) bool {
	return slices.ContainsFunc(r.Ignore, func(p string) bool { return Match(p, t) })
}

// Classify reads the link l of the file rel below root.
func (r Rules) Classify(root, rel string, l docir.LinkRef) Target {
	t := l.Target
	if r.Ignored(t) {
		return Target{Status: docir.LinkUnchecked, Reason: docir.ReasonIgnored}
	}
	if l.Undefined {
		// A reference whose label the file does not define: no rule
		// makes it a link.
		return Target{Status: docir.LinkBroken, Reason: docir.ReasonNoDefinition}
	}
	if l.Kind == docir.LinkHugoRef || l.Kind == docir.LinkHugoRelRef {
		return r.hugo(root, rel, t)
	}
	if p, ok := strings.CutPrefix(t, "@/"); ok {
		return r.zola(p)
	}
	if liquid, ok := LiquidPath(t); ok {
		t = liquid
	} else if strings.Contains(t, "{{") || strings.HasPrefix(t, "{%") {
		return Target{Status: docir.LinkUnchecked, Reason: docir.ReasonTemplate}
	}
	orURL := ""
	if hasScheme(t) || strings.HasPrefix(t, "//") {
		if p, ok := r.sitePath(t); ok {
			return r.classifyPath(root, rel, p)
		}
		if !mayBePage(t) {
			return Target{Status: docir.LinkExternal, URL: t}
		}
		orURL = t
	}
	tg := r.classifyPath(root, rel, t)
	if orURL != "" {
		if tg.Status != "" || len(tg.Files) == 0 {
			return Target{Status: docir.LinkExternal, URL: t}
		}
		tg.OrURL, tg.NotMarkdown = orURL, false
	}
	return tg
}

// sitePath is the root-relative target that the URL t is, when t is
// below one of the site's URLs (Rules.Site): "/" and what follows the
// site's URL, query and anchor kept.
func (r Rules) sitePath(t string) (string, bool) {
	for _, site := range r.Site {
		if rest, ok := cutSite(t, site); ok {
			return "/" + rest, true
		}
	}
	return "", false
}

// cutSite is t after the site URL site when t is below it: the scheme
// and host in any case, http and https alike, a default port (80, 443)
// written or not, a user name left out; the path as written, the site's
// read as a folder ("…/blob/master" as "…/blob/master/": a link to the
// folder itself, or with only a query or an anchor after it, is the
// site's root).
func cutSite(t, site string) (string, bool) {
	sh, sp, ok := splitURL(site)
	if !ok {
		return "", false
	}
	th, tp, ok := splitURL(t)
	if !ok || th != sh {
		return "", false
	}
	sp = strings.TrimSuffix(sp, "/")
	rest, ok := strings.CutPrefix(tp, sp)
	switch {
	case !ok:
		return "", false
	case rest == "" || rest[0] == '?' || rest[0] == '#':
		return rest, true
	case rest[0] == '/':
		return rest[1:], true
	}
	return "", false // a longer segment: /blob/masterx is not below /blob/master
}

// splitURL is a URL's host (lower-cased, without its user name and its
// scheme's default port) and what follows it, "/…", "?…", "#…" or "";
// false when it is no http, https or scheme-relative ("//host") URL.
func splitURL(u string) (host, rest string, ok bool) {
	after, ok := withoutScheme(u)
	if !ok {
		return "", "", false
	}
	end := strings.IndexAny(after, "/?#")
	if end < 0 {
		end = len(after)
	}
	host, rest = strings.ToLower(after[:end]), after[end:]
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:]
	}
	if c := strings.LastIndexByte(host, ':'); c >= 0 && c > strings.LastIndexByte(host, ']') {
		if port := host[c+1:]; port == "80" || port == "443" {
			host = host[:c]
		}
	}
	return host, rest, host != ""
}

// SiteURL reports whether u may be one of Rules.Site: an http or https
// URL with a host, and no user name, query or anchor.
func SiteURL(u string) bool {
	p, err := url.Parse(u)
	if err != nil || strings.ContainsAny(u, " \t\\#") {
		return false
	}
	scheme := strings.ToLower(p.Scheme)
	return (scheme == "http" || scheme == "https") && p.Hostname() != "" && p.User == nil &&
		p.RawQuery == "" && !p.ForceQuery
}

// withoutScheme is a URL after its "http://", "https://" or "//".
func withoutScheme(u string) (string, bool) {
	for _, p := range []string{"https://", "http://", "//"} {
		if len(u) >= len(p) && strings.EqualFold(u[:len(p)], p) {
			return u[len(p):], true
		}
	}
	return "", false
}

// knownSchemes are URL schemes written without "//" that no page's name
// opens with: a link to one is external at once.
var knownSchemes = map[string]bool{"mailto": true, "tel": true, "sms": true, "data": true, "javascript": true, "urn": true,
	"news": true, "magnet": true, "xmpp": true, "sip": true, "sips": true, "geo": true, "about": true}

// mayBePage reports whether t, which opens with what may be a URL scheme,
// may instead name a page: its scheme is no known one and no "//" follows
// it (`Basics:-Paths`, `references:tables`).
func mayBePage(t string) bool {
	scheme, rest, ok := strings.Cut(t, ":")
	return ok && !strings.HasPrefix(rest, "//") && !knownSchemes[strings.ToLower(scheme)]
}

// classifyPath reads the target t of the file rel below root as a path
// (Classify, once t is no template and no URL).
func (r Rules) classifyPath(root, rel, t string) Target {
	_, anchor, _ := strings.Cut(t, "#")
	p, anchor := TargetPath(t), Decode(anchor)
	if anchor == "" {
		anchor = queryID(t)
	}
	switch {
	case p == "":
		return Target{Self: true, Anchor: anchor}
	case strings.HasPrefix(p, "/"):
		rest, ok := r.belowBase(p)
		if !ok {
			return Target{Status: docir.LinkUnchecked, Reason: docir.ReasonOutsideBase}
		}
		tg := Target{Anchor: anchor}
		for _, root := range r.Roots {
			tg.addCandidates(root, rest, r.ReadmeFirst)
		}
		for i, prefix := range r.Prefixes {
			// A path written as the source's ids are: /api/x for x below
			// the source prefixed api (a site that serves one folder of
			// its content at /, and writes content paths for it too).
			if below, ok := strings.CutPrefix(rest, "/"+strings.Trim(prefix, "/")+"/"); ok && prefix != "" && i < len(r.Roots) {
				tg.addCandidates(r.Roots[i], below, r.ReadmeFirst)
			}
		}
		if r.RootFallback {
			tg.hugoPage(rest)
		}
		return tg
	}
	tg := r.relative(root, r.pageFile(rel, p), p, anchor)
	if r.RootFallback && tg.Status == "" {
		if !pageRelative(p) {
			for _, root := range r.Roots {
				tg.addCandidates(root, "/"+p, r.ReadmeFirst)
			}
		}
		tg.hugoPage(p)
	}
	return tg
}

// pageRelative reports whether the path p opens with "./" or "../" (or
// is "." or ".."): a path written relative to its page, which Hugo's
// GetPage reads from the page's folder alone ("Page relative, no need
// to look further"), and so root_fallback and a ref below the source
// folders: `./../` of a folder with no page is no link to the site's
// root page.
func pageRelative(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return first == "." || first == ".."
}

// hugoPage adds what Hugo's GetPage (ref, relref, and the link render
// hooks that send a site's links through them) reads a page path p as
// besides its file, once the candidates of p are in t.Files: a bundle's
// page is its folder's, whichever of index.md and _index.md holds it, so
// "x.md" is also x/_index.md and x/index.md, and "x/index.md" also
// x/_index.md (the Docker docs link "rootless.md" for
// rootless/_index.md); and a path without a '/' names the one page of the
// sources whose file has that name (PageName), where no file is at the
// path. Every file t.Files holds is a candidate of p (a .md path has no
// others), and each gets its bundle's pages beside it.
func (t *Target) hugoPage(p string) {
	// A name alone: no folder, and not root-relative ("/x.md" is x.md at
	// the top of the site, which Hugo does not look for elsewhere).
	name := p
	if !strings.Contains(name, "/") && (path.Ext(name) == "" || path.Ext(name) == ".md") {
		switch name = strings.TrimSuffix(name, ".md") + ".md"; name {
		case ".md", "index.md", "_index.md": // a bundle's page is named by its folder
		default:
			t.PageName = name
		}
	}
	if path.Ext(p) != ".md" {
		return // its bundle's pages are candidates already (addCandidates)
	}
	var more []File
	for _, f := range t.Files {
		fs := strings.TrimSuffix(f.Rel, ".md")
		if f.Rel == fs {
			continue
		}
		dir := fs
		switch path.Base(fs) {
		case "index", "_index":
			dir = path.Dir(fs)
		}
		for _, name := range []string{"_index.md", "index.md"} {
			more = append(more, File{Root: f.Root, Rel: strings.TrimPrefix(strings.TrimPrefix(dir+"/"+name, "./"), "/")})
		}
	}
	for _, f := range more {
		if !slices.Contains(t.Files, f) {
			t.Files = append(t.Files, f)
		}
	}
}

// belowBase is the path the root-relative path p names below the site
// base (links.base); ok is false when p lies outside it.
func (r Rules) belowBase(p string) (rest string, ok bool) {
	base := r.Normalize().Base
	if !strings.HasPrefix(p, base) && p+"/" != base {
		return "", false
	}
	return strings.TrimPrefix(p, strings.TrimSuffix(base, "/")), true
}

// relative reads the path p as relative to the folder of the file rel
// below root.
func (r Rules) relative(root, rel, p, anchor string) Target {
	joined := path.Join(path.Dir(root+"/"+rel), p)
	if strings.HasSuffix(p, "/") {
		joined += "/"
	}
	in := r.rootOf(joined)
	if in == "" {
		return Target{Status: docir.LinkUnchecked, Reason: docir.ReasonOutsideSources}
	}
	tg := Target{Anchor: anchor}
	tg.addCandidates(in, strings.TrimPrefix(joined, in), r.ReadmeFirst)
	return tg
}

// pageFile is the file whose folder the relative path p of the file rel
// is read from: rel itself, or with DirectoryURLs and a p that is no
// markdown file path, a file in the page's own URL folder (rel without
// its extension) unless rel is a bundle's page, served at its folder.
func (r Rules) pageFile(rel, p string) string {
	if !r.DirectoryURLs {
		return rel
	}
	if ext := path.Ext(p); ext == ".md" || ext == ".mdx" {
		return rel
	}
	stem := strings.TrimSuffix(rel, path.Ext(rel))
	switch path.Base(stem) {
	case "index", "_index", "README":
		return rel
	}
	return stem + "/" + path.Base(rel)
}

// hugo reads the argument of a ref or relref shortcode.
func (r Rules) hugo(root, rel, t string) Target {
	p, anchor, _ := strings.Cut(t, "#")
	if p == "" {
		return Target{Self: true, Anchor: anchor}
	}
	tg := Target{Anchor: anchor}
	if !strings.HasPrefix(p, "/") {
		from := rel
		if leafPage(rel) && !strings.HasPrefix(p, "..") {
			// A leaf bundle's page reads a ref from its bundle's level,
			// as Hugo does (getContentNode: "bundles are stored in
			// subfolders e.g. blog/mybundle/index.md, so … look on the
			// blog level"), unless the ref climbs itself: Grafana's
			// assign-rbac-roles/index.md writes "./plan-rbac-rollout-
			// strategy/" for its sibling bundle (54 links broken).
			from = path.Dir(rel)
		}
		if rt := r.relative(root, from, p, anchor); rt.Status == "" {
			tg.Files = rt.Files
		}
	}
	if !pageRelative(p) {
		for _, root := range r.Roots {
			tg.addCandidates(root, "/"+strings.TrimPrefix(p, "/"), r.ReadmeFirst)
		}
	}
	tg.hugoPage(p)
	tg.NotMarkdown = false // a ref names a page: a miss is broken
	return tg
}

// leafPage reports whether rel is a leaf bundle's page, as Hugo names
// one: index.md, or a translation of it (index.fr.md).
func leafPage(rel string) bool {
	base := path.Base(rel)
	return base == "index.md" || strings.HasPrefix(base, "index.") && strings.HasSuffix(base, ".md") && strings.Count(base, ".") == 2
}

// queryID is the value of an id parameter in the query of the target t
// (`themes.md?id=customization`), Docsify's way of writing a heading's
// anchor, which a link with no `#anchor` is read as; "" when none.
func queryID(t string) string {
	p, _, _ := strings.Cut(t, "#")
	_, q, ok := strings.Cut(p, "?")
	if !ok {
		return ""
	}
	for param := range strings.SplitSeq(q, "&") {
		if v, ok := strings.CutPrefix(param, "id="); ok {
			return Decode(v)
		}
	}
	return ""
}

// zola reads an internal link of Zola (`@/blog/post.md#anchor`, the
// part after "@/"): a file's path from the content folder, which is a
// source folder here, tried below each. Zola fails a build on one that
// names no file, so a miss is broken.
func (r Rules) zola(t string) Target {
	p, anchor, _ := strings.Cut(t, "#")
	p, _, _ = strings.Cut(p, "?")
	tg := Target{Anchor: Decode(anchor)}
	for _, root := range r.Roots {
		tg.addCandidates(root, "/"+Decode(p), r.ReadmeFirst)
	}
	tg.NotMarkdown = false
	return tg
}

// rootOf is the longest source folder that holds the absolute path p, or
// "".
func (r Rules) rootOf(p string) string {
	best := ""
	for _, root := range r.Roots {
		if (p == root || strings.HasPrefix(p, root+"/") || root == "/") && len(root) > len(best) {
			best = root
		}
	}
	return best
}

// assetExts are extensions of files that are never pages: a link to one
// is unchecked at once, with no candidate looked up.
var assetExts = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".svg": true, ".webp": true, ".ico": true, ".avif": true,
	".pdf": true, ".zip": true, ".gz": true, ".tgz": true, ".tar": true,
	".txt": true, ".json": true, ".yaml": true, ".yml": true, ".toml": true, ".xml": true, ".csv": true,
	".css": true, ".js": true, ".mp4": true, ".webm": true, ".mp3": true,
}

// addCandidates adds the markdown files that the path p below root (p
// '/'-separated, leading '/' or not; a trailing '/' names a folder) may
// name; with readmeFirst, a folder's README.md before its index.md
// (Rules.ReadmeFirst).
func (t *Target) addCandidates(root, p string, readmeFirst bool) {
	folder := p == "" || strings.HasSuffix(p, "/")
	rel := strings.Trim(path.Clean("/"+p), "/")
	if rel == "." {
		rel = ""
	}
	add := func(r string) {
		f := File{Root: root, Rel: r}
		for _, have := range t.Files {
			if have == f {
				return
			}
		}
		t.Files = append(t.Files, f)
	}
	inFolder := func(dir string) {
		if dir == "." {
			dir = "" // the root's own index (path.Dir of "index"): not ./index.md
		}
		names := []string{"index.md", "_index.md", "README.md"}
		if readmeFirst {
			names = []string{"README.md", "index.md", "_index.md"}
		}
		for _, name := range names {
			add(strings.TrimPrefix(dir+"/"+name, "/"))
		}
	}
	ext := path.Ext(rel)
	switch {
	case folder || rel == "":
		if rel != "" {
			add(rel + ".md")
		}
		inFolder(rel)
	case ext == ".md":
		add(rel)
	case ext == ".mdx" || ext == ".markdown":
		// docir reads no .mdx or .markdown file; one renamed to .md, as
		// docs/ingest.md advises, keeps the links that name it as it was.
		add(strings.TrimSuffix(rel, ext) + ".md")
		t.NotMarkdown = true
	case ext == ".html" || ext == ".htm":
		stem := strings.TrimSuffix(rel, ext)
		if path.Base(stem) == "index" {
			inFolder(path.Dir(stem))
		} else {
			add(stem + ".md")
			inFolder(stem)
			// A page renamed from x.html.markdown to x.html.md (the
			// Terraform registry's docs link x.html).
			add(rel + ".md")
		}
	case assetExts[strings.ToLower(ext)]:
		t.NotMarkdown = true
	default:
		// No extension, or one a page's name may hold ("go1.21",
		// "0.120.0-relnotes"): a page, unless no markdown file is there.
		add(rel + ".md")
		inFolder(rel)
		t.NotMarkdown = ext != ""
	}
}

// LiquidPath is the site path a Jekyll link target written in Liquid
// names, root-relative: `{% link _docs/x.md %}` (a source file, from the
// site's root), `{{ '/docs/x/' | relative_url }}` (or absolute_url, either
// quotes) and `{{ site.baseurl }}/docs/x/` (the base is the site's), each
// with what follows the tag (`#anchor`); false for any other template.
func LiquidPath(t string) (string, bool) {
	tag, rest, ok := strings.Cut(t, "}}")
	switch {
	case strings.HasPrefix(t, "{%"):
		tag, rest, ok = strings.Cut(t[2:], "%}")
		f := strings.Fields(strings.Trim(tag, "-"))
		if !ok || len(f) != 2 || f[0] != "link" {
			return "", false
		}
		return "/" + strings.TrimPrefix(f[1], "/") + rest, true
	case !ok || !strings.HasPrefix(tag, "{{"):
		return "", false
	}
	f := strings.Fields(strings.Trim(tag[2:], "-"))
	switch {
	case len(f) == 1 && f[0] == "site.baseurl" && strings.HasPrefix(rest, "/"):
		return rest, true
	case len(f) == 3 && f[1] == "|" && (f[2] == "relative_url" || f[2] == "absolute_url") && len(f[0]) >= 2 &&
		(f[0][0] == '\'' || f[0][0] == '"') && f[0][len(f[0])-1] == f[0][0]:
		return "/" + strings.TrimPrefix(f[0][1:len(f[0])-1], "/") + rest, true
	}
	return "", false
}

// hasScheme reports whether t starts with a URI scheme of two characters
// or more (one letter is a Windows drive, not a scheme).
func hasScheme(t string) bool {
	c := strings.IndexByte(t, ':')
	if c < 2 {
		return false
	}
	for i := 0; i < c; i++ {
		b := t[i]
		letter := b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
		if !letter && (i == 0 || !(b >= '0' && b <= '9' || b == '+' || b == '.' || b == '-')) {
			return false
		}
	}
	return true
}

// Decode percent-decodes s, or keeps it as written when it is not valid
// percent-encoding, as a link's path and anchor are read.
func Decode(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	d, err := url.PathUnescape(s)
	if err != nil {
		return s
	}
	return d
}

// Match reports whether the target t matches the ignore pattern p: '*'
// matches any run of characters, '?' any one character, anything else
// itself.
func Match(p, t string) bool {
	// The classic two-pointer glob: linear in len(p) * len(t) at worst,
	// and with one '*' remembered, linear in practice.
	pi, ti, star, mark := 0, 0, -1, 0
	for ti < len(t) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == t[ti]):
			pi++
			ti++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ti
			pi++
		case star >= 0:
			pi, mark = star+1, mark+1
			ti = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
