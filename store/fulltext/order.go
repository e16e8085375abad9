package fulltext

import (
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
)

// Word order as a reader sees it. Rescore looks for the query's words in
// the query's order in a passage's text; the text is markdown, where words
// that read as consecutive need not be consecutive tokens:
//
//   - inline code, link destinations and reference labels (`[text](url)`,
//     `[text][label]`), HTML tags and template actions (`{{ .Title }}`)
//     sit between the words of a sentence: "render GoAT diagrams as
//     `figure` elements" says "as elements" to a reader who skips the code.
//     Such markup tokens are *skippable*: the word before them is adjacent
//     to the token right after it, as always, and also to the first word
//     after the markup. A query that names the code ("as figure elements")
//     still finds its words adjacent;
//   - a code fence line (```` ``` ````, `~~~`) separates the text before
//     it from the text after it: a code block's last word and the sentence
//     after the block are not a phrase. Its info string is skippable.

// layout marks a text's tokens: skip[i] when toks[i] is markup a reader
// reads past, and it moves every token after a fence line one position on,
// so that no pair or run crosses the fence. Tokens must be in text order,
// with offsets into text.
func layout(text string, toks analysis.TokenStream) []bool {
	if len(toks) == 0 || !strings.ContainsAny(text, "`[<{~") {
		return nil
	}
	spans, fences := markup(text)
	if len(spans) == 0 && len(fences) == 0 {
		return nil
	}
	skip := make([]bool, len(toks))
	si, fi, shift := 0, 0, 0
	for i, t := range toks {
		for fi < len(fences) && fences[fi] <= t.Start {
			fi++
			shift++
		}
		t.Position += shift
		for si < len(spans) && spans[si][1] <= t.Start {
			si++
		}
		skip[i] = si < len(spans) && spans[si][0] <= t.Start
	}
	return skip
}

// markup returns the byte ranges of text that are markup a reader reads
// past (sorted, not overlapping), and the offsets where fence lines start.
// A fence line's own text is one of the ranges.
func markup(text string) (spans [][2]int, fences []int) {
	add := func(from, to int) {
		if n := len(spans); n > 0 && spans[n-1][1] > from {
			if to > spans[n-1][1] {
				spans[n-1][1] = to
			}
			return
		}
		spans = append(spans, [2]int{from, to})
	}
	var code *ticks  // made at the first backtick
	var line closers // where the current line ends and its closers are
	lineStart := true
	for i := 0; i < len(text); {
		c := text[i]
		if lineStart {
			j := i
			for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '>') {
				j++
			}
			if strings.HasPrefix(text[j:], "```") || strings.HasPrefix(text[j:], "~~~") {
				end := lineEnd(text, j)
				fences = append(fences, i)
				add(i, end)
				i = end
				continue
			}
		}
		lineStart = c == '\n'
		switch c {
		case '`':
			if escapedAt(text, i) {
				i++ // text, as CommonMark reads "\\`"; the rest of its run may open a span
				continue
			}
			n := run(text, i, '`')
			if code == nil {
				code = newTicks(text)
			}
			if end := code.close(text, i, n); end > 0 {
				add(i, end)
				i = end
				continue
			}
			i += n
			continue
		case ']':
			// A link destination or a reference label right after the text.
			if i+1 < len(text) && (text[i+1] == '(' || text[i+1] == '[') {
				closer := ")"
				if text[i+1] == '[' {
					closer = "]"
				}
				if end := line.next(text, i+2, closer); end >= 0 {
					add(i+1, end+1)
					i = end + 1
					continue
				}
			}
		case '<':
			if i+1 < len(text) && (isLetter(text[i+1]) || text[i+1] == '/') {
				if end := line.next(text, i+1, ">"); end >= 0 {
					add(i, end+1)
					i = end + 1
					continue
				}
			}
		case '{':
			if strings.HasPrefix(text[i:], "{{") {
				if end := line.next(text, i+2, "}}"); end >= 0 {
					add(i, end+2)
					i = end + 2
					continue
				}
			}
		}
		i++
	}
	return spans, fences
}

// closers finds, for markup, the first closer (")", "]", ">", "}}") at or
// after an offset and before the end of its line. Offsets asked come in
// increasing order, so each closer's last answer (or that it has none
// before the line's end) is kept and stands for every later offset up to
// it: a line of many unclosed openers ("[a](" 100,000 times) costs its
// length, not its length times its openers.
type closers struct {
	start, end int    // the line [start, end) the answers are for
	at         [4]int // per closer, in the order ")]>}": its next offset, or -1 for none before end
	from       [4]int // per closer: the offset its answer was sought from
}

