package markdown

// blockIDs appends to out the Obsidian block id that ends the paragraph
// (or list item's text) t, which starts at offset base of the markdown
// body (BlockIDStart). The anchor is "^" and the identifier, as a link
// writes it after '#' ([[Note#^37066d]]): an anchor of the section whose
// text holds it, which no heading's slug can be (a slug holds no caret).
func blockIDs(t []byte, base int, out []foundAnchor) []foundAnchor {
	at := BlockIDStart(t)
	if at < 0 {
		return out
	}
	end := at + 1
	for end < len(t) && blockIDByte(t[end]) {
		end++
	}
	return append(out, foundAnchor{at: base + at, id: string(t[at:end]), block: base + at, blockID: true})
}

// BlockIDStart is the offset in t (a paragraph, or a list item's text)
// of the caret of the Obsidian block id that ends it, or -1 for none: a
// caret and an identifier of Latin letters, digits and '-' at the end of
// its last line (white space after it aside), after a space or a tab, or
// alone on that line (Obsidian's help: " ^37066d" at the end of a
// paragraph; "^37066f" on a line of its own after a list, a quotation, a
// callout or a table), or right after an embed's "]]" (the help vault's
// own "![[version-history-collaboration.png]]^version-history-image",
// which another note embeds by it). "2^10" and "x^y" are none. A block
// has one id, the last; one inside a code span is not at the end of its
// line. The index (blockIDs) and a snippet (workspace/rank, which hides
// it) read it by this one rule.
func BlockIDStart[T ~string | ~[]byte](t T) int {
	end := len(t)
	for end > 0 && (t[end-1] == ' ' || t[end-1] == '\t' || t[end-1] == '\r' || t[end-1] == '\n') {
		end--
	}
	caret := end - 1
	for caret >= 0 && blockIDByte(t[caret]) {
		caret--
	}
	if caret < 0 || t[caret] != '^' || caret+1 == end {
		return -1
	}
	if caret > 0 {
		switch b := t[caret-1]; {
		case b == ' ' || b == '\t' || b == '\n' || b == '\r':
		case b == ']' && caret >= 2 && t[caret-2] == ']':
		default:
			return -1 // "2^10", "x^y": not an id
		}
	}
	return caret
}

// blockIDByte says c may stand in an Obsidian block identifier: a Latin
// letter, a digit or '-'.
func blockIDByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-'
}
