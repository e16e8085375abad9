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
// Each "%%" is looked at once: the cost is linear in text's size.
func Comments(text string) [][2]int {
	at := strings.Index(text, "%%")
	if at < 0 {
		return nil
	}
	code, indented := NewCodeRanges(text), indentedCode(text)
	var out [][2]int
	open := -1
	for i := at; ; {
		if !code.Holds(i) && !indented.Holds(i) {
			if open < 0 {
				open = i
			} else {
				out = append(out, [2]int{open, i + 2})
				open = -1
			}
		}
		i += 2
		j := strings.Index(text[i:], "%%")
		if j < 0 {
			return out
		}
		i += j
	}
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
