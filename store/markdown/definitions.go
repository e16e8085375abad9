package markdown

import (
	"bytes"
	"sort"

	"github.com/yuin/goldmark/util"
)

// Link reference definitions in a text read without its parse:
// store/passage's Prose blanks them, since a reader never sees one
// (docs/ranking.md). A definition is the opening lines of a paragraph
// (CommonMark 4.7): its label, destination and title may each be on a
// line of their own, and the paragraph may be in a block quote or a list
// item. So Definitions reads a text's blocks as far as paragraphs need
// (container markers, blank lines, the blocks that interrupt a paragraph,
// code), and each paragraph's definitions as goldmark reads them
// (parseLinkReferenceDefinition in its parser/link_ref.go, held to it by
// FuzzDefinitionsGoldmark). What it does not read as goldmark does (HTML
// blocks past their first line, setext headings' underlines, lists inside
// block quotes indented four columns or more, tabs in container
// prefixes) it reads as paragraph text or not at all: a miss leaves a
// definition's words in a passage, as before.

// Definitions returns the lines of text that hold link reference
// definitions, each as its byte range (its container markers in, its
// line ending out), in order.
func Definitions(text []byte) [][2]int {
	if !bytes.Contains(text, []byte("]:")) {
		return nil // a definition's label ends with "]:"
	}
	s := defScan{text: text}
	for start := 0; start < len(text); {
		end := LineEnd(text, start)
		s.line(start, end)
		start = end + 1
	}
	s.closeParagraph()
	return s.out
}

// paraLine is a line of a paragraph: where the line starts, where its
// text starts (past its container markers) and where it ends (before its
// line ending).
type paraLine struct{ line, text, end int }

// defScan reads a text's blocks line by line for Definitions.
type defScan struct {
	text   []byte
	para   []paraLine // the open paragraph's lines
	quotes int        // the block quotes around the open paragraph
	cols   []int      // the content columns of the list items open (outside block quotes)
	fence  string     // the fence of the code block the scan is in
	html   bool       // whether the scan is in an HTML block
	endTag string     // the HTML block's end (htmlBlock): "" for one that ends at a blank line
	inItem bool       // whether the open paragraph is in a list item
	out    [][2]int
}

// linePrefix is what a line's container markers leave.
type linePrefix struct {
	quotes    int   // block quote markers
	items     []int // the content columns of the list items it opens
	interrupt bool  // its first list item may interrupt a paragraph (not empty; a bullet or "1")
	marker    int   // where its first list marker starts (-1: none)
	at        int   // where its content starts, its indent in
	indent    int   // its content's indent, in columns past its container's content
}

