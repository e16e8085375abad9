package markdown

import (
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// FuzzCodeSpansGoldmark holds the code spans of a line as CodeRanges and
// NewCodeSpans read them to goldmark's (CommonMark's): the same spans, in
// order, each holding the content goldmark gives its span, whatever the
// backslashes and runs of backticks around them.
func FuzzCodeSpansGoldmark(f *testing.F) {
	for _, s := range []string{"`a`", "``a` b``", "`*a*`` x", "`a`` b` c", "\\`a `b`", "\\\\`a`", "`a\\`b`", "``` a", "` `` `", "x `` a ``` b `` c", "\\``a`", "`a``b`c`"} {
		f.Add(s)
	}
	gm := goldmark.New().Parser()
	f.Fuzz(func(t *testing.T, s string) {
		// One line of a paragraph ("x " keeps it from opening a fence or
		// indented code); a '<' may open raw HTML, which goldmark reads
		// first and these readers do not.
		if strings.ContainsAny(s, "\n\r<") {
			return
		}
		line := "x " + s
		src := []byte(line)
		var want [][2]int // the content of each goldmark span
		_ = ast.Walk(gm.Parse(text.NewReader(src)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if entering && n.Kind() == ast.KindCodeSpan {
				first, last := n.FirstChild(), n.LastChild()
				if first == nil {
					t.Fatalf("%q: goldmark's code span holds nothing", s)
				}
				want = append(want, [2]int{first.(*ast.Text).Segment.Start, last.(*ast.Text).Segment.Stop})
			}
			return ast.WalkContinue, nil
		})
		for _, c := range []*CodeRanges{NewCodeRanges(line), NewCodeSpans(line)} {
			if len(c.r) != len(want) {
				t.Fatalf("%q: spans %v, goldmark's content %v", line, c.r, want)
			}
			for k, r := range c.r {
				n := 0
				for r[0]+n < len(line) && line[r[0]+n] == '`' {
					n++
				}
				// goldmark takes a space off each end of a span that
				// holds more than spaces and starts and ends with one.
				if from, to := r[0]+n, r[1]-n; want[k][0]-from > 1 || want[k][0] < from || to-want[k][1] > 1 || want[k][1] > to {
					t.Fatalf("%q: span %v, goldmark's content %v", line, r, want[k])
				}
			}
		}
	})
}
