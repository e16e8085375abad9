package ingest

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/docir/docir/store"
)

// lookalikeExts are the extensions of files that look like markdown, or
// are documentation pages in another markup (otherMarkup), but that docir
// does not read (it reads *.md files only): a refresh counts
// them per source and says so in one warning (KindOtherExtension), so a
// folder of MDX pages does not index to nothing in silence. They match
// case-insensitively; so does ".md" itself, for a name such as README.MD,
// which *.md does not take either.
var lookalikeExts = []string{".mdx", ".markdown", ".mdown", ".mkd", ".mkdn", ".mdwn", ".md", ".rst", ".ipynb", ".adoc"}

// otherMarkup are the lookalikeExts that are not markdown: the pages of a
// documentation site written in another markup beside its markdown ones
// (Sphinx's reStructuredText next to MyST pages, Jupyter notebooks,
// AsciiDoc). They are counted as the others are, so a source that holds
// them says so, but renaming one to .md would not make it markdown.
var otherMarkup = []string{".rst", ".ipynb", ".adoc"}

// IsMarkdownExt reports whether ext, an extension LookalikeExt gives, is a
// markdown one (a file renamed to .md reads as it was meant).
func IsMarkdownExt(ext string) bool {
	return !slices.ContainsFunc(otherMarkup, func(e string) bool { return strings.EqualFold(e, ext) })
}

// LookalikeExt is the extension of name, as the name spells it, when it is
// one of lookalikeExts; else "". name is not a *.md name: the walk takes
// those. It only looks at the name (no stat): the walk calls it for every
// file that is not *.md.
func LookalikeExt(name string) string {
	i := strings.LastIndexByte(name, '.')
	if i < 0 || len(name)-i > len(".markdown") || len(name)-i < len(".md") {
		return ""
	}
	ext := name[i:]
	for _, e := range lookalikeExts {
		if strings.EqualFold(ext, e) {
			return ext
		}
	}
	return ""
}

// sourceTally is what the walk saw of one source's names, besides the
// files it keeps: the *.md files the ignore rules leave in, what the
// ignore rules left out, and the lookalike files they leave in, by
// extension, with the least of their paths as an example.
type sourceTally struct {
	md, ignored int
	other       map[string]int // extension, as spelled → files
	example     string         // the least path of the lookalike files
}

// lookalike counts name, a file of the folder that is not *.md, when it
// looks like markdown and the ignore rules leave it in. It is not counted
// as ignored when they leave it out: Ignored counts markdown files and
// folders. name is a view of the folder buffer: what is kept is a copy,
// and the example's path is built once the folder is read (lookalikeDone).
func (r *folderRead) lookalike(name string) {
	ext := LookalikeExt(name)
	if ext == "" || r.matches(name, false) {
		return
	}
	t := &r.out.tally
	if t.other == nil {
		t.other = map[string]int{}
	}
	// A copy every time: assigning to a string key stores the key given,
	// and ext is a view of the folder buffer, which the next folder reuses.
	t.other[strings.Clone(ext)]++
	if r.example == "" || name < r.example {
		r.example = name
	}
}

// lookalikeDone sets the folder's example lookalike path.
func (r *folderRead) lookalikeDone() {
	if r.example != "" {
		r.out.tally.example = joinClean(r.job.path, r.example)
	}
}

// add adds u, a folder's tally, to t.
func (t *sourceTally) add(u *sourceTally) {
	t.md += u.md
	t.ignored += u.ignored
	if len(u.other) == 0 {
		return
	}
	if t.other == nil {
		t.other = map[string]int{}
	}
	for ext, n := range u.other {
		t.other[ext] += n
	}
	if t.example == "" || u.example < t.example {
		t.example = u.example
	}
}

// sourceWarnings are the warnings of the sources' tallies: for a source,
// one that names its lookalike files (KindOtherExtension), or one that it
// holds no *.md file (KindNoMarkdown), which, when it also has lookalike
// files, says both.
func sourceWarnings(sources []store.Source, tallies []sourceTally) []warning {
	var out []warning
	for i, t := range tallies {
		src := shown(sources[i].Path)
		none := ""
		if t.md == 0 {
			none = "holds no *.md file"
			if t.ignored > 0 {
				none += " (once its exclude and .gitignore rules are applied)"
			}
		}
		if len(t.other) == 0 {
			if none != "" {
				out = append(out, warning{kind: KindNoMarkdown,
					text: src + ": " + none + ": nothing of this source is indexed (docir reads *.md files only)"})
			}
			continue
		}
		kind, lead := KindOtherExtension, src+": "
		if none != "" {
			kind, lead = KindNoMarkdown, src+": "+none+", and "
		}
		out = append(out, warning{kind: kind,
			text: lead + lookalikeCount(t.other) + ": docir reads *.md files only (e.g. " + shown(t.example) + ")"})
	}
	return out
}

// lookalikeCount says how many files of each extension were not read:
// "89 .mdx files were not read", "1 .mdx file was not read", or
// "90 files were not read (89 .mdx, 1 .markdown)", most first.
func lookalikeCount(other map[string]int) string {
	exts := slices.SortedFunc(maps.Keys(other), func(a, b string) int {
		return cmp.Or(cmp.Compare(other[b], other[a]), strings.Compare(a, b))
	})
	total := 0
	for _, n := range other {
		total += n
	}
	verb := "files were"
	if total == 1 {
		verb = "file was"
	}
	if len(exts) == 1 {
		return fmt.Sprintf("%d %s %s not read", total, exts[0], verb)
	}
	parts := make([]string, len(exts))
	for i, e := range exts {
		parts[i] = fmt.Sprintf("%d %s", other[e], e)
	}
	return fmt.Sprintf("%d %s not read (%s)", total, verb, strings.Join(parts, ", "))
}

// UnreadFile is the path of a file of src that would have id were it read
// (its path below src, under src's prefix, with a lookalike extension: id
// "docs/charts" of docs/charts.mdx, or a bundle's docs/charts/index.mdx),
// and that a refresh does not read; "" when there is none. A read that
// misses id says so, rather than only the ids nearest it. It stats at most
// a few names per extension, and none outside src.
func UnreadFile(src store.Source, id string) string {
	rel := id
	if p := strings.TrimSuffix(src.Prefix, "/"); p != "" {
		if rel == p {
			rel = ""
		} else if r, ok := strings.CutPrefix(id, p+"/"); ok {
			rel = r
		} else {
			return ""
		}
	}
	var bases []string
	if rel != "" {
		if !filepath.IsLocal(filepath.FromSlash(rel)) {
			return ""
		}
		bases = append(bases, filepath.Join(src.Path, filepath.FromSlash(rel)))
	}
	folder := filepath.Join(src.Path, filepath.FromSlash(rel))
	bases = append(bases, filepath.Join(folder, "index"), filepath.Join(folder, "_index"))
	for _, base := range bases {
		for _, ext := range lookalikeExts {
			for _, e := range []string{ext, strings.ToUpper(ext)} {
				if e == ".md" {
					continue // read: not this miss's cause (README.MD is not)
				}
				if fi, err := os.Stat(base + e); err == nil && fi.Mode().IsRegular() {
					return base + e
				}
			}
		}
	}
	return ""
}
