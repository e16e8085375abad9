package store

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/docir/docir/docir"
)

// siteMarks are the files a site generator's project holds beside its
// content, each with the link rule that reads anchors as that generator
// writes them: an MkDocs project's mkdocs.yml, a VitePress site's
// .vitepress folder. They say which of several rules that resolve the
// same broken links a site wants (generatorRules). A Hugo project's
// hugo.toml says nothing of blackfriday_anchors: Hugo's anchors are
// GitHub's unless its config says otherwise (and that rule sorts first
// by name anyway).
var siteMarks = []struct{ name, rule string }{
	{"mkdocs.yml", docir.LinkRuleMkDocsAnchors},
	{"mkdocs.yaml", docir.LinkRuleMkDocsAnchors},
	{".vitepress", LinkRuleVitePressAnchors},
}

// siteGenerators are the files and folders that mark a site
// generator's project (siteMarks', and Hugo's, Zola's, Docusaurus',
// Jekyll's, Astro's and Sphinx's configs): a site serves a folder's
// index.md (or _index.md) as its page. Not mdBook's book.toml: mdBook
// serves a chapter folder's README.md, as GitHub shows it.
var siteGenerators = []string{"mkdocs.yml", "mkdocs.yaml", ".vitepress", "hugo.toml", "hugo.yaml", "hugo.json",
	"config.toml", "docusaurus.config.js", "docusaurus.config.ts", "docusaurus.config.mjs", "_config.yml",
	"astro.config.mjs", "astro.config.ts", "conf.py"}

// PlainRepository reports whether no site generator's marks
// (siteGenerators) stand in the source folders roots or up to
// siteMarkDepth folders above them: the markdown is read on GitHub, which
// shows a folder's README.md as its page (links.Rules.ReadmeFirst).
func PlainRepository(roots []string) bool {
	return !markedAbove(roots, func(dir string) bool {
		return slices.ContainsFunc(siteGenerators, func(m string) bool { return exists(filepath.Join(dir, m)) })
	})
}

// markedAbove reports whether marked holds of a source folder of roots
// or of one of the siteMarkDepth folders above it, asked of each in turn
// until it does.
func markedAbove(roots []string, marked func(dir string) bool) bool {
	for _, root := range roots {
		dir := root
		for range siteMarkDepth + 1 {
			if marked(dir) {
				return true
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return false
}

// exists reports whether a file or folder is at p.
func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// siteMarkDepth is how many folders above a source folder generatorRules
// looks in: a site keeps its content below its project's root, one or two
// folders down (FastAPI's docs/en/docs below docs/en/mkdocs.yml; a
// VitePress site's src/ beside src/.vitepress, or docs/ below the
// repository's .vitepress).
const siteMarkDepth = 2

// generatorRules are the link rules of the site generators whose marks
// stand in the source folders roots or up to siteMarkDepth folders above
// them: a few stats, made only when check names the rules that would
// resolve its broken links.
func generatorRules(roots []string) map[string]bool {
	out := map[string]bool{}
	markedAbove(roots, func(dir string) bool {
		for _, m := range siteMarks {
			if exists(filepath.Join(dir, m.name)) {
				out[m.rule] = true
			}
		}
		return false // every folder is looked in
	})
	return out
}
