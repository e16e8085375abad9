// Package markdown turns the bytes of one markdown file into docir's IR: a
// docir.Record with its front matter, title and sections. goldmark is
// confined to this package; nothing else in docir sees a goldmark type.
//
// Rules (docs/ingest.md has them for users):
//   - Front matter is a YAML block that opens the file with a line "---" and
//     closes with a line "---" or "..."; it is part of the body, not markdown.
//   - Sections come from ATX and setext headings at the top level of the
//     document; a '#' line inside a fenced or indented code block, a block
//     quote or a list is not a section.
//   - A section runs from the first byte of its heading line to the first byte
//     of the next heading of the same or a higher level; OwnEnd stops at the
//     next heading of any level.
//   - Slugs come from address.Slug through an address.Slugger, so repeats get
//     -1, -2 as on GitHub.
//   - Title: front-matter `title`, else the first level-1 heading, else the
//     file name without ".md".
//
// Parse does not decide ids, check sizes or validate encodings: that is the
// store's ingest, which knows the file's root and path.
package markdown

import (
	"bytes"
	"fmt"
	"math"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"go.yaml.in/yaml/v3"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
)

var bom = []byte{0xEF, 0xBB, 0xBF}

// Parsed is what Parse makes of a file.
type Parsed struct {
	// Record holds title, fields, sections and BodyStart; the caller fills
	// ID, Path, Root, Size and Digest.
	Record docir.Record
	// FrontMatterID is the front matter's `id:` when it is a non-empty string.
	FrontMatterID string
	// Warning is set when the file parsed but something in it was ignored
	// (front matter that is not valid YAML).
	Warning string
}

// Parser parses markdown files. It is not safe for concurrent use; make one
// per goroutine.
type Parser struct {
	md parser.Parser
}

// NewParser returns a CommonMark parser.
func NewParser() *Parser {
	return &Parser{md: goldmark.New().Parser()}
}

// Parse reads src, the whole file, named name (its base name gives the title
// of last resort).
func (p *Parser) Parse(name string, src []byte) Parsed {
	var out Parsed
	rec := &out.Record

	base := 0
	if bytes.HasPrefix(src, bom) {
		base = len(bom)
	}
	rec.BodyStart = base

	fmEnd, fields, err := frontMatter(src, base)
	if err != nil {
		out.Warning = err.Error()
	}
	rec.Fields = fields
	rec.MarkdownStart = fmEnd
	if id, ok := fields["id"].(string); ok {
		out.FrontMatterID = strings.TrimSpace(id)
	}

	doc := p.md.Parse(text.NewReader(src[fmEnd:]))
	lines := newLineIndex(src)
	rec.Sections = sections(doc, src, fmEnd, lines)

	switch t := fields["title"].(type) {
	case string:
		rec.Title = strings.TrimSpace(t)
	}
	if rec.Title == "" {
		for _, s := range rec.Sections {
			if s.Level == 1 {
				rec.Title = s.Heading
				break
			}
		}
	}
	if rec.Title == "" {
		rec.Title = strings.TrimSuffix(path.Base(name), ".md")
	}
	return out
}

// frontMatter finds a YAML front-matter block that starts at src[base:] and
// returns the offset just past it (base when there is none) and its fields.
// A block that is not valid YAML is still skipped as markdown; its fields are
// empty and the error says why.
func frontMatter(src []byte, base int) (end int, fields map[string]any, err error) {
	rest := src[base:]
	first, ok := lineAt(rest, 0)
	if !ok || strings.TrimRight(string(rest[:first]), "\r\n") != "---" {
		return base, nil, nil
	}
	for at := first; at < len(rest); {
		next, _ := lineAt(rest, at)
		line := strings.TrimRight(string(rest[at:next]), "\r\n")
		if line == "---" || line == "..." {
			block := rest[first:at]
			end = base + next
			if err := yaml.Unmarshal(block, &fields); err != nil {
				return end, nil, fmt.Errorf("front matter is not valid YAML, fields ignored: %w", err)
			}
			return end, jsonSafe(fields).(map[string]any), nil
		}
		at = next
	}
	// No closing line: this was a thematic break, not front matter.
	return base, nil, nil
}

