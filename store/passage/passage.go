// Package passage owns the passage model: how a document's record and body
// are cut into the units the full-text index holds (its head, its lead and
// each section's own text, with where each sits), the text each carries
// (Prose: markup that is not prose blanked), and the document's names. The
// writer (store/ingest) indexes what it cuts; the ranking (workspace/rank)
// cuts the same passages again to score and quote them, so neither depends
// on the other.
package passage

import (
	"bytes"
	"cmp"
	"fmt"
	"html"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/query"
	"github.com/docir/docir/store/fulltext"
	"github.com/docir/docir/store/markdown"
)

// DefaultFrontMatter is the front-matter fields indexed by default: a
// documentation site keeps a page's title and summary there, often with no
// H1 and little prose, and some sites under names of their own (VS Code's
// PageTitle and MetaDescription, Hugo's linkTitle, seo_title): so also
// every field whose name ends in "title" or "description" (see
// SuffixPattern).
var DefaultFrontMatter = []string{"title", "description", "summary", "keywords", "tags", "aliases", "*title", "*description"}

// SuffixPattern opens a front-matter entry that names fields by the end of
// their name: "*title" is every field whose name, in lower case, ends in
// "title" (PageTitle, linkTitle, subtitle), but the fields the list names
// exactly, which keep their place.
const SuffixPattern = "*"

// HeadSuffix ends the id of a document's head passage (its title and front
// matter): "<doc id>#", a section address with an empty slug. A hit on it
// names the document's lead, as the lead passage does.
const HeadSuffix = "#"

// Config says what of a document the index holds beside its
// markdown. The zero value indexes DefaultFrontMatter.
type Config struct {
	// FrontMatter names the front-matter fields whose values are indexed
	// with the document's lead passage (case-sensitive keys, or a
	// SuffixPattern; strings, numbers and lists of them; other values are
	// skipped). nil means DefaultFrontMatter; an empty non-nil list
	// indexes none.
	FrontMatter []string
}

// Fields is the front-matter fields the config indexes: FrontMatter, or
// DefaultFrontMatter when it is nil.
func (c Config) Fields() []string {
	if c.FrontMatter == nil {
		return DefaultFrontMatter
	}
	return c.FrontMatter
}

