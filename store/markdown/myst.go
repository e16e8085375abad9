package markdown

import "bytes"

// MyST's targets. A Sphinx site written in MyST markdown names a heading
// by a line of its own before it, `(label)=`, which the page never shows:
// `{ref}` roles and `[text](label)` links reach the heading by it. The
// line is an anchor of the section whose heading follows (headingOwners,
// as an HTML id standing before a heading is), and markup, not prose
// (store/passage Prose).

// MystTarget is the label of a MyST target line, `(label)=` with at most
// three spaces before it and spaces after it (its line end not included),
// and whether line is one: the label is not empty and holds no white
// space and no parenthesis, as MyST's parser reads one.
func MystTarget(line []byte) (string, bool) {
	t := bytes.TrimRight(line, " \t\r")
	indent := len(t) - len(bytes.TrimLeft(t, " "))
	t = t[indent:]
	if indent > 3 || len(t) < 4 || t[0] != '(' || !bytes.HasSuffix(t, []byte(")=")) {
		return "", false
	}
	label := t[1 : len(t)-2]
	if bytes.ContainsAny(label, " \t()") {
		return "", false
	}
	return string(label), true
}

// mystTargets appends the MyST targets among the lines of a paragraph's
// text t, which starts at offset base of the markdown, to out; each is its
// own block, so that one before a heading is that heading's
// (headingOwners).
func mystTargets(t []byte, base int, out []foundAnchor) []foundAnchor {
	if !bytes.Contains(t, []byte(")=")) {
		return out
	}
	eachLine(t, func(at int, line []byte) {
		if label, ok := MystTarget(line); ok {
			out = append(out, foundAnchor{at: base + at, id: label, label: true, block: base + at})
		}
	})
	return out
}

// eachLine calls fn with each line of t (without its '\n') and where it
// starts.
func eachLine(t []byte, fn func(at int, line []byte)) {
	for at := 0; at < len(t); {
		end := bytes.IndexByte(t[at:], '\n')
		if end < 0 {
			end = len(t) - at
		}
		fn(at, t[at:at+end])
		at += end + 1
	}
}

// directiveInners returns the content of each MyST colon-fence directive
// of body — from the line after an opener, three colons or more and a
// directive's name in braces (`:::{note}`, `::::{tab-set}`, `:::{code}
// markdown`), at most three spaces in, to its closer, a line of as many
// colons or more and nothing else — as sorted, disjoint [start, end)
// ranges of body (an outer directive's range holds its inner ones). Its
// content is the directive's: a line in it written as a heading is no
// heading of the page (Sphinx makes no section of one; MyST's docs show
// `# A header` in `:::{myst-example}` blocks, and a `:::{code}` block of
// markdown held an example `# Introduction` that took in the page's
// real sections). A directive in a code block (code, the ranges of
// body's code blocks) is code; one that nothing closes encloses nothing.
func directiveInners(body []byte, code [][2]int) [][2]int {
	if !bytes.Contains(body, []byte(":::{")) {
		return nil
	}
	var out [][2]int
	open, colons := -1, 0 // the outermost open directive's content start, and its fence
	eachLine(body, func(at int, line []byte) {
		t := bytes.TrimRight(line, " \t\r")
		indent := len(t)
		t = bytes.TrimLeft(t, " ")
		indent -= len(t)
		n := 0
		for n < len(t) && t[n] == ':' {
			n++
		}
		switch {
		case indent > 3 || n < 3 || inCodeBlock(at, code):
		case open < 0 && n+1 < len(t) && t[n] == '{' && t[n+1]|0x20 >= 'a' && t[n+1]|0x20 <= 'z':
			// A directive's name opens with a letter; Pandoc's and
			// Quarto's fenced divs (`:::{.callout-note}`, `:::{#fig-x}`)
			// hold the page's own text, headings too.
			open, colons = at+len(line)+1, n
		case open >= 0 && n == len(t) && n >= colons:
			out = append(out, [2]int{open, at})
			open = -1
		}
	})
	return out
}
