package markdown

import (
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// FuzzStrikeGoldmark holds strike.go to goldmark's strikethrough
// extension, which it copies: a heading's text parses into the same
// inline tree, with a struck run where goldmark has one.
func FuzzStrikeGoldmark(f *testing.F) {
	for _, s := range []string{"~~Old~~ New", "~one~ and ~~two~~", "~~~x~~~", "a ~ b ~/.config", "~~a ~b~ c~~", "*~~x~~*", "~~`code`~~", "x~~y~~z", "~~a~ b~"} {
		f.Add(s)
	}
	gm := goldmark.New(goldmark.WithExtensions(extension.Strikethrough)).Parser()
	p := NewParser()
	f.Fuzz(func(t *testing.T, s string) {
		// One heading's text as the ATX heading holds it; shortcodes are
		// read before (headingShortcodes).
		if s == "" || s != strings.TrimSpace(s) || strings.ContainsAny(s, "\n\r#{") || len(s) > MaxHeadingBytes {
			return
		}
		src := []byte("# " + s)
		h, ok := gm.Parse(text.NewReader(src)).FirstChild().(*ast.Heading)
		if !ok || h.Lines().Len() != 1 || h.Lines().At(0).Start != 2 {
			return
		}
		lines := text.NewSegments()
		lines.Append(text.NewSegment(0, len(s)))
		n, mini := p.inlineOf(lines, []byte(s), parser.NewContext())
		if got, want := strikeShape(n, mini, kindStrike), strikeShape(h, src, east.KindStrikethrough); got != want {
			t.Errorf("%q: got %s, goldmark %s", s, got, want)
		}
	})
}

// strikeShape writes the inline tree under n: each node's kind (a node
// of strike as "Strike"), and each text's value.
func strikeShape(n ast.Node, src []byte, strike ast.NodeKind) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if c == n {
			return ast.WalkContinue, nil
		}
		if !entering {
			b.WriteString(")")
			return ast.WalkContinue, nil
		}
		kind := c.Kind().String()
		if c.Kind() == strike {
			kind = "Strike"
		}
		b.WriteString(kind + "(")
		if t, ok := c.(*ast.Text); ok {
			b.Write(t.Value(src))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