// Passages cuts a record into the units the index holds with the default
// Config.
func Passages(rec *docir.Record, body []byte) []fulltext.Passage {
	return Config{}.Passages(rec, body)
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
// is not prose (see Prose) is blanked. Each passage's Head is where it
// sits: the document's title and path, and for a section the headings
// above it and its own (see headingPath). With a nil body only the ids are
// filled, which is all a delete needs. The document's names (see Names) go
// with its head passage, or its first passage when it has no head. A
// book's table of contents (TableOfContents) has none: it is not searched.
func (c Config) Passages(rec *docir.Record, body []byte) []fulltext.Passage {
	if body == nil {
		out := []fulltext.Passage{{ID: rec.ID}, {ID: rec.ID + HeadSuffix}}
		for _, s := range rec.Sections {
			out = append(out, fulltext.Passage{ID: rec.ID + "#" + s.Slug})
		}
		return out
	}
	if TableOfContents(rec, body) {
		return nil
	}
	var out []fulltext.Passage
	w := bodyWindow{b: body}
	if p, ok := c.lead(rec, w); ok {
		out = append(out, p)
	}
	head := -1 // the passage that carries the document's names
	if p, ok := c.head(rec); ok {
		head = len(out)
		out = append(out, p)
	}
	titled := false // the first section headed by the title already says it
	parent := parents(rec.Sections)
	for i := range rec.Sections {
		own := !titled && rec.Sections[i].Heading == rec.Title
		titled = titled || own
		out = append(out, c.section(rec, w, i, own, parent))
	}
	if len(out) > 0 {
		head = max(head, 0)
		out[head].Names = c.Names(rec)
		if f := FileName(rec); f != "" && f != rec.Title { // a page without a title has its file's name as one
			out[head].Names = append(out[head].Names, f)
		}
	}
	return out
}

// Passage is the passage of rec with id as Passages cuts it (without the
// document's names), built alone: false when rec has none with that id.
func (c Config) Passage(rec *docir.Record, body []byte, id string) (fulltext.Passage, bool) {
	return c.PassageIn(rec, body, 0, id)
}

// PassageSpan is the bytes of the body the passage with id is cut from,
// [from, to) (to < 0: the body's end); false when rec has no such passage.
// The head reads none (from = to = 0).
func (c Config) PassageSpan(rec *docir.Record, id string) (from, to int, ok bool) {
	switch {
	case id == rec.ID:
		if len(rec.Sections) == 0 {
			return rec.MarkdownStart, -1, true
		}
		first := rec.Sections[0].Start
		return min(rec.MarkdownStart, first), first, true
	case id == rec.ID+HeadSuffix:
		return 0, 0, true
	}
	return spanOf(rec, id, c.sectionOf)
}

// spanOf is PassageSpan of a section's passage, found by find.
func spanOf(rec *docir.Record, id string, find func(*docir.Record, string) (int, bool, bool)) (from, to int, ok bool) {
	i, _, ok := find(rec, id)
	if !ok {
		return 0, 0, false
	}
	return rec.Sections[i].Start, rec.Sections[i].OwnEnd, true
}

// PassageIn is Passage with the body's bytes [from, from+len(window)) at
// hand, not all of it: window is the body from from on, at least as far as
// PassageSpan says the passage reads (clipped to the body).
func (c Config) PassageIn(rec *docir.Record, window []byte, from int, id string) (fulltext.Passage, bool) {
	return c.passageIn(rec, window, from, id, nil)
}

// passageIn is PassageIn with its section found by x, or by a scan when x
// is nil.
func (c Config) passageIn(rec *docir.Record, window []byte, from int, id string, x *Cutter) (fulltext.Passage, bool) {
	find, parent := c.sectionOf, []int32(nil)
	if x != nil {
		find, parent = x.sectionOf, x.parent
	}
	w := bodyWindow{b: window, from: from}
	switch {
	case id == rec.ID:
		return c.lead(rec, w)
	case id == rec.ID+HeadSuffix:
		return c.head(rec)
	}
	i, own, ok := find(rec, id)
	if !ok {
		return fulltext.Passage{}, false
	}
	return c.section(rec, w, i, own, parent), true
}

// sectionOf finds the section whose address is id (the first, should two
// share a slug), and whether it is headed by the document's title (see
// Passages): a scan of the sections, for a single passage; Cutter finds
// it in O(log sections) for many.
func (c Config) sectionOf(rec *docir.Record, id string) (i int, own, ok bool) {
	slug, ok := strings.CutPrefix(id, rec.ID+"#")
	if !ok {
		return 0, false, false
	}
	titled := false
	for i, s := range rec.Sections {
		own := !titled && s.Heading == rec.Title
		titled = titled || own
		if s.Slug == slug {
			return i, own, true
		}
	}
	return 0, false, false
}

// Cutter cuts many passages of one record as Config's Passage,
// PassageSpan and PassageIn do, each finding its section in O(log
// sections) rather than by a scan of them: a reader that cuts every
// passage of a document of n sections does O(n log n) work, not O(n²) (a
// document of 9,999 headings took 50 million slug comparisons for each
// read), and each section's headings above it by its parent, not by a
// scan back (O(n²) for a document of n sections all of level 2). It
// holds 8 bytes per section beside the record, which it reads and must
// not outlive.
type Cutter struct {
	c      Config
	rec    *docir.Record
	bySlug []int32 // the sections' indexes sorted by slug, then index
	parent []int32 // see parents
	titled int     // the first section headed by the title, or -1
}

// Cutter indexes rec's sections by slug for cutting its passages.
func (c Config) Cutter(rec *docir.Record) *Cutter {
	x := &Cutter{c: c, rec: rec, bySlug: make([]int32, len(rec.Sections)), parent: parents(rec.Sections), titled: -1}
	for i := range x.bySlug {
		x.bySlug[i] = int32(i)
		if x.titled < 0 && rec.Sections[i].Heading == rec.Title {
			x.titled = i
		}
	}
	secs := rec.Sections
	slices.SortFunc(x.bySlug, func(a, b int32) int {
		return cmp.Or(strings.Compare(secs[a].Slug, secs[b].Slug), cmp.Compare(a, b))
	})
	return x
}

// Passage is Config.Passage of the Cutter's record.
func (x *Cutter) Passage(body []byte, id string) (fulltext.Passage, bool) {
	return x.c.passageIn(x.rec, body, 0, id, x)
}

// PassageSpan is Config.PassageSpan of the Cutter's record.
func (x *Cutter) PassageSpan(id string) (from, to int, ok bool) {
	switch id {
	case x.rec.ID, x.rec.ID + HeadSuffix:
		return x.c.PassageSpan(x.rec, id) // reads no section
	}
	return spanOf(x.rec, id, x.sectionOf)
}

// PassageIn is Config.PassageIn of the Cutter's record.
func (x *Cutter) PassageIn(window []byte, from int, id string) (fulltext.Passage, bool) {
	return x.c.passageIn(x.rec, window, from, id, x)
}

// Section is the index of the first section of the record with slug.
func (x *Cutter) Section(slug string) (int, bool) {
	secs := x.rec.Sections
	k := sort.Search(len(x.bySlug), func(k int) bool { return secs[x.bySlug[k]].Slug >= slug })
	if k == len(x.bySlug) || secs[x.bySlug[k]].Slug != slug {
		return 0, false
	}
	return int(x.bySlug[k]), true
}

// sectionOf is Config.sectionOf by the index (rec is x's record).
func (x *Cutter) sectionOf(rec *docir.Record, id string) (i int, own, ok bool) {
	slug, ok := strings.CutPrefix(id, rec.ID+"#")
	if !ok {
		return 0, false, false
	}
	if i, ok = x.Section(slug); !ok {
		return 0, false, false
	}
	return i, i == x.titled, true
}

// bodyWindow is a document's body from offset from on, as far as b goes:
// the whole body when from is 0 and b is all of it.
type bodyWindow struct {
	b    []byte
	from int
}

// slice is the body's text [a, b), clipped to what the window holds (and
// to the body: a window ends where the body does).
func (w bodyWindow) slice(a, b int) string {
	a = min(max(a-w.from, 0), len(w.b))
	b = min(max(b-w.from, a), len(w.b))
	return string(w.b[a:b])
}

// end is the offset of the window's end in the body.
func (w bodyWindow) end() int { return w.from + len(w.b) }

// lead is the document's lead passage, when it has one.
func (c Config) lead(rec *docir.Record, body bodyWindow) (fulltext.Passage, bool) {
	first := body.end()
	if len(rec.Sections) > 0 {
		first = min(rec.Sections[0].Start, first)
	}
	start := min(rec.MarkdownStart, first)
	lead := Prose(body.slice(start, first), true)
	if len(rec.Sections) > 0 && strings.TrimSpace(lead) == "" {
		return fulltext.Passage{}, false
	}
	return fulltext.Passage{ID: rec.ID, Text: joinText(rec.Title, lead), Head: headingPath(rec, -1, nil)}, true
}

// head is the document's head passage, when it has front matter to index.
func (c Config) head(rec *docir.Record) (fulltext.Passage, bool) {
	fm := c.frontMatterText(rec)
	if fm == "" {
		return fulltext.Passage{}, false
	}
	return fulltext.Passage{ID: rec.ID + HeadSuffix, Text: joinText(rec.Title, fm), Head: headingPath(rec, -1, nil)}, true
}

// section is the passage of section i; own when it is headed by the
// document's title. parent is parents(rec.Sections), or nil (see
// headingPath).
func (c Config) section(rec *docir.Record, body bodyWindow, i int, own bool, parent []int32) fulltext.Passage {
	s := rec.Sections[i]
	text := Prose(body.slice(s.Start, s.OwnEnd), false)
	if !own && !((s.OwnEnd == s.End || markdown.Stacked(rec.Sections, i)) && QuietPassage(text)) {
		text = joinText(rec.Title, text)
	}
	p := fulltext.Passage{ID: rec.ID + "#" + s.Slug, Text: text, Head: headingPath(rec, i, parent)}
	if QuestionHeading(s.Heading) {
		p.Names = []string{s.Heading}
	}
	return p
}

// SaysSomething is a quick sufficient test that text is not blank as
// prose (see Prose), without blanking it: a line of it opens with a letter
// or a digit, and nothing in it can open markup that runs over lines (a
// comment, a tag, a script block: none without a '<'; a shortcode, "{{<"
// or "{{%"; an Obsidian comment, "%%"; an MDX comment, "{/*", which runs
// to the text's end when nothing closes it; a TOML front matter block, which
// opens with "+++"): markup that opens and closes on one line never
// blanks a line's first letter.
// False says only that Prose must tell.
func SaysSomething(text string) bool {
	if strings.Contains(text, "<") || strings.Contains(text, "{{<") || strings.Contains(text, "{{%") || strings.Contains(text, "%%") ||
		strings.Contains(text, jsxCommentOpen) || strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), "+++") {
		return false // markup that may run over lines (an MDX comment too), or a lead's TOML front matter
	}
	for line := range strings.Lines(text) {
		r, _ := utf8.DecodeRuneInString(strings.TrimLeft(line, " \t"))
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// QuietPassage reports, of the text of a passage of a section without
// subsections as Passages cuts it, whether the section says nothing past
// its heading: its own text past its heading line (two lines for a setext
// heading) is blank as prose (see Prose). The footer every generated page
// of a CLI reference ends with ("###### Auto generated by spf13/cobra on
// 24-Jul-2026"), a heading left for later. A read of it returns its
// heading alone, so a plan never reads it, and its passage does not carry
// the document's title (see section): the title and a heading of a few
// words made it the document's shortest passage, and so its best for any
// query of the title's words. Such a passage is blank past its heading
// line; any other carries the section's prose past its heading, or the
// title's line before its heading's.
func QuietPassage(text string) bool {
	lines := 1
	if first, _, _ := strings.Cut(text, "\n"); !markdown.ATXHeadingLine([]byte(first)) {
		lines = 2
	}
	rest := text
	for range lines {
		_, rest, _ = strings.Cut(rest, "\n")
	}
	return strings.TrimSpace(rest) == ""
}

// QuestionHeading reports whether heading is written as a question of two
// words or more ("What is Prometheus?", "How do I set up an SSH
// client?"): a FAQ's entry, which says what a reader asks as the reader
// would type it. Such a heading is a name of its section (see
// Passage.Names): a query equal to it names the section, as a query
// equal to a title names a page, however common its words.
func QuestionHeading(heading string) bool {
	h := strings.TrimSpace(heading)
	return strings.HasSuffix(h, "?") && len(strings.Fields(h)) >= 2
}

// headingPath is where a passage sits in its document, as a reader sees
// it: the document's title and path (its id, whose words name it too, as
// in "configuration/front-matter"), and for section i the headings above
// it, outermost first, and its own; -1 for the lead and the head. The
// headings above are those of its parent, its parent's parent... (see
// parents) up to one of level 1; parent is parents(rec.Sections), or nil
// to find each by a scan back.
func headingPath(rec *docir.Record, i int, parent []int32) string {
	parts := []string{rec.Title, rec.ID}
	if i >= 0 {
		var above []string
		level := rec.Sections[i].Level
		up := func(j int) int { // the nearest section before j of a lower level than level, or -1
			if parent != nil {
				return int(parent[j])
			}
			for j--; j >= 0 && rec.Sections[j].Level >= level; j-- {
			}
			return j
		}
		for j := up(i); j >= 0 && level > 1; j = up(j) {
			s := rec.Sections[j]
			if s.Heading != rec.Title {
				above = append(above, s.Heading)
			}
			level = s.Level
		}
		for j := len(above) - 1; j >= 0; j-- {
			parts = append(parts, above[j])
		}
		parts = append(parts, rec.Sections[i].Heading)
	}
	return strings.Join(parts, "\n")
}

// parents is, for each section, the nearest section before it of a lower
// level (its parent), or -1: one pass, with a stack of the sections whose
// levels rise.
func parents(secs []docir.Section) []int32 {
	out := make([]int32, len(secs))
	var stack []int32
	for i, s := range secs {
		for len(stack) > 0 && secs[stack[len(stack)-1]].Level >= s.Level {
			stack = stack[:len(stack)-1]
		}
		out[i] = -1
		if len(stack) > 0 {
			out[i] = stack[len(stack)-1]
		}
		stack = append(stack, int32(i))
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
func (c Config) frontMatterText(rec *docir.Record) string {
	if len(rec.Fields) == 0 {
		return ""
	}
	var lines []string
	for _, k := range c.keys(rec) {
		lines = appendValues(lines, fieldValue(rec, k))
	}
	return strings.Join(lines, "\n")
}

// fieldValue is rec's value of the configured front-matter field k: the
// key as written, else, for a dotted name, the path into nested objects
// the query language reads (hero.tagline, sidebar.label: Starlight's
// landing page shows its hero's tagline, and front_matter: [hero.tagline]
// indexed nothing); nil when rec has none.
func fieldValue(rec *docir.Record, k string) any {
	if v, ok := rec.Fields[k]; ok || !strings.Contains(k, ".") {
		return v
	}
	v, _ := query.FieldValue(rec.Fields, k)
	return v
}

// keys are the keys of rec's front matter that the config indexes, in the
// list's order: a name as it is, a SuffixPattern as the keys it matches
// (sorted) that the list does not name.
func (c Config) keys(rec *docir.Record) []string {
	fields := c.Fields()
	var out []string
	for _, f := range fields {
		suffix, pattern := patternSuffix(f)
		if !pattern {
			out = append(out, f)
			continue
		}
		var matched []string
		for k := range rec.Fields {
			if strings.HasSuffix(strings.ToLower(k), suffix) && !slices.Contains(fields, k) && !slices.Contains(out, k) {
				matched = append(matched, k)
			}
		}
		slices.Sort(matched)
		out = append(out, matched...)
	}
	return out
}

// patternSuffix is the suffix a SuffixPattern entry matches, in lower
// case; pattern is false for a field's name ("*" alone is one).
func patternSuffix(entry string) (suffix string, pattern bool) {
	suffix, pattern = strings.CutPrefix(entry, SuffixPattern)
	return strings.ToLower(suffix), pattern && suffix != ""
}

// EnclosingHeading is the heading that stands for the title of a document
// that has none of its own: one titled by its file name (no front-matter
// title, no level-1 heading first), whose first heading holds every other
// heading of it, as an mdBook page's "## What Is Ownership?" holds its
// "###" sections. The title stays the file name (DESIGN.md: front matter,
// else a first level-1 heading, else the file name); the heading is one
// of the document's names (see Names): a query equal to it asks for the
// page, as a reader sees the page's title.
func EnclosingHeading(rec *docir.Record) (string, bool) {
	if len(rec.Sections) == 0 || rec.Title != markdown.FileTitle(rec.Path) {
		return "", false
	}
	first := rec.Sections[0]
	if first.Level == 1 || strings.TrimSpace(first.Heading) == "" || first.Heading == rec.Title {
		return "", false
	}
	for _, s := range rec.Sections[1:] {
		if s.Level <= first.Level {
			return "", false
		}
	}
	return first.Heading, true
}

// FileName is the name the document's path gives it: its id's last part
// (`eip-1559` of `EIPS/eip-1559`, `Split` of `functions/strings/Split`),
// or, for a folder's README (`keps/sig-apps/1847-autoremove/README`), the
// folder's name; "" for a page that keeps the name index or _index. A
// site serves the page under that name and a reader types it as one:
// a query equal to it names the document, below its title and
// description (workspace/rank). It is indexed as a name, with Names.
func FileName(rec *docir.Record) string {
	dir, base := path.Split(rec.ID)
	switch strings.ToLower(base) {
	case "readme":
		base = path.Base(strings.TrimSuffix(dir, "/"))
	case "index", "_index":
		return ""
	}
	if base == "." || base == "/" {
		return ""
	}
	return base
}

// Names returns what names rec as a whole: its title and the values of
// the front-matter fields the config names exactly that are single
// strings (a description, a summary). A query equal to one of them asks
// for the document itself. A field matched by a SuffixPattern is searched
// but names nothing: Hugo's linkTitle "Diagrams" of the page titled
// "Diagrams functions" must not name it beside the page titled "Diagrams".
func (c Config) Names(rec *docir.Record) []string {
	out := []string{rec.Title}
	if h, ok := EnclosingHeading(rec); ok {
		out = append(out, h)
	}
	for _, k := range c.Fields() {
		if _, pattern := patternSuffix(k); pattern {
			continue
		}
		if s, ok := fieldValue(rec, k).(string); ok && strings.TrimSpace(s) != "" && s != rec.Title {
			out = append(out, Prose(s, false))
		}
	}
	return out
}

// FrontMatterProse returns the front-matter values of rec that read as
// prose (a configured field whose value is a string of three words or more,
// other than the title: proseWords), for a snippet to show when the
// document's lead matched.
func (c Config) FrontMatterProse(rec *docir.Record) string {
	var out []string
	for _, k := range c.keys(rec) {
		s, ok := fieldValue(rec, k).(string)
		s = strings.TrimSpace(Prose(s, false))
		if ok && s != rec.Title && proseWords(s, 3) >= 3 {
			out = append(out, s)
		}
	}
	return strings.Join(out, " ")
}

// proseWords counts the words of s, up to most: its fields, a field of a
// script written without spaces (Han, kana, Thai: fulltext.BigramScript)
// counted as a word for every two of its characters, as such a word
// mostly is. A Chinese description, 这是一个关于响应式系统的说明, is one
// field and fourteen characters, and a sentence (a review of Vue's
// Chinese docs: no such description showed in a snippet).
func proseWords(s string, most int) int {
	n := 0
	for f := range strings.FieldsSeq(s) {
		chars := 0
		for _, r := range f {
			if fulltext.BigramScript(r) {
				chars++
			}
		}
		n += max(1, chars/2)
		if n >= most {
			break
		}
	}
	return n
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
// its bytes a space, line endings (LF, CR) kept, so offsets and lines
// still line up; a CR alone ends a line, as in CommonMark): HTML
// comments (`<!-- … -->`; not in code: markdown.CodeRanges), template shortcodes (`{{< … >}}`, `{{% … %}}`;
// the text between an opening and a closing shortcode is kept, and so are
// the values of a shortcode's text, title, caption and alt parameters:
// blankShortcode; but not what a comment shortcode encloses: commentEnd),
// Zola's shortcode calls outside code (teraCall), mdBook's
// link directives (`{{#include path}}`, anywhere: see mdBookLink), link and
// image destinations (`[text](/a/b "title")` keeps `[text]`), reference
// labels (`[text][label]` keeps `[text]`), reference definitions (the
// lines of `[label]: /a/b "title"`, as goldmark reads them, over lines and
// in block quotes and list items too: markdown.Definitions), and, when lead is true and text opens with a
// `+++` line, a TOML front-matter block through its closing `+++` line;
// inline HTML tags (`<small>`, `</small>`, `<img src="x">`: CommonMark's
// open and closing tags, an open tag also over lines up to a blank line
// (tagOverLines); the text between them is kept),
// a backslash that ends a line (a hard line break), the attribute block
// that ends a heading's line (`{ #id .c k="v" }`,
// `{: #id }`, as store/markdown reads it: not part of the heading's text),
// and the marker, type and quotes of an MkDocs block's opener line
// (`!!! note "Heads up"` keeps `Heads up`, `??? tip` keeps nothing: the
// title is what a reader sees of it), at any indent (Prose does not know
// the blocks around a line); the colons and type of a ::: container's line
// (`::: tip Title` keeps `Title`); MDX's import and export lines, comments
// and spacers, MyST's target lines (`(label)=`) and Obsidian's comments
// (`%%…%%`, not in code: markdown.Comments); and raw HTML script
// and style blocks,
// from the line that opens one to the line that closes it (what a browser
// runs or applies, never shows). An unterminated comment or shortcode runs
// to the end of the text, as does an unclosed script or style block (as
// CommonMark reads it). Links, tags, openers and script blocks in fenced
// code blocks are code, and kept, as are links and tags in code spans.
func Prose(text string, lead bool) string {
	if !strings.Contains(text, "<") && !strings.Contains(text, "{") && !strings.Contains(text, "](") && !strings.Contains(text, ")=") &&
		!mayHoldRef(text) &&
		!strings.Contains(text, "][") && !strings.Contains(text, "]:") && !mayHoldOpener(text) && !strings.Contains(text, ":::") && !mayHoldComment(text) &&
		!strings.Contains(text, " from '") && !strings.Contains(text, ` from "`) && !strings.Contains(text, ":id=") &&
		!strings.Contains(text, "///") && !mayHoldIcon(text) && !(strings.Contains(text, "-") && strings.Contains(text, "|")) && !strings.Contains(text, "\\\n") && !strings.Contains(text, "\\\r") &&
		!(lead && strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), "+++")) && !strings.Contains(text, "%%") {
		if !strings.Contains(text, "```") && !strings.Contains(text, "~~~") {
			return text
		}
		// Fences and nothing else to blank: their info strings alone.
		b := []byte(text)
		blankFenceInfo(b)
		return string(b)
	}
	b := []byte(text)
	blank := func(from, to int) { blankRange(b, from, to) }
	if lead {
		blankTOMLFrontMatter(text, blank)
	}
	comments := markdown.Comments(text) // Obsidian's %%…%%, never shown: blanked, and none of their markup read
	blankRanges(b, comments)
	var code *markdown.CodeRanges // where an HTML comment is code, not a comment
	inCode := func(i int) bool {  // made when first asked
		if code == nil {
			code = markdown.NewCodeRanges(text)
		}
		return code.Holds(i)
	}
	closes, lines := nextOf{sep: "}}"}, nextOf{sep: "\n"}
	stars, bangs := nextOf{sep: "*}"}, nextOf{sep: "!}"} // the ends of include directives
	crs := nextOf{sep: "\r"}                             // a CR alone ends a line too
	for i := 0; i < len(text); {
		j := strings.IndexAny(text[i:], "<{") // where a comment or shortcode can open
		if j < 0 {
			break
		}
		i += j
		if end := rangeEnd(&comments, i); end >= 0 {
			i = end // in an Obsidian comment, blanked: nothing opens there
			continue
		}
		var closer string
		switch {
		case strings.HasPrefix(text[i:], "<!--"):
			if inCode(i) {
				i += len("<!--") // `<!-- more -->` in a code span is what the reader types
				continue
			}
			closer = "-->"
		case strings.HasPrefix(text[i:], "{{<"):
			closer = ">}}"
		case strings.HasPrefix(text[i:], "{{%"):
			closer = "%}}"
		default:
			if n := mdBookLink(text[i:]); n > 0 {
				blank(i, i+n)
				i += n
				continue
			}
			if n := includeDirective(b, i, &stars, &bangs, &lines, &crs); n > 0 {
				blank(i, i+n)
				i += n
				continue
			}
			if from, to := snippetsDirective(b, i, &lines, &crs); to > 0 {
				blank(from, to)
				i = to
				continue
			}
			if n := teraCall(b, i, &closes, &lines); n > 0 {
				if !inCode(i) {
					blankShortcode(text, i, i+n, blank)
					i += n
					continue
				}
			}
			i++
			continue
		}
		end := len(text)
		if j := strings.Index(text[i+3:], closer); j >= 0 {
			end = i + 3 + j + len(closer)
			switch {
			case closer == "-->":
			case commentOpens(text[i:end]):
				end = commentEnd(text, end) // a comment shortcode hides what it encloses
			default:
				blankShortcode(text, i, end, blank)
				i = end
				continue
			}
		}
		blank(i, end)
		i = end
	}
	blankLinks(b)
	return string(b)
}

// blankRanges blanks each range of rs in b (blankRange).
func blankRanges(b []byte, rs [][2]int) {
	for _, r := range rs {
		blankRange(b, r[0], r[1])
	}
}

// rangeEnd drops the ranges at the head of rs (in order, asked at
// increasing offsets) that end at or before i, and is the end of the one
// that holds i, or -1.
func rangeEnd(rs *[][2]int, i int) int {
	for len(*rs) > 0 && (*rs)[0][1] <= i {
		*rs = (*rs)[1:]
	}
	if len(*rs) > 0 && (*rs)[0][0] <= i {
		return (*rs)[0][1]
	}
	return -1
}

// blankTOMLFrontMatter blanks the TOML front-matter block that opens
// text (a lead's), from its `+++` line through its closing one, or to
// the end of text when none closes it.
func blankTOMLFrontMatter(text string, blank func(from, to int)) {
	trimmed := len(text) - len(strings.TrimLeft(text, " \t\r\n"))
	if rest := text[trimmed:]; strings.HasPrefix(rest, "+++\n") || strings.HasPrefix(rest, "+++\r\n") {
		end := len(text)
		if i := strings.Index(rest[3:], "\n+++"); i >= 0 {
			end = trimmed + 3 + i + len("\n+++")
		}
		blank(trimmed, end)
	}
}

// teraCall is the length of the Zola shortcode call that opens text[i:],
// `{{ name(key="value", …) }}` on one line (Tera's call syntax: a name,
// its arguments in parentheses, then "}}"), or 0. Zola replaces it (an
// image, a video), and a reader never sees its markup; outside code it is
// blanked but for the values of its text parameters, as a Hugo shortcode
// is. In code it is kept: Jinja's and Ansible's `{{ lookup('env', 'HOME') }}`
// are code. closes and lines find the next "}}" and line end, each
// searched for once however many "{{" a line holds.
func teraCall(text []byte, i int, closes, lines *nextOf) int {
	if !bytes.HasPrefix(text[i:], []byte("{{")) {
		return 0
	}
	end := closes.from(text, i+2)
	if end == len(text) || end > lines.from(text, i) || end-i > maxDirectiveBytes {
		return 0
	}
	call := bytes.TrimSpace(text[i+2 : end])
	k := 0
	for k < len(call) && (call[k] == '_' || 'a' <= call[k]|0x20 && call[k]|0x20 <= 'z' || k > 0 && '0' <= call[k] && call[k] <= '9') {
		k++
	}
	if k == 0 || k == len(call) || call[k] != '(' || call[len(call)-1] != ')' {
		return 0
	}
	return end + len("}}") - i
}

// includeDirective is the length of the include directive that opens
// text[i:] on its line, or 0: FastAPI's `{* ../../docs_src/app.py hl[3] *}`
// and mdx_include's `{! path !}`, `{!> path !}`, `{!< path !}` — a site's
// generator puts a file's lines there, and the words of its path and
// options are not the page's (as mdBook's `{{#include}}`: mdBookLink). A
// space follows the opening brace and its mark; the closing mark and
// brace are on the same line. stars and bangs find the next "*}" and
// "!}", lines and crs the line's end (a LF, or a CR), each searched for
// once however many braces a line holds.
func includeDirective(text []byte, i int, stars, bangs, lines, crs *nextOf) int {
	if i+3 >= len(text) || text[i] != '{' || text[i+1] != '*' && text[i+1] != '!' {
		return 0
	}
	closer, k := stars, i+2
	if text[i+1] == '!' {
		closer = bangs
		if text[k] == '>' || text[k] == '<' {
			k++
		}
	}
	if k >= len(text) || text[k] != ' ' {
		return 0
	}
	end := closer.from(text, k)
	if end == len(text) || end > min(lines.from(text, i), crs.from(text, i)) || len(bytes.TrimSpace(text[k:end])) == 0 {
		return 0
	}
	return end + 2 - i
}

// snippetsDirective is the range of the pymdownx.snippets directive whose
// "<" stands at text[i], or to 0: a line that opens, after its indent,
// with `--8<--` (`--8<-- "includes/abbreviations.md"`), through its end;
// a `--8<--` alone on its line opens a block of file names, one a line,
// that a `--8<--` line closes (or a blank line ends), blanked through it.
// MkDocs puts the files' text there, in code blocks too; the names are
// not the page's words. An escaped directive (`;--8<--`) is shown as
// written, and kept.
func snippetsDirective(text []byte, i int, lines, crs *nextOf) (from, to int) {
	const mark = "--8<--"
	if i < 3 || !bytes.HasPrefix(text[i-3:], []byte(mark)) {
		return 0, 0
	}
	from = i - 3
	k := from // only an indent before it: looked at back to the line's start or the first other byte
	for k > 0 && (text[k-1] == ' ' || text[k-1] == '\t') {
		k--
	}
	if k > 0 && text[k-1] != '\n' && text[k-1] != '\r' {
		return 0, 0
	}
	to = min(lines.from(text, i), crs.from(text, i))
	if len(bytes.TrimSpace(text[from+len(mark):to])) > 0 {
		return from, to
	}
	to = markdown.LineEnd(text, i) // past a CRLF's CR
	for to < len(text) {           // a block: its lines up to the closing mark
		next := to + 1
		end := markdown.LineEnd(text, next)
		line := bytes.TrimSpace(text[next:end])
		if len(line) == 0 {
			break
		}
		to = end
		if bytes.Equal(line, []byte(mark)) {
			break
		}
	}
	return from, to
}

// commentOpens reports whether the shortcode sc (closed) opens a comment:
// `{{< comment >}}` or `{{% comment %}}`, Hugo's embedded comment
// shortcode (and Docsy's), whose enclosed text the site never shows.
func commentOpens(sc string) bool {
	return strings.TrimSpace(sc[3:len(sc)-3]) == "comment"
}

// commentEnd is where the comment whose opening shortcode ends at from
// ends: past its closing `{{< /comment >}}` (or `{{% /comment %}}`),
// else the end of text, as an unterminated HTML comment runs to it. Each
// "/comment" in text is looked at once.
func commentEnd(text string, from int) int {
	for i := from; ; {
		j := strings.Index(text[i:], "/comment")
		if j < 0 {
			return len(text)
		}
		at := i + j
		i = at + len("/comment")
		before := strings.TrimRight(text[from:at], " \t\r\n")
		after := strings.TrimLeft(text[i:], " \t\r\n")
		if (strings.HasSuffix(before, "{{<") && strings.HasPrefix(after, ">}}")) || (strings.HasSuffix(before, "{{%") && strings.HasPrefix(after, "%}}")) {
			return len(text) - len(after) + 3
		}
	}
}

// blankShortcode blanks the shortcode text[from:to] (`{{< … >}}` or
// `{{% … %}}`, closed) but the quoted values of its text parameters
// (markdown.ShortcodeTextParam): the generator replaces the shortcode,
// and what a reader sees of it is at most those. A value's quotes are
// blanked with the rest.
func blankShortcode(text string, from, to int, blank func(from, to int)) {
	last := from // the start of what is still to blank
	markdown.ShortcodeValues(text[from:to], func(name string, start, stop int) {
		if markdown.ShortcodeTextParam(name) {
			blank(last, from+start)
			last = from + stop
		}
	})
	blank(last, to)
}

// mdBookLink returns the length of the mdBook link directive text opens
// with, or 0: `{{#include path}}`, `{{#rustdoc_include path:anchor}}`,
// `{{#playground path}}` or `{{#title text}}`, as mdBook's links
// preprocessor reads one ("{{", spaces, "#", the type, a space, then a
// target without '}', then "}}"; the other types it leaves as written).
// mdBook replaces it before the page is rendered, in code blocks too: a
// reader sees the file it names (or nothing), never the directive, and the
// words of its path are no more the page's than a link destination's.
func mdBookLink(text string) int {
	if !strings.HasPrefix(text, "{{") {
		return 0
	}
	rest := strings.TrimLeft(text[2:], " \t\r\n")
	if !strings.HasPrefix(rest, "#") {
		return 0
	}
	rest = rest[1:]
	name := len(rest) - len(strings.TrimLeft(rest, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"))
	switch rest[:name] {
	case "include", "rustdoc_include", "playground", "title":
	default:
		return 0
	}
	target := rest[name:]
	if t := strings.TrimLeft(target, " \t\r\n"); len(t) == len(target) || len(t) == 0 || t[0] == '}' {
		return 0 // no space after the type, or no target
	}
	// A directive's target is a path and an anchor or lines: within
	// maxDirectiveBytes, so that a text of "{{#title x" without a brace
	// is read once, not to its end from each.
	end := strings.IndexByte(target[:min(len(target), maxDirectiveBytes)], '}')
	if end < 0 || !strings.HasPrefix(target[end:], "}}") {
		return 0
	}
	return len(text) - len(target) + end + 2
}

// maxDirectiveBytes bounds an mdBook directive's target (mdBookLink).
const maxDirectiveBytes = 1024

// blankLinks blanks, in markdown text b, link and image destinations, the
// labels of reference links and whole reference-definition lines, raw
// HTML script and style blocks, and the markers of ::: containers, outside
// fenced code blocks and code spans (see Prose).
func blankLinks(b []byte) {
	blank := func(from, to int) { blankRange(b, from, to) }
	fence := ""                     // the fence of the code block the scan is in
	raw := ""                       // the closing tag of the script or style block the scan is in
	jsx := false                    // whether the scan is in an MDX comment opened on a line before
	defs := markdown.Definitions(b) // their lines, in order
	for start := 0; start < len(b); {
		end := markdown.LineEnd(b, start)
		line := b[start:end]
		trimmed := bytes.TrimLeft(line, " \t")
		for len(defs) > 0 && defs[0][0] < start {
			defs = defs[1:]
		}
		switch {
		case jsx:
			k := bytes.Index(line, []byte(jsxCommentEnd))
			if k < 0 {
				blank(start, end)
				break
			}
			k += len(jsxCommentEnd)
			blank(start, start+k)
			jsx = blankInlineLinks(line[k:], blank, start+k, b[start+k:])
		case fence != "":
			if markdown.ClosesFence(trimmed, fence) {
				fence = ""
			}
		case raw != "" || rawBlockOpens(line) != "":
			if raw == "" {
				raw = rawBlockOpens(line)
			}
			closes := bytes.Contains(bytes.ToLower(line), []byte(raw))
			blank(start, end) // line is a view of b: read before it is blanked
			if closes {
				raw = ""
			}
		case markdown.OpensFence(trimmed):
			fence = markdown.FenceOf(trimmed)
			blankInfo(trimmed, fence, blank, end-len(trimmed))
		case len(defs) > 0 && defs[0][0] == start:
			blank(start, end)
		case attributeLine(trimmed):
			blank(start, end)
		case esmLine(line):
			blank(start, end)
		case len(trimmed) > 0 && trimmed[0] == '(' && mystTarget(line):
			blank(start, end)
		case len(trimmed) > 0 && trimmed[0] == '%' && mystComment(b, start, line):
			blank(start, end)
		case delimiterRow(trimmed), contentsItem(trimmed), abbreviation(trimmed),
			navigationItem(trimmed) && !itemGoesOn(b, end):
			blank(start, end)
		default:
			blankOpener(line, blank, start)
			blankBlockMarker(line, blank, start)
			if n := len(bytes.TrimRight(line, "\r")); n > 0 && line[n-1] == '\\' && (n < 2 || line[n-2] != '\\') && textFollows(b, end) {
				blank(start+n-1, start+n) // a hard line break (CommonMark): the reader sees the break, not the backslash
			}
			blankContainer(line, blank, start)
			if (bytes.IndexByte(line, '{') >= 0 || bytes.Contains(line, []byte(":id="))) && isHeadingLine(b, start, end) {
				if i := markdown.HeadingAttributeStart(line); i >= 0 {
					blank(start+i, end)
				}
			}
			jsx = blankInlineLinks(line, blank, start, b[start:])
		}
		start = end + 1
	}
}

// blankRange blanks b[from:to] to spaces, its line ends kept: what is
// blanked keeps every other byte's offset and line.
func blankRange(b []byte, from, to int) {
	for i := from; i < to; i++ {
		if b[i] != '\n' && b[i] != '\r' {
			b[i] = ' '
		}
	}
}

// blankFenceInfo blanks the info strings of b's code fences (blankInfo),
// and nothing else: what blankLinks does to a text that holds nothing else
// it blanks, at the cost of a look at each line's first bytes.
func blankFenceInfo(b []byte) {
	fence := ""
	for start := 0; start < len(b); {
		end := markdown.LineEnd(b, start)
		trimmed := bytes.TrimLeft(b[start:end], " \t")
		switch {
		case fence != "":
			if markdown.ClosesFence(trimmed, fence) {
				fence = ""
			}
		case !markdown.OpensFence(trimmed):
		default:
			fence = markdown.FenceOf(trimmed)
			blankInfo(trimmed, fence, func(from, to int) { blankRange(b, from, to) }, end-len(trimmed))
		}
		start = end + 1
	}
}

// blankInfo blanks the info string of a fence's opening line (trimmed, at
// offset off of the text; fence, markdown.FenceOf's run): "go-html-template"
// of ```go-html-template names the language of the code below it, for a
// highlighter, and a reader does not read it (the Hugo docs open 1,255
// examples with it, so "template" stood in every passage with an example).
func blankInfo(trimmed []byte, fence string, blank func(from, to int), off int) {
	blank(off+len(fence), off+len(trimmed))
}

// rawBlockOpens returns the closing tag of the raw HTML block line opens
// when it opens a script or a style block (CommonMark's HTML block of
// the first kind: "<script" or "<style", in any case, then a space, a tab,
// ">" or the line's end, indented three spaces at most), else "". What a
// browser runs or applies is not read: VitePress pages open with a
// `<script setup>` block of imports and code the page never shows.
func rawBlockOpens(line []byte) string {
	t := bytes.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 6 || t[0] != '<' {
		return ""
	}
	for _, tag := range []string{"script", "style"} {
		if len(t) < 1+len(tag) || !bytes.EqualFold(t[1:1+len(tag)], []byte(tag)) {
			continue
		}
		after := t[1+len(tag):]
		if len(after) == 0 || after[0] == ' ' || after[0] == '\t' || after[0] == '>' || after[0] == '\r' {
			return "</" + tag + ">"
		}
	}
	return ""
}

// attributeLine says a line (its indent trimmed) is a block attribute list
// of kramdown or Python-Markdown's attr_list, alone on its line: `{:
// .subtitle }`, `{: #id }`, `{ .annotate }`, `{#id .wide}` — classes and
// ids for the HTML, which a reader never sees (MkDocs pages put one under
// many paragraphs). Its braces hold only such attributes' start: after
// "{" and an optional ":" and spaces comes ".", "#" or "}".
func attributeLine(trimmed []byte) bool {
	if len(trimmed) == 0 || trimmed[0] != '{' { // before any work: most lines
		return false
	}
	t := bytes.TrimRight(trimmed, " \t\r")
	if len(t) < 2 || t[len(t)-1] != '}' || bytes.Count(t, []byte("{")) != 1 {
		return false
	}
	rest := bytes.TrimLeft(bytes.TrimPrefix(t[1:], []byte(":")), " \t")
	return len(rest) > 0 && (rest[0] == '.' || rest[0] == '#' || rest[0] == '}' && len(t) > 2 && t[1] == ':')
}

// delimiterRow reports whether a line (its indent trimmed) is a table's
// delimiter row, `| --- | :---: |` (GFM: cells of dashes, a colon at
// either end, between pipes, at least one pipe): it draws the table, and
// a reader reads nothing in it (a snippet of a table showed it whole).
func delimiterRow(trimmed []byte) bool {
	if len(trimmed) == 0 || trimmed[0] != '|' && trimmed[0] != '-' && trimmed[0] != ':' {
		return false // before any work: most lines
	}
	pipes, dashes := 0, 0
	for _, c := range bytes.TrimRight(trimmed, " \t\r") {
		switch c {
		case '|':
			pipes++
		case '-':
			dashes++
		case ':', ' ', '\t':
		default:
			return false
		}
	}
	return pipes > 0 && dashes > 0
}

// contentsItem reports whether a line (its indent trimmed) is an item of
// a page's own table of contents: a bullet list item that is one link to
// an anchor of the page and nothing else (`- [Span Limits](#span-limits)`,
// as doctoc and markdown-toc write one at the top of a page). Its text
// is a heading of the page, which is searched where it stands; in the
// page's first section the list made a snippet of every title and
// matched every heading's words.
func contentsItem(trimmed []byte) bool {
	t := bytes.TrimRight(trimmed, " \t\r")
	if len(t) < 6 || t[len(t)-1] != ')' {
		return false
	}
	item := listItemText(t)
	// A bullet's item: a line that opens with a digit says something
	// (SaysSomething), and "1. [Intro](#intro)" is kept.
	if len(item) == len(t) || t[0] != '-' && t[0] != '*' && t[0] != '+' || !linkLine(item) {
		return false
	}
	close := bytes.Index(item, []byte("]("))
	// One link's text: a task item's box ("[ ] [a](#b)") is no link's.
	return !bytes.ContainsAny(item[1:close], "[]") && bytes.HasPrefix(item[close+2:], []byte("#"))
}

// navigationItem reports whether a line (its indent trimmed) is a bullet
// list item that ends in its one link, to another page: the link, or a
// lead-in and then the link, and nothing after it but punctuation (`-
// [Pod Disruption Budgets](/docs/disruptions/)`, `- "[About two-factor
// authentication](/articles/x)"`, `* Learn more about [scaling a
// StatefulSet](/docs/scale/).`). Such an item names the page it links
// to, in that page's words: it is the site's navigation, as a table of
// contents is (contentsItem), and a list of them (What's next, Further
// reading, Related links) is no text of its own. Searched as the
// section's words, such lists were the matched section of the pages they
// close, and ranked above the pages they name (reviews of the Kubernetes
// and GitHub docs: "debug pod ephemeral container" matched the one-line
// What's next of *Ephemeral Containers* above the section that shows
// how; "lost two-factor authentication credentials" put three Further
// reading lists first). Link text in a sentence, or in an item that goes
// on past its link ("[kubeadm init](/x) to bootstrap a node"), is prose,
// and kept.
func navigationItem(trimmed []byte) bool {
	t := bytes.TrimRight(trimmed, " \t\r")
	if len(t) < 6 || t[0] != '-' && t[0] != '*' && t[0] != '+' || !bytes.Contains(t, []byte("](")) {
		return false
	}
	item := listItemText(t)
	mid := bytes.LastIndex(item, []byte("]("))
	open := bytes.LastIndexByte(item[:max(mid, 0)], '[')
	if len(item) == len(t) || open < 0 || open > 0 && item[open-1] == '!' || bytes.Contains(item[:open], []byte("](")) {
		return false // not a bullet's item, an image, or more links than one
	}
	text, dest := item[open+1:mid], item[mid+2:]
	end := bytes.IndexByte(dest, ')')
	if end <= 0 || dest[0] == '#' || bytes.ContainsAny(text, "[]") || bytes.ContainsAny(dest[:end], " \t(") {
		return false // no destination, an anchor of the page, or not a plain link
	}
	// A lead-in of a few words ("Learn more about", "See how to", "Read
	// the"), not a sentence that ends in a link ("Pods using hostNetwork
	// cannot share a port; see [Networking](/net/)").
	lead := bytes.TrimRight(item[:open], ` "'`)
	if len(bytes.Fields(lead)) > maxLeadIn || bytes.ContainsAny(lead, ".;!?") {
		return false
	}
	return len(bytes.Trim(dest[end+1:], `"'.,;:!?`)) == 0
}

// maxLeadIn is the most words before a navigation item's link: the
// phrases that point a reader on ("Learn more about", "Read about", "See
// how to") are of four words or fewer; more say something of their own.
const maxLeadIn = 4

// itemGoesOn reports whether the list item whose line ends at end goes on
// on the next line: a line of text that is no new item, block or blank
// (a lazy or indented continuation), which a navigation item does not.
func itemGoesOn(b []byte, end int) bool {
	if end >= len(b) {
		return false
	}
	next := bytes.TrimLeft(b[end+1:markdown.LineEnd(b, end+1)], " \t")
	next = bytes.TrimRight(next, "\r")
	if len(next) == 0 {
		return false
	}
	if len(listItemText(next)) < len(next) {
		return false // the next item
	}
	switch next[0] {
	case '#', '>', '|', '<':
		return false
	}
	return !bytes.HasPrefix(next, []byte("```")) && !bytes.HasPrefix(next, []byte("~~~"))
}

// abbreviation reports whether a line (its indent trimmed) defines an
// abbreviation, as Python-Markdown's abbr and kramdown read one: `*[HTML]:
// Hyper Text Markup Language`. The page shows its text only as the
// title of each HTML it marks, never where it is written (MkDocs
// Material sites keep a glossary of them in an included file).
func abbreviation(trimmed []byte) bool {
	if len(trimmed) < 5 || trimmed[0] != '*' || trimmed[1] != '[' {
		return false
	}
	close := bytes.IndexByte(trimmed, ']')
	return close > 2 && close+1 < len(trimmed) && trimmed[close+1] == ':'
}

// iconNames are the prefixes of MkDocs Material's icon shortcodes
// (`:material-check:`, `:octicons-mark-github-16:`): a picture on the
// page, whose name is no word of it.
var iconNames = [...]string{":material-", ":octicons-", ":fontawesome-", ":simple-"}

// mayHoldIcon reports whether text may hold an icon shortcode.
func mayHoldIcon(text string) bool {
	for _, p := range iconNames {
		if strings.Contains(text, p) {
			return true
		}
	}
	return false
}

// icon is the length of the icon shortcode line[i:] opens with, or 0: one
// of iconNames, then lower-case letters, digits and '-', then ':'.
func icon(line []byte, i int) int {
	for _, p := range iconNames {
		if !bytes.HasPrefix(line[i:], []byte(p)) {
			continue
		}
		k := i + len(p)
		for k < len(line) && ('a' <= line[k] && line[k] <= 'z' || '0' <= line[k] && line[k] <= '9' || line[k] == '-') {
			k++
		}
		if k > i+len(p) && k < len(line) && line[k] == ':' {
			return k + 1 - i
		}
		return 0
	}
	return 0
}

// textFollows reports whether the line after the line that ends at end
// (its '\n' or '\r') holds text: a backslash that ends a line breaks it
// only inside a paragraph; at a paragraph's end it is text (CommonMark).
func textFollows(b []byte, end int) bool {
	if end >= len(b) {
		return false
	}
	next := end + 1
	return len(bytes.TrimSpace(b[next:markdown.LineEnd(b, next)])) > 0
}

// blankBlockMarker blanks, when line (at offset off of the text) opens or
// closes a pymdownx block — `/// note | Technical Details`, `//// tab |
// Python 3.10+`, a closing `///` — its slashes, its type and the bar, and
// keeps the title a reader sees, as blankOpener does an MkDocs block's.
// A marker is three slashes or more, then a type in lower case, then
// `| title`, each but the slashes optional; any other line that opens
// with slashes (a comment of code, `/// Returns x`) is kept.
func blankBlockMarker(line []byte, blank func(from, to int), off int) {
	i := afterMarker(line, '/')
	if i < 0 {
		return
	}
	skip := func() { i = skipBlanks(line, i) }
	typ := i
	for i < len(line) && ('a' <= line[i] && line[i] <= 'z' || i > typ && (line[i] == '-' || line[i] == '_' || '0' <= line[i] && line[i] <= '9')) {
		i++
	}
	named := i > typ
	skip()
	rest := bytes.TrimRight(line[i:], "\r")
	switch {
	case len(rest) == 0:
		blank(off, off+len(line))
	case named && rest[0] == '|':
		i++
		skip()
		blank(off, off+i)
	}
}

// mystTarget reports whether line is a MyST target, `(label)=`: the name
// a Sphinx site gives the heading after it, never shown
// (markdown.MystTarget).
func mystTarget(line []byte) bool {
	_, ok := markdown.MystTarget(line)
	return ok
}

// esmLine reports whether line is an MDX import or export statement, which
// Docusaurus reads in a .md file too and a reader never sees: at the start
// of the line, `import X from 'module';` or `export … from "module"` (or
// `import 'module';`), as JavaScript writes one, the quotes around the
// module closing the line but for a ';' and spaces.
func esmLine(line []byte) bool {
	t := bytes.TrimSuffix(bytes.TrimRight(line, " \t\r"), []byte(";"))
	isImport := bytes.HasPrefix(t, []byte("import "))
	if !isImport && !bytes.HasPrefix(t, []byte("export ")) || t[len(t)-1] != '\'' && t[len(t)-1] != '"' {
		return false
	}
	q := t[len(t)-1]
	open := bytes.LastIndexByte(t[:len(t)-1], q)
	if open < 0 || open+1 == len(t)-1 || bytes.ContainsAny(t[open+1:len(t)-1], " \t'\"") {
		return false // no module, or one with spaces or quotes in it
	}
	return bytes.HasSuffix(bytes.TrimRight(t[:open], " \t"), []byte(" from")) || isImport && open == len("import ")
}

// blankContainer blanks, when line (at offset off of the text) opens or
// closes a ::: container (VitePress's and Docusaurus's `::: tip Title`,
// `:::details`, a closing `:::`), its colons and the word after them (the
// container's type), and keeps the title a reader sees. A title in
// brackets right after the type (Starlight's and Docusaurus's
// `:::tip[See it in action]`) keeps its text, not its brackets, and an
// attribute block after them (`{icon="heart"}`, `{#id .class}`) is
// blanked: `:::tip[See` was blanked as the type, and "it in action]"
// was the text.
func blankContainer(line []byte, blank func(from, to int), off int) {
	i := afterMarker(line, ':')
	if i < 0 {
		return
	}
	for i < len(line) && line[i] != ' ' && line[i] != '\t' && line[i] != '\r' && line[i] != '[' && line[i] != '{' {
		i++
	}
	blank(off, off+i)
	if i < len(line) && line[i] == '[' {
		if k := bytes.IndexByte(line[i:], ']'); k > 0 {
			blank(off+i, off+i+1)
			blank(off+i+k, off+i+k+1)
			i += k + 1
		}
	}
	if i < len(line) && line[i] == '{' {
		if k := bytes.IndexByte(line[i:], '}'); k > 0 {
			blank(off+i, off+i+k+1)
		}
	}
}

// afterMarker is where line goes on after its indent, a run of three or
// more c (a ::: container's colons, a pymdownx block's slashes) and the
// blanks after it; -1 when the line opens with no such run.
func afterMarker(line []byte, c byte) int {
	i := skipBlanks(line, 0)
	if !bytes.HasPrefix(line[i:], []byte{c, c, c}) {
		return -1
	}
	for i < len(line) && line[i] == c {
		i++
	}
	return skipBlanks(line, i)
}

// skipBlanks is where line's spaces and tabs from i end.
func skipBlanks(line []byte, i int) int {
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	return i
}

// mayHoldOpener reports whether text may hold an MkDocs block's opener
// line: its marker, `!!!`, `???` or `===`, is in it.
func mayHoldOpener(text string) bool {
	return strings.Contains(text, "!!!") || strings.Contains(text, "???") || strings.Contains(text, "===")
}

// blankOpener blanks, when line (at offset off of the text; its indent and
// line ending included) is an MkDocs block's opener (markdown.MkDocsOpener),
// all of it but its title's text.
func blankOpener(line []byte, blank func(from, to int), off int) {
	t := bytes.TrimLeft(line, " \t")
	if len(t) < 3 || t[0] != '!' && t[0] != '?' && t[0] != '=' {
		return
	}
	indent := len(line) - len(t)
	s, e, ok := markdown.MkDocsOpener(bytes.TrimRight(t, "\r"))
	switch {
	case !ok:
	case s < 0:
		blank(off, off+len(line))
	default:
		blank(off, off+indent+s)
		blank(off+indent+e, off+len(line))
	}
}

// isHeadingLine reports whether the line of b [start, end) is a heading's
// line: an ATX heading's (up to three spaces, one to six '#', then a space
// or the end), or a line of text followed by a setext underline (a line of
// '=' or of '-', up to three spaces before it).
func isHeadingLine(b []byte, start, end int) bool {
	indented := func(l []byte) ([]byte, bool) {
		t := bytes.TrimLeft(l, " ")
		return t, len(l)-len(t) <= 3
	}
	t, ok := indented(b[start:end])
	if !ok || len(bytes.TrimSpace(t)) == 0 {
		return false
	}
	if n := len(t) - len(bytes.TrimLeft(t, "#")); n >= 1 && n <= 6 {
		return markdown.ATXHeadingLine(b[start:end]) // else no setext heading's text either
	}
	if end >= len(b) || listOrQuote(t) {
		return false // a list item's or a block quote's line is no setext heading's text
	}
	next := b[end+1 : markdown.LineEnd(b, end+1)]
	u, ok := indented(next)
	u = bytes.TrimRight(u, " \t\r")
	return ok && len(u) > 0 && (len(bytes.Trim(u, "=")) == 0 || len(bytes.Trim(u, "-")) == 0)
}

// listOrQuote reports whether line (its indent taken off) opens a list
// item ("- ", "* ", "+ ", "1. ", "1) ") or a block quote (">").
func listOrQuote(line []byte) bool {
	if len(line) == 0 {
		return false
	}
	if line[0] == '>' {
		return true
	}
	if bytes.IndexByte([]byte("-*+"), line[0]) >= 0 {
		return len(line) == 1 || line[1] == ' ' || line[1] == '\t'
	}
	i := 0
	for i < len(line) && i < 9 && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	return i > 0 && i < len(line) && (line[i] == '.' || line[i] == ')') && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t')
}

// parenMatches returns, for each "(" of line, the index of the ")" that
// closes it (the first after it where as many ")" as "(" have come since),
// and -1 for any other byte or a "(" never closed: one pass, with a stack.
func parenMatches(line []byte) []int {
	closes := make([]int, len(line))
	var open []int
	for j, c := range line {
		closes[j] = -1
		switch c {
		case '(':
			open = append(open, j)
		case ')':
			if n := len(open); n > 0 {
				closes[open[n-1]] = j
				open = open[:n-1]
			}
		}
	}
	return closes
}

// MDX's comment, `{/* … */}`: a JavaScript comment in a JSX expression,
// which MDX (and Docusaurus, which reads a .md file as MDX) drops from the
// page; Docusaurus's pages write `{/* prettier-ignore */}` and a blog's
// `{/* truncate */}`. Its opener and closer.
const (
	jsxCommentOpen = "{/*"
	jsxCommentEnd  = "*/}"
)

// blankBrace blanks what the '{' at line[i] opens, on blankInlineLinks's
// behalf: a template tag of Jinja, Liquid or MkDocs's macros ({%
// include-markdown "x.md" %}: the site's generator runs it, a reader never
// sees it), an MDX comment or spacer, or a MyST role's name. It returns
// where the scan goes on (the last byte blanked, or i), and whether the
// line ends in an MDX comment it does not close (blanked to the line's
// end). pct and jsx find the ends of template tags and MDX comments.
func blankBrace(line []byte, i int, blank func(from, to int), off int, pct, jsx *nextOf) (int, bool) {
	switch {
	case i+1 < len(line) && line[i+1] == '%':
		if end := pct.from(line, i+2); end < len(line) {
			blankTemplateTag(line, i, end+2, blank, off)
			return end + 1, false
		}
	case bytes.HasPrefix(line[i:], []byte(jsxCommentOpen)):
		end := jsx.from(line, i+len(jsxCommentOpen))
		if end == len(line) {
			blank(off+i, off+len(line))
			return len(line), true
		}
		blank(off+i, off+end+len(jsxCommentEnd))
		return end + len(jsxCommentEnd) - 1, false
	case jsxSpacer(line[i:]):
		blank(off+i, off+i+5)
		return i + 4, false
	default:
		if n := mystRole(line[i:]); n > 0 {
			blank(off+i, off+i+n) // the role's name; its text is the code span's
			return i + n - 1, false
		}
	}
	return i, false
}

// mystComment reports whether line, at offset start of the text b, is a
// MyST comment: at most three spaces in (no tab: more is code), `%`, then
// a space, another `%` or nothing (`% It is possible to use mermaid …`:
// the MyST docs keep drafts so, which the page never shows; pandoc's title
// block lines read the same), where a block may start: at the text's
// start, or after a blank line, a heading line or another comment (which
// is blank by then). A line that goes on a paragraph ("Costs rose by
// 20\n% in one year") is its text.
func mystComment(b []byte, start int, line []byte) bool {
	k := 0
	for k < len(line) && k < 4 && line[k] == ' ' {
		k++
	}
	if k > 3 || k >= len(line) || line[k] != '%' {
		return false
	}
	t := bytes.TrimRight(line[k:], "\r")
	if len(t) > 1 && t[1] != ' ' && t[1] != '\t' && t[1] != '%' {
		return false
	}
	if start == 0 {
		return true
	}
	prevEnd := start - 1 // its '\n' (or a lone '\r')
	if prevEnd > 0 && b[prevEnd] == '\n' && b[prevEnd-1] == '\r' {
		prevEnd--
	}
	prevStart := bytes.LastIndexAny(b[:prevEnd], "\r\n") + 1
	prev := bytes.TrimSpace(b[prevStart:prevEnd])
	return len(prev) == 0 || prev[0] == '#'
}

// mayHoldComment reports whether text may hold a MyST comment line: a
// '%' with at most three spaces between it and its line's start.
func mayHoldComment(text string) bool {
	return someAt(text, '%', func(i int) bool {
		j := i
		for j > 0 && i-j < 3 && text[j-1] == ' ' {
			j--
		}
		return j == 0 || text[j-1] == '\n' || text[j-1] == '\r'
	})
}

// someAt reports whether at, for some i where text[i] is c, says true:
// the fast path's looks for a byte that may open markup.
func someAt(text string, c byte, at func(i int) bool) bool {
	for i := strings.IndexByte(text, c); i >= 0; {
		if at(i) {
			return true
		}
		k := strings.IndexByte(text[i+1:], c)
		if k < 0 {
			return false
		}
		i += 1 + k
	}
	return false
}

// mystRole is the length of the MyST role name that b opens with, or 0: a
// name in braces right before a code span, {term}`Environment Manager`,
// {ref}`label`, {py:func}`f` (letters, digits, ':', '-', '_', '+'): the
// role's text shows, its name never.
func mystRole(b []byte) int {
	k := 1
	for k < len(b) && k < 64 && (b[k]|0x20 >= 'a' && b[k]|0x20 <= 'z' || b[k] >= '0' && b[k] <= '9' || b[k] == ':' || b[k] == '-' || b[k] == '_' || b[k] == '+') {
		k++
	}
	if k == 1 || k+1 >= len(b) || b[k] != '}' || b[k+1] != '`' {
		return 0
	}
	return k + 1
}

// jsxSpacer reports whether line opens with `{' '}` or `{" "}`: JSX's
// space between an expression and the text after it, which a reader sees
// as a space.
func jsxSpacer(line []byte) bool {
	return len(line) >= 5 && (line[1] == '\'' || line[1] == '"') && line[2] == ' ' && line[3] == line[1] && line[4] == '}'
}

// blankInlineLinks blanks the destinations ("(…)" after "]") and reference
// labels ("[…]" after "]") of one line, its HTML tags, and its MDX comments
// and spacers (jsxCommentOpen, jsxSpacer), outside its code spans; off is
// the line's offset in the text blank works on, and rest that text from the
// line's start on (a tag may run onto the next lines). It reports whether
// the line ends in an MDX comment that it does not close (blanked to the
// line's end: blankLinks blanks on to the comment's end).
func blankInlineLinks(line []byte, blank func(from, to int), off int, rest []byte) (inComment bool) {
	var closes []int         // closes[j]: the ")" that closes the "(" at j, or -1 (see parenMatches)
	gt := nextOf{sep: ">"}   // a tag's end, for the '<'s that open none on the line
	pct := nextOf{sep: "%}"} // a template tag's end
	jsx := nextOf{sep: jsxCommentEnd}
	brace := nextOf{sep: "}"}    // an attribute list's end
	var ticks *markdown.TickRuns // the line's runs of backticks, once a span does not close
	textEnd := -1                // where the line's text ends, before trailing blanks, once a "](" does not close on it
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '`':
			if !markdown.Escaped(line, i) {
				i = skipSpan(line, i, &ticks)
			}
		case '{':
			var open bool
			if i, open = blankBrace(line, i, blank, off, &pct, &jsx); open {
				return true
			}
		case ':':
			if n := icon(line, i); n > 0 {
				blank(off+i, off+i+n)
				i += n - 1
			}
		case '&':
			if n := markRef(line[i:]); n > 0 {
				blank(off+i, off+i+n) // a mark on the page, not a word
				i += n - 1
			}
		case '<':
			if n := htmlTag(line[i:]); n > 0 {
				blankTag(line[i:i+n], blank, off+i)
				i += n - 1
				continue
			}
			// A tag over lines only where the line holds no '>' after the '<'.
			if gt.from(line, i) == len(line) {
				if n := tagOverLines(rest[i:], len(line)-i); n > 0 {
					// Its text attributes kept; the rest of the line is the tag's.
					blankTag(rest[i:i+n], blank, off+i)
					return
				}
			}
		case ']':
			if i+1 >= len(line) {
				continue
			}
			switch line[i+1] {
			case '(':
				// The destination runs to the ")" that brings the parentheses
				// opened from here back to none. Each "(" is matched once for
				// the line: scanning on from every "](", a line of 100,000
				// unclosed "[a](" took 34 s.
				if closes == nil {
					closes = parenMatches(line)
				}
				if j := closes[i+1]; j >= 0 {
					blank(off+i+1, off+j+1)
					i = j
					if n := inlineAttributes(line, j+1, &brace); n > 0 {
						blank(off+j+1, off+j+1+n)
						i += n
					}
				} else {
					if textEnd < 0 {
						textEnd = len(bytes.TrimRight(line, " \t\r"))
					}
					// The line's last "](" (once a line): its destination may be below.
					if i+2 >= textEnd {
						if n := destinationBelow(rest, i+2); n > 0 {
							blank(off+i+1, off+n)
							return false
						}
					}
				}
			case '[':
				if end := bytes.IndexByte(line[i+2:], ']'); end >= 0 {
					blank(off+i+1, off+i+2+end+1)
					i += 2 + end
				}
			}
		}
	}
	return false
}

// destinationBelow is where a link's destination ends (past its ")")
// when the line of text that from is in has nothing after from and the
// next line opens with the destination and its ")" (CommonMark lets one
// line ending stand before a destination: `[Get a Shell](` then `
// /docs/tasks/get-shell/)` on the next line, as the Kubernetes docs wrap
// long links); else 0. The destination is one run without spaces or
// parentheses, as most are.
func destinationBelow(text []byte, from int) int {
	end := markdown.LineEnd(text, from)
	if end >= len(text) || len(bytes.TrimSpace(text[from:end])) > 0 {
		return 0
	}
	next := end + 1
	k := next
	for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
		k++
	}
	start := k
	for k < len(text) && text[k] != ')' && text[k] != '(' && text[k] != ' ' && text[k] != '\t' && text[k] != '\n' && text[k] != '\r' {
		k++
	}
	if k == start || k >= len(text) || text[k] != ')' {
		return 0
	}
	return k + 1
}

// skipSpan is where the scan of line goes on from the run of backticks at
// i, which no backslash escapes: the last backtick of the code span it
// opens (closed by the next run of exactly its length, as in
// markdown.CodeRanges), or of the run when it opens none. A span that
// closes is found by a search, as most are; once the search finds none,
// or a longer run, the line's runs (ticks, made then) answer the rest.
func skipSpan(line []byte, i int, ticks **markdown.TickRuns) int {
	n := 1
	for i+n < len(line) && line[i+n] == '`' {
		n++
	}
	if *ticks == nil {
		// The first n backticks past the run start a run (none stands
		// before them, or the search would have found those first); it
		// closes the span if it is no longer.
		if end := bytes.Index(line[i+n:], bytes.Repeat([]byte{'`'}, n)); end >= 0 {
			if q := i + n + end; q+n == len(line) || line[q+n] != '`' {
				return q + n - 1
			}
		}
		*ticks = markdown.NewTickRuns(line)
	}
	if q := (*ticks).Closer(i+n, n); q >= 0 {
		return q + n - 1
	}
	return i + n - 1
}

// inlineAttributes is the length of the attribute list that opens
// line[i:], right after a link or an image, or 0: attr_list's and
// kramdown's `{.internal-link target=_blank}`, `{ .md-button }`, `{:
// #id }` — classes, ids and attributes for the HTML, as attributeLine
// reads a list alone on its line, here also one that opens with a
// `key=value`. brace finds the line's next "}".
func inlineAttributes(line []byte, i int, brace *nextOf) int {
	if i >= len(line) || line[i] != '{' {
		return 0
	}
	end := brace.from(line, i)
	if end == len(line) || bytes.IndexByte(line[i+1:end], '{') >= 0 {
		return 0
	}
	in := bytes.TrimLeft(bytes.TrimPrefix(line[i+1:end], []byte(":")), " \t")
	if len(in) == 0 {
		return 0
	}
	if in[0] != '.' && in[0] != '#' {
		k := 0
		for k < len(in) && ('a' <= in[k]|0x20 && in[k]|0x20 <= 'z' || k > 0 && (in[k] == '-' || in[k] == '_')) {
			k++
		}
		if k == 0 || k == len(in) || in[k] != '=' {
			return 0
		}
	}
	return end + 1 - i
}

// blankTemplateTag blanks the template tag line[from:to] (`{% … %}`, of
// Jinja, Liquid, MkDocs's macros or GitBook) but the quoted values of its
// text parameters, as blankShortcode does a shortcode's: what a reader
// sees of GitBook's `{% tab title="Homebrew" %}` and `{% code
// title="app.yaml" %}` is the title; `{% include "x.md" %}` shows nothing
// of itself. off is the line's offset in the text blank works on.
func blankTemplateTag(line []byte, from, to int, blank func(from, to int), off int) {
	// As a shortcode: "{{ " and " }}" for "{%" and "%}", one byte longer
	// at the front (ShortcodeValues skips three at each end).
	sc := "{{ " + string(line[from+2:to-2]) + " }}"
	last := from
	markdown.ShortcodeValues(sc, func(name string, start, stop int) {
		if markdown.ShortcodeTextParam(name) {
			blank(off+last, off+from+start-1)
			last = from + stop - 1
		}
	})
	blank(off+last, off+to)
}

// markRef is the length of the character reference b opens with when
// what it stands for is no letter nor number (`&sup2;` and `&frac12;` are
// numbers, part of their word) — a space, a dash, a quote, a
// symbol: `&#x20;`, `&nbsp;`, `&mdash;`, `&quot;`, `&amp;`, `&#8212;` — and
// 0 for any other text. A reader sees a mark there, never the reference's
// name: indexed as written, "mdash" and "quot" were words of the
// Kubernetes docs (92 sections held "quot"), and snippets showed
// `horizontally&mdash;that is`. A reference to a letter (`&eacute;`) is
// part of its word, and kept. Named references are HTML5's
// (html.UnescapeString), numeric ones any code point.
func markRef(b []byte) int {
	semi := bytes.IndexByte(b[:min(len(b), maxRefBytes)], ';')
	if semi < 3 || b[0] != '&' {
		return 0
	}
	name, hex := b[1:semi], false
	if name[0] == '#' { // &#digits; or &#xhex;
		name, hex = name[1:], name[1]|0x20 == 'x'
		if hex {
			name = name[1:]
		}
	}
	if len(name) == 0 {
		return 0
	}
	for _, c := range name {
		digit := '0' <= c && c <= '9'
		letter := 'a' <= c|0x20 && c|0x20 <= 'z'
		if b[1] == '#' && !digit && !(hex && letter && c|0x20 <= 'f') || b[1] != '#' && !digit && !letter {
			return 0
		}
	}
	ref := string(b[:semi+1])
	text := html.UnescapeString(ref)
	if text == ref || strings.ContainsFunc(text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) || r == utf8.RuneError }) {
		return 0
	}
	return semi + 1
}

