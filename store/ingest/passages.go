package ingest

import (
	"fmt"
	"strings"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store/fulltext"
)

// DefaultFrontMatter is the front-matter fields indexed by default: a
// documentation site keeps a page's title and summary there, often with no
// H1 and little prose.
var DefaultFrontMatter = []string{"title", "description", "summary", "keywords", "tags", "aliases"}

// HeadSuffix ends the id of a document's head passage (its title and front
// matter): "<doc id>#", a section address with an empty slug. A hit on it
// names the document's lead, as the lead passage does.
const HeadSuffix = "#"

// PassageConfig says what of a document the index holds beside its
// markdown. The zero value indexes DefaultFrontMatter.
type PassageConfig struct {
	// FrontMatter names the front-matter fields whose values are indexed
	// with the document's lead passage (case-sensitive keys; strings,
	// numbers and lists of them; other values are skipped). nil means
	// DefaultFrontMatter; an empty non-nil list indexes none.
	FrontMatter []string
}

func (c PassageConfig) fields() []string {
	if c.FrontMatter == nil {
		return DefaultFrontMatter
	}
	return c.FrontMatter
}

// Passages cuts a record into the units the index holds with the default
// PassageConfig.
func Passages(rec *docir.Record, body []byte) []fulltext.Passage {
	return PassageConfig{}.Passages(rec, body)
}

// Passages cuts a record into the units the index holds:
//
//   - the head passage (id = the document id + HeadSuffix): the document's
//     title and the configured front-matter values, when there are any;
//     kept apart from the text so that a short title or description is a
//     short passage, which tf-idf scores high for a query that equals it;
//   - the lead passage (id = the document id): the title and the text
//     before the first heading, when there is any (always, for a document
//     without headings);
//   - each section's own text, from its heading line to its first
//     subsection (id = its address).
//
// The document's title is put before each section's text, except the
// section headed by the title itself, so that a query naming the document
// and a topic ("private fields motivation") finds the section. Markup that
// is not prose (see Prose) is blanked. With a nil body only the ids are
// filled, which is all a delete needs.
func (c PassageConfig) Passages(rec *docir.Record, body []byte) []fulltext.Passage {
	var out []fulltext.Passage
	first := int(rec.Size)
	if body != nil {
		first = len(body)
	}
	if len(rec.Sections) > 0 {
		first = rec.Sections[0].Start
	}
	start := min(rec.MarkdownStart, first)
	if body == nil {
		out = append(out, fulltext.Passage{ID: rec.ID}, fulltext.Passage{ID: rec.ID + HeadSuffix})
	} else {
		lead := Prose(string(body[start:first]), true)
		if len(rec.Sections) == 0 || strings.TrimSpace(lead) != "" {
			out = append(out, fulltext.Passage{ID: rec.ID, Text: joinText(rec.Title, lead)})
		}
		if fm := c.frontMatterText(rec); fm != "" {
			out = append(out, fulltext.Passage{ID: rec.ID + HeadSuffix, Text: joinText(rec.Title, fm)})
		}
	}
	titled := false // the first section headed by the title already says it
	for _, s := range rec.Sections {
		own := !titled && s.Heading == rec.Title
		titled = titled || own
		p := fulltext.Passage{ID: rec.ID + "#" + s.Slug}
		if body != nil {
			text := Prose(string(body[s.Start:s.OwnEnd]), false)
			if own {
				p.Text = text
			} else {
				p.Text = joinText(rec.Title, text)
			}
		}
		out = append(out, p)
	}
	return out
}

func joinText(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p)
	}
	return b.String()
}

// frontMatterText is the configured front-matter values of rec, one line
// each, in the configured order.
func (c PassageConfig) frontMatterText(rec *docir.Record) string {
	if len(rec.Fields) == 0 {
		return ""
	}
	var lines []string
	for _, k := range c.fields() {
		lines = appendValues(lines, rec.Fields[k])
	}
	return strings.Join(lines, "\n")
}

// Names returns what names rec as a whole: its title and the configured
// front-matter values that are single strings (a description, a summary).
// A query equal to one of them asks for the document itself.
func (c PassageConfig) Names(rec *docir.Record) []string {
	out := []string{rec.Title}
	for _, k := range c.fields() {
		if s, ok := rec.Fields[k].(string); ok && strings.TrimSpace(s) != "" && s != rec.Title {
			out = append(out, Prose(s, false))
		}
	}
	return out
}

// FrontMatterProse returns the front-matter values of rec that read as
// prose (a configured field whose value is a string of three words or more,
// other than the title), for a snippet to show when the document's lead
// matched.
func (c PassageConfig) FrontMatterProse(rec *docir.Record) string {
	var out []string
	for _, k := range c.fields() {
		s, ok := rec.Fields[k].(string)
		s = strings.TrimSpace(Prose(s, false))
		if ok && s != rec.Title && len(strings.Fields(s)) >= 3 {
			out = append(out, s)
		}
	}
	return strings.Join(out, " ")
}

func appendValues(lines []string, v any) []string {
	switch v := v.(type) {
	case string:
		if s := strings.TrimSpace(v); s != "" {
			lines = append(lines, Prose(s, false))
		}
	case int, int64, uint64, float64, bool:
		lines = append(lines, fmt.Sprint(v))
	case []any:
		for _, e := range v {
			if _, nested := e.([]any); !nested {
				lines = appendValues(lines, e)
			}
		}
	case []string:
		for _, e := range v {
			lines = appendValues(lines, e)
		}
	}
	return lines
}

// Prose returns text with the markup that is not prose blanked out (each of
// its bytes a space, newlines kept, so offsets still line up): HTML
// comments (`<!-- … -->`), template shortcodes (`{{< … >}}`, `{{% … %}}`;
// the text between an opening and a closing shortcode is kept), and, when
// lead is true and text opens with a `+++` line, a TOML front-matter block
// through its closing `+++` line. An unterminated comment or shortcode
// runs to the end of the text.
func Prose(text string, lead bool) string {
	if !strings.Contains(text, "<!--") && !strings.Contains(text, "{{") && !(lead && strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), "+++")) {
		return text
	}
	b := []byte(text)
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	if lead {
		trimmed := len(text) - len(strings.TrimLeft(text, " \t\r\n"))
		if rest := text[trimmed:]; strings.HasPrefix(rest, "+++\n") || strings.HasPrefix(rest, "+++\r\n") {
			end := len(text)
			if i := strings.Index(rest[3:], "\n+++"); i >= 0 {
				end = trimmed + 3 + i + len("\n+++")
			}
			blank(trimmed, end)
		}
	}
	for i := 0; i < len(text); {
		var closer string
		switch {
		case strings.HasPrefix(text[i:], "<!--"):
			closer = "-->"
		case strings.HasPrefix(text[i:], "{{<"):
			closer = ">}}"
		case strings.HasPrefix(text[i:], "{{%"):
			closer = "%}}"
		default:
			i++
			continue
		}
		end := len(text)
		if j := strings.Index(text[i+3:], closer); j >= 0 {
			end = i + 3 + j + len(closer)
		}
		blank(i, end)
		i = end
	}
	return string(b)
}
