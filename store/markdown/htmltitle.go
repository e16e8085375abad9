package markdown

import (
	"bytes"
	stdhtml "html"
	"strings"

	"github.com/yuin/goldmark/ast"
)

// htmlTitle is the title an <h1> written in HTML gives the document whose
// markdown body is body: the h1's text when the document's first content
// (HTML comments aside) is an HTML block whose first element is an <h1>,
// as a repository's README opens with `<h1 align="center"><img …><br>
// Prometheus</h1>`, which GitHub shows as the page's title. The text is
// the h1's with its tags, comments and raw-text elements (script, style)
// left out, character references decoded and white space collapsed; it
// runs to the h1's end tag, or to the end of the block when the block does
// not close it (a blank line inside the h1: what follows is markdown).
// "" when there is no such h1 or it holds no text (a logo alone).
func htmlTitle(doc ast.Node, body []byte) string {
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		b, ok := n.(*ast.HTMLBlock)
		if !ok {
			return ""
		}
		start, stop, ok := htmlBlockSpan(b)
		if !ok {
			return ""
		}
		t := body[start:stop]
		i := pastComments(t, 0)
		if i == len(t) {
			continue // comments alone: no content yet
		}
		if t[i] == '<' && isLetter(byteAt(t, i+1)) {
			if tg, end := readTag(t, i); end >= 0 && tg.name == "h1" {
				return h1Text(t, end)
			}
		}
		return ""
	}
	return ""
}

// pastComments is the offset of the first byte at or after i in t that is
// neither white space nor part of an HTML comment; len(t) when there is
// none.
func pastComments(t []byte, i int) int {
	for i < len(t) {
		switch {
		case isTagSpace(t[i]):
			i++
		case bytes.HasPrefix(t[i:], []byte("<!--")):
			i = commentEnd(t, i+4)
		default:
			return i
		}
	}
	return i
}

// h1Text is the text of the h1 whose start tag ends at i in t (htmlTitle).
func h1Text(t []byte, i int) string {
	var text strings.Builder
	for i < len(t) {
		lt := bytes.IndexByte(t[i:], '<')
		if lt < 0 {
			text.Write(t[i:])
			break
		}
		text.Write(t[i : i+lt])
		i += lt
		kind, tg, end := markupAt(t, i)
		switch kind {
		case markupComment, markupBogus:
			i = end
			continue
		case markupText:
			text.WriteByte('<')
			i = end
			continue
		}
		if end < 0 {
			break // the text ends inside a tag
		}
		if tg.closing {
			if tg.name == "h1" {
				break
			}
		} else {
			end = rawTextEnd(t, end, tg.name)
		}
		if !inlineTag(tg.name) {
			text.WriteByte(' ') // <br>, <img>, a block: words apart
		}
		i = end
	}
	return strings.Join(strings.Fields(stdhtml.UnescapeString(text.String())), " ")
}

// inlineTag says name (lower-cased) is an element whose tags a browser
// lays out inside a word: `Pro<b>m</b>etheus` reads "Prometheus"; any
// other tag (<br>, <img>, a block) stands between words. A switch, not a
// map: nothing is built when a process starts.
func inlineTag(name string) bool {
	switch name {
	case "a", "abbr", "b", "code", "em", "i", "kbd", "mark", "s", "small", "span", "strong", "sub", "sup", "u":
		return true
	}
	return false
}