// maxRefBytes bounds a character reference: HTML5's longest name
// (`&CounterClockwiseContourIntegral;`, 33 bytes) and `&#x` with eight
// hex digits.
const maxRefBytes = 34

// mayHoldRef reports whether text may hold a character reference: an '&'
// followed by a letter or '#'.
func mayHoldRef(text string) bool {
	return someAt(text, '&', func(i int) bool {
		if i+1 >= len(text) {
			return false
		}
		c := text[i+1]
		return c == '#' || 'a' <= c|0x20 && c|0x20 <= 'z'
	})
}

// nextOf is where sep next stands in a line, for a scan that moves on
// through it: looked for again only once the scan has passed it, so that
// the openers before it share one search (from every unclosed "<a " or
// "{%" of a line to its end, a line of them was quadratic: 1,300,000 "<a "
// took 90 s to index).
type nextOf struct {
	sep string
	at  int  // where sep stands at or after the last place looked from (len(line): nowhere)
	ok  bool // at is known
}

// from is where sep first stands at or after i, or len(line).
func (x *nextOf) from(line []byte, i int) int {
	if !x.ok || x.at < i {
		x.at, x.ok = len(line), true
		if k := bytes.Index(line[i:], []byte(x.sep)); k >= 0 {
			x.at = i + k
		}
	}
	return x.at
}