func (c *closers) next(text string, from int, closer string) int {
	if c.end == 0 && c.start == 0 || from < c.start || from > c.end {
		c.start, c.end = lineBegin(text, from), lineEnd(text, from)
		c.from = [4]int{-1, -1, -1, -1}
	}
	k := strings.Index(")]>}", closer[:1])
	if c.from[k] >= 0 && c.from[k] <= from && (c.at[k] < 0 || c.at[k] >= from) {
		return c.at[k]
	}
	c.from[k], c.at[k] = from, -1
	if from <= c.end {
		if j := strings.Index(text[from:c.end], closer); j >= 0 {
			c.at[k] = from + j
		}
	}
	return c.at[k]
}

// lineBegin returns the offset of the start of the line holding offset i.
func lineBegin(text string, i int) int {
	return strings.LastIndexByte(text[:i], '\n') + 1
}

// lineEnd returns the offset of the end of the line holding offset i.
func lineEnd(text string, i int) int {
	if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(text)
}

// run returns how many bytes c repeat from offset i.
func run(text string, i int, c byte) int {
	n := 0
	for i+n < len(text) && text[i+n] == c {
		n++
	}
	return n
}

// ticks finds code spans' closing backticks in one pass over a text: its
// runs of backticks, each linked to the next run of the same length, and
// where the next blank line is. Openings are looked up in text order, so
// the cursors only move on, and a text of many code spans, or of many
// unmatched backticks, costs its length.
type ticks struct {
	at    []int // offsets of the backtick runs, in order
	same  []int // index of the next run of the same length; -1: none
	k     int   // the first run not yet passed
	blank int   // offset of the next blank line ("\n\n") at or after the last lookup; len(text): none
}

// escapedAt reports whether text[i] follows an odd run of backslashes
// (markdown.Escaped, which this package does not import).
func escapedAt(text string, i int) bool {
	n := 0
	for i-n > 0 && text[i-n-1] == '\\' {
		n++
	}
	return n%2 == 1
}

func newTicks(text string) *ticks {
	t := &ticks{blank: -1}
	var lens []int
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '`')
		if j < 0 {
			break
		}
		i += j
		n := run(text, i, '`')
		t.at = append(t.at, i)
		lens = append(lens, n)
		i += n
	}
	t.same = make([]int, len(t.at))
	last := map[int]int{} // run length -> the index of its run last seen, going backwards
	for k := len(t.at) - 1; k >= 0; k-- {
		t.same[k] = -1
		if l, ok := last[lens[k]]; ok {
			t.same[k] = l
		}
		last[lens[k]] = k
	}
	return t
}

// close returns the end of the code span opened by the run of n backticks
// at offset i: just past the next run of exactly n backticks before a blank
// line; 0 when there is none. Calls come in increasing i.
func (t *ticks) close(text string, i, n int) int {
	if t.blank < i {
		t.blank = len(text)
		if j := strings.Index(text[i:], "\n\n"); j >= 0 {
			t.blank = i + j
		}
	}
	for t.k < len(t.at) && t.at[t.k] < i {
		t.k++
	}
	if t.k == len(t.at) || t.at[t.k] != i {
		return 0 // i is inside a run (markup ended there): not an opening
	}
	if c := t.same[t.k]; c >= 0 && t.at[c] < t.blank {
		return t.at[c] + n
	}
	return 0
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// order is the word order of an analyzed text: its tokens grouped by
// position, and for each group the groups a reader reads next.
type order []group

// group is the tokens at one position, toks[from:to], and the groups read
// after it: the one at the next position, and the first one past skippable
// markup that starts there (-1: none).
type group struct {
	from, to     int32
	next, pastAt int32
}

// newOrder groups toks by position and links each group to the groups that
// follow it for a reader (see layout).
func newOrder(toks analysis.TokenStream, skip []bool) order {
	return newOrderInto(nil, toks, skip)
}

// newOrderInto is newOrder in buf's memory (buf may be nil).
func newOrderInto(buf order, toks analysis.TokenStream, skip []bool) order {
	n := positions(toks)
	o := slices.Grow(buf[:0], n)
	for i := 0; i < len(toks); {
		j := i + 1
		all := skip != nil && skip[i]
		for j < len(toks) && toks[j].Position == toks[i].Position {
			all = all && skip[j]
			j++
		}
		// pastAt holds, for now, whether the group is all skippable.
		o = append(o, group{from: int32(i), to: int32(j), next: -1, pastAt: b2i(all)})
		i = j
	}
	pos := func(g int) int { return toks[o[g].from].Position }
	// past: the first group from g on that is not skippable, when the
	// groups from g to it are at consecutive positions (-1: none).
	past := int32(-1)
	for g := len(o) - 1; g >= 0; g-- {
		skipped := o[g].pastAt == 1
		o[g].pastAt = -1
		adjacent := g+1 < len(o) && pos(g+1) == pos(g)+1
		if adjacent {
			o[g].next = int32(g + 1)
			if past > int32(g+1) {
				o[g].pastAt = past
			}
		}
		switch {
		case !skipped:
			past = int32(g)
		case !adjacent:
			past = -1
		}
	}
	return o
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