// line reads one line, text[start:end].
func (s *defScan) line(start, end int) {
	l := s.text[start:end]
	p := s.prefix(l)
	content := l[p.at:]
	trimmed := bytes.TrimLeft(content, " \t")
	indent := p.at + len(content) - len(trimmed) // where the first block's text starts
	if p.marker >= 0 {
		indent = p.marker
	}
	// A list item interrupts a paragraph in a list item, or one not empty
	// that is a bullet or "1"; another marker goes on the paragraph.
	newItem := len(p.items) > 0 && (p.interrupt || s.inItem)
	switch {
	case s.fence != "":
		if ClosesFence(trimmed, s.fence) {
			s.fence = ""
		}
		return
	case s.html && s.endTag != "":
		s.html = !htmlEnds(l, s.endTag)
		return
	case s.html:
		s.html = !util.IsBlank(trimmed)
		return
	case util.IsBlank(trimmed) && (len(p.items) == 0 || len(s.para) == 0 || newItem || l[p.marker] == '-' || p.quotes > s.quotes):
		s.closeParagraph() // a blank line, an empty list item, or a setext heading's underline
		if p.quotes == 0 && len(p.items) > 0 {
			s.cols = append(s.keptCols(indent), p.items...)
		}
		return
	}
	if len(s.para) > 0 && p.quotes <= s.quotes && !newItem &&
		(p.indent > 3 || !interrupts(trimmed)) {
		from := start + p.at + len(content) - len(trimmed)
		if len(p.items) > 0 {
			from = start + p.marker // a list marker that cannot interrupt a paragraph is text
		}
		s.para = append(s.para, paraLine{start, from, end}) // the paragraph goes on, lazily or not
		return
	}
	// An underline of '=' under a paragraph in the same container makes it
	// a setext heading ('-' is a thematic break's too, below): the line is
	// the heading's, no paragraph's.
	underline := len(s.para) > 0 && p.quotes == s.quotes && len(p.items) == 0 && p.indent <= 3 && setextUnderline(trimmed)
	s.closeParagraph()
	if p.quotes > 0 {
		s.cols = nil
	} else {
		s.cols = append(s.keptCols(indent), p.items...)
	}
	if underline {
		return
	}
	switch {
	case p.indent > 3:
		return // indented code
	case OpensFence(trimmed):
		s.fence = FenceOf(trimmed)
		return
	case htmlBlock(trimmed, false):
		s.endTag = htmlBlockEnd(trimmed)
		s.html = s.endTag == "" || !htmlEnds(trimmed, s.endTag) // one of the first five kinds may end on its first line
		return
	case mkdocsOpener(trimmed):
		if p.quotes == 0 { // its body is its lines indented four columns more (mkdocs.go)
			s.cols = append(s.cols, indent+mkdocsBodyIndent)
		}
		return
	}
	from := start + p.at + len(content) - len(trimmed)
	if n := footnoteOpener(trimmed); n > 0 {
		for n > 0 { // a footnote's text is a paragraph, or a footnote again
			trimmed, from = trimmed[n:], from+n
			n = footnoteOpener(trimmed)
		}
		if util.IsBlank(trimmed) {
			return
		}
	} else if ATXHeadingLine(trimmed) || thematicBreak(trimmed) {
		return
	}
	s.para, s.quotes = append(s.para, paraLine{start, from, end}), p.quotes
	s.inItem = len(p.items) > 0 || len(s.cols) > 0
}

// keptCols is s.cols without the list items a line indented to column
// col (at quote depth 0, where columns are bytes but for tabs) leaves.
func (s *defScan) keptCols(col int) []int {
	n := len(s.cols)
	for n > 0 && s.cols[n-1] > col {
		n--
	}
	return s.cols[:n]
}

// prefix reads the container markers that open l: block quote markers
// and list item markers, each indented up to three columns past the
// content of the container before it (a list item's content column
// comes from s.cols on a line that opens none).
func (s *defScan) prefix(l []byte) linePrefix {
	p := linePrefix{marker: -1}
	i, col, base := 0, 0, 0
	for first := true; ; first = false {
		j, c := skipIndent(l, i, col)
		if first {
			base = s.itemBase(c)
		}
		if c-base > 3 || j == len(l) {
			p.at, p.indent = i, max(0, c-base)
			if j == len(l) {
				p.at, p.indent = j, 0
			}
			return p
		}
		if l[j] == '>' {
			p.quotes++
			i, col = j+1, c+1
			if i < len(l) && l[i] == ' ' {
				i, col = i+1, col+1
			}
			base = col
			continue
		}
		m, ordered := listMarker(l, j)
		if m == 0 || thematicBreak(l[j:]) {
			p.at, p.indent = i, c-base
			return p
		}
		k, kc := skipIndent(l, m, c+m-j)
		content := kc
		switch {
		case k == len(l):
			content, k = c+m-j+1, len(l)
		case kc-(c+m-j) > 4: // indented code in the item: one space is the marker's
			content, k = c+m-j+1, m+1
		}
		if p.marker < 0 {
			p.marker = j
			p.interrupt = k < len(l) && (!ordered || l[j] == '1' && m-j == 2)
		}
		p.items = append(p.items, content)
		i, col, base = k, content, content
	}
}

// itemBase is the content column of the innermost list item open around a
// line indented to column c.
func (s *defScan) itemBase(c int) int {
	cols := s.keptCols(c)
	if len(cols) == 0 {
		return 0
	}
	return cols[len(cols)-1]
}