// maxTagBytes bounds a tag that runs over lines (tagOverLines): the Rust
// book's figures (`<img alt="…" src="…" class="center" />` over three
// lines) are a few hundred bytes, and a bound keeps the scan linear where
// many lines open a tag that never closes.
const maxTagBytes = 1024

// tagOverLines is the length of the open tag that opens b and runs past
// its first line (of n bytes), as CommonMark reads an inline tag over
// line endings (white space, and in quoted values), within maxTagBytes
// and before a blank line or a code fence; 0 when b opens no such tag. It
// is tried only where the line holds no '>' after the '<' (the caller
// knows: blankInlineLinks).
func tagOverLines(b []byte, n int) int {
	if len(b) < 2 || b[1]|0x20 < 'a' || b[1]|0x20 > 'z' ||
		bytes.IndexByte(b[:min(len(b), maxTagBytes)], '>') < 0 {
		return 0 // closed on its line, or never within the bound
	}
	var buf [maxTagBytes + 1]byte
	w := buf[:0] // b's bytes, line endings as spaces, to the bound or a blank line
	for i := 0; i < len(b) && len(w) < maxTagBytes; {
		end := markdown.LineEnd(b, i) // a CRLF's '\r' is in the line
		line := b[i:end]
		if t := bytes.TrimLeft(line, " \t"); i > 0 && (len(bytes.TrimRight(t, "\r")) == 0 || markdown.OpensFence(t)) {
			break // a blank line ends the paragraph, and a fence interrupts it
		}
		w = append(w, line[:min(len(line), maxTagBytes-len(w))]...)
		if end < len(b) {
			w = append(w, ' ')
		}
		i = end + 1
	}
	for k, c := range w {
		if c == '\r' || c == '\n' {
			w[k] = ' '
		}
	}
	if m := htmlTag(w); m > n {
		return m
	}
	return 0
}

