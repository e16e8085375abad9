package markdown

import (
	"bytes"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/util"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
)

// Links: each block of text that a reader sees as prose (paragraphs, the
// text of tight list items, headings) is scanned for links; code blocks,
// fenced or indented, and HTML blocks are not, and neither are code spans
// within the text. The file's link reference definitions are goldmark's
// (the block parse collects them). The tags of HTML, inline or in an
// HTML block, give ids and links (htmlTags: the href of <a>, <area> and
// an MDX component).
//
// The scan is docir's own, not goldmark's inline parser: goldmark's link
// parsing is quadratic on some shapes (docs/ingest.md: 40,000 "[a](" take
// 28 s), and docir never renders. It follows CommonMark's rules for what
// it reads — brackets matched innermost first, a link never inside a link,
// destinations in <…> or with balanced parentheses (at most 32 deep, as
// cmark), optional titles, full, collapsed and shortcut references, code
// spans binding tighter than brackets, backslash escapes and entities in
// destinations — and each step is bounded, so a file costs time linear in
// its size. Besides CommonMark it reads autolinks (<https://…>, <a@b.c>, and
// bare http(s):// URLs as GitHub does) and Hugo's ref and relref shortcodes
// ({{< ref "path#anchor" >}}, {{% relref path="x" %}}), which a Hugo site
// replaces before markdown is parsed. Images are not links.

// MaxLinks bounds the links a document's record lists: a link costs the
// record, the link index and every read of them about a kilobyte, so the
// links of a file within max_file_bytes (4 MiB of `[a](b)` is 600,000 of
// them) would cost a refresh and a check nearly a gigabyte. The most any
// page of the corpora docir is measured on holds is 1,086 (the Hugo docs'
// emoji list); link lists of the size of GitHub's "awesome" READMEs hold a
// few thousand.
const MaxLinks = 10000

// extractLinks finds the links of the markdown in body (the file from
// offset off on) and gives each to the section whose own text holds it, or
// to the record when it comes before the first heading.
//
// nested are the slugs of the headings inside block quotes and list items
// (see sections): each is an anchor of the section that holds it;
// properties are the links of the front matter (propertyLinks), the
// record's.
//
// It records the first MaxLinks links and returns how many it left out.
func (p *Parser) extractLinks(doc ast.Node, src []byte, off int, lines lineIndex, pc parser.Context, rec *docir.Record, nested []foundAnchor, properties []foundLink) (left int) {
	body := src[off:]
	refs := func(label []byte) ([]byte, bool) {
		r, ok := pc.Reference(util.ToLinkReference(label))
		if !ok {
			return nil, false
		}
		return r.Destination(), true
	}
	// Links in an Obsidian comment are no links: each is dropped as it is
	// found, before the cap counts it (a comment of 10,000 links pushed a
	// real one after it out of the record).
	comments := commentRanges(body, off, rec.Sections)
	capLinks := func(found []foundLink, left int, from int) ([]foundLink, int) {
		if comments != nil { // in place: found is not copied for each block
			kept := slices.DeleteFunc(found[from:], func(f foundLink) bool { return commented(comments, f.at) })
			found = found[:from+len(kept)]
		}
		return capFound(found, left)
	}
	found, left := capLinks(properties, 0, 0) // the front matter's, first
	anchors := nested
	// The terms of MDN's definition lists are parsed for their text with
	// the file's link references, as headings are (made on first use).
	refsPC := func() parser.Context { return inlineContext(pc) }
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		l := n.Lines()
		switch n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			return ast.WalkSkipChildren, nil
		case *mkdocsBlock: // its title is text; its body, blocks
			if t := n.(*mkdocsBlock).title; t.Len() > 0 {
				k := len(found)
				found, _ = scanLinks(body[t.Start:t.Stop], t.Start, refs, found)
				found, left = capLinks(found, left, k)
			}
			return ast.WalkContinue, nil
		case *ast.HTMLBlock:
			if start, stop, ok := htmlBlockSpan(n.(*ast.HTMLBlock)); ok {
				k, kf := len(anchors), len(found)
				anchors, found = htmlTags(body[start:stop], start, anchors, found)
				found, left = capLinks(found, left, kf)
				inBlock(anchors[k:], start)
			}
			return ast.WalkSkipChildren, nil
		case *ast.List:
			anchors = append(anchors, p.listTerms(n.(*ast.List), body, refsPC)...)
			return ast.WalkContinue, nil
		case *ast.Paragraph, *ast.TextBlock, *ast.Heading:
			if l.Len() == 0 {
				return ast.WalkSkipChildren, nil
			}
			p.b.check()
			start, stop := l.At(0).Start, l.At(l.Len()-1).Stop
			for _, span := range inlineSpans(body, start, stop) {
				var more []foundAnchor
				k := len(found)
				found, more = scanLinks(body[span[0]:span[1]], span[0], refs, found)
				found, left = capLinks(found, left, k)
				anchors = append(anchors, inBlock(more, start)...)
			}
			if _, ok := n.(*ast.Heading); !ok {
				anchors = blockIDs(body[start:stop], start, anchors)
			}
			if _, ok := n.(*ast.Paragraph); ok {
				anchors = definitionTerms(body[start:stop], start, anchors)
				anchors = mystTargets(body[start:stop], start, anchors)
				anchors = ialIDs(body, body[start:stop], start, anchors)
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	secs := rec.Sections
	// The section whose own text holds offset at (in the markdown): the
	// last one that starts at or before it; -1 for the lead.
	sectionOf := func(at int) int {
		return sort.Search(len(secs), func(i int) bool { return secs[i].Start > off+at }) - 1
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].at < found[j].at })
	sort.SliceStable(anchors, func(i, j int) bool { return anchors[i].at < anchors[j].at })
	if comments != nil {
		anchors = slices.DeleteFunc(anchors, func(a foundAnchor) bool { return commented(comments, a.at) })
	}
	for _, f := range found {
		line, col := lines.lineColumn(off + f.at)
		ref := docir.LinkRef{Target: f.target, Kind: f.kind, Line: line, Column: col, Alt: f.alt, Undefined: f.undefined}
		if i := sectionOf(f.at); i < 0 {
			rec.Links = append(rec.Links, ref)
		} else {
			secs[i].Links = append(secs[i].Links, ref)
		}
	}
	placeAnchors(rec, body, off, anchors, sectionOf)
	return left
}

