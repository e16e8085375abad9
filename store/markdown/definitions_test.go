package markdown

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// definitionLines are the lines (numbered from 0) that goldmark's parse
// of src, with this package's block parsers, holds as link reference
// definitions.
func definitionLines(p *Parser, src []byte) (lines []int, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, over := r.(abort); !over {
				panic(r)
			}
			lines, ok = nil, false // nested past MaxDepth: no file parses so
		}
	}()
	*p.b = budget{underlined: map[ast.Node]bool{}, setext: map[ast.Node]bool{}}
	_ = ast.Walk(p.md.Parse(text.NewReader(src)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && n.Kind() == ast.KindLinkReferenceDefinition {
			for i := 0; i < n.Lines().Len(); i++ {
				l := bytes.Count(src[:n.Lines().At(i).Start], []byte("\n"))
				if !slices.Contains(lines, l) {
					lines = append(lines, l)
				}
			}
		}
		return ast.WalkContinue, nil
	})
	slices.Sort(lines)
	return lines, true
}

// linesOf numbers the lines Definitions gives.
func linesOf(src []byte, defs [][2]int) []int {
	var lines []int
	for _, d := range defs {
		lines = append(lines, bytes.Count(src[:d[0]], []byte("\n")))
	}
	return lines
}

// TestDefinitions: the definitions CommonMark reads over lines, in block
// quotes and in list items, are the lines goldmark holds as definitions;
// a line written as one that goes on a paragraph is not one.
func TestDefinitions(t *testing.T) {
	p := NewParser()
	for _, tt := range []struct {
		src  string
		want []int
	}{
		{"# H\n\nRead [it][r].\n\n[r]:\nhttps://x.org/manatee\n", []int{4, 5}},
		{"[r]: https://x.org/kinkajou\n    \"Loris title\"\n", []int{0, 1}},
		{"> [r]: https://x.org/nilgai\n", []int{0}},
		{"- [r]: https://x.org/gazelle\n", []int{0}},
		{"- a\n\n  [r]:\n  https://x.org/gazelle\n", []int{2, 3}},
		{"[supported limits]:\n    https://git.k8s.io/community/sig-scalability/configs-and-limits/thresholds.md\n", []int{0, 1}},
		{"[a\nb]: /x 'title\ngoes on'\n[c]: /y\n", []int{0, 1, 2, 3}},
		{"text\n[r]: https://x.org/okapi\n", nil},
		{"> text\n[r]: https://x.org/okapi\n", nil},
		{"text\n> [r]: https://x.org/okapi\n", []int{1}},
		{"[a]: /x\ntext\n[b]: /y\n", []int{0}},
		{"[a]: /x \"t\" junk\n", nil},
		{"[a]: /x\n\"t\" junk\n", []int{0}},
		{"[^1]: a footnote\n", nil},
		{"```\n[r]: /x\n```\n", nil},
		{"    [r]: /x\n", nil},
		{"# [r]: /x\n", nil},
		{"<div>\n[r]: /x\n", nil},
		{"!!! note\n[r]: /x\n", []int{1}},
		{"!!! note\n\n    [r]: /x\n", []int{2}},
		// A setext heading's underline ends its paragraph; an HTML block
		// of the first five kinds ends on the line that closes it (a
		// review: both read as a paragraph going on, 2026-12-08).
		{"Heading\n=======\n[manatee]: https://example.org/manatee\n\nMore prose.\n", []int{2}},
		{"Title\n===\n[r]: /x", []int{2}},
		{"[r]: /x\n===\n", []int{0}},
		{"=====\n[r]: /x\n", nil},
		{"# H\n\n<script>\nvar a;\n</script>\n[kinkajou]: https://example.org/kinkajou\n", []int{5}},
		{"<script>\n[r]: /x\n</script>\n[s]: /y", []int{3}},
		{"<pre>\n</pre>\n[r]: /x", []int{2}},
		{"<style>\n</style>\n[r]: /x", []int{2}},
		{"<?php\n?>\n[r]: /x", []int{2}},
		{"<!--\nc\n-->\n[r]: /x", []int{3}},
		{"<!-- c -->\n[r]: /x", []int{1}},
		{"<!DOCTYPE html>\n[r]: /x", []int{1}},
	} {
		src := []byte(tt.src)
		if gm, _ := definitionLines(p, src); !slices.Equal(gm, tt.want) {
			t.Errorf("%q: goldmark's definitions %v, the test's %v", tt.src, gm, tt.want)
		}
		if got := linesOf(src, Definitions(src)); !slices.Equal(got, tt.want) {
			t.Errorf("Definitions(%q) = lines %v, want %v", tt.src, got, tt.want)
		}
	}
}

// FuzzDefinitionsGoldmark holds Definitions to goldmark: the same lines,
// for texts without what it does not read as goldmark does (CRs, which
// the parse reads as line feeds; lists in block quotes).
func FuzzDefinitionsGoldmark(f *testing.F) {
	for _, s := range []string{"[r]:\nhttps://x.org/a\n", "[r]: /x\n  \"t\"\n", "> [r]: /x\n", "- [r]: /x\n",
		"text\n[r]: /x\n", "[a]: /x 't\n'\n[b]: <y>\n", "- a\n\n  [b]:\n  /y\n", "> - [c]:\n>   /z (t)\n", "1. x\n2. [a]: /b\n",
		"Title\n===\n[r]: /x", "<script>\n[r]: /x\n</script>\n[s]: /y", "<!--\nc\n-->\n[r]: /x"} {
		f.Add(s)
	}
	p := NewParser()
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 2000 || strings.ContainsAny(s, "\r") || unmodeled(s) {
			return
		}
		src := []byte(s)
		want, ok := definitionLines(p, src)
		if !ok {
			return
		}
		if got := linesOf(src, Definitions(src)); !slices.Equal(got, want) {
			t.Fatalf("Definitions(%q) = lines %v, goldmark's %v", s, got, want)
		}
	})
}

// unmodeled reports whether s holds a line Definitions does not read as
// goldmark does: a list marker after a block quote marker.
func unmodeled(s string) bool {
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimLeft(l, " >")
		if strings.Contains(l, ">") && strings.ContainsAny(t, "-*+") {
			return true
		}
	}
	return false
}