// skipIndent skips the spaces and tabs of l from i, at column col,
// returning where they end and its column (a tab to the next multiple of
// four).
func skipIndent(l []byte, i, col int) (int, int) {
	for ; i < len(l); i++ {
		switch l[i] {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return i, col
		}
	}
	return i, col
}

// listMarker returns where a list item's marker at l[j:] ends ("-", "+",
// "*", or one to nine digits and "." or ")", then a space, a tab or the
// line's end), 0 when there is none, and whether it is ordered.
func listMarker(l []byte, j int) (int, bool) {
	k := j
	for k < len(l) && k-j < 9 && l[k] >= '0' && l[k] <= '9' {
		k++
	}
	ordered := k > j
	switch {
	case ordered && k < len(l) && (l[k] == '.' || l[k] == ')'):
		k++
	case !ordered && (l[j] == '-' || l[j] == '+' || l[j] == '*'):
		k++
	default:
		return 0, false
	}
	if k < len(l) && l[k] != ' ' && l[k] != '\t' {
		return 0, false
	}
	return k, ordered
}

// interrupts reports whether a line's text, trimmed, opens a block that
// ends a paragraph: an ATX heading, a thematic break or a setext heading's
// underline, a code fence, an HTML block of the first six kinds, a
// footnote (footnote.go) or an MkDocs block (mkdocs.go).
func interrupts(trimmed []byte) bool {
	return ATXHeadingLine(trimmed) || thematicBreak(trimmed) || setextUnderline(trimmed) ||
		OpensFence(trimmed) || htmlBlock(trimmed, true) || footnoteOpener(trimmed) > 0 || mkdocsOpener(trimmed)
}

// mkdocsOpener reports whether trimmed opens an MkDocs block (MkDocsOpener).
func mkdocsOpener(trimmed []byte) bool {
	_, _, ok := MkDocsOpener(bytes.TrimRight(trimmed, "\r\n"))
	return ok
}

// thematicBreak reports whether trimmed is a thematic break: three or
// more of '-', '*' or '_' (one of them), and spaces or tabs.
func thematicBreak(trimmed []byte) bool {
	var c byte
	n := 0
	for _, b := range trimmed {
		switch {
		case b == ' ' || b == '\t' || b == '\r':
		case n == 0 && (b == '-' || b == '*' || b == '_'):
			c, n = b, 1
		case n > 0 && b == c:
			n++
		default:
			return false
		}
	}
	return n >= 3
}

// setextUnderline reports whether trimmed underlines a setext heading: a
// run of '=' or of '-', then spaces or tabs.
func setextUnderline(trimmed []byte) bool {
	if len(trimmed) == 0 || trimmed[0] != '=' && trimmed[0] != '-' {
		return false
	}
	rest := bytes.TrimLeft(trimmed, string(trimmed[:1]))
	return util.IsBlank(rest)
}

// htmlBlock reports whether trimmed opens an HTML block (CommonMark
// 4.6): of the first six kinds when interrupting (a paragraph is open),
// else of the seventh too (a tag alone on its line, read loosely: '<',
// an optional '/', a letter, and '>' ending the line).
func htmlBlock(trimmed []byte, interrupting bool) bool {
	if len(trimmed) < 2 || trimmed[0] != '<' {
		return false
	}
	switch rest := trimmed[1:]; {
	case rest[0] == '?', bytes.HasPrefix(rest, []byte("!--")), bytes.HasPrefix(rest, []byte("![CDATA[")):
		return true
	case rest[0] == '!':
		return len(rest) > 1 && isLetter(rest[1])
	}
	name := trimmed[1:]
	closing := name[0] == '/'
	if closing {
		name = name[1:]
	}
	n := 0
	for n < len(name) && (isLetter(name[n]) || n > 0 && (name[n] >= '0' && name[n] <= '9' || name[n] == '-')) {
		n++
	}
	if n == 0 {
		return false
	}
	end := n == len(name) || name[n] == ' ' || name[n] == '\t' || name[n] == '>' || name[n] == '\r' ||
		bytes.HasPrefix(name[n:], []byte("/>"))
	tag := string(bytes.ToLower(name[:n]))
	if !closing && end && (tag == "script" || tag == "pre" || tag == "style" || tag == "textarea") {
		return true
	}
	if end && bytes.Contains([]byte(htmlBlockTags), []byte(" "+tag+" ")) {
		return true
	}
	return !interrupting && bytes.HasSuffix(bytes.TrimRight(trimmed, " \t\r"), []byte(">"))
}