// blankTag blanks the HTML tag tag (htmlTag's), at offset off of the text
// blank works on, but the quoted values of its text attributes (caption,
// title, alt, text: markdown.ShortcodeTextParam), which the page shows, as
// blankShortcode keeps a shortcode's: the Rust book captions its 384
// listings `<Listing number="15-19" file-name="src/main.rs"
// caption="Printing the reference count">`, and no search found one.
func blankTag(tag []byte, blank func(from, to int), off int) {
	if len(tag) < 2 || tag[1] == '/' {
		blank(off, off+len(tag)) // a closing tag holds no attribute
		return
	}
	last, i := 0, 1
	for i < len(tag) && (tag[i]|0x20 >= 'a' && tag[i]|0x20 <= 'z' || tag[i] >= '0' && tag[i] <= '9' || tag[i] == '-') {
		i++ // the tag's name
	}
	for i < len(tag) {
		j := i
		for j < len(tag) && (tag[j] == ' ' || tag[j] == '\t' || tag[j] == '\n' || tag[j] == '\r') {
			j++ // a tag over lines has an attribute a line (tagOverLines)
		}
		end := htmlAttribute(tag, j)
		if end <= j {
			break
		}
		name, value, _ := bytes.Cut(tag[j:end], []byte("="))
		value = bytes.TrimLeft(value, " \t")
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && markdown.ShortcodeTextParam(strings.ToLower(string(bytes.TrimSpace(name)))) {
			from := end - len(value) + 1
			blank(off+last, off+from)
			last = end - 1 // the closing quote on
		}
		i = end
	}
	blank(off+last, off+len(tag))
}

