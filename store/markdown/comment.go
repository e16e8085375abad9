package markdown

import "strings"

// Comments are the Obsidian comments of text, in order, each the range
// [from, to) of its opening "%%" through its closing one: `%%inline%%`
// within a line, or a block from a "%%" over lines, blank ones too, to
// the next "%%" (Obsidian: "Comments are only visible in Editing view").
// A reader of the vault never sees what one holds: store/passage's Prose
// blanks it, and a link in it is no link (extractLinks), as an HTML
// comment's text and links are not. text is a section's own text, or
// the lead's: the text Prose is given, so that the two agree.
//
// The rule is read in every corpus, not only where links.wikilinks is on
// (a parse knows nothing of its source, and neither does a snippet's
// Prose), so it is read narrowly: a "%%" in code (CodeRanges: fences and
// code spans; and indented code blocks, indentedCode) neither opens nor
// closes a comment (Matlab's `%% cell` and LaTeX's `%%` lines are code), and
// a "%%" that no later one closes opens nothing. Obsidian hides the rest
// of the note after an unclosed "%%"; docir keeps it, so that a lone
// `%%timeit` in another corpus's prose never blanks the rest of a page.
// An HTML comment (`<!-- … -->`, outside code) that opens before a "%%"
// holds it: a "%%" in one opens nothing (`<!-- 50%% -->`), as what an
// HTML comment holds is no text (Prose blanks it whole); within an
// Obsidian comment an HTML one is only its text. Each "%%" and "<!--" is
// looked at once: the cost is linear in text's size.
func Comments(text string) [][2]int {
	pct := strings.Index(text, "%%")
	if pct < 0 {
		return nil
	}
	code, indented := NewCodeRanges(text), indentedCode(text)
	inCode := func(i int) bool { return code.Holds(i) || indented.Holds(i) } // asked in increasing order
	html := strings.Index(text, "<!--")
	var out [][2]int
	open := -1
	for pct >= 0 {
		if html >= 0 && html < pct && open < 0 {
			if inCode(html) {
				html = indexFrom(text, html+4, "<!--")
				continue
			}
			end := indexFrom(text, html+4, "-->")
			if end < 0 {
				return out // the rest is an HTML comment's
			}
			end += 3
			html = indexFrom(text, end, "<!--")
			if pct < end {
				pct = indexFrom(text, end, "%%")
			}
			continue
		}
		if !inCode(pct) {
			if open < 0 {
				open = pct
			} else {
				out = append(out, [2]int{open, pct + 2})
				open = -1
			}
		}
		pct = indexFrom(text, pct+2, "%%")
		if open < 0 && html >= 0 && html < pct && len(out) > 0 && html < out[len(out)-1][1] {
			// An HTML opener inside the Obsidian comment just closed
			// is its text: the next one past it.
			html = indexFrom(text, out[len(out)-1][1], "<!--")
		}
	}
	return out
}

// indexFrom is the offset in text of the first sep at or after from, or
// -1.
func indexFrom(text string, from int, sep string) int {
	if from > len(text) {
		return -1
	}
	if j := strings.Index(text[from:], sep); j >= 0 {
		return from + j
	}
	return -1
}

// indentedCode are the lines of text that an indented code block holds,
// as far as a text read without its parse can tell: a line indented four
// columns or more (a tab to the next multiple of four) after a blank line,
// the text's start, or another such line. A list item's paragraph
// indented so after a blank line is read as code too: a "%%" there opens
// no comment, and its text is kept, which is the side to err on.
func indentedCode(text string) *CodeRanges {
	c := &CodeRanges{}
	b := []byte(text)
	after := true // the previous line was blank, indented code, or none
	for start := 0; start < len(b); {
		end := LineEnd(b, start)
		line := b[start:end]
		cols, k := 0, 0
		for ; k < len(line) && (line[k] == ' ' || line[k] == '\t'); k++ {
			if line[k] == '\t' {
				cols += 4 - cols%4
			} else {
				cols++
			}
		}
		switch {
		case k == len(line) || k == len(line)-1 && line[k] == '\r':
			after = true // blank: an indented block goes on past it
		case cols >= 4 && after:
			c.r = append(c.r, [2]int{start, end})
		default:
			after = false
		}
		start = end + 1
	}
	return c
}
