package markdown

import (
	"bytes"
	"strings"
)

// ShortcodeTextParam reports whether a shortcode's parameter named name
// (lower-cased) holds what a reader sees on the page, as HTML's alt and
// title do: the text of a tooltip or a link ({{< glossary_tooltip
// text="Deployment" term_id="…" >}}, 940 times in the Kubernetes docs), a
// figure's caption, alt and title. A path, an id or a size is not text.
func ShortcodeTextParam(name string) bool {
	switch name {
	case "text", "title", "caption", "alt":
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
// spans) as what a reader sees of them, as passages read them: the values
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
		if bytes.Contains(l, []byte("{{<")) || bytes.Contains(l, []byte("{{%")) {
			found = true
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
		var closer string
		switch {
		case bytes.HasPrefix(line[i:], []byte("{{<")):
			closer = ">}}"
		case bytes.HasPrefix(line[i:], []byte("{{%")):
			closer = "%}}"
		default:
			continue
		}
		j := bytes.Index(line[i+3:], []byte(closer))
		if j < 0 {
			break
		}
		end := i + 3 + j + 3
		sc := string(line[i:end])
		inner := strings.TrimSpace(sc[3 : len(sc)-3])
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
