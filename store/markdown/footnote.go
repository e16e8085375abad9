package markdown

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// GitHub's footnote definitions ("[^1]: text", with the lines indented
// under it) are read as goldmark's footnote extension reads them, by a
// block parser of docir's own: importing goldmark/extension for it runs
// the initialization of every extension of that package (tables, linkify,
// task lists compile their regular expressions), half a millisecond and
// 2,000 allocations at the start of every docir process. A definition is
// a block whose children are its text's blocks, so the links of its text
// are read where they stand; it is no link reference definition (whose
// destination would be the text's first word).

// kindFootnoteDefinition is the kind of a footnoteDefinition node.
var kindFootnoteDefinition = ast.NewNodeKind("FootnoteDefinition")

// footnoteDefinition is one footnote's definition: its children are its
// text's blocks.
type footnoteDefinition struct {
	ast.BaseBlock
}

// Kind implements ast.Node.
func (n *footnoteDefinition) Kind() ast.NodeKind { return kindFootnoteDefinition }

// Dump implements ast.Node.
func (n *footnoteDefinition) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, nil, nil)
}

// footnoteLabelLimit bounds a footnote's label, as goldmark's extension
// bounds it.
const footnoteLabelLimit = 1000

// footnoteBlockParser opens and continues footnoteDefinitions.
type footnoteBlockParser struct{}

func (footnoteBlockParser) Trigger() []byte { return []byte{'['} }

// Open opens a definition at "[^label]:" (a label of one character or
// more, not blank, without brackets), its text from after the colon.
func (footnoteBlockParser) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, segment := reader.PeekLine()
	pos := pc.BlockOffset()
	if pos < 0 {
		return nil, parser.NoChildren
	}
	next, ok := footnoteLabel(line[pos:])
	if !ok {
		return nil, parser.NoChildren
	}
	next += pos - 1 // the ':'
	n := &footnoteDefinition{}
	if next+1 >= len(line) {
		reader.Advance(next + 1)
		return n, parser.NoChildren
	}
	reader.AdvanceAndSetPadding(next+1-segment.Padding, segment.Padding)
	return n, parser.HasChildren
}

// footnoteLabel reads the "[^label]:" that b opens with, and returns
// where what follows the ':' starts; ok is false when b opens with none.
func footnoteLabel(b []byte) (next int, ok bool) {
	if len(b) < 2 || b[0] != '[' || b[1] != '^' {
		return 0, false
	}
	label := b[2:min(len(b), 2+footnoteLabelLimit)]
	end := bytes.IndexByte(label, ']')
	if end < 0 || bytes.IndexByte(label[:end], '[') >= 0 || util.IsBlank(label[:end]) {
		return 0, false
	}
	next = 2 + end + 1 // past the ']'
	if next >= len(b) || b[next] != ':' {
		return 0, false
	}
	return next + 1, true
}

// Continue keeps a blank line and a line indented four columns or more in
// the definition (its text goes on).
func (footnoteBlockParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	line, _ := reader.PeekLine()
	if util.IsBlank(line) {
		return parser.Continue | parser.HasChildren
	}
	childpos, padding := util.IndentPosition(line, reader.LineOffset(), 4)
	if childpos < 0 {
		return parser.Close
	}
	reader.AdvanceAndSetPadding(childpos, padding)
	return parser.Continue | parser.HasChildren
}

// Close leaves the definition where it stands (goldmark's extension moves
// it to a list at the end, for rendering; docir renders nothing).
func (footnoteBlockParser) Close(node ast.Node, reader text.Reader, pc parser.Context) {}

func (footnoteBlockParser) CanInterruptParagraph() bool { return true }

func (footnoteBlockParser) CanAcceptIndentedLine() bool { return false }
