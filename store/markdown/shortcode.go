package markdown

import (
	"bytes"
	"slices"
	"strings"
)

// ShortcodeTextParam reports whether a shortcode's parameter named name
// (lower-cased) holds what a reader sees on the page, as HTML's alt and
// title do: the text of a tooltip or a link ({{< glossary_tooltip
// text="Deployment" term_id="…" >}}, 940 times in the Kubernetes docs), a
// figure's caption, alt and title; a card's description and a tab's label
// (Starlight's `<LinkCard title="…" description="…">`, `<TabItem
// label="npm">`, Docusaurus's `<TabItem value="x" label="…">`). A path,
// an id, a value or a size is not text.
func ShortcodeTextParam(name string) bool {
	switch name {
	case "text", "title", "caption", "alt", "description", "label":
		return true
	}
	return false
}

// ShortcodeValues calls fn, in order, with each quoted value ("…", '…' or
// `…`) of the closed shortcode sc (`{{< … >}}` or `{{% … %}}`): the name
// of its parameter, lower-cased ("" for a positional value), and its
// offsets in sc without the quotes. An unclosed quote ends the scan.
func ShortcodeValues(sc string, fn func(name string, start, stop int)) {
	if len(sc) < 6 {
		return
	}
	for k := 3; k < len(sc)-3; k++ {
		q := sc[k]
		if q != '"' && q != '\'' && q != '`' {
			continue
		}
		n := strings.IndexByte(sc[k+1:len(sc)-3], q)
		if n < 0 {
			return
		}
		fn(paramName(sc[3:k]), k+1, k+1+n)
		k += 1 + n
	}
}

// paramName is the name of the parameter whose value opens right after
// before (`text=` or `text = `), lower-cased; "" for a positional value.
func paramName(before string) string {
	before = strings.TrimRight(before, " \t")
	rest, ok := strings.CutSuffix(before, "=")
	if !ok {
		return ""
	}
	rest = strings.TrimRight(rest, " \t")
	i := len(rest)
	for i > 0 {
		c := rest[i-1]
		if c != '_' && c != '-' && !('a' <= c|0x20 && c|0x20 <= 'z') && !('0' <= c && c <= '9') {
			break
		}
		i--
	}
	return strings.ToLower(rest[i:])
}

// headingShortcodes reads the Hugo shortcodes in the lines of a heading's
// source (`{{< … >}}`, `{{% … %}}`, closed on their line, outside code
// spans), and the template tags of Liquid, Nunjucks and Jinja (`{% … %}`:
// Eleventy's `## Watch JavaScript Dependencies {% addedin "0.7.0" %}`,
// whose site anchor is #watch-javascript-dependencies; Jekyll's `{%-
// include badge.html -%}`), as what a reader sees of them, as passages
// read them: the values
// of their text parameters (ShortcodeTextParam), or nothing. The generator
// replaces a shortcode, and its markup is neither the heading's text nor
// its slug's: `#### {{< glossary_tooltip text="kubectl" term_id="…" >}}
// usage` is "kubectl usage". A heading left without a word by that reads,
// instead, each shortcode as its first quoted value, else its name: the
// Kubernetes docs' 500 `## {{% heading "whatsnext" %}}` are "whatsnext",
// the key their site's own template looks the words up by, and
// `{{< glossary_tooltip term_id="containerd" >}}` is "containerd", the
// term the site shows. A shortcode written to be shown as written
// (`{{</* ref */>}}`) is left as it is. lines is rewritten in place; the
// values are copies where a shortcode was read.
func headingShortcodes(lines [][]byte) {
	found := false
	for _, l := range lines {
		if bytes.Contains(l, []byte("{{<")) || bytes.Contains(l, []byte("{%")) {
			found = true // {{% holds {%
			break
		}
	}
	if !found {
		return
	}
	read := make([][]byte, len(lines))
	blank := true
	for i, l := range lines {
		read[i] = readShortcodes(l, false)
		blank = blank && len(bytes.TrimSpace(read[i])) == 0
	}
	if blank {
		for i, l := range lines {
			read[i] = readShortcodes(l, true)
		}
	}
	copy(lines, read)
}

// titleText is a front-matter title as a reader sees it: its shortcodes
// and template tags read as a heading's are (headingShortcodes), each as
// the values of its text parameters, or nothing. GitHub's
// docs write `title: Installing {% data
// variables.product.prodname_enterprise %}`, which the site renders from
// its data files: the tag's words were the title's, searched in every
// passage's head ("data", "variables", "product" on 8 pages), and shown
// as written.
func titleText(t string) string {
	if !strings.Contains(t, "{{") && !strings.Contains(t, "{%") {
		return t
	}
	// Not a heading's fallback (each tag's first value or name): a title
	// left without a word is none, and the document's first heading or
	// file name titles it.
	return strings.Join(strings.Fields(string(readShortcodes([]byte(t), false))), " ")
}