// htmlBlockEnd is what ends the HTML block trimmed opens, for the first
// five kinds of CommonMark 4.6 (script, pre, style or textarea; a
// comment; a processing instruction; a declaration; CDATA), which end on
// the line that holds it; "" for the others, which end at a blank line.
func htmlBlockEnd(trimmed []byte) string {
	rest := trimmed[1:]
	switch {
	case bytes.HasPrefix(rest, []byte("!--")):
		return "-->"
	case rest[0] == '?':
		return "?>"
	case bytes.HasPrefix(rest, []byte("![CDATA[")):
		return "]]>"
	case rest[0] == '!':
		return ">"
	}
	n := 0
	for n < len(rest) && isLetter(rest[n]) {
		n++
	}
	tag := string(bytes.ToLower(rest[:n]))
	end := n == len(rest) || rest[n] == ' ' || rest[n] == '\t' || rest[n] == '>' || rest[n] == '\r'
	if end && (tag == "script" || tag == "pre" || tag == "style" || tag == "textarea") {
		return "</" + tag + ">"
	}
	return ""
}

// htmlEnds reports whether line holds end, an HTML block's (htmlBlockEnd;
// a tag's in any case).
func htmlEnds(line []byte, end string) bool {
	if end[0] == '<' {
		return bytes.Contains(bytes.ToLower(line), []byte(end))
	}
	return bytes.Contains(line, []byte(end))
}

// htmlBlockTags are the tag names that open an HTML block of the sixth
// kind, each between spaces.
const htmlBlockTags = " address article aside base basefont blockquote body caption center col colgroup dd details dialog dir div dl dt fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu menuitem nav noframes ol optgroup option p param search section summary table tbody td tfoot th thead title tr track ul "

// footnoteOpener returns how many bytes of trimmed open a footnote, as
// footnoteBlockParser reads one ("[^label]:"), with the spaces after
// them; 0 when it opens none.
func footnoteOpener(trimmed []byte) int {
	next, ok := footnoteLabel(trimmed)
	if !ok {
		return 0
	}
	for next < len(trimmed) && (trimmed[next] == ' ' || trimmed[next] == '\t') {
		next++
	}
	return next
}

// closeParagraph reads the open paragraph's definitions, if it opens
// with one, and closes it.
func (s *defScan) closeParagraph() {
	para := s.para
	s.para = s.para[:0]
	if len(para) == 0 || s.text[para[0].text] != '[' {
		return
	}
	// The paragraph's text, as goldmark holds it: each line from its
	// text, with its line ending, the last without trailing spaces.
	var buf []byte
	starts := make([]int, len(para))
	for i, pl := range para {
		starts[i] = len(buf)
		buf = append(buf, bytes.TrimLeft(s.text[pl.text:pl.end], " \t")...)
		if i < len(para)-1 {
			buf = append(buf, '\n')
		}
	}
	buf = bytes.TrimRight(buf, " \t\r\n")
	for _, r := range paragraphDefinitions(buf, starts) {
		for i := r[0]; i < r[1]; i++ {
			s.out = append(s.out, [2]int{para[i].line, para[i].end})
		}
	}
}