// commentRanges are the Obsidian comments (Comments) of the markdown body
// (from offset off of the file on; secs its sections), in order, read in
// each section's own text and the lead's, the texts store/passage's Prose
// blanks them in; nil when it holds none.
func commentRanges(body []byte, off int, secs []docir.Section) [][2]int {
	if !bytes.Contains(body, []byte("%%")) {
		return nil
	}
	var comments [][2]int // in body, in order
	read := func(from, to int) {
		from, to = max(from-off, 0), min(to-off, len(body))
		if from >= to {
			return
		}
		for _, c := range Comments(string(body[from:to])) {
			comments = append(comments, [2]int{from + c[0], from + c[1]})
		}
	}
	lead := off + len(body)
	if len(secs) > 0 {
		lead = secs[0].Start
	}
	read(off, lead)
	for _, sec := range secs {
		read(sec.Start, sec.OwnEnd)
	}
	return comments
}

// commented reports whether offset at stands in one of comments (in
// order, not overlapping): what search never shows, a link check never
// reports, and an anchor no reader sees.
func commented(comments [][2]int, at int) bool {
	i := sort.Search(len(comments), func(i int) bool { return comments[i][1] > at })
	return i < len(comments) && comments[i][0] <= at
}

// capFound keeps the first MaxLinks of found (in document order: those
// after are past them), adding how many it drops to left.
func capFound(found []foundLink, left int) ([]foundLink, int) {
	if len(found) > MaxLinks {
		left += len(found) - MaxLinks
		found = found[:MaxLinks] // its capacity kept: the next block's links append in place, and go
	}
	return found, left
}

// placeAnchors gives each anchor to the section whose own text holds it
// (sectionOf: -1 for the lead), or an HTML id standing before a heading
// to that heading's section (headingOwners), and slugs the definition
// terms. body is the markdown, from offset off of the file on.
func placeAnchors(rec *docir.Record, body []byte, off int, anchors []foundAnchor, sectionOf func(at int) int) {
	secs := rec.Sections
	// Definition terms get ids in one sequence with the headings, in
	// document order, as Hugo numbers them: a term after a heading of the
	// same text is "text-1", and a heading after such a term is too (that
	// id goes with the section's terms: it is its id where terms have
	// ids; its slug stays its address). A nested heading's slug is an
	// anchor, and takes its place in the sequence the same way. anchors
	// are in document order (extractLinks sorts them).
	var slugs address.Slugger
	next, terms := 0, false
	addTerm := func(i int, id string) {
		if i < 0 {
			rec.Terms = append(rec.Terms, id)
		} else {
			secs[i].Terms = append(secs[i].Terms, id)
		}
	}
	addListTerm := func(i int, text string) {
		if i < 0 {
			rec.ListTerms = append(rec.ListTerms, text)
		} else {
			secs[i].ListTerms = append(secs[i].ListTerms, text)
		}
	}
	heading := func(upto int) {
		for ; next <= upto; next++ {
			if id := slugs.Next(secs[next].Slug); id != secs[next].Slug && terms {
				addTerm(next, id)
			}
		}
	}
	defer func() { heading(len(secs) - 1) }()
	owners := headingOwners(body, off, secs, anchors, sectionOf)
	for k, a := range anchors {
		i := sectionOf(a.at)
		if a.listTerm {
			addListTerm(i, a.id) // not in the sequence of slugs: its id is MDN's
			continue
		}
		heading(i)
		terms = terms || a.term
		switch {
		case a.term:
			addTerm(i, slugs.Next(a.id))
			continue
		case a.heading:
			if id := slugs.Next(a.id); id != a.id && terms {
				addTerm(i, id)
			}
		}
		if i = owners[k]; i < 0 {
			rec.Anchors = append(rec.Anchors, a.id)
			if a.label {
				rec.Labels = append(rec.Labels, a.id)
			}
		} else {
			secs[i].Anchors = append(secs[i].Anchors, a.id)
			if a.label {
				secs[i].Labels = append(secs[i].Labels, a.id)
			}
		}
	}
}

