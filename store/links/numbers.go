package links

import "strings"

// Unnumbered is a path segment without the number prefix a site orders
// its files and folders by ("20-load.md" is "load.md", "01_intro" is
// "intro", "3.setup" is "setup"): digits, then '-', '_' or '.', then at
// least one more byte; the segment as it is when it has none. Docusaurus
// leaves the prefix out of a page's id and URL, and so does svelte.dev
// (kit/20-core-concepts/20-load.md is /docs/kit/load).
func Unnumbered(seg string) string {
	i := 0
	for i < len(seg) && '0' <= seg[i] && seg[i] <= '9' {
		i++
	}
	if i == 0 || i+1 >= len(seg) || !strings.ContainsRune("-_.", rune(seg[i])) {
		return seg
	}
	return seg[i+1:]
}

// UnnumberedPath is rel ('/'-separated) with every segment Unnumbered.
func UnnumberedPath(rel string) string {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = Unnumbered(s)
	}
	return strings.Join(segs, "/")
}
