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
			addSpans(c, line, start, false)
		}
		start = end + 1
	}
	if fence != "" {
		c.r = append(c.r, [2]int{from, len(b)}) // an unclosed fence runs to the end
	}
	return c
}

// NewCodeSpans finds the code spans of text read as one line: a
// paragraph whose lines a snippet joined, which holds no fence. A
// backtick escaped by a backslash opens no span, as CommonMark reads it
// ("\`a [[b]] `c" holds none; the readers of the index do not read
// escapes yet).
func NewCodeSpans(text string) *CodeRanges {
	c := &CodeRanges{}
	if strings.Contains(text, "`") {
		addSpans(c, text, 0, true)
	}
	return c
}

// addSpans adds to c the code spans of line, which starts at off; with
// escapes, a backtick after an odd run of backslashes is text (the rest of
// its run may open a span). A string is read in place (a snippet's
// paragraph, not copied).
func addSpans[T string | []byte](c *CodeRanges, line T, off int, escapes bool) {
	ticks := NewTickRuns(line)
	if len(ticks.start) == 0 {
		return
	}
	for i := 0; i < len(line); i++ {
		if line[i] != '`' || escapes && escaped(line, i) {
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

// escaped reports whether line[i] follows an odd run of backslashes.
func escaped[T string | []byte](line T, i int) bool {
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

// TickRuns are the maximal runs of backticks of a line, for the code
// spans of CodeRanges and store/passage's blankInlineLinks: where n backticks first stand at or after a
// place, found by jumping from run to the next longer run, not by a
// search to the line's end from every run that opens no span (a line of
// unclosed runs of falling length took n^1.5: 11 s at 4 MB).
type TickRuns struct {
	start, n []int
	longer   []int // longer[r]: the next run longer than run r, or len(start)
	fails    int   // no n backticks or more stand past the last place asked (0: not known)
}

// NewTickRuns finds the runs of backticks of line.
func NewTickRuns[T string | []byte](line T) *TickRuns {
	t := &TickRuns{}
	for i := 0; i < len(line); i++ {
		if line[i] != '`' {
			continue
		}
		j := i
		for j < len(line) && line[j] == '`' {
			j++
		}
		t.start, t.n = append(t.start, i), append(t.n, j-i)
		i = j
	}
	t.longer = make([]int, len(t.n))
	var stack []int // runs whose next longer run is not yet met, lengths falling
	for r, n := range t.n {
		for len(stack) > 0 && t.n[stack[len(stack)-1]] < n {
			t.longer[stack[len(stack)-1]] = r
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, r)
	}
	for _, r := range stack {
		t.longer[r] = len(t.n)
	}
	return t
}

// Closer is where n backticks first stand at or after p (in the first
// run of n or more that starts there or later), or -1. Places asked
// never go back (the scan moves on).
func (t *TickRuns) Closer(p, n int) int {
	if t.fails > 0 && n >= t.fails {
		return -1 // none of fewer stood past an earlier place
	}
	r, _ := slices.BinarySearch(t.start, p)
	for r < len(t.n) {
		if t.n[r] >= n {
			return t.start[r]
		}
		r = t.longer[r] // every run before it is no longer than run r
	}
	if t.fails == 0 || n < t.fails {
		t.fails = n
	}
	return -1
}
