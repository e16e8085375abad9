package ingest

import (
	"strings"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store/fulltext"
)

// Passages cuts a record into the units the index holds: the text before
// the first heading (id = the document id), then each section's own text,
// from its heading line to its first subsection (id = its address). The
// document's title is put before each passage's text, except the passage
// headed by the title itself, so that a query naming the document
// and a topic ("private fields motivation") finds the section. With a nil
// body only the ids are filled, which is all a delete needs.
func Passages(rec *docir.Record, body []byte) []fulltext.Passage {
	var out []fulltext.Passage
	text := func(from, to int, title bool) string {
		if body == nil {
			return ""
		}
		if title {
			return rec.Title + "\n" + string(body[from:to])
		}
		return string(body[from:to])
	}
	first := int(rec.Size)
	if body != nil {
		first = len(body)
	}
	if len(rec.Sections) > 0 {
		first = rec.Sections[0].Start
	}
	start := min(rec.MarkdownStart, first)
	if body == nil || len(rec.Sections) == 0 || strings.TrimSpace(string(body[start:first])) != "" {
		out = append(out, fulltext.Passage{ID: rec.ID, Text: text(start, first, true)})
	}
	titled := false // the first section headed by the title already says it
	for _, s := range rec.Sections {
		own := !titled && s.Heading == rec.Title
		titled = titled || own
		out = append(out, fulltext.Passage{ID: rec.ID + "#" + s.Slug, Text: text(s.Start, s.OwnEnd, !own)})
	}
	return out
}