// headingOwners is the section each anchor (in document order) belongs
// to: the one whose own text holds it (sectionOf), except that an HTML id
// belongs to the next section when nothing but HTML (tags, comments) and
// white space stands between the start of its block's first line and that
// section's heading, as mdBook keeps a renamed heading's old anchor
// (`<a id="old"></a>` on a line of its own before it): a browser shows
// that heading first. The anchors are read from the last, so that each
// stretch of the markdown is read once.
func headingOwners(body []byte, off int, secs []docir.Section, anchors []foundAnchor, sectionOf func(at int) int) []int {
	owners := make([]int, len(anchors))
	sec, markupFrom := -2, 0 // body[markupFrom:] up to sec's heading is markup only; -1 when not
	for k := len(anchors) - 1; k >= 0; k-- {
		a := anchors[k]
		i := sectionOf(a.at)
		owners[k] = i
		if a.term || a.listTerm || a.heading || a.blockID || i+1 >= len(secs) {
			continue
		}
		if sec != i+1 {
			sec, markupFrom = i+1, secs[i+1].Start-off
		}
		from := bytes.LastIndexByte(body[:a.block], '\n') + 1
		if markupFrom < 0 {
			continue
		}
		if from < markupFrom {
			if !onlyMarkup(body[from:markupFrom]) {
				markupFrom = -1
				continue
			}
			markupFrom = from
		}
		owners[k] = i + 1
	}
	return owners
}

// inBlock marks anchors as found in the block (a paragraph, an HTML
// block) that starts at offset start of the markdown.
func inBlock(anchors []foundAnchor, start int) []foundAnchor {
	for i := range anchors {
		anchors[i].block = start
	}
	return anchors
}

// foundAnchor is an id the markdown defines besides its sections' slugs:
// an HTML id or name attribute, a nested heading's slug (heading), or
// (term) a definition term's text, to be slugged in document order;
// block is where the block that holds an HTML id starts.
type foundAnchor struct {
	at       int
	id       string
	term     bool
	listTerm bool // a term of an MDN definition list (listTerms): id is its text
	heading  bool
	label    bool // a MyST target's label (mystTargets)
	blockID  bool // an Obsidian block id (blockIDs): "^" and the id
	block    int
}

// listTerms are the terms of list when it is written as MDN's definition
// list (rari's is_dl: every item holds two blocks or more, the last a list
// each of whose items opens with a paragraph whose text starts with ": "),
// each term's text as MDN's renderer takes it for an id: the text of its
// first inline element (the `value` of "`value` {{optional_inline}}": a
// paragraph in a <dt> is rendered without <p>, tight or loose, by comrak's
// render_paragraph), or all of it when it opens with text. None when list
// is no such list.
func (p *Parser) listTerms(list *ast.List, src []byte, newPC func() parser.Context) []foundAnchor {
	para := func(n ast.Node) bool {
		switch n.(type) {
		case *ast.Paragraph, *ast.TextBlock:
			return n.Lines().Len() > 0
		}
		return false
	}
	var out []foundAnchor
	var pc parser.Context
	for item := list.FirstChild(); item != nil; item = item.NextSibling() {
		if item.ChildCount() < 2 {
			return nil
		}
		defs, ok := item.LastChild().(*ast.List)
		if !ok {
			return nil
		}
		for d := defs.FirstChild(); d != nil; d = d.NextSibling() {
			def := d.FirstChild()
			if def == nil || !para(def) {
				return nil
			}
			if line := def.Lines().At(0); !bytes.HasPrefix(src[line.Start:line.Stop], []byte(": ")) {
				return nil
			}
		}
		term := item.FirstChild()
		if !para(term) {
			continue
		}
		if pc == nil {
			pc = newPC()
		}
		n, mini := p.inlineOf(term.Lines(), src, pc)
		if n == nil {
			continue
		}
		text, _ := plainText(n, mini)
		if first := n.FirstChild(); first != nil {
			if _, isText := first.(*ast.Text); !isText {
				if t, _ := plainText(first, mini); strings.TrimSpace(t) != "" {
					text = t
				}
			}
		}
		out = append(out, foundAnchor{at: term.Lines().At(0).Start, id: text, listTerm: true})
	}
	return out
}

// maxTag bounds the inline HTML tag whose attributes are read for ids.
const maxTag = 1024

// htmlBlockSpan is where an HTML block's text starts and stops in the
// markdown, its closing line (goldmark keeps that apart: "-->", "</pre>")
// included.
func htmlBlockSpan(b *ast.HTMLBlock) (start, stop int, ok bool) {
	l := b.Lines()
	switch {
	case l.Len() > 0:
		start, stop = l.At(0).Start, l.At(l.Len()-1).Stop
	case b.HasClosure():
		start = b.ClosureLine.Start
	default:
		return 0, 0, false
	}
	if b.HasClosure() {
		stop = b.ClosureLine.Stop
	}
	return start, stop, true
}

