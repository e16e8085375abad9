package markdown

import (
	"bytes"
	stdhtml "html"
	"strings"

	"github.com/docir/docir/docir"
)

// htmlTags appends the ids and the links of the HTML in t (at offset
// base of the markdown) to anchors and links: the id and name attributes
// of its start tags, and the href of the tags that link (tagLinks), read
// in one pass as a browser's tokenizer reads them (quoted values whole,
// character references decoded, a repeated attribute ignored, a tag the
// text ends inside of dropped).
// Nothing else counts: not comments (<!-- … -->), other markup
// declarations and processing instructions (<!…>, <?…>), end tags, the text
// of elements whose text is not markup (script, style, textarea, title…),
// or text ("set id=x" in a <pre>).
func htmlTags(t []byte, base int, anchors []foundAnchor, links []foundLink) ([]foundAnchor, []foundLink) {
	for i := 0; i < len(t); {
		lt := bytes.IndexByte(t[i:], '<')
		if lt < 0 {
			break
		}
		i += lt
		kind, tag, end := markupAt(t, i)
		if kind == markupTag {
			if end < 0 {
				return anchors, links // the text ends inside the tag
			}
			if !tag.closing {
				for _, id := range tag.ids {
					anchors = append(anchors, foundAnchor{at: base + i, id: id})
				}
				if tag.href != "" {
					links = append(links, foundLink{at: base + i, target: tag.href, kind: docir.LinkHTML})
				}
				end = rawTextEnd(t, end, tag.name)
			}
		}
		i = end
	}
	return anchors, links
}

// markupKind is what a '<' opens (markupAt).
type markupKind uint8

const (
	markupText    markupKind = iota // nothing: the '<' is text
	markupComment                   // <!-- … -->
	markupBogus                     // <!…>, <?…>, or </ before no letter: a bogus comment, to the first '>'
	markupTag                       // a start or end tag
)

// markupAt reads what the '<' at t[i] opens, as a browser's tokenizer
// reads it, and the offset past it: a comment, a bogus comment, a tag
// (readTag's: -1 when the text ends inside it), or nothing (the offset
// past the '<'). The one step of every reader of HTML here (htmlTags,
// onlyMarkup, h1Text).
func markupAt(t []byte, i int) (kind markupKind, tg tag, end int) {
	next, after := byteAt(t, i+1), byteAt(t, i+2)
	switch {
	case bytes.HasPrefix(t[i:], []byte("<!--")):
		return markupComment, tg, commentEnd(t, i+4)
	case next == '!' || next == '?' || next == '/' && !isLetter(after):
		return markupBogus, tg, pastByte(t, i+2, '>')
	case isLetter(next) || next == '/':
		tg, end = readTag(t, i)
		return markupTag, tg, end
	}
	return markupText, tg, i + 1
}

// byteAt is t[i], or 0 past its end.
func byteAt(t []byte, i int) byte {
	if i < len(t) {
		return t[i]
	}
	return 0
}

// pastByte is the offset past the first c in t at or after i, or len(t).
func pastByte(t []byte, i int, c byte) int {
	if j := bytes.IndexByte(t[i:], c); j >= 0 {
		return i + j + 1
	}
	return len(t)
}

// commentEnd is the offset past the end of the comment whose "<!--" ends
// at i: "-->" or "--!>", or at once "<!-->" and "<!--->"; len(t) when the
// text ends inside it.
func commentEnd(t []byte, i int) int {
	rest := t[i:]
	switch {
	case bytes.HasPrefix(rest, []byte(">")):
		return i + 1
	case bytes.HasPrefix(rest, []byte("->")):
		return i + 2
	}
	for j := i; j < len(t); {
		k := bytes.Index(t[j:], []byte("--"))
		if k < 0 {
			break
		}
		j += k + 2
		if bytes.HasPrefix(t[j:], []byte(">")) {
			return j + 1
		}
		if bytes.HasPrefix(t[j:], []byte("!>")) {
			return j + 2
		}
		j--
	}
	return len(t)
}

// isTagSpace reports whether c is white space inside a tag.
func isTagSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// tag is what readTag reads of a start or end tag.
type tag struct {
	name    string   // lower-cased
	closing bool     // an end tag (</name>)
	ids     []string // the values of its id and name attributes (the first of each)
	// href is the value of its href attribute (the first), when the tag
	// links (tagLinks) and the value is a quoted string that is not
	// blank: an MDX expression (href={url}) is no URL.
	href string
}

// tagLinks reports whether a tag of name (as written; lower is name
// lower-cased, as readTag has it) is a link a reader
// follows by its href: HTML's <a> and <area>, and an MDX (JSX) component,
// whose name starts with a capital (Starlight's <LinkCard href="/x/" />
// and <LinkButton>, Mintlify's <Card>). Not the other HTML elements that
// take an href: <link> and <base> are the page's metadata, SVG's <use>
// and <image> name a part of the picture.
func tagLinks(name []byte, lower string) bool {
	return len(name) > 0 && name[0] >= 'A' && name[0] <= 'Z' || lower == "a" || lower == "area"
}

