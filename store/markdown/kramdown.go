package markdown

import "bytes"

// ialIDs appends to out the ids of kramdown's block attribute lists in a
// paragraph's text t, which starts at offset base of the markdown body: a
// line that is an attribute block alone (`{: #v3-7-0}`, `{#id .c}`, read
// as attributeBlock reads one) right after a line of text or a heading
// gives the block before it that id, as kramdown does (Jekyll's history
// page names 370 release headings so); the id is an anchor of the section
// whose text holds it. One after a blank line names the block after it,
// which is left alone here.
func ialIDs(body []byte, t []byte, base int, out []foundAnchor) []foundAnchor {
	if !bytes.Contains(t, []byte("{")) {
		return out
	}
	eachLine(t, func(at int, line []byte) {
		line = bytes.TrimRight(line, " \t\r")
		trimmed := bytes.TrimLeft(line, " ")
		if len(trimmed) == 0 || trimmed[0] != '{' || len(line)-len(trimmed) > 3 || !afterText(body, base+at) {
			return
		}
		if i, attrs := attributeBlock(trimmed); i == 0 {
			for _, a := range attrs {
				if string(a.Name) != "id" {
					continue
				}
				if id := anchorID(a.Value); id != "" {
					out = append(out, foundAnchor{at: base + at, id: id, block: base + at})
				}
			}
		}
	})
	return out
}

// afterText reports whether the line before the one that holds offset at
// of body holds something (not blank; the first line has none before).
func afterText(body []byte, at int) bool {
	start := bytes.LastIndexByte(body[:at], '\n') + 1 // at's line
	if start == 0 {
		return false
	}
	prev := body[:start-1]
	return len(bytes.TrimSpace(prev[bytes.LastIndexByte(prev, '\n')+1:])) > 0
}