// lineAt returns the offset just past the line starting at i (past its '\n',
// or len(b)), and whether the line ended with '\n'.
func lineAt(b []byte, i int) (int, bool) {
	if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
		return i + j + 1, true
	}
	return len(b), false
}

// heading is a top-level heading found in the AST, before ranges are known.
type heading struct {
	text  string
	level int
	start int // first byte of its first line, in the whole file
}

func sections(doc ast.Node, src []byte, off int, lines lineIndex) []docir.Section {
	body := src[off:]
	var hs []heading
	cursor := 0 // offset in body where the previous top-level block ended
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			start := -1
			if h.Lines().Len() > 0 {
				start = lineStart(body, h.Lines().At(0).Start)
			} else {
				start = findEmptyATX(body, cursor)
			}
			if start >= 0 {
				hs = append(hs, heading{text: plainText(h, body), level: h.Level, start: off + start})
				cursor = start + 1
			}
		}
		if end := lastStop(n); end > cursor {
			cursor = end
		}
	}

	out := make([]docir.Section, len(hs))
	var slugs address.Slugger
	for i, h := range hs {
		end, ownEnd := len(src), len(src)
		if i+1 < len(hs) {
			ownEnd = hs[i+1].start
		}
		for _, next := range hs[i+1:] {
			if next.level <= h.level {
				end = next.start
				break
			}
		}
		out[i] = docir.Section{
			Slug:    slugs.Next(h.text),
			Heading: h.text,
			Level:   h.level,
			Start:   h.start,
			OwnEnd:  ownEnd,
			End:     end,
			Line:    lines.line(h.start),
			EndLine: lines.line(max(h.start, end-1)),
		}
	}
	return out
}

// lineStart returns the offset of the first byte of the line holding i.
func lineStart(b []byte, i int) int {
	return bytes.LastIndexByte(b[:i], '\n') + 1
}

// findEmptyATX finds an ATX heading with no text ("#", "## ##") on or after
// the first line that starts at or after from: goldmark gives such a heading
// no segments to locate it by.
func findEmptyATX(b []byte, from int) int {
	at := min(from, len(b))
	if at > 0 && b[at-1] != '\n' {
		at, _ = lineAt(b, at)
	}
	for at < len(b) {
		next, _ := lineAt(b, at)
		line := strings.TrimLeft(string(b[at:next]), " ")
		if len(b[at:next])-len(line) <= 3 && strings.HasPrefix(line, "#") {
			return at
		}
		at = next
	}
	return -1
}

// lastStop is the largest segment stop in n's subtree: where n ends in the
// source, as far as goldmark recorded it.
func lastStop(n ast.Node) int {
	end := 0
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if c.Type() == ast.TypeBlock {
			if l := c.Lines(); l.Len() > 0 {
				end = max(end, l.At(l.Len()-1).Stop)
			}
		} else if t, ok := c.(*ast.Text); ok {
			end = max(end, t.Segment.Stop)
		}
		return ast.WalkContinue, nil
	})
	return end
}

// plainText is a heading's text as a reader sees it: markup dropped, code
// spans and link texts kept, soft line breaks as spaces.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			v := c.Value(src)
			if !c.IsRaw() {
				v = util.UnescapePunctuations(v)
			}
			b.Write(v)
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.AutoLink:
			b.Write(c.Label(src))
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return strings.Join(strings.Fields(b.String()), " ")
}

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex []int // offsets of each line's first byte

func newLineIndex(src []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (l lineIndex) line(off int) int {
	return sort.Search(len(l), func(i int) bool { return l[i] > off })
}

// jsonSafe rewrites what YAML may decode into something encoding/json
// prints: maps with non-string keys get their keys printed, and floats that
// JSON cannot spell (NaN, ±Inf) and timestamps become strings.
func jsonSafe(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = jsonSafe(e)
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[fmt.Sprint(k)] = jsonSafe(e)
		}
		return m
	case []any:
		for i, e := range v {
			v[i] = jsonSafe(e)
		}
		return v
	case time.Time:
		// Dates stay strings, so that they print and compare as written.
		if v.Equal(v.Truncate(24*time.Hour)) && v.Location() == time.UTC {
			return v.Format(time.DateOnly)
		}
		return v.Format(time.RFC3339Nano)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Sprint(v)
		}
		return v
	default:
		return v
	}
}