// definitionTerms appends the definition terms of a paragraph's text t
// (at offset base of the markdown) to out: each line, not itself a
// definition, directly followed by a line that starts with ": " (the
// definition-list syntax of PHP Markdown Extra, goldmark's extension and
// Hugo). The term's text is its line with code and emphasis marks and
// link destinations dropped.
func definitionTerms(t []byte, base int, out []foundAnchor) []foundAnchor {
	isDef := func(line []byte) bool {
		l := bytes.TrimLeft(line, " ")
		return len(line)-len(l) <= 3 && len(l) >= 2 && l[0] == ':' && (l[1] == ' ' || l[1] == '\t')
	}
	at := 0
	var prev []byte
	prevAt := -1
	for at <= len(t) {
		end := bytes.IndexByte(t[at:], '\n')
		if end < 0 {
			end = len(t) - at
		}
		line := bytes.TrimRight(t[at:at+end], "\r")
		if isDef(line) && prevAt >= 0 && !isDef(prev) && len(bytes.TrimSpace(prev)) > 0 {
			term := termMarks().ReplaceAll(linkMarks().ReplaceAll(bytes.TrimSpace(prev), []byte("$1")), nil)
			out = append(out, foundAnchor{at: base + prevAt, id: string(term), term: true})
		}
		prev, prevAt = line, at
		at += end + 1
	}
	return out
}

var (
	linkMarks = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`) })
	termMarks = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("[`*]") })
)

// inlineSpans are the spans of a block's text body[start:stop] that are
// each one inline context: the whole block, unless it holds a GFM table,
// whose cells are each their own (a backtick left open in one cell does
// not make the rest of the table code: Traefik's option tables hold 48
// anchors below a cell that opens a code span and never closes it). A table
// starts at a line with a '|' followed by a delimiter row; the lines
// before it are a paragraph, one span.
func inlineSpans(body []byte, start, stop int) [][2]int {
	t := body[start:stop]
	if bytes.IndexByte(t, '|') < 0 || bytes.IndexByte(t, '\n') < 0 {
		return [][2]int{{start, stop}}
	}
	var lines [][2]int
	for at := start; at < stop; {
		end := bytes.IndexByte(body[at:stop], '\n')
		if end < 0 {
			end = stop - at
		}
		lines = append(lines, [2]int{at, at + end})
		at += end + 1
	}
	for i := 1; i < len(lines); i++ {
		head, row := lines[i-1], lines[i]
		if bytes.IndexByte(body[head[0]:head[1]], '|') < 0 || !isDelimiterRow(body[row[0]:row[1]]) {
			continue
		}
		var out [][2]int
		if i > 1 {
			out = append(out, [2]int{start, lines[i-2][1]})
		}
		for _, row := range lines[i-1:] {
			out = appendCells(out, body, row)
		}
		return out
	}
	return [][2]int{{start, stop}}
}

// appendCells appends the cells of a table's row (body[row[0]:row[1]]) to
// out: GFM splits a row at every '|' that is not escaped, inside a code
// span too, before it reads a cell's inline markup.
func appendCells(out [][2]int, body []byte, row [2]int) [][2]int {
	from := row[0]
	for i := row[0]; i < row[1]; i++ {
		switch body[i] {
		case '\\':
			i++
		case '|':
			out = append(out, [2]int{from, i})
			from = i + 1
		}
	}
	return append(out, [2]int{from, row[1]})
}

// isDelimiterRow says line is a GFM table's delimiter row: cells of
// dashes, each with an optional colon at either end, between pipes (one
// pipe at least; a line of dashes alone underlines a heading).
func isDelimiterRow(line []byte) bool {
	t := bytes.TrimSpace(line)
	if bytes.IndexByte(t, '|') < 0 {
		return false
	}
	t = bytes.TrimSuffix(bytes.TrimPrefix(t, []byte("|")), []byte("|"))
	for _, cell := range bytes.Split(t, []byte("|")) {
		c := bytes.TrimSpace(cell)
		c = bytes.TrimSuffix(bytes.TrimPrefix(c, []byte(":")), []byte(":"))
		if len(c) == 0 || len(bytes.Trim(c, "-")) != 0 {
			return false
		}
	}
	return true
}

// foundLink is one link the scan found: where it starts (in the markdown,
// after the front matter), its target and its kind.
type foundLink struct {
	at     int
	target string
	kind   string
	alt    string // a wikilink's part after '|' (docir.LinkRef.Alt)
	// undefined: a reference whose label the file does not define
	// (docir.LinkRef.Undefined); target is the label.
	undefined bool
}

// maxParens is how deeply parentheses may nest in a link destination, as
// in cmark; maxLabel is CommonMark's bound on a link label.
const (
	maxParens = 32
	maxLabel  = 999
)

// opener is a '[' (or the '[' of "![") that may open a link text.
type opener struct {
	at    int // the '['
	image bool
}

// scanLinks appends the links of t, a block's text that starts at offset
// base of the markdown, to out, and returns the ids its inline HTML
// defines. refs looks a reference label up.
func scanLinks(t []byte, base int, refs func([]byte) ([]byte, bool), out []foundLink) ([]foundLink, []foundAnchor) {
	s := scanner{t: t, refs: refs}
	s.run()
	for _, f := range s.out {
		f.at += base
		out = append(out, f)
	}
	for i := range s.anchors {
		s.anchors[i].at += base
	}
	return out, s.anchors
}

