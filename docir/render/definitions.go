package render

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Prose returns body without the link reference definitions it ends with
// (`[label]: /a/b`, and the blank lines among and after them): what a
// section says, as against the definitions markdown writes once, at the
// end of a document, for all of its sections. Definitions inside a fenced
// code block are code, and a definition whose title runs on to the next
// line ends the scan (it is kept): what Prose removes is always a
// definition.
func Prose(body string) string {
	return body[:trailingDefinitions(body)]
}

// UsedDefinitions returns body with the trailing link reference definitions
// (see Prose) that the rest of body does not use left out, and how many it
// left out. A definition is used when its label, as markdown matches labels
// (case folded, runs of white space as one space), appears in brackets in
// the prose: `[text][label]`, `[label][]` or `[label]`. What this cannot
// tell is kept: a label past ASCII, whose Unicode case folding this does
// not repeat, is always kept.
func UsedDefinitions(body string) (string, int) {
	start := trailingDefinitions(body)
	if start == len(body) {
		return body, 0
	}
	used := labelsUsed(body[:start])
	var tail strings.Builder // the definitions kept, and the blank lines before each
	left, blanks := 0, ""
	for line := range strings.Lines(body[start:]) {
		label, def := definitionLabel(line)
		switch {
		case !def:
			blanks += line
		case !ascii(label) || used[labelFold(label)]:
			tail.WriteString(blanks)
			tail.WriteString(line)
			blanks = ""
		default:
			left++
		}
	}
	if left == 0 {
		return body, 0
	}
	return body[:start] + tail.String(), left
}

// Definitions returns the link reference definitions of doc, outside its
// bytes [from, to) (a section's) and outside fenced code blocks, that the
// section's text uses (as UsedDefinitions tells use), one per line in the
// order doc writes them: markdown writes a document's definitions once,
// mostly at its end, and a section read in its middle held
// `[access the journal logs][journal-logs]` and no URL (a review of 805
// runbooks: 59 sections of 32 of them). "" when it uses none.
func Definitions(doc string, from, to int) string {
	if !strings.Contains(doc, "]:") || from < 0 || to > len(doc) || from > to {
		return ""
	}
	used := labelsUsed(doc[from:to])
	if len(used) == 0 {
		return ""
	}
	var out strings.Builder
	eachLine(doc, func(off int, line string, code bool) {
		if code || off >= from && off < to {
			return
		}
		if label, def := definitionLabel(line); def && used[labelFold(label)] {
			out.WriteString(strings.TrimRight(line, "\r\n"))
			out.WriteByte('\n')
		}
	})
	return out.String()
}

// trailingDefinitions returns where the run of link reference definitions
// and blank lines that ends body starts (len(body) when there is none),
// outside fenced code blocks.
func trailingDefinitions(body string) int {
	if !strings.Contains(body, "]:") {
		return len(body) // no definition: nothing to scan
	}
	start := len(body)
	eachLine(body, func(off int, line string, code bool) {
		_, def := definitionLabel(line)
		switch {
		case code:
			start = len(body)
		case def, strings.TrimSpace(line) == "":
			if start == len(body) {
				start = off
			}
		default:
			start = len(body)
		}
	})
	// Blank lines alone are not a run of definitions: keep them.
	if start < len(body) && strings.TrimSpace(body[start:]) == "" {
		return len(body)
	}
	return start
}

// eachLine calls fn with each line of body (its ending kept) and its
// offset, and whether it is code: a fenced code block's line, its fences
// included.
func eachLine(body string, fn func(off int, line string, code bool)) {
	fence := ""
	for off := 0; off < len(body); {
		end := strings.IndexByte(body[off:], '\n') + 1
		if end == 0 {
			end = len(body) - off
		}
		line := body[off : off+end]
		trimmed := strings.TrimLeft(line, " \t")
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			fn(off, line, true)
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
			fn(off, line, true)
		default:
			fn(off, line, false)
		}
		off += end
	}
}

// definitionLabel returns the label of a link reference definition that
// is the whole line (up to three spaces, `[label]:`, a destination, and
// perhaps a title): a footnote (`[^1]: text`) is prose, not a definition.
func definitionLabel(line string) (string, bool) {
	l := strings.TrimRight(line, "\r\n")
	i := 0
	for i < len(l) && i < 3 && l[i] == ' ' {
		i++
	}
	if i >= len(l) || l[i] != '[' || strings.HasPrefix(l[i:], "[^") {
		return "", false
	}
	j := strings.Index(l[i:], "]:")
	if j <= 1 || strings.ContainsAny(l[i+1:i+j], "[]") {
		return "", false
	}
	rest := strings.TrimSpace(l[i+j+2:])
	if rest == "" || strings.ContainsAny(rest[:1], `"'(`) {
		return "", false // no destination: the title or destination runs on, or this is not one
	}
	if _, title, _ := strings.Cut(rest, " "); !titleOK(strings.TrimSpace(title)) {
		return "", false
	}
	return l[i+1 : i+j], true
}

// titleOK reports whether what follows a definition's destination on its
// line is nothing or a whole title ("…", '…' or (…)).
func titleOK(t string) bool {
	if t == "" {
		return true
	}
	if len(t) < 2 {
		return false
	}
	switch t[0] {
	case '"', '\'':
		return t[len(t)-1] == t[0]
	case '(':
		return t[len(t)-1] == ')'
	}
	return false
}

// Counted is n and the noun's form for it: "1 file", "3 files".
func Counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// labelsUsed are the labels text uses (usedLabels), read from its lines
// that are prose: a definition line is no use of a label (a section that
// writes `[//]: # 'note'`, markdown's comment idiom, used none, and had
// every other such line of its document appended), nor is a line of a
// fenced code block.
func labelsUsed(text string) map[string]bool {
	if !strings.Contains(text, "]:") && !strings.Contains(text, "```") && !strings.Contains(text, "~~~") {
		return usedLabels(labelFold(text))
	}
	var prose strings.Builder
	eachLine(text, func(_ int, line string, code bool) {
		if _, def := definitionLabel(line); !code && !def {
			prose.WriteString(line)
		}
	})
	return usedLabels(labelFold(prose.String()))
}

// usedLabels are the texts in brackets in prose (labelFold'ed): a
// definition is used when its folded label is one, `[text][label]`,
// `[label][]` or `[label]`. One pass: a lookup per definition, not a
// search of the prose for each (a file of many definitions and a long
// section was quadratic).
func usedLabels(prose string) map[string]bool {
	used := map[string]bool{}
	for i := strings.IndexByte(prose, '['); i >= 0; {
		rest := prose[i+1:]
		j := strings.IndexAny(rest, "[]")
		if j < 0 {
			break
		}
		if rest[j] == ']' {
			used[rest[:j]] = true
		}
		k := strings.IndexByte(rest[j:], '[')
		if k < 0 {
			break
		}
		i += 1 + j + k
	}
	return used
}

// labelFold folds s as markdown folds a link label, for an ASCII label:
// lower case, runs of white space as one space, and the characters whose
// full case folding is ASCII (ß, ſ, the Kelvin sign, the Latin ligatures)
// folded to it, so that no text that uses an ASCII label is missed.
func labelFold(s string) string {
	return strings.Join(strings.Fields(asciiFolds.Replace(strings.ToLower(s))), " ")
}

var asciiFolds = strings.NewReplacer("ß", "ss", "ẞ", "ss", "ſ", "s", "K", "k",
	"ﬀ", "ff", "ﬁ", "fi", "ﬂ", "fl", "ﬃ", "ffi", "ﬄ", "ffl", "ﬅ", "st", "ﬆ", "st")

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
