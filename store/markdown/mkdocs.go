package markdown

import (
	"regexp"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// MkDocs blocks: Python-Markdown's admonitions (`!!! note "Title"`) and
// pymdownx's details (`??? note`, `???+ note`) and content tabs (`===
// "Tab"`) open with one line and hold the lines indented 4 spaces more
// after it, which MkDocs renders as markdown. CommonMark reads such a body
// as an indented code block; docir reads it as a container (as a block
// quote's text is read), so its links, anchors and headings are a
// reader's. The opener's title is text (Python-Markdown parses its inline
// markup), and its links are read.
//
// The openers are those extensions' own patterns, for one line (the
// admonition's RE, details' START, tabbed's START):
//
//	!!! ?CLASSES( +"TITLE")? *
//	\?\?\?\+? ?(CLASSES?( +"TITLE")|CLASSES) *
//	===(\+|\+!|!\+|!)? +"TITLE" *
//
// where CLASSES is words of letters, digits, '_' and '-' split by spaces.
// Python-Markdown reads them at the start of a block's line, after a
// paragraph's line too; docir lets an opener be indented up to 3 spaces,
// as CommonMark lets other blocks, since a list item's content is indented
// less in CommonMark than Python-Markdown's 4. The body is the lines
// indented 4 spaces (a tab is 4 columns) more than the opener, and the
// blank lines among them; the first other line ends it.
//
// The patterns are compiled on first use, not at start-up: their Unicode
// classes take about a millisecond to compile, a tenth of a cold `docir
// get`, which parses no markdown.
var openers = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`^!!! ?[\pL\pN\pM_-]+(?: +[\pL\pN\pM_-]+)*(?: +"(.*?)")? *$`),
		regexp.MustCompile(`^\?\?\?\+? ?(?:(?:[\pL\pN\pM_-]+(?: +[\pL\pN\pM_-]+)*?)?(?: +"(.*?)")|[\pL\pN\pM_-]+(?: +[\pL\pN\pM_-]+)*?) *$`),
		regexp.MustCompile(`^===(?:\+|\+!|!\+|!)? +"(.*?)" *$`),
	}
})

// mkdocsBodyIndent is how much more than its opener an MkDocs block's body
// is indented: Python-Markdown's tab_length.
const mkdocsBodyIndent = 4

// kindmkdocsBlock is the kind of an mkdocsBlock node.
var kindmkdocsBlock = ast.NewNodeKind("mkdocsBlock")

// mkdocsBlock is an admonition, details or content tab: its children are
// its body's blocks.
type mkdocsBlock struct {
	ast.BaseBlock
	indent int          // the opener's indent, in columns
	title  text.Segment // the title's text without its quotes; empty when none
}

// Kind implements ast.Node.
func (b *mkdocsBlock) Kind() ast.NodeKind { return kindmkdocsBlock }

// Dump implements ast.Node.
func (b *mkdocsBlock) Dump(source []byte, level int) {
	ast.DumpHelper(b, source, level, map[string]string{"Title": string(b.title.Value(source))}, nil)
}

// mkdocsBlockParser opens and continues mkdocsBlocks.
type mkdocsBlockParser struct{}

func (mkdocsBlockParser) Trigger() []byte { return []byte{'!', '?', '='} }

// MkDocsOpener matches line (without its indent and line ending) against
// the openers of MkDocs blocks (`!!! note "Title"`, `??? tip`, `===
// "Tab"`): whether it is one, and where its title's text (inside its
// quotes) starts and ends in it (-1, -1 when it has none). store/passage
// keeps only the title of an opener in the text it indexes.
func MkDocsOpener(line []byte) (start, end int, ok bool) {
	if len(line) < 3 {
		return -1, -1, false
	}
	var re *regexp.Regexp
	switch string(line[:3]) { // each pattern's own start, before a pattern runs over the line
	case "!!!":
		re = openers()[0]
	case "???":
		re = openers()[1]
	case "===":
		re = openers()[2]
	default:
		return -1, -1, false
	}
	if m := re.FindSubmatchIndex(line); m != nil {
		return m[2], m[3], true
	}
	return -1, -1, false
}

func (mkdocsBlockParser) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, seg := reader.PeekLine()
	w, pos := util.IndentWidth(line, reader.LineOffset())
	if w > 3 || pos >= len(line) {
		return nil, parser.NoChildren
	}
	n := len(line)
	for n > pos && (line[n-1] == '\n' || line[n-1] == '\r') {
		n--
	}
	start, end, ok := MkDocsOpener(line[pos:n])
	if !ok {
		return nil, parser.NoChildren
	}
	b := &mkdocsBlock{indent: w}
	if start >= 0 {
		// Measured from the line's end: a segment's padding (a tab's
		// columns) is before the bytes of the source it reads.
		b.title = text.NewSegment(seg.Stop-(len(line)-pos-start), seg.Stop-(len(line)-pos-end))
	}
	reader.Advance(n) // the whole opener; its line ending is left, a blank rest
	return b, parser.HasChildren
}

func (mkdocsBlockParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	line, _ := reader.PeekLine()
	if util.IsBlank(line) {
		reader.AdvanceToEOL()
		return parser.Continue | parser.HasChildren
	}
	need := node.(*mkdocsBlock).indent + mkdocsBodyIndent
	if w, _ := util.IndentWidth(line, reader.LineOffset()); w < need {
		return parser.Close
	}
	pos, padding := util.IndentPosition(line, reader.LineOffset(), need)
	reader.AdvanceAndSetPadding(pos, padding)
	return parser.Continue | parser.HasChildren
}

func (mkdocsBlockParser) Close(node ast.Node, reader text.Reader, pc parser.Context) {}

// CanInterruptParagraph: Python-Markdown finds an opener on any line of a
// block.
func (mkdocsBlockParser) CanInterruptParagraph() bool { return true }

func (mkdocsBlockParser) CanAcceptIndentedLine() bool { return false }
