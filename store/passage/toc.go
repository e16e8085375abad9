package passage

import (
	"bytes"
	"path"
	"strings"

	"github.com/docir/docir/docir"
)

// TableOfContents reports whether rec (with its file's bytes body) is a
// site's navigation, never shown as a page of its own: a book's table of
// contents, a file named SUMMARY.md that holds nothing but headings,
// separators, comments and links, each alone on its line or in a list
// item, as mdBook and GitBook read one; or a file that a generator shows
// beside every page by its name (navigationFiles), whatever it holds.
// Each holds every title of the site in one list, and a search for any
// title found it second (a GitBook review: 5 of 15 queries; a Docsify
// review: _sidebar, _navbar in the top 5 for 19 of 214 heading searches).
// Such a document is not searched (Passages cuts none); get and links read
// it as any other.
func TableOfContents(rec *docir.Record, body []byte) bool {
	if navigationFiles[strings.ToLower(path.Base(rec.Path))] {
		return true
	}
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

// navigationFiles are the names (in lower case) of files a generator shows
// beside every page, never as a page: Docsify's sidebar and navbar, and a
// GitHub wiki's sidebar and footer (_Sidebar.md, _Footer.md).
var navigationFiles = map[string]bool{"_sidebar.md": true, "_navbar.md": true, "_footer.md": true}

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