type scanner struct {
	t    []byte
	refs func([]byte) ([]byte, bool)
	out  []foundLink

	stack []opener
	// Openers below this index are inactive: a link formed above them,
	// and a link may not contain a link.
	inactiveBelow int
	// ticks are the text's runs of backticks (made at the first): a code
	// span closes at the next run of its length.
	ticks *TickRuns
	// memo memoizes forward searches (for "-->" and shortcode ends): the
	// last answer of each, so repeated openers do not rescan.
	memo map[string][2]int
	// steps counts the bytes the scan looked at, each time it did: the
	// test of linearity reads it.
	steps int
	// anchors are the ids of the inline HTML tags the scan passed.
	anchors []foundAnchor
}

func (s *scanner) emit(at int, target []byte, kind string) {
	s.out = append(s.out, foundLink{at: at, target: string(target), kind: kind})
}

// find returns the index of the first sep in t at or after from, or -1,
// remembering the answer: later searches from at or before it reuse it.
func (s *scanner) find(sep string, from int) int {
	if s.memo == nil {
		s.memo = map[string][2]int{}
	}
	if m, ok := s.memo[sep]; ok && from >= m[0] && (m[1] < 0 || from <= m[1]) {
		return m[1]
	}
	i := bytes.Index(s.t[from:], []byte(sep))
	if i >= 0 {
		i += from
		s.steps += i - from
	} else {
		s.steps += len(s.t) - from
	}
	s.memo[sep] = [2]int{from, i}
	return i
}

func (s *scanner) run() {
	t := s.t
	for i := 0; i < len(t); {
		s.steps++
		if c := t[i]; c == '[' || c == '!' {
			if end := s.wikilink(i); end > 0 {
				i = end
				continue
			}
		}
		switch c := t[i]; {
		case c == '\\':
			i += 2
		case c == '`':
			i = s.codeSpan(i)
		case c == '<':
			i = s.angle(i)
		case c == '{' && i+2 < len(t) && t[i+1] == '{' && (t[i+2] == '<' || t[i+2] == '%'):
			i = s.shortcode(i)
		case c == '!' && i+1 < len(t) && t[i+1] == '[':
			s.stack = append(s.stack, opener{at: i + 1, image: true})
			i += 2
		case c == '[':
			s.stack = append(s.stack, opener{at: i})
			i++
		case c == ']':
			i = s.closeBracket(i)
		case (c == 'h' || c == 'H') && len(s.stack) <= s.inactiveBelow:
			i = s.bareURL(i)
		default:
			i++
		}
	}
}

// wikilink reads the wikilink (or embed) that opens at i, `[[target]]`,
// `[[target|text]]` (`[[target\|text]]` in a table) or `![[target]]`
// (Obsidian's, Foam's: a note by its name, `#Heading` or `#^block` after
// it), emits its target, and returns
// the offset past it; 0 when none opens there ("[[" or "![[" does not,
// or what follows is no wikilink: the brackets are then read as
// CommonMark's). It is on one line, holds
// no bracket, backtick or '<' (a code span or a tag would have opened
// first), and is followed by neither '(' nor '[' (then CommonMark reads
// "[x]" inside brackets: `[[x]](url)` is a link to url); `[[x]]` whose
// "x" is a defined reference label is that reference, as CommonMark reads
// it.
func (s *scanner) wikilink(i int) int {
	t := s.t
	j := i
	if t[j] == '!' {
		j++
	}
	if j+1 >= len(t) || t[j] != '[' || t[j+1] != '[' {
		return 0
	}
	k := j + 2
	for k < len(t) && t[k] != ']' {
		switch t[k] {
		case '[', '\n', '\r', '`', '<':
			return 0
		}
		k++
	}
	s.steps += k - j
	if k+1 >= len(t) || t[k+1] != ']' || k+2 < len(t) && (t[k+2] == '(' || t[k+2] == '[') {
		return 0
	}
	inner := t[j+2 : k]
	if _, ok := s.lookup(inner); ok {
		return 0
	}
	target, alt, _ := bytes.Cut(inner, []byte("|"))
	// In a table the text's '|' is escaped: [[Note\|text]].
	if target = bytes.TrimSpace(bytes.TrimSuffix(target, []byte("\\"))); len(target) == 0 {
		return 0
	}
	s.emit(i, target, docir.LinkWiki)
	s.out[len(s.out)-1].alt = string(bytes.TrimSpace(alt))
	return k + 2
}

// codeSpan skips the code span opening with the backtick run at i, or
// just the run when no run of the same length closes it.
func (s *scanner) codeSpan(i int) int {
	t := s.t
	k := 0
	for i+k < len(t) && t[i+k] == '`' {
		k++
	}
	if s.ticks == nil {
		s.steps += len(t)
		s.ticks = NewTickRuns(t)
	}
	if q := s.ticks.Closer(i+k, k); q >= 0 {
		return q + k
	}
	return i + k
}

