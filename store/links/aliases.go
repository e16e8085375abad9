package links

import (
	"path"
	"strings"

	"github.com/docir/docir/docir"
)

// Hugo's aliases: a page's front matter may list, under `aliases:`, the
// other URL paths it is served at (old addresses of a moved page). Hugo
// writes a redirect page at each (client-side, by default), so a link to
// an alias works on the site even though no file is there. Jekyll's
// jekyll-redirect-from (on by default on GitHub Pages, and GitHub's own
// docs) reads `redirect_from:` the same way, its paths from the site
// root (RedirectPath). Under
// links.hugo_aliases, a root-relative link whose path is no file's is
// looked up among the aliases the documents declare (package store keeps
// the index; these functions say which path an alias and a link name).
//
// Hugo (hugolib's renderAliases and aliasHandler.targetPathAlias) reads an
// alias like this, and so does AliasPath:
//
//   - "/old-url", site-relative: the path below the site's base URL;
//   - "old-name" or "../old/path", page-relative: joined to the folder
//     that holds the page's own URL folder ("." is the page's level: of
//     content/examples/example-1.md, served at /examples/example-1/,
//     "old-name" is /examples/old-name; of a bundle's page,
//     examples/b/index.md at /examples/b/, it is /examples/old-name too; of
//     a section's examples/_index.md at /examples/, /old-name); ".."
//     stops at the site root;
//   - an alias that ends in ".html" is that file; any other is a folder
//     whose index.html redirects, so "/old", "/old/" and
//     "/old/index.html" are one path, and "/old.html" another.
//
// What is not read: a page's url or slug front matter (the page's URL is
// taken from its file's path, as Hugo serves it by default), languages'
// and other dimensions' path prefixes (/en/), ugly URLs (uglyURLs: true
// adds ".html" to an alias), and an alias with a scheme, which Hugo
// refuses. Paths compare as written (case-sensitively; Hugo does not
// lower-case an alias).

// Aliases reads a front-matter aliases value: a string, or a list whose
// strings are kept (anything else in it is skipped, as is a value of any
// other type).
func Aliases(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	case []string:
		return v
	}
	return nil
}

// AliasPath is the site path (below the site base, leading '/', no
// trailing '/', "index.html" dropped: SitePath's form) at which the page
// whose file is rel below its source folder serves the alias a; ok is
// false for an alias Hugo serves nowhere: empty, with a scheme or a
// host ("//x"), holding a NUL or a template, or naming the site root.
func AliasPath(rel, a string) (p string, ok bool) {
	a = strings.TrimSpace(a)
	if a == "" || hasScheme(a) || strings.HasPrefix(a, "//") {
		return "", false
	}
	if !strings.HasPrefix(a, "/") {
		a = path.Join(pageParent(rel), a)
	}
	p = sitePath(a)
	return p, p != "/" && !strings.ContainsRune(p, 0) && !strings.Contains(p, "{{")
}

// RedirectPath is the site path (AliasPath's form) of an entry of a
// page's redirect_from, as jekyll-redirect-from reads one: a path from the
// site root, its leading '/' optional ("old/page" is /old/page), a folder
// or a file as an alias is; ok is false where AliasPath's is.
func RedirectPath(a string) (p string, ok bool) {
	a = strings.TrimSpace(a)
	if a != "" && !strings.HasPrefix(a, "/") && !hasScheme(a) {
		a = "/" + a
	}
	return AliasPath("", a)
}

// pageParent is the folder ("/" rooted) that holds the URL folder of the
// page whose file is rel: a bundle's page (index.md, _index.md,
// README.md) is served at its file's folder, any other page at its path
// without its extension.
func pageParent(rel string) string {
	stem := strings.TrimSuffix(rel, path.Ext(rel))
	urlDir := stem
	switch path.Base(stem) {
	case "index", "_index", "README":
		urlDir = path.Dir(stem)
	}
	return path.Dir(path.Clean("/" + urlDir))
}

// sitePath is the path p in the form an alias is compared in: cleaned,
// rooted, with no trailing '/', and a final "index.html" dropped (the
// file a folder is served by).
func sitePath(p string) string {
	p = path.Clean("/" + p)
	if p == "/index.html" {
		return "/"
	}
	return strings.TrimSuffix(p, "/index.html")
}

// SitePath is the site path, below the site base, that the
// root-relative link l names (or the URL below one of the site's URLs),
// in the form AliasPath gives an alias; ok is false for a link that is
// not root-relative or lies outside the base
// (or is ignored, external, a template, or a ref or relref, which Hugo
// resolves by the page's path, never by an alias).
func (r Rules) SitePath(l docir.LinkRef) (p string, ok bool) {
	if l.Kind == docir.LinkHugoRef || l.Kind == docir.LinkHugoRelRef || strings.Contains(l.Target, "{{") {
		return "", false
	}
	for _, pat := range r.Ignore {
		if Match(pat, l.Target) {
			return "", false
		}
	}
	t := TargetPath(l.Target)
	if !strings.HasPrefix(t, "/") || strings.HasPrefix(t, "//") {
		// A URL below one of the site's (links.site) is the path after
		// it, from the site's root: Grafana's docs link their own pages
		// by https://grafana.com/docs/grafana/latest/datasources/
		// azuremonitor/, an alias of datasources/azure-monitor (46 such
		// links were broken with hugo_aliases and site set).
		if p, ok := r.sitePath(l.Target); ok {
			return sitePath(TargetPath(p)), true
		}
		return "", false
	}
	rest, ok := r.belowBase(t)
	if !ok {
		return "", false
	}
	return sitePath(rest), true
}