// jsxExpression is the end of the JSX expression that b[i] ('{') opens,
// as an attribute's value (`values={getTabs(["web"])}`, `style={{float:
// 'right'}}`: a React Native page's `<Tabs>` showed whole in its
// snippets), or -1: the '}' that brings its braces back to none, outside
// its string literals, on one line and within maxJSXValue bytes (a line
// of unclosed ones is read within that bound from each). A tag whose
// expression runs over lines is an open tag over lines (tagOverLines).
func jsxExpression(b []byte, i int) int {
	depth, quote := 0, byte(0)
	for k := i; k < len(b) && k-i < maxJSXValue; k++ {
		switch c := b[k]; {
		case c == '\n' || c == '\r':
			return -1
		case quote != 0:
			if c == '\\' {
				k++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '{':
			depth++
		case c == '}':
			if depth--; depth == 0 {
				return k + 1
			}
		}
	}
	return -1
}

// maxJSXValue bounds a JSX attribute's expression (jsxExpression).
const maxJSXValue = 512

// htmlTag is the length of the HTML tag that opens b, as CommonMark reads
// an inline open tag (`<name`, attributes, optional `/`, `>`) or closing
// tag (`</name>`) within one line; 0 when b opens with none. An autolink
// (`<https://…>`, `<a@b.c>`) is not a tag.
func htmlTag(b []byte) int {
	letter := func(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
	nameChar := func(c byte) bool { return letter(c) || c >= '0' && c <= '9' || c == '-' }
	space := func(i int) int {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		return i
	}
	i := 1
	closing := i < len(b) && b[i] == '/'
	if closing {
		i++
	}
	if i >= len(b) || !letter(b[i]) {
		return 0
	}
	for i < len(b) && nameChar(b[i]) {
		i++
	}
	if closing {
		if i = space(i); i < len(b) && b[i] == '>' {
			return i + 1
		}
		return 0
	}
	for {
		j := space(i)
		switch {
		case j < len(b) && b[j] == '>':
			return j + 1
		case j+1 < len(b) && b[j] == '/' && b[j+1] == '>':
			return j + 2
		case j == i:
			return 0 // an attribute must follow white space
		}
		if i = htmlAttribute(b, j); i < 0 {
			return 0
		}
	}
}

// htmlAttribute is the offset in b just past the attribute (a name, and
// optionally `=` and an unquoted, '…' or "…" value) that starts at i; -1
// when none starts there.
func htmlAttribute(b []byte, i int) int {
	first := func(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' || c == '_' || c == ':' }
	if i >= len(b) || !first(b[i]) {
		return -1
	}
	for i < len(b) && (first(b[i]) || b[i] >= '0' && b[i] <= '9' || b[i] == '.' || b[i] == '-') {
		i++
	}
	j := i
	for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
		j++
	}
	if j >= len(b) || b[j] != '=' {
		return i
	}
	for j++; j < len(b) && (b[j] == ' ' || b[j] == '\t'); j++ {
	}
	if j >= len(b) {
		return -1
	}
	if q := b[j]; q == '"' || q == '\'' {
		k := bytes.IndexByte(b[j+1:], q)
		if k < 0 {
			return -1
		}
		return j + 1 + k + 1
	}
	if b[j] == '{' {
		return jsxExpression(b, j)
	}
	k := j
	for k < len(b) && !bytes.ContainsRune([]byte(" \t\"'=<>`"), rune(b[k])) {
		k++
	}
	if k == j {
		return -1
	}
	return k
}
