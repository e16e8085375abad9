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
		// indented code); a '<' may open raw HTML or an autolink, and "]("
		// a link destination, which goldmark reads first and these readers
		// do not: "[a](`b)`" is a link to "`b" to goldmark, and a span to
		// them (a backtick in a destination is rare; a known limit).
		if strings.ContainsAny(s, "\n\r<") || strings.Contains(s, "](") {
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
				from, to := r[0]+n, r[1]-n
				if in := line[from:to]; len(in) >= 2 && in[0] == ' ' && in[len(in)-1] == ' ' && strings.Trim(in, " ") != "" {
					from, to = from+1, to-1
				}
				if from != want[k][0] || to != want[k][1] {
					t.Fatalf("%q: span %v, goldmark's content %v", line, r, want[k])
				}
			}
		}
	})
}

// spanParity reads a line's code spans as CodeRanges does: a run of
// another length or an escaped backtick is no span's edge.
func TestSpanParity(t *testing.T) {
	body := "a `` ` {{x}} `` {{y}}\n\\` {{z}} `\n`{{w}}`"
	s := spanParity{body: []byte(body)}
	for _, tt := range []struct {
		at   string
		want bool
	}{{"{{x}}", true}, {"{{y}}", false}, {"{{z}}", false}, {"{{w}}", true}} {
		if got := s.inSpan(strings.Index(body, tt.at)); got != tt.want {
			t.Errorf("inSpan(%s) = %v, want %v", tt.at, got, tt.want)
		}
	}
}