// angle reads what a '<' at i opens: an autolink (emitted), an HTML
// comment (skipped), or nothing.
func (s *scanner) angle(i int) int {
	t := s.t
	if bytes.HasPrefix(t[i:], []byte("<!--")) {
		if end := s.find("-->", i+4); end >= 0 {
			return end + 3
		}
		return i + 4
	}
	if i+1 < len(t) && (isLetter(t[i+1]) || t[i+1] == '/') {
		// An HTML tag: its ids are anchors. Its '>' is found once for
		// all the '<' before it (find remembers).
		if end := s.find(">", i+1); end > i && end-i <= maxTag {
			s.steps += end - i
			s.anchors, s.out = htmlTags(t[i:end+1], i, s.anchors, s.out)
		}
	}
	// Up to the first '>', space, control or '<': an autolink holds none.
	j := i + 1
	for j < len(t) && t[j] > ' ' && t[j] != '<' && t[j] != '>' {
		j++
	}
	s.steps += j - i
	if j >= len(t) || t[j] != '>' {
		return i + 1
	}
	inner := t[i+1 : j]
	switch {
	case isScheme(inner):
		s.emit(i, inner, docir.LinkAutolink)
	case isEmail(inner):
		s.emit(i, append([]byte("mailto:"), inner...), docir.LinkAutolink)
	default:
		return i + 1
	}
	return j + 1
}

// isScheme reports whether u starts with a URI scheme as CommonMark's
// autolinks want it: a letter, then 1 to 31 letters, digits, '+', '.',
// '-', then ':'.
func isScheme(u []byte) bool {
	c := bytes.IndexByte(u, ':')
	if c < 2 || c > 32 || !isLetter(u[0]) {
		return false
	}
	for _, b := range u[1:c] {
		if !isLetter(b) && !isDigit(b) && b != '+' && b != '.' && b != '-' {
			return false
		}
	}
	return true
}

// isEmail reports whether u is an email address as CommonMark's autolinks
// want it (the HTML spec's valid e-mail address).
func isEmail(u []byte) bool {
	at := bytes.IndexByte(u, '@')
	if at < 1 || at == len(u)-1 {
		return false
	}
	for _, b := range u[:at] {
		if !isLetter(b) && !isDigit(b) && !strings.ContainsRune(".!#$%&'*+/=?^_`{|}~-", rune(b)) {
			return false
		}
	}
	for _, label := range bytes.Split(u[at+1:], []byte(".")) {
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, b := range label {
			if !isLetter(b) && !isDigit(b) && b != '-' {
				return false
			}
		}
	}
	return true
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }
func isDigit(b byte) bool  { return b >= '0' && b <= '9' }

// bareURL reads a bare http:// or https:// URL at i, as GitHub links one:
// after a character that is not a letter or digit, up to white space or
// '<', without trailing punctuation or an unbalanced ')'.
func (s *scanner) bareURL(i int) int {
	t := s.t
	if i > 0 && (isLetter(t[i-1]) || isDigit(t[i-1])) {
		return i + 1
	}
	rest := t[i:]
	var scheme int
	switch {
	case len(rest) > 8 && strings.EqualFold(string(rest[:8]), "https://"):
		scheme = 8
	case len(rest) > 7 && strings.EqualFold(string(rest[:7]), "http://"):
		scheme = 7
	default:
		return i + 1
	}
	j := i + scheme
	for j < len(t) && t[j] > ' ' && t[j] != '<' {
		j++
	}
	s.steps += 2 * (j - i) // and back over trailing punctuation
	end := j
	opens, closes := -1, 0 // the parentheses of t[i:end], counted once (-1: not yet)
	for end > i+scheme {
		c := t[end-1]
		if strings.IndexByte("?!.,:*_~'\";", c) >= 0 {
			end--
			continue
		}
		if c == ')' {
			if opens < 0 {
				opens, closes = bytes.Count(t[i:end], []byte("(")), bytes.Count(t[i:end], []byte(")"))
			}
			if opens < closes {
				end--
				closes--
				continue
			}
		}
		break
	}
	if end > i+scheme {
		s.emit(i, t[i:end], docir.LinkAutolink)
	}
	return j
}

// shortcode reads a Hugo shortcode tag at i ({{< … >}} or {{% … %}}):
// ref and relref are emitted as links; any tag is skipped whole, and a
// commented one ({{</* … */>}}, how Hugo's docs show a shortcode) is
// skipped without being read.
func (s *scanner) shortcode(i int) int {
	t := s.t
	closing := closingOf(t[i+2])
	j := i + 3
	for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
		j++
	}
	if j < len(t) && t[j] == '/' && j+1 < len(t) && t[j+1] == '*' {
		if end := s.find("*/"+closing, j+2); end >= 0 {
			return end + 2 + len(closing)
		}
		return i + 3
	}
	end := s.find(closing, j)
	if end < 0 {
		return i + 3
	}
	if kind, target, ok := hugoRef(t[j:end]); ok {
		s.emit(i, target, kind)
	}
	return end + len(closing)
}

// closingOf is how a shortcode tag opened by "{{" and delim closes.
func closingOf(delim byte) string {
	if delim == '<' {
		return ">}}"
	}
	return "%}}"
}

