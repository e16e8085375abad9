package docir

import (
	"net/url"
	"slices"
	"strings"

	"github.com/docir/docir/address"
)

// Record is the IR of one document: everything docir knows about it except
// its bytes, which the store keeps beside it.
type Record struct {
	ID     string         `json:"id"`
	Title  string         `json:"title"`
	Path   string         `json:"path"`             // relative to its source root, '/'-separated
	Fields map[string]any `json:"fields,omitempty"` // front matter, as YAML decoded it
	Size   int64          `json:"size"`             // bytes of the file
	Digest string         `json:"digest"`           // hex sha256 of the file's bytes
	// BodyStart is where the document's body starts in the file: 3 when the
	// file begins with a UTF-8 byte-order mark, else 0. Front matter is part
	// of the body.
	BodyStart int `json:"body_start,omitempty"`
	// MarkdownStart is where the markdown starts: past the front matter, if
	// any, else BodyStart.
	MarkdownStart int       `json:"markdown_start,omitempty"`
	Sections      []Section `json:"sections"`
	// Links are the links before the first heading; each section lists
	// those of its own text. Anchors and Terms likewise.
	Links     []LinkRef `json:"links,omitempty"`
	Anchors   []string  `json:"anchors,omitempty"`
	Terms     []string  `json:"terms,omitempty"`
	ListTerms []string  `json:"list_terms,omitempty"`
	Labels    []string  `json:"labels,omitempty"`
}

// Section is one heading of a document and the text it governs.
//
// Start..End is the section with its subsections: from the first byte of its
// heading line to the first byte of the next heading of the same or a higher
// level (or the end of the file); a stacked heading, with nothing under it
// and right above a heading of its own level, ends where that one ends (it
// heads the same text: store/markdown Stacked). Start..OwnEnd is the part before its first
// subsection. Offsets are into the file's bytes; lines are 1-based and EndLine
// is the last line the section covers.
type Section struct {
	Slug    string `json:"slug"`
	Heading string `json:"heading"`
	Level   int    `json:"level"`
	Start   int    `json:"start"`
	OwnEnd  int    `json:"own_end"`
	End     int    `json:"end"`
	Line    int    `json:"line"`
	EndLine int    `json:"end_line"`
	// Links are the links in the section's own text (Start..OwnEnd), in
	// order.
	Links []LinkRef `json:"links,omitempty"`
	// Anchors are the other ids its own text defines: in HTML (id="…",
	// name="…"), and the slugs of the headings in its block quotes and
	// list items (which make no section of their own); a link's #anchor
	// and an address's heading part may name one.
	Anchors []string `json:"anchors,omitempty"`
	// Labels are those of its Anchors that are MyST target labels
	// (`(label)=` before its heading): a MyST page's link names one
	// alone, wherever it is (`[text](label)`), as Sphinx resolves it.
	Labels []string `json:"labels,omitempty"`
	// Terms are the ids of the definition terms of its own text (a line
	// followed by one that starts ": "), slugged as Hugo's
	// autoDefinitionTermID does, in one sequence with the headings'
	// slugs; anchors only where the link rules say so.
	Terms []string `json:"terms,omitempty"`
	// ListTerms are the terms of the definition lists of its own text
	// written as MDN writes them (`- term`, then `  - : definition`),
	// as text, in order: MDN's renderer gives each an id of its own
	// (store/links MDNAnchors, after the headings'); anchors only where
	// the link rules say so.
	ListTerms []string `json:"list_terms,omitempty"`
}

// LeadSpan is where r's lead lies in its body of n bytes: from where its
// markdown starts (past the front matter) to its first heading, or to the
// end when it has none.
func (r *Record) LeadSpan(n int) (from, to int) {
	from, to = min(r.MarkdownStart, n), n
	if len(r.Sections) > 0 {
		to = min(r.Sections[0].Start, n)
	}
	return from, to
}

// FindSection resolves the heading part of an address in r: a section whose
// slug is exactly heading, else one whose heading text is exactly heading
// (svelte.dev's anchor `#:global` names the section headed ":global", slug
// global-1, not the one headed ":global(...)", slug global), else one
// whose slug is the slug of heading read as
// heading text (so "Guide-level explanation" finds "guide-level-explanation"),
// else one whose heading text has that slug (a section whose author gave it
// an id, `## Metadata {#metadata-schema}`, is found by "Metadata" too);
// else the section one of whose Anchors is heading (an HTML id, a heading
// in a block quote); else one whose slug is the slug of heading and
// trailing '-'s (a heading that ends in an emoji); else one whose slug
// with '-' for each '_' is heading's slug (Zola's anchors); else the same two slug
// passes for heading with its
// '_' emphasis delimiters taken off (address.Unemphasized: heading text
// copied from the markdown); else, when heading is percent-encoded (a URL's fragment as a browser
// copies it, "%C3%BCber-uns"), the same for its decoded text.
func (r *Record) FindSection(heading string) (Section, bool) {
	for _, s := range r.Sections {
		if s.Slug == heading {
			return s, true
		}
	}
	for _, s := range r.Sections {
		if s.Heading == heading {
			return s, true
		}
	}
	slug := address.Slug(heading)
	for _, s := range r.Sections {
		if s.Slug == slug {
			return s, true
		}
	}
	for _, s := range r.Sections {
		if address.Slug(s.Heading) == slug {
			return s, true
		}
	}
	for _, s := range r.Sections {
		if slices.Contains(s.Anchors, heading) {
			return s, true
		}
	}
	// A heading in a block quote or a list is an anchor, not a section:
	// its text finds it as a section's does ("The Stack and the Heap" of
	// the Rust book's "> ### The Stack and the Heap").
	for _, s := range r.Sections {
		if slices.Contains(s.Anchors, slug) {
			return s, true
		}
	}
	// A heading that ends in what a reader cannot type ("Context 🤔",
	// slug context-; "server.host <Badge/>") is found by its words, and
	// so is one that writes its own id ("注入别名 \\* {#injection-aliasing}").
	for _, s := range r.Sections {
		for _, cand := range [...]string{s.Slug, address.Slug(s.Heading)} {
			if t := strings.TrimRight(cand, "-"); t != cand && t == slug && t != "" {
				return s, true
			}
		}
	}
	// An anchor as Zola and Blackfriday write it, '-' for '_' (get-page
	// for the slug get_page of "`get_page`").
	if strings.Contains(slug, "-") {
		for _, s := range r.Sections {
			if strings.Contains(s.Slug, "_") && strings.ReplaceAll(s.Slug, "_", "-") == slug {
				return s, true
			}
		}
	}
	if u := address.Unemphasized(heading); u != heading {
		// Heading text copied from the markdown: "_macOS_" is shown,
		// and slugged, as "macOS".
		us := address.Slug(u)
		for _, s := range r.Sections {
			if s.Slug == us || address.Slug(s.Heading) == us {
				return s, true
			}
		}
	}
	if strings.Contains(heading, "%") {
		// Each decoding is shorter than what it decodes: this ends.
		if d, err := url.PathUnescape(heading); err == nil && d != heading && d != "" {
			return r.FindSection(address.NFC(d))
		}
	}
	return Section{}, false
}
