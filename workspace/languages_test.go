package workspace

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/corpustest"
)

// TestLanguagesTLDR indexes all of tldr (38k pages in 40 languages) and
// searches, in every language folder, for pages by their own description
// in their own language (the first "> " line, inline code and the command's
// name left out); descriptions that occur on more than one page are not
// asked. The page must rank first for most, and in the top ten for nearly
// all, in every script: Cyrillic, CJK, Arabic, Devanagari and the other
// Indic scripts, Thai and Lao, and Latin.
func TestLanguagesTLDR(t *testing.T) {
	corpustest.SkipHeavy(t)
	ws, _, root := indexCorpus(t, corpustest.TLDRPages, "tldr")
	pages, seen := describedPages(t, root)
	type tally struct{ asked, first, top10 int }
	by := map[string]*tally{}
	at := map[string]int{}
	ctx := context.Background()
	unique := map[string]int{} // unique descriptions per folder
	for _, p := range pages {
		if seen[p.query] == 1 {
			unique[p.folder]++
		}
	}
	for _, p := range pages {
		// Up to 40 unique descriptions spread over each language folder.
		if seen[p.query] > 1 {
			continue
		}
		at[p.folder]++
		if at[p.folder]%max(1, unique[p.folder]/40) != 0 {
			continue
		}
		res, err := ws.Search(ctx, docir.SearchParams{Query: p.query, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		tl := by[p.folder]
		if tl == nil {
			tl = &tally{}
			by[p.folder] = tl
		}
		tl.asked++
		if os.Getenv("DOCIR_EVAL_MISSES") != "" && (len(res.Hits) == 0 || res.Hits[0].Path != p.rel) {
			top := ""
			if len(res.Hits) > 0 {
				top = res.Hits[0].Path
			}
			t.Logf("miss: %q → want %s, top %s", p.query, p.rel, top)
		}
		for i, h := range res.Hits {
			if h.Path == p.rel {
				tl.top10++
				if i == 0 {
					tl.first++
				}
				break
			}
		}
	}
	var names []string
	for n := range by {
		names = append(names, n)
	}
	sort.Strings(names)
	var lines []string
	scripts := map[string]*tally{}
	all := &tally{}
	for _, n := range names {
		tl := by[n]
		lang := strings.TrimPrefix(strings.TrimPrefix(n, "pages"), ".")
		if lang == "" {
			lang = "en"
		}
		sc := scriptOf[lang]
		if sc == "" {
			sc = "Latin"
		}
		if scripts[sc] == nil {
			scripts[sc] = &tally{}
		}
		for _, g := range []*tally{scripts[sc], all} {
			g.asked, g.first, g.top10 = g.asked+tl.asked, g.first+tl.first, g.top10+tl.top10
		}
		lines = append(lines, fmt.Sprintf("%s %d/%d/%d", lang, tl.first, tl.top10, tl.asked))
	}
	t.Logf("first/top ten/asked per language: %s", strings.Join(lines, ", "))
	for _, sc := range []string{"Latin", "Cyrillic", "CJK", "Arabic", "Indic", "Thai/Lao"} {
		g := scripts[sc]
		if g == nil || g.asked < 20 {
			t.Errorf("%s: too few descriptions asked (%v)", sc, g)
			continue
		}
		r1, r10 := float64(g.first)/float64(g.asked), float64(g.top10)/float64(g.asked)
		t.Logf("%s: %d descriptions, recall@1 %.3f, recall@10 %.3f", sc, g.asked, r1, r10)
		if r1 < 0.9 || r10 < 0.95 {
			t.Errorf("%s: recall@1 %.3f (want ≥ 0.9), recall@10 %.3f (want ≥ 0.95)", sc, r1, r10)
		}
	}
	t.Logf("all languages: %d descriptions, recall@1 %.3f, recall@10 %.3f", all.asked, float64(all.first)/float64(all.asked), float64(all.top10)/float64(all.asked))
	if len(by) < 38 {
		t.Errorf("only %d language folders asked", len(by))
	}
}

// describedPage is a tldr page and its description, the query that
// should find it.
type describedPage struct{ folder, rel, query string }

// describedPages lists every page of every language folder under root
// that has a description, by folder and path, and counts the pages of each
// description.
func describedPages(t *testing.T, root string) (pages []describedPage, seen map[string]int) {
	t.Helper()
	seen = map[string]int{}
	folders, err := filepath.Glob(filepath.Join(root, "pages*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, folder := range folders {
		var files []string
		filepath.WalkDir(folder, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				files = append(files, p)
			}
			return nil
		})
		sort.Strings(files)
		for _, f := range files {
			q := description(t, f)
			if q == "" {
				continue
			}
			rel, _ := filepath.Rel(root, f)
			seen[q]++
			pages = append(pages, describedPage{filepath.Base(folder), filepath.ToSlash(rel), q})
		}
	}
	return pages, seen
}

// scriptOf groups tldr's language folders by script; the rest are Latin.
var scriptOf = map[string]string{
	"ru": "Cyrillic", "uk": "Cyrillic", "bg": "Cyrillic", "sr": "Cyrillic",
	"zh": "CJK", "zh_TW": "CJK", "ja": "CJK", "ko": "CJK",
	"ar": "Arabic", "fa": "Arabic",
	"hi": "Indic", "ne": "Indic", "bn": "Indic", "ta": "Indic", "ml": "Indic",
	"th": "Thai/Lao", "lo": "Thai/Lao",
	"el": "Greek",
}

var inlineCode = regexp.MustCompile("`[^`]*`")

// description is a tldr page's first "> " line without inline code, links
// and the command's name (its "# " title), or "" when too little is left.
func description(t *testing.T, file string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var title, desc string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if title == "" && strings.HasPrefix(line, "# ") {
			title = strings.TrimSpace(line[2:])
		}
		if strings.HasPrefix(line, "> ") {
			desc = line[2:]
			break
		}
	}
	var words []string
	for _, w := range strings.Fields(inlineCode.ReplaceAllString(desc, " ")) {
		if !strings.EqualFold(strings.Trim(w, ".,:;()\"'"), title) {
			words = append(words, w)
		}
	}
	desc = strings.Join(words, " ")
	if utf8.RuneCountInString(desc) < 8 || strings.Contains(desc, "<http") {
		return ""
	}
	return desc
}
