package markdown

import "bytes"

// blockIDs appends to out the Obsidian block id that ends the paragraph
// (or list item's text) t, which starts at offset base of the markdown
// body: a caret and an identifier of Latin letters, digits and '-' at the
// end of its last line, after a space or a tab, or alone on that line
// (Obsidian's help: " ^37066d" at the end of a paragraph; "^37066f" on a
// line of its own after a list, a quotation, a callout or a table), or
// right after an embed's "]]" (the help vault's own
// "![[version-history-collaboration.png]]^version-history-image", which
// another note embeds by it). The
// anchor is "^" and the identifier, as a link writes it after '#'
// ([[Note#^37066d]]): an anchor of the section whose text holds it, which
// no heading's slug can be (a slug holds no caret). A block has one id,
// the last; one inside a code span is not at the end of its line.
func blockIDs(t []byte, base int, out []foundAnchor) []foundAnchor {
	t = bytes.TrimRight(t, " \t\r\n")
	line := t[bytes.LastIndexByte(t, '\n')+1:]
	caret := bytes.LastIndexByte(line, '^')
	if caret < 0 || !isBlockID(line[caret+1:]) {
		return out
	}
	if before := line[:caret]; len(before) > 0 && !bytes.HasSuffix(before, []byte(" ")) && !bytes.HasSuffix(before, []byte("\t")) && !bytes.HasSuffix(before, []byte("]]")) {
		return out // "2^10", "x^y": not an id
	}
	at := len(t) - len(line) + caret
	return append(out, foundAnchor{at: base + at, id: string(t[at:]), block: base + at, blockID: true})
}

// isBlockID says s is an Obsidian block identifier: one or more Latin
// letters, digits and '-'.
func isBlockID(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	for _, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