// hugoRef reads the inside of a shortcode tag (after its opening
// delimiter, before its closing one): for ref and relref, the kind and
// the path argument, positional (quoted or not) or named (path="…").
func hugoRef(in []byte) (kind string, target []byte, ok bool) {
	name, rest, _ := bytes.Cut(bytes.TrimSpace(in), []byte(" "))
	switch string(name) {
	case "ref":
		kind = docir.LinkHugoRef
	case "relref":
		kind = docir.LinkHugoRelRef
	default:
		return "", nil, false
	}
	for rest = bytes.TrimSpace(rest); len(rest) > 0; rest = bytes.TrimSpace(rest) {
		var key []byte
		if eq := bytes.IndexByte(rest, '='); eq > 0 && !bytes.ContainsAny(rest[:eq], " \"'`") {
			key, rest = rest[:eq], rest[eq+1:]
		}
		var val []byte
		switch {
		case len(rest) > 0 && (rest[0] == '"' || rest[0] == '\'' || rest[0] == '`'):
			end := bytes.IndexByte(rest[1:], rest[0])
			if end < 0 {
				return "", nil, false
			}
			val, rest = rest[1:1+end], rest[2+end:]
		default:
			end := bytes.IndexAny(rest, " \t")
			if end < 0 {
				end = len(rest)
			}
			val, rest = rest[:end], rest[end:]
		}
		if key == nil || string(key) == "path" {
			return kind, val, true
		}
	}
	return "", nil, false
}

// closeBracket handles a ']' at i: the nearest opener and what follows
// make a link (inline, or a reference that is defined), an image (not a
// link), or neither.
func (s *scanner) closeBracket(i int) int {
	if len(s.stack) == 0 {
		return i + 1
	}
	op := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	active := len(s.stack) >= s.inactiveBelow
	s.inactiveBelow = min(s.inactiveBelow, len(s.stack))
	if !active {
		return i + 1
	}
	dest, end, kind, undefined := s.linkAfter(op, i)
	if undefined != nil {
		if s.lostReference(op, undefined, end) {
			s.emit(op.at, undefined, docir.LinkReference)
			s.out[len(s.out)-1].undefined = true
		}
		return i + 1 // text, as CommonMark reads it
	}
	if end < 0 {
		return i + 1
	}
	if !op.image {
		at := op.at
		if target, sk, ok := shortcodeTarget(dest); ok {
			s.emit(at, target, sk)
		} else {
			s.emit(at, unescape(dest), kind)
		}
		// A link may not contain a link: the openers around it are now
		// plain brackets.
		s.inactiveBelow = len(s.stack)
	}
	return end
}

// linkAfter reads what follows the ']' at i that closes op's text: an
// inline link's destination, else a reference's, and the offset past the
// link; end is -1 when there is none. As in CommonMark (and cmark), a
// label that follows makes a full or collapsed reference, or nothing when
// it is not defined; with none (a '(' that opens no inline link, a '['
// that opens no label), the text is a shortcut reference: "[foo](not a
// link)" is [foo], then text. For a full or collapsed reference whose
// label is not defined, undefined is that label, as written, and end is
// past the label's ']' (no link ends there).
func (s *scanner) linkAfter(op opener, i int) (dest []byte, end int, kind string, undefined []byte) {
	t := s.t
	if i+1 < len(t) && t[i+1] == '(' {
		if d, e, ok := s.inlineDest(i + 1); ok {
			return d, e, docir.LinkInline, nil
		}
	}
	label, end := t[op.at+1:i], i+1 // shortcut: [label]
	// labelled: a full or collapsed reference, exactly ("[label][ ]" is
	// the shortcut, then text).
	labelled := false
	if i+1 < len(t) && t[i+1] == '[' {
		if l, e, ok := s.readLabel(i + 1); ok {
			end, labelled = e, len(l) == 0
			if len(bytes.TrimSpace(l)) > 0 { // full: [text][label]; else collapsed: [label][]
				label, labelled = l, true
			}
		}
	}
	if d, ok := s.lookup(label); ok {
		return d, end, docir.LinkReference, nil
	}
	if labelled && validLabel(label) {
		return nil, end, "", label
	}
	return nil, -1, "", nil
}

// lostReference reports whether the full or collapsed reference that
// op's text opens, whose label is not defined and ends at end, is a link
// the author wrote and CommonMark drops (markdownlint's MD052), to be
// reported: not when its text follows a letter, digit or '_' without a
// space (array indexing, `a[i][j]`, or a template's
// `site.data[lang][key]`), nor a footnote's label (`[^1]`), nor when the
// label is followed by '(' or '[' (then it is the text of the next link,
// `[foo][bar](url)`, `[foo][bar][baz]`, as CommonMark reads it: that one
// is reported, if its own label is not defined). The shortcut form,
// `[label]` alone, is never one: prose holds it too often ("[ ]",
// "[!NOTE]", "[1]").
func (s *scanner) lostReference(op opener, label []byte, end int) bool {
	t := s.t
	if op.image || label[0] == '^' {
		return false
	}
	if op.at > 0 && (isLetter(t[op.at-1]) || isDigit(t[op.at-1]) || t[op.at-1] == '_') {
		return false
	}
	next := byteAt(t, end)
	return next != '(' && next != '['
}

// lookup finds the destination of a reference label, if the file defines
// it; a label that is not valid (validLabel) is none.
func (s *scanner) lookup(label []byte) ([]byte, bool) {
	if !validLabel(label) {
		return nil, false
	}
	return s.refs(label)
}

// validLabel reports whether label may be a link label: not blank, no
// longer than CommonMark allows, and holding no unescaped bracket.
func validLabel(label []byte) bool {
	if len(label) > maxLabel || len(bytes.TrimSpace(label)) == 0 {
		return false
	}
	for k := 0; k < len(label); k++ {
		switch label[k] {
		case '\\':
			k++
		case '[', ']':
			return false
		}
	}
	return true
}

