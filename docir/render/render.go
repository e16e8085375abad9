// Package render writes deep reads as the markdown text people and models
// read: a document or section as written, under one header comment that
// names it, and a batch's documents and misses. It is the one renderer of
// a document: `docir get --format text` and the MCP get tool's text
// content both write through it, so a section reads the same on a
// terminal and in an agent's context. It writes only docir's own shapes
// and knows nothing of transports, stores or ranking.
package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/docir/docir/docir"
)

// Document writes d as written, after a header comment with its address
// and title, its path when the id does not say it (see PathOfID), and its
// store when it is a peer's: `<!-- docir: a#b | A | src/a.md | from team -->`.
// The generation and the rest are in the JSON. The body ends with a
// newline.
//
// A section that ends its document ends with the document's link
// reference definitions, which markdown writes at the end for every
// section: a section's text leaves out those its own text does not use,
// and the header says how many (`| 38 link definitions of other sections
// left out`). The JSON's body has them all; a whole document is written
// whole. A section's Definitions (those of its document, outside it, that
// its text uses) follow its body after a blank line.
func Document(w io.Writer, d *docir.Document) error {
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- docir: %s | %s", headerField(d.Address), headerField(d.Title))
	if !PathOfID(d.ID, d.Path) {
		fmt.Fprintf(&b, " | %s", headerField(d.Path))
	}
	if d.Store != "" && d.Store != docir.StoreLocal {
		fmt.Fprintf(&b, " | from %s", headerField(d.Store))
	}
	body := d.Body
	if d.Section != nil {
		var left int
		if body, left = UsedDefinitions(body); left > 0 {
			fmt.Fprintf(&b, " | %d link definition%s of other sections left out", left, plural(left))
		}
	}
	b.WriteString(" -->\n")
	b.WriteString(body)
	if !strings.HasSuffix(body, "\n") {
		b.WriteString("\n")
	}
	if d.Definitions != "" {
		// The definitions the section uses, from elsewhere in its
		// document: its reference links' URLs.
		b.WriteString("\n")
		b.WriteString(d.Definitions)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// headerField is s as a field of the header comment: one line (tabs, CRs
// and line feeds made spaces) that cannot end the comment ("-->" is
// written "-- >"). A title is front matter, and a peer's is outside input.
func headerField(s string) string {
	return strings.ReplaceAll(docir.OneLine(s), "-->", "-- >")
}

// Separator stands between two documents of a batch, and before its
// misses: a markdown thematic break.
const Separator = "\n---\n\n"

// Get writes a batch read: its documents in request order, then the
// addresses that did not resolve, each with its reason and suggestions.
// Warnings are the caller's (a terminal prints them on stderr).
func Get(w io.Writer, r *docir.GetResult) error {
	var b strings.Builder
	for i := range r.Documents {
		if i > 0 {
			b.WriteString(Separator)
		}
		if err := Document(&b, &r.Documents[i]); err != nil {
			return err
		}
	}
	if len(r.Documents) == 0 && len(r.Missing) == 0 {
		b.WriteString("No addresses asked, none read.\n")
	}
	if len(r.Missing) > 0 {
		if len(r.Documents) > 0 {
			b.WriteString(Separator)
		}
		b.WriteString("Not found:\n")
		for _, m := range r.Missing {
			fmt.Fprintf(&b, "- `%s`: %s", m.Address, m.Reason)
			if len(m.Suggestions) > 0 {
				fmt.Fprintf(&b, " (did you mean `%s`?)", strings.Join(m.Suggestions, "`, `"))
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// PathOfID reports whether path is the file an id is derived from (the id
// with .md, or a folder's index), which the address then already says.
func PathOfID(id, path string) bool {
	p, ok := strings.CutSuffix(path, ".md")
	if !ok {
		return false
	}
	return p == id || p == id+"/index" || p == id+"/_index" || p == id+"/README"
}
