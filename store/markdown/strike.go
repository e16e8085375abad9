package markdown

import (
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// GFM's strikethrough (~~old~~, ~old~) in a heading is a mark, as
// emphasis is: the heading reads as its words. goldmark's extension
// package has the parser, but its init compiles the regexps of every
// extension (architecture_test.go), so the few lines it takes are here,
// as goldmark's extension writes them: a run of one or two '~' is a
// delimiter, three or more are text, and an opener closes with a run of
// its own length.

// kindStrike is the kind of a strike node.
var kindStrike = ast.NewNodeKind("DocirStrikethrough")

// strike is struck-through text: its children are the text.
type strike struct{ ast.BaseInline }

func (n *strike) Kind() ast.NodeKind         { return kindStrike }
func (n *strike) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

type strikeDelimiter struct{}

func (strikeDelimiter) IsDelimiter(b byte) bool { return b == '~' }

func (strikeDelimiter) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char
}

func (strikeDelimiter) OnMatch(consumes int) ast.Node { return &strike{} }

// strikeParser is the inline parser of strikethrough.
type strikeParser struct{}

func (strikeParser) Trigger() []byte { return []byte{'~'} }

func (strikeParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, segment := block.PeekLine()
	node := parser.ScanDelimiter(line, before, 1, strikeDelimiter{})
	if node == nil || node.OriginalLength > 2 || before == '~' {
		return nil
	}
	node.Segment = segment.WithStop(segment.Start + node.OriginalLength)
	block.Advance(node.OriginalLength)
	pc.PushDelimiter(node)
	return node
}

func (strikeParser) CloseBlock(parent ast.Node, pc parser.Context) {}
