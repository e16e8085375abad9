package store

import (
	"os"
	"path/filepath"

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
	for _, root := range roots {
		dir := root
		for range siteMarkDepth + 1 {
			for _, m := range siteMarks {
				if _, err := os.Stat(filepath.Join(dir, m.name)); err == nil {
					out[m.rule] = true
				}
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return out
}
