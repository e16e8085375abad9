package markdown

import (
	"bytes"
	"sort"

	"github.com/docir/docir/docir"
)

// propertyLinks are the wikilinks of a document's front matter: Obsidian's
// properties ("Text properties can contain URLs and [[Internal links]]"),
// `related: "[[Other]]"` and a list's `- "[[Other]]"`, which a vault's
// reader follows and whose target shows them as backlinks. fields are
// the decoded front matter and fm its text (src[from:end], the file from
// offset from on); each link is placed where its text stands in fm, so it
// has the line a reader finds it on, and `at` is relative to the markdown
// that follows (negative: before it).
//
// Only the top-level values that are strings, or lists of strings, are
// read: the properties Obsidian shows. A nested mapping is not walked, an
// unquoted `[[Other]]` (a YAML list in a list, which Obsidian does not
// read as a link either) is no link, and neither is a `[[x]]` in a key or
// a comment. The front matter is within MaxFrontMatterBytes (it is not
// decoded otherwise), so the work is bounded by it.
func propertyLinks(fields map[string]any, fm []byte, from, end int) []foundLink {
	if len(fields) == 0 || !bytes.Contains(fm, []byte("[[")) {
		return nil
	}
	// The wikilinks the values hold, as target and text.
	want := map[[2]string]int{}
	var order [][2]string // the values' links, for those not found in fm
	add := func(s string) {
		for _, l := range wikilinksOf([]byte(s)) {
			k := [2]string{l.target, l.alt}
			if want[k] == 0 {
				order = append(order, k)
			}
			want[k]++
		}
	}
	for _, v := range fields {
		switch v := v.(type) {
		case string:
			add(v)
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					add(s)
				}
			}
		case []string:
			for _, s := range v {
				add(s)
			}
		}
	}
	if len(want) == 0 {
		return nil
	}
	// Where each stands: the wikilinks of fm's text, in order, that a
	// value holds; what a value's escapes hide from the text (a YAML
	// "\u00e9") stands at the front matter's first line.
	var out []foundLink
	for _, l := range wikilinksOf(fm) {
		k := [2]string{l.target, l.alt}
		if want[k] > 0 {
			want[k]--
			l.at += from - end
			out = append(out, l)
		}
	}
	sort.Slice(order, func(i, j int) bool {
		return order[i][0] < order[j][0] || order[i][0] == order[j][0] && order[i][1] < order[j][1]
	})
	for _, k := range order {
		for ; want[k] > 0; want[k]-- {
			out = append(out, foundLink{at: from - end, target: k[0], kind: docir.LinkWiki, alt: k[1]})
		}
	}
	return out
}

// wikilinksOf are the wikilinks of t (scanner.wikilink), read wherever a
// "[[" stands: no CommonMark around them, and no reference labels.
func wikilinksOf(t []byte) []foundLink {
	s := scanner{t: t, refs: func([]byte) ([]byte, bool) { return nil, false }}
	for i := 0; i < len(t); {
		j := bytes.Index(t[i:], []byte("[["))
		if j < 0 {
			break
		}
		i += j
		if end := s.wikilink(i); end > 0 {
			i = end
		} else {
			i++
		}
	}
	return s.out
}
