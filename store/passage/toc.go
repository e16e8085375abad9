package passage

import (
	"bytes"
	"path"

	"github.com/docir/docir/docir"
)

// TableOfContents reports whether rec (with its file's bytes body) is a
// book's table of contents: a file named SUMMARY.md that holds nothing but
// headings, separators, comments and links, each alone on its line or in
// a list item, as mdBook and GitBook read one. Neither shows it as a page:
// it is the site's navigation, every title of the book in one list, and
// a search for any title found it second (a GitBook review: 5 of 15
// queries). Such a document is not searched (Passages cuts none); get and
// links read it as any other.
func TableOfContents(rec *docir.Record, body []byte) bool {
	if path.Base(rec.Path) != "SUMMARY.md" || rec.MarkdownStart > len(body) {
		return false
	}
	links := 0
	for line := range bytes.Lines(body[rec.MarkdownStart:]) {
		t := bytes.TrimSpace(line)
		switch {
		case len(t) == 0, t[0] == '#', bytes.HasPrefix(t, []byte("<!--")) && bytes.HasSuffix(t, []byte("-->")),
			bytes.Equal(t, []byte("---")), bytes.Equal(t, []byte("***")), bytes.Equal(t, []byte("___")):
		case linkLine(listItemText(t)):
			links++
		default:
			return false
		}
	}
	return links > 0
}

// listItemText is t without the marker of the list item it opens, if it
// opens one ("- ", "* ", "+ ", "1. ").
func listItemText(t []byte) []byte {
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ' {
		return bytes.TrimLeft(t[2:], " ")
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' ' {
		return bytes.TrimLeft(t[i+2:], " ")
	}
	return t
}

// linkLine reports whether t is one inline link and nothing else:
// [text](target), the target possibly empty (mdBook's draft chapter).
func linkLine(t []byte) bool {
	if len(t) < 4 || t[0] != '[' || t[len(t)-1] != ')' {
		return false
	}
	close := bytes.Index(t, []byte("]("))
	return close > 0 && close == bytes.LastIndex(t, []byte("](")) && !bytes.ContainsAny(t[close+2:len(t)-1], "()")
}