// readTag reads the start or end tag at t[i] == '<' (followed by a letter,
// or "/" and a letter): its name, ids and link (tag), and the offset past
// its '>'; end is -1 when the text ends inside the tag.
func readTag(t []byte, i int) (tg tag, end int) {
	j := i + 1
	if t[j] == '/' {
		j++
		tg.closing = true
	}
	from := j
	for j < len(t) && !isTagSpace(t[j]) && t[j] != '/' && t[j] != '>' {
		j++
	}
	tg.name = strings.ToLower(string(t[from:j]))
	links := tagLinks(t[from:j], tg.name)
	var seenID, seenName, seenHref bool
	for j < len(t) {
		if c := t[j]; c == '>' {
			return tg, j + 1
		} else if isTagSpace(c) || c == '/' {
			j++
			continue
		}
		from = j // a name: its first character may be '='
		for j++; j < len(t) && !isTagSpace(t[j]) && t[j] != '/' && t[j] != '>' && t[j] != '='; j++ {
		}
		attr := strings.ToLower(string(t[from:j]))
		for j < len(t) && isTagSpace(t[j]) {
			j++
		}
		var val []byte // none without '='
		quoted := false
		if j < len(t) && t[j] == '=' {
			if val, quoted, j = attrValue(t, j+1); j < 0 {
				return tag{}, -1
			}
		}
		first := attr == "id" && !seenID || attr == "name" && !seenName
		if first && len(val) > 0 {
			tg.ids = append(tg.ids, stdhtml.UnescapeString(string(val)))
		}
		if attr == "href" && !seenHref && links && quoted {
			// A browser strips a URL's leading and trailing white space.
			tg.href = strings.TrimSpace(stdhtml.UnescapeString(string(val)))
		}
		seenID, seenName, seenHref = seenID || attr == "id", seenName || attr == "name", seenHref || attr == "href"
	}
	return tag{}, -1
}

// attrValue reads an attribute's value after its '=' at i: quoted, or up
// to white space or '>'; end is -1 when the text ends inside quotes.
func attrValue(t []byte, i int) (val []byte, quoted bool, end int) {
	for i < len(t) && isTagSpace(t[i]) {
		i++
	}
	if i < len(t) && (t[i] == '"' || t[i] == '\'') {
		q := bytes.IndexByte(t[i+1:], t[i])
		if q < 0 {
			return nil, false, -1
		}
		return t[i+1 : i+1+q], true, i + q + 2
	}
	from := i
	for i < len(t) && !isTagSpace(t[i]) && t[i] != '>' {
		i++
	}
	return t[from:i], false, i
}

// rawTextEnd is where the text of the element whose start tag (name) ends
// at i stops being text: at its end tag, for the elements whose text is
// not markup; i for the others.
func rawTextEnd(t []byte, i int, name string) int {
	switch name {
	case "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript":
	case "plaintext":
		return len(t)
	default:
		return i
	}
	for j := i; j < len(t); j++ {
		lt := bytes.IndexByte(t[j:], '<')
		if lt < 0 {
			break
		}
		j += lt
		if k := j + 2 + len(name); bytes.HasPrefix(t[j:], []byte("</")) && k <= len(t) &&
			strings.EqualFold(string(t[j+2:k]), name) && (k == len(t) || isTagSpace(t[k]) || t[k] == '/' || t[k] == '>') {
			return j
		}
	}
	return len(t)
}

// onlyMarkup reports whether t shows a reader nothing: it holds only
// white space, HTML comments, start and end tags (whatever their names),
// each whole, and MyST target lines (myst.go). Text, a declaration (<!…>, <?…>) or a tag or
// comment that t ends inside of is something.
func onlyMarkup(t []byte) bool {
	for i := 0; i < len(t); {
		switch {
		case (i == 0 || t[i-1] == '\n') && mystTargetAt(t[i:]):
			i += lineLen(t[i:]) // a MyST target's line (myst.go)
		case isTagSpace(t[i]):
			i++
		case t[i] != '<':
			return false
		default:
			kind, _, end := markupAt(t, i)
			switch {
			case kind == markupComment && end == len(t) && !bytes.HasSuffix(t, []byte("-->")) && !bytes.HasSuffix(t, []byte("--!>")):
				return false // the text ends inside the comment
			case kind == markupComment, kind == markupTag && end >= 0:
				i = end
			default:
				return false // text, a declaration, or a tag the text ends inside of
			}
		}
	}
	return true
}

// mystTargetAt reports whether t opens with a MyST target's line.
func mystTargetAt(t []byte) bool {
	_, ok := MystTarget(t[:lineLen(t)])
	return ok
}

// lineLen is the length of t's first line, without its '\n'.
func lineLen(t []byte) int {
	if i := bytes.IndexByte(t, '\n'); i >= 0 {
		return i
	}
	return len(t)
}