// readShortcodes returns line with each shortcode in it outside code spans
// replaced by the values of its text parameters, joined by spaces; with
// named, by its first quoted value, else its name (nothing for a closing
// shortcode).
func readShortcodes(line []byte, named bool) []byte {
	var out []byte
	last := 0                 // line[:last] is read into out
	spans := scanner{t: line} // finds where a code span ends
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
			continue
		case '`':
			i = spans.codeSpan(i) - 1
			continue
		case '{':
		default:
			continue
		}
		open, closer := 3, ""
		switch {
		case bytes.HasPrefix(line[i:], []byte("{{<")):
			closer = ">}}"
		case bytes.HasPrefix(line[i:], []byte("{{%")):
			closer = "%}}"
		case bytes.HasPrefix(line[i:], []byte("{%")):
			open, closer = 2, "%}" // a template tag
		default:
			continue
		}
		j := bytes.Index(line[i+open:], []byte(closer))
		if j < 0 {
			break
		}
		end := i + open + j + len(closer)
		sc := string(line[i:end])
		inner := strings.TrimSpace(strings.Trim(sc[open:len(sc)-len(closer)], "-")) // {%- x -%} trims white space
		if strings.HasPrefix(inner, "/*") {
			i = end - 1 // written to be shown as written
			continue
		}
		out = append(out, line[last:i]...)
		out = append(out, shortcodeShown(sc, inner, named)...)
		last = end
		i = end - 1
	}
	if last == 0 {
		return line
	}
	return append(out, line[last:]...)
}

// shortcodeShown is what readShortcodes reads the shortcode sc (inner its
// text between the delimiters, trimmed) as.
func shortcodeShown(sc, inner string, named bool) string {
	var b strings.Builder
	first := ""
	ShortcodeValues(sc, func(name string, start, stop int) {
		if first == "" {
			first = sc[start:stop]
		}
		if ShortcodeTextParam(name) {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(sc[start:stop])
		}
	})
	switch {
	case !named:
		return b.String()
	case first != "":
		return first
	case strings.HasPrefix(inner, "/"):
		return ""
	}
	if f := strings.Fields(inner); len(f) > 0 {
		return f[0]
	}
	return ""
}

// maxOpenShortcodes bounds the angle shortcodes angleInners keeps open at
// once: a pair nested deeper is read as text, and a file of openers that
// never close costs a scan, not a stack of them.
const maxOpenShortcodes = 64

// angleInners returns the inner content of each pair of Hugo shortcodes
// written with angle delimiters, `{{< name … >}}` … `{{< /name >}}` (a
// closing tag may use either delimiter), as sorted, disjoint [start, end)
// ranges of body: from past the opening tag to the closing tag. Hugo hands
// such content to the shortcode as it is written and never to the page's
// markdown renderer (`{{% … %}}` is the form whose content is markdown of
// the page), so a line in it written as a heading is no heading of the
// page: Istio's `{{< text yaml >}}` and Hugo's `{{< highlight >}}` hold
// YAML, whose `# comment` lines and `---` separators would otherwise be
// read as an ATX heading and a setext one. A commented tag (`{{</* … */>}}`,
// how Hugo's docs show a shortcode) and a self-closing one (`{{< x />}}`)
// open nothing; an opening tag that nothing closes encloses nothing.
func angleInners(body []byte) [][2]int {
	type open struct {
		name  string
		inner int
	}
	var stack []open
	var out [][2]int
	var unclosed [2]bool // by delimiter ('<', '%'): a commented tag found no end, so none later will
	for i := 0; ; {
		k := bytes.Index(body[i:], []byte("{{"))
		if k < 0 {
			break
		}
		at := i + k
		if at+2 >= len(body) || (body[at+2] != '<' && body[at+2] != '%') {
			i = at + 2
			continue
		}
		closing := closingOf(body[at+2])
		j := at + 3
		for j < len(body) && (body[j] == ' ' || body[j] == '\t') {
			j++
		}
		if bytes.HasPrefix(body[j:], []byte("/*")) { // a commented tag: shown, not run
			d, end := 0, -1
			if closing != ">}}" {
				d = 1
			}
			if !unclosed[d] {
				end = bytes.Index(body[j+2:], []byte("*/"+closing))
			}
			if end < 0 {
				// No end: what follows is text, and so is every later
				// commented tag (a file of "{{</*" searched to its end
				// from each was quadratic).
				unclosed[d] = true
				i = j
				continue
			}
			i = j + 2 + end + 2 + len(closing)
			continue
		}
		end := bytes.Index(body[j:], []byte(closing))
		if end < 0 {
			break
		}
		tag := bytes.TrimSpace(body[j : j+end])
		i = j + end + len(closing)
		if closer, ok := bytes.CutPrefix(tag, []byte("/")); ok {
			name := string(shortcodeName(closer))
			for d := len(stack) - 1; d >= 0; d-- {
				if stack[d].name == name {
					out = append(out, [2]int{stack[d].inner, at})
					stack = stack[:d]
					break
				}
			}
			continue
		}
		if closing != ">}}" || bytes.HasSuffix(tag, []byte("/")) || len(stack) == maxOpenShortcodes {
			continue
		}
		if name := shortcodeName(tag); len(name) > 0 {
			stack = append(stack, open{name: string(name), inner: i})
		}
	}
	// Pairs close inner first: merged, an outer pair covers the pairs it
	// holds.
	return mergeRanges(out)
}