// paragraphDefinitions reads the definitions that open a paragraph's text
// buf, whose lines start at starts, as goldmark's
// parseLinkReferenceDefinition does, quirks and all, and returns the
// lines each takes out of the paragraph, [from, to). goldmark reads from
// where the last definition left off: after a title on the line after its
// destination and text after the title, the title's line stays in the
// paragraph and a definition on the rest of it is read; after a title
// never closed it reads no more.
func paragraphDefinitions(buf []byte, starts []int) [][2]int {
	lineOf := func(pos int) int { return sort.SearchInts(starts, pos+1) - 1 }
	var out [][2]int
	add := func(from, to int) {
		if from == to {
			to++
		}
		out = append(out, [2]int{from, to})
	}
	pos := 0
	for {
		pos, _ = skipSpaces(buf, pos)
		if pos >= len(buf) || buf[pos] != '[' {
			return out
		}
		first := lineOf(pos)
		close, ok := closure(buf, pos+1, '[', ']')
		if !ok || util.IsBlank(buf[pos+1:close]) || close+1 >= len(buf) || buf[close+1] != ':' {
			return out
		}
		dest, ok := destination(buf, close+2)
		if !ok {
			return out
		}
		newLine := util.IsBlank(buf[dest:lineEnd(buf, dest)])
		last := lineOf(dest)
		next, spaces := skipSpaces(buf, dest)
		if next >= len(buf) || buf[next] != '"' && buf[next] != '\'' && buf[next] != '(' {
			if !newLine {
				return out
			}
			add(first, last+1)
			pos = next
			continue
		}
		if spaces == 0 {
			return out
		}
		closer := buf[next]
		if closer == '(' {
			closer = ')'
		}
		end, ok := closure(buf, next+1, buf[next], closer)
		switch {
		case !ok && !newLine:
			return out
		case !ok:
			add(first, last+1)
			return out // goldmark's reader is at the paragraph's end
		case end+1 < len(buf) && !util.IsBlank(buf[end+1:lineEnd(buf, end+1)]):
			if !newLine {
				return out
			}
			add(first, last)
		default:
			add(first, lineOf(end+1)+1)
		}
		pos = end + 1
	}
}

// skipSpaces skips white space (line endings too) from buf[i], returning
// where it ends and how many bytes it skipped.
func skipSpaces(buf []byte, i int) (int, int) {
	j := i
	for j < len(buf) && util.IsSpace(buf[j]) {
		j++
	}
	return j, j - i
}

// lineEnd is where the line of buf[i] ends, its '\n' in.
func lineEnd(buf []byte, i int) int {
	if k := bytes.IndexByte(buf[i:], '\n'); k >= 0 {
		return i + k + 1
	}
	return len(buf)
}

// closure finds the closer of a bracket or quote whose text starts at
// buf[i], as goldmark's FindClosure does without nesting: a backslash
// escapes the punctuation after it, and an opener before the closer is
// none.
func closure(buf []byte, i int, opener, closer byte) (int, bool) {
	for ; i < len(buf); i++ {
		switch c := buf[i]; {
		case c == '\\' && i+1 < len(buf) && util.IsPunct(buf[i+1]):
			i++
		case c == closer:
			return i, true
		case c == opener:
			return 0, false
		}
	}
	return 0, false
}

// destination reads a link destination after white space from buf[i], as
// goldmark's parseLinkDestination does, on its line: in '<' '>', or a run
// without white space nor a ')' that closes no '('. It returns where the
// destination ends.
func destination(buf []byte, i int) (int, bool) {
	i, _ = skipSpaces(buf, i)
	line := buf[i:lineEnd(buf, i)]
	if len(line) > 0 && line[0] == '<' {
		for k := 1; k < len(line); k++ {
			switch c := line[k]; {
			case c == '\\' && k < len(line)-1 && util.IsPunct(line[k+1]):
				k++
			case c == '>':
				return i + k + 1, true
			}
		}
		return 0, false
	}
	opened, k := 0, 0
loop:
	for ; k < len(line); k++ {
		switch c := line[k]; {
		case c == '\\' && k < len(line)-1 && util.IsPunct(line[k+1]):
			k++
		case c == '(':
			opened++
		case c == ')':
			opened--
			if opened < 0 {
				break loop
			}
		case util.IsSpace(c):
			break loop
		}
	}
	return i + k, k > 0
}
