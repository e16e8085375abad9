package markdown

import (
	"bytes"
	"slices"
	"strings"
)

// What is code in a text read without its parse: store/passage's Prose
// blanks markup in a section's text, and Comments finds Obsidian's
// comments in it, both as this file reads code, so that the passages
// and the links of a section agree on it.

// CodeRanges are the byte ranges of a text that are code, as store/passage
// (Prose, blankLinks) reads them: fenced code blocks, from the opening
// fence's line through the closing one's, and code spans within a line. A template shortcode or an
// mdBook directive there is still the generator's (Hugo and mdBook expand
// them in code, which is why sites escape them), an HTML comment is not:
// CommonMark shows it as written.
type CodeRanges struct {
	r    [][2]int // sorted, disjoint
	next int      // the first range not ending before the last offset asked
}

// NewCodeRanges finds the code of text.
func NewCodeRanges(text string) *CodeRanges {
	c := &CodeRanges{}
	if !strings.Contains(text, "`") && !strings.Contains(text, "~~~") {
		return c
	}
	b := []byte(text)
	fence, from := "", 0
	for start := 0; start < len(b); {
		end := LineEnd(b, start)
		line := b[start:end]
		trimmed := bytes.TrimLeft(line, " \t")
		switch {
		case fence != "":
			if ClosesFence(trimmed, fence) {
				fence = ""
				c.r = append(c.r, [2]int{from, end})
			}
		case OpensFence(trimmed):
			fence, from = FenceOf(trimmed), start
		case bytes.IndexByte(line, '`') >= 0:
			addSpans(c, line, start)
		}
		start = end + 1
	}
	if fence != "" {
		c.r = append(c.r, [2]int{from, len(b)}) // an unclosed fence runs to the end
	}
	return c
}

// NewCodeSpans finds the code spans of text read as one line: a
// paragraph whose lines a snippet joined, which holds no fence.
func NewCodeSpans(text string) *CodeRanges {
	c := &CodeRanges{}
	if strings.Contains(text, "`") {
		addSpans(c, text, 0)
	}
	return c
}

// addSpans adds to c the code spans of line, which starts at off, as
// CommonMark reads them: a run of n backticks opens a span that the next
// run of exactly n closes, and a backtick after an odd run of backslashes
// is text ("\`a [[b]] `c" holds no span; the rest of its run may open
// one). Inside a span a backslash is text, so it escapes no closer. A
// string is read in place (a snippet's paragraph, not copied).
func addSpans[T string | []byte](c *CodeRanges, line T, off int) {
	ticks := NewTickRuns(line)
	if len(ticks.starts) == 0 {
		return
	}
	for i := 0; i < len(line); i++ {
		if line[i] != '`' || Escaped(line, i) {
			continue
		}
		n := 1
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		q := ticks.Closer(i+n, n)
		if q < 0 {
			i += n - 1
			continue
		}
		c.r = append(c.r, [2]int{off + i, off + q + n})
		i = q + n - 1
	}
}

// Holds reports whether offset i is in a range; offsets asked never go back.
func (c *CodeRanges) Holds(i int) bool {
	for c.next < len(c.r) && c.r[c.next][1] <= i {
		c.next++
	}
	return c.next < len(c.r) && c.r[c.next][0] <= i
}

// Escaped reports whether line[i] follows an odd run of backslashes:
// outside a code span, a backslash escape makes it text.
func Escaped[T string | []byte](line T, i int) bool {
	n := 0
	for i-n > 0 && line[i-n-1] == '\\' {
		n++
	}
	return n%2 == 1
}

// OpensFence reports whether a line, its indent taken off, opens a code
// fence (FenceOf), without making the fence's string.
func OpensFence(trimmed []byte) bool { return fenceLen(trimmed) > 0 }