// mergeRanges sorts ranges by start and merges those that overlap.
func mergeRanges(out [][2]int) [][2]int {
	slices.SortFunc(out, func(a, b [2]int) int { return a[0] - b[0] })
	merged := out[:0]
	for _, r := range out {
		if n := len(merged); n > 0 && r[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], r[1])
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

// captureInners returns, as sorted ranges of body, each block a template
// captures into a variable, from its opening tag to its closing one: Nunjucks' and Jinja's `{% set
// name %}` … `{% endset %}` and Liquid's `{% capture name %}` … `{%
// endcapture %}` ('-' trims allowed). The page does not render it where it
// stands (Eleventy's docs capture a YAML example whose `---` lines read as
// 104 setext headings, then show it through `{{ codeBlock | highlight }}`),
// so a line in it written as a heading is no heading of the page. A block
// that nothing closes captures nothing; nor does an opening tag in code
// (code, the ranges of body's code blocks, or a code span on its line) or
// in a `{% raw %}` block, which shows the tag as written.
func captureInners(body []byte, code [][2]int) [][2]int {
	var out [][2]int
	spans := spanParity{body: body}
	for i := 0; ; {
		k := bytes.Index(body[i:], []byte("{%"))
		if k < 0 {
			return out
		}
		at := i + k
		end := bytes.Index(body[at+2:], []byte("%}"))
		if end < 0 {
			return out
		}
		tag := bytes.TrimSpace(bytes.Trim(body[at+2:at+2+end], "-"))
		i = at + 2 + end + 2
		name, rest, _ := bytes.Cut(tag, []byte(" "))
		switch string(name) {
		case "raw", "set", "capture":
		default:
			continue
		}
		if inCodeBlock(at, code) || spans.inSpan(at) {
			continue
		}
		var closer string
		switch string(name) {
		case "raw":
			e := bytes.Index(body[i:], []byte("endraw"))
			if e < 0 {
				return out // the rest is raw: no tag in it runs
			}
			i += e // what raw holds is shown as written
			continue
		case "set":
			if bytes.IndexByte(rest, '=') >= 0 {
				continue // {% set x = 1 %} captures nothing
			}
			closer = "endset"
		case "capture":
			closer = "endcapture"
		}
		for j := i; ; {
			c := bytes.Index(body[j:], []byte("{%"))
			if c < 0 {
				return out
			}
			e := bytes.Index(body[j+c+2:], []byte("%}"))
			if e < 0 {
				return out
			}
			if string(bytes.TrimSpace(bytes.Trim(body[j+c+2:j+c+2+e], "-"))) == closer {
				// From the opening tag: its line is the template's too
				// (a setext heading's text there, its underline inside).
				out = append(out, [2]int{at, j + c})
				i = j + c + 2 + e + 2
				break
			}
			j = j + c + 2 + e + 2
		}
	}
}

// inCodeBlock reports whether offset at is in one of the code ranges
// (sorted, disjoint).
func inCodeBlock(at int, code [][2]int) bool {
	k, _ := slices.BinarySearchFunc(code, at, func(r [2]int, at int) int { return r[1] - 1 - at })
	return k < len(code) && code[k][0] <= at
}

// spanParity tells, for offsets of body asked in increasing order, whether
// one is in a code span of its line, as CodeRanges reads a line's spans
// (found once a line, for the first offset asked in it).
type spanParity struct {
	body       []byte
	start, end int         // the line of the last offset asked
	code       *CodeRanges // its spans, offsets from start
}

func (s *spanParity) inSpan(at int) bool {
	if s.code == nil || at > s.end {
		s.start = bytes.LastIndexByte(s.body[:at], '\n') + 1
		s.end = len(s.body)
		if i := bytes.IndexByte(s.body[at:], '\n'); i >= 0 {
			s.end = at + i
		}
		s.code = &CodeRanges{}
		addSpans(s.code, s.body[s.start:s.end], 0)
	}
	return s.code.Holds(at - s.start)
}

// shortcodeName is the name that opens a shortcode tag's inside (`text`
// of `text yaml`, `docs/note` of `docs/note title="x"`).
func shortcodeName(tag []byte) []byte {
	n := bytes.IndexAny(tag, " \t\r\n")
	if n < 0 {
		return tag
	}
	return tag[:n]
}