// readLabel reads a link label "[…]" at t[i] == '[': its text and the
// offset past its ']'.
func (s *scanner) readLabel(i int) (label []byte, end int, ok bool) {
	t := s.t
	for j := i + 1; j < len(t) && j-i <= maxLabel+1; j++ {
		s.steps++
		switch t[j] {
		case '\\':
			j++
		case '[':
			return nil, 0, false
		case ']':
			return t[i+1 : j], j + 1, true
		}
	}
	return nil, 0, false
}

// inlineDest reads "(destination "title")" at t[i] == '(': the destination
// (raw: escapes and entities not yet decoded) and the offset past the ')'.
func (s *scanner) inlineDest(i int) (dest []byte, end int, ok bool) {
	t := s.t
	j := skipSpace(t, i+1)
	if j >= len(t) {
		return nil, 0, false
	}
	switch {
	case t[j] == ')':
		return nil, j + 1, true
	case bytes.HasPrefix(t[j:], []byte("{{")) || bytes.HasPrefix(t[j:], []byte("{%")):
		k := s.liquidDest(j)
		if k < 0 {
			return nil, 0, false
		}
		dest, j = t[j:k], k
	case t[j] == '<':
		k := j + 1
		for ; k < len(t); k++ {
			s.steps++
			c := t[k]
			if c == '\\' && k+1 < len(t) && util.IsPunct(t[k+1]) {
				k++
				continue
			}
			if c == '\n' || c == '<' {
				return nil, 0, false
			}
			if c == '>' {
				break
			}
		}
		if k >= len(t) {
			return nil, 0, false
		}
		dest, j = t[j+1:k], k+1
	default:
		k, depth := j, 0
	scan:
		for ; k < len(t); k++ {
			s.steps++
			switch c := t[k]; {
			case c == '\\' && k+1 < len(t) && util.IsPunct(t[k+1]):
				k++
			case c <= ' ' || c == 0x7f:
				break scan
			case c == '(':
				if depth++; depth > maxParens {
					return nil, 0, false
				}
			case c == ')':
				if depth == 0 {
					break scan
				}
				depth--
			}
		}
		if depth != 0 {
			return nil, 0, false
		}
		dest, j = t[j:k], k
	}
	k := skipSpace(t, j)
	if k < len(t) && k > j && (t[k] == '"' || t[k] == '\'' || t[k] == '(') {
		close := t[k]
		if close == '(' {
			close = ')'
		}
		m := k + 1
		for ; m < len(t); m++ {
			s.steps++
			c := t[m]
			if c == '\\' && m+1 < len(t) && util.IsPunct(t[m+1]) {
				m++
				continue
			}
			if c == close {
				break
			}
			if t[k] == '(' && c == '(' {
				return nil, 0, false
			}
		}
		if m >= len(t) {
			return nil, 0, false
		}
		k = skipSpace(t, m+1)
	}
	if k < len(t) && t[k] == ')' {
		return dest, k + 1, true
	}
	return nil, 0, false
}

// liquidDest is the end of a link destination written in Liquid at t[j]
// (Jekyll runs Liquid before kramdown): `{{ '/docs/x/' | relative_url }}`,
// `{% link _docs/x.md %}`, `{{ site.baseurl }}/docs/x/` — the tag, spaces
// and all, on one line, then the path that follows it; -1 when the tag
// does not close on its line.
func (s *scanner) liquidDest(j int) int {
	t := s.t
	closer := "}}"
	if t[j+1] == '%' {
		closer = "%}"
	}
	end := s.find(closer, j+2)
	if nl := s.find("\n", j); end < 0 || nl >= 0 && nl < end {
		return -1
	}
	k := end + 2
	for ; k < len(t) && t[k] > ' ' && t[k] != ')'; k++ {
		s.steps++
	}
	return k
}

// skipSpace skips spaces and tabs and at most one line ending.
func skipSpace(t []byte, i int) int {
	nl := false
	for i < len(t) {
		switch t[i] {
		case ' ', '\t':
		case '\r':
		case '\n':
			if nl {
				return i
			}
			nl = true
		default:
			return i
		}
		i++
	}
	return i
}

// shortcodeTarget reads a destination that is one Hugo ref or relref
// shortcode ("{{< ref "x.md" >}}", as a reference definition's target
// may be): its kind and path.
func shortcodeTarget(dest []byte) ([]byte, string, bool) {
	d := bytes.TrimSpace(dest)
	if len(d) < 7 || !bytes.HasPrefix(d, []byte("{{")) || (d[2] != '<' && d[2] != '%') {
		return nil, "", false
	}
	closing := []byte(closingOf(d[2]))
	if !bytes.HasSuffix(d, closing) {
		return nil, "", false
	}
	kind, target, ok := hugoRef(d[3 : len(d)-3])
	return target, kind, ok
}

// unescape decodes a destination's backslash escapes and entity and
// numeric character references, as CommonMark reads them.
func unescape(dest []byte) []byte {
	d := util.UnescapePunctuations(bytes.Clone(dest))
	d = util.ResolveNumericReferences(d)
	return util.ResolveEntityNames(d)
}