// FenceOf is the run that opens a code fence on a line, its indent taken
// off: three or more backticks or tildes; a backtick fence's info string
// holds no backtick (CommonMark: "```ls``` lists files" opens with a code
// span); "" when the line opens none.
func FenceOf[T string | []byte](trimmed T) string {
	return string(trimmed[:fenceLen(trimmed)])
}

// fenceLen is the length of the run that opens a code fence on trimmed
// (FenceOf), or 0.
func fenceLen[T string | []byte](trimmed T) int {
	if len(trimmed) < 3 || trimmed[0] != '`' && trimmed[0] != '~' {
		return 0
	}
	n := 0
	for n < len(trimmed) && trimmed[n] == trimmed[0] {
		n++
	}
	if n < 3 {
		return 0
	}
	if trimmed[0] == '`' {
		for i := n; i < len(trimmed); i++ {
			if trimmed[i] == '`' {
				return 0
			}
		}
	}
	return n
}

// ClosesFence reports whether a line, its indent taken off, closes the
// code fence that fence (FenceOf) opened, as CommonMark (and goldmark)
// reads one: a run of its character at least as long, then nothing but
// white space. "```go" inside a fence is code, and so is "```" inside a
// "````" fence (a page that shows a fenced example fences it with four);
// every reader of fences here closes by this rule.
func ClosesFence[T string | []byte](trimmed T, fence string) bool {
	n := 0
	for n < len(trimmed) && trimmed[n] == fence[0] {
		n++
	}
	if n < len(fence) {
		return false
	}
	for i := n; i < len(trimmed); i++ {
		if c := trimmed[i]; c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// LineEnd is the offset of the byte that ends the line of b starting at
// start: its '\n', or a '\r' alone (a classic Mac OS line ending, which
// CommonMark counts); len(b) for the last line without one. A CRLF line
// keeps its '\r'.
func LineEnd(b []byte, start int) int {
	i := bytes.IndexAny(b[start:], "\r\n")
	if i < 0 {
		return len(b)
	}
	i += start
	if b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n' {
		i++
	}
	return i
}

// TickRuns are the maximal runs of backticks of a text, for the code
// spans of CodeRanges, store/passage's blankInlineLinks and the link
// scanner: a span opened by a run of n backticks closes at the next run
// of exactly n (CommonMark: a span of two backticks holds "a` b", and a
// longer or shorter run inside it is code). The runs are grouped by
// length, so that finding the closer is a binary search of one group, not
// a search to the line's end from every run that opens no span (a line of
// unclosed runs of falling length took n^1.5: 11 s at 4 MB).
type TickRuns struct {
	starts []int // the runs' starts, by length (the lengths ascending), each length's ascending
	lens   []int // the lengths of runs the text has, ascending
	from   []int // from[g]: where the runs of length lens[g] start in starts; from[len(lens)] = len(starts)
}

// NewTickRuns finds the runs of backticks of text.
func NewTickRuns[T string | []byte](text T) *TickRuns {
	type run struct{ start, n int }
	var runs []run
	for i := 0; i < len(text); i++ {
		if text[i] != '`' {
			continue
		}
		j := i
		for j < len(text) && text[j] == '`' {
			j++
		}
		runs = append(runs, run{i, j - i})
		i = j
	}
	slices.SortStableFunc(runs, func(a, b run) int { return a.n - b.n })
	t := &TickRuns{starts: make([]int, len(runs))}
	for k, r := range runs {
		if k == 0 || r.n != runs[k-1].n {
			t.lens, t.from = append(t.lens, r.n), append(t.from, k)
		}
		t.starts[k] = r.start
	}
	t.from = append(t.from, len(runs))
	return t
}

// Closer is where the first run of exactly n backticks at or after p
// starts, or -1.
func (t *TickRuns) Closer(p, n int) int {
	g, ok := slices.BinarySearch(t.lens, n)
	if !ok {
		return -1
	}
	group := t.starts[t.from[g]:t.from[g+1]]
	if k, _ := slices.BinarySearch(group, p); k < len(group) {
		return group[k]
	}
	return -1
}
