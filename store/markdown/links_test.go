package markdown

import (
	"bytes"
	"context"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/docir/docir/docir"
)

// link is a LinkRef in short, for the table.
func link(kind, target string, line int) docir.LinkRef {
	return docir.LinkRef{Target: target, Kind: kind, Line: line}
}

// undef is a reference whose label the file does not define.
func undef(label string, line int) docir.LinkRef {
	return docir.LinkRef{Target: label, Kind: docir.LinkReference, Line: line, Undefined: true}
}

// allLinks lists a record's links in document order: the lead's, then each
// section's.
func allLinks(rec docir.Record) []docir.LinkRef {
	out := append([]docir.LinkRef(nil), rec.Links...)
	for _, s := range rec.Sections {
		out = append(out, s.Links...)
	}
	return out
}

// TestLinkForms is the table of link forms: what the IR records of each,
// as written (resolution is the store's: see store/links).
func TestLinkForms(t *testing.T) {
	const (
		in   = docir.LinkInline
		ref  = docir.LinkReference
		aut  = docir.LinkAutolink
		hr   = docir.LinkHugoRef
		hrr  = docir.LinkHugoRelRef
		wiki = docir.LinkWiki
	)
	tests := []struct {
		name, md string
		want     []docir.LinkRef
	}{
		{"relative", "[a](ops/disk.md)", []docir.LinkRef{link(in, "ops/disk.md", 1)}},
		// Wikilinks (Obsidian's, Foam's): by name, with a heading, a text,
		// an embed; not across lines, not over a bracket or a code span,
		// not before "(" (CommonMark's "[x]" link text), not a defined label.
		{"wikilinks", "[[My Note]] [[My Note#Some Heading|see]] ![[img.png]] [[ Spaced ]] [[In a table\\|text]] [[the guide | Getting Started]]", []docir.LinkRef{
			link(wiki, "My Note", 1), {Target: "My Note#Some Heading", Kind: wiki, Line: 1, Alt: "see"}, link(wiki, "img.png", 1), link(wiki, "Spaced", 1),
			{Target: "In a table", Kind: wiki, Line: 1, Alt: "text"}, {Target: "the guide", Kind: wiki, Line: 1, Alt: "Getting Started"}}},
		{"no wikilinks", "[[a\nb]] [[a`b]]` [[]] [[x]](g.md) [[y]][z] [[|t]]", []docir.LinkRef{link(in, "g.md", 2), undef("z", 2)}},
		{"wikilink in a link's text", "[see [[Note]]](g.md)", []docir.LinkRef{link(in, "g.md", 1), link(wiki, "Note", 1)}},
		{"dot slash", "[a](./disk.md)", []docir.LinkRef{link(in, "./disk.md", 1)}},
		{"dot dot", "[a](../ops/disk.md#mitigate)", []docir.LinkRef{link(in, "../ops/disk.md#mitigate", 1)}},
		{"local anchor", "[a](#mitigate)", []docir.LinkRef{link(in, "#mitigate", 1)}},
		{"root relative", "[a](/functions/urls/ref/)", []docir.LinkRef{link(in, "/functions/urls/ref/", 1)}},
		{"angle brackets", "[a](<my notes.md>)", []docir.LinkRef{link(in, "my notes.md", 1)}},
		{"title double", `[a](b.md "The title")`, []docir.LinkRef{link(in, "b.md", 1)}},
		{"title single", `[a](b.md 'The title')`, []docir.LinkRef{link(in, "b.md", 1)}},
		{"title parens", `[a](b.md (The title))`, []docir.LinkRef{link(in, "b.md", 1)}},
		{"encoded space", "[a](my%20notes.md)", []docir.LinkRef{link(in, "my%20notes.md", 1)}},
		{"escapes and entities", `[a](a\_b.md#caf&eacute;)`, []docir.LinkRef{link(in, "a_b.md#café", 1)}},
		{"balanced parens", "[a](wiki/Foo_(bar).md)", []docir.LinkRef{link(in, "wiki/Foo_(bar).md", 1)}},
		{"empty destination", "[a]()", []docir.LinkRef{link(in, "", 1)}},
		{"case kept", "[a](Guide.md#Mitigate)", []docir.LinkRef{link(in, "Guide.md#Mitigate", 1)}},
		{"full reference", "[a][disk]\n\n[disk]: ops/disk.md", []docir.LinkRef{link(ref, "ops/disk.md", 1)}},
		{"collapsed reference", "[Disk][]\n\n[disk]: <ops/disk.md> \"t\"", []docir.LinkRef{link(ref, "ops/disk.md", 1)}},
		{"shortcut reference, case folded", "see [DISK] here\n\n[disk]: ops/disk.md", []docir.LinkRef{link(ref, "ops/disk.md", 1)}},
		{"undefined reference", "[a][nope] and [nope]", []docir.LinkRef{undef("nope", 1)}},
		// CommonMark: "[foo](not a link)" is the shortcut [foo], then text;
		// so is [foo] before a '[' that opens no label. A label that is
		// read but not defined leaves no shortcut.
		{"shortcut before no destination", "See [guide](see below) and [guide][ for details.\n\n[guide]: g.md", []docir.LinkRef{link(ref, "g.md", 1), link(ref, "g.md", 1)}},
		{"shortcut before a long label", "[guide][" + strings.Repeat("x", 1000) + "]\n\n[guide]: g.md", []docir.LinkRef{link(ref, "g.md", 1)}},
		{"undefined full label", "[guide][nope]\n\n[guide]: g.md", []docir.LinkRef{undef("nope", 1)}},
		{"labels in a row", "[foo][bar][baz]\n\n[baz]: /url1\n[foo]: /url2", []docir.LinkRef{link(ref, "/url1", 1)}},
		{"autolink", "<https://example.com/a>", []docir.LinkRef{link(aut, "https://example.com/a", 1)}},
		{"email autolink", "<ops@example.com>", []docir.LinkRef{link(aut, "mailto:ops@example.com", 1)}},
		{"bare URL", "see https://example.com/x. Done", []docir.LinkRef{link(aut, "https://example.com/x", 1)}},
		{"bare URL in parens", "(see https://example.com/x)", []docir.LinkRef{link(aut, "https://example.com/x", 1)}},
		{"bare URL with its parens", "see https://en.wikipedia.org/wiki/Go_(game)).", []docir.LinkRef{link(aut, "https://en.wikipedia.org/wiki/Go_(game)", 1)}},
		// each ')' trimmed without counting the URL again: quadratic before
		{"bare URL before 100,000 ')'", "http://a" + strings.Repeat(")", 100_000), []docir.LinkRef{link(aut, "http://a", 1)}},
		{"hugo ref", `[a]({{< ref "ops/disk.md#mitigate" >}})`, []docir.LinkRef{link(hr, "ops/disk.md#mitigate", 1)}},
		{"hugo relref named", `[a]({{% relref path="disk" lang="en" %}})`, []docir.LinkRef{link(hrr, "disk", 1)}},
		{"hugo ref in a definition", "[a][d]\n\n[d]: <{{% ref \"/ops/disk\" %}}>", []docir.LinkRef{link(hr, "/ops/disk", 1)}},
		// "{{<" … ">}}" inside <…> is no CommonMark definition (the '>'
		// ends the destination): the shortcode is read where it stands.
		{"hugo ref in a broken definition", "[a][d]\n\n[d]: <{{< ref \"/ops/disk\" >}}>", []docir.LinkRef{undef("d", 1), link(hr, "/ops/disk", 3)}},
		{"hugo commented shortcode", `{{</* ref "x.md" */>}}`, nil},
		{"other shortcode", `{{< figure src="x.png" >}}`, nil},
		{"template in a definition", "[src][]\n\n[src]: <{{% eturl x %}}>", []docir.LinkRef{link(ref, "{{% eturl x %}}", 1)}},
		{"image is not a link", "![alt](pic.png)", nil},
		{"link around an image", "[![alt](pic.png)](big.md)", []docir.LinkRef{link(in, "big.md", 1)}},
		{"no link in a link", "[a [b](x.md) c](y.md)", []docir.LinkRef{link(in, "x.md", 1)}},
		{"code span", "`[a](x.md)` and [b](y.md)", []docir.LinkRef{link(in, "y.md", 1)}},
		{"code span of two ticks", "``[a](`x.md`)`` [b](y.md)", []docir.LinkRef{link(in, "y.md", 1)}},
		{"escaped bracket", `\[a](x.md)`, nil},
		{"fenced code", "```\n[a](x.md)\n```\n[b](y.md)", []docir.LinkRef{link(in, "y.md", 4)}},
		{"indented code", "    [a](x.md)\n\n[b](y.md)", []docir.LinkRef{link(in, "y.md", 3)}},
		{"html comment", "text <!-- [a](x.md) --> [b](y.md)", []docir.LinkRef{link(in, "y.md", 1)}},
		{"html block", "<div>\n[a](x.md)\n</div>\n\n[b](y.md)", []docir.LinkRef{link(in, "y.md", 5)}},
		{"space in destination", "[a](my notes.md)", nil},
		{"link over two lines", "one [a\nb](x.md) two", []docir.LinkRef{link(in, "x.md", 1)}},
		{"list item and quote", "- [a](x.md)\n\n> [b](y.md)", []docir.LinkRef{link(in, "x.md", 1), link(in, "y.md", 3)}},
		{"heading", "# See [a](x.md)", []docir.LinkRef{link(in, "x.md", 1)}},
		{"too deep parens", "[a](" + strings.Repeat("(", 33) + "x" + strings.Repeat(")", 33) + ")", nil},
		// GitHub's footnotes: a definition is no link reference definition
		// (the Rust book's "[^siphash]: [url](url)"), and its text's links
		// are read where they stand.
		{"footnote", "tables[^h]. More[^2].\n\n[^h]: [https://w.org/SipHash](https://w.org/SipHash)\n[^2]: /not/a/link, see [b](y.md).",
			[]docir.LinkRef{link(in, "https://w.org/SipHash", 3), link(in, "y.md", 4)}},
		{"footnote over lines", "a[^n]\n\n[^n]: one\n    [b](y.md)\n\n[c](z.md)", []docir.LinkRef{link(in, "y.md", 4), link(in, "z.md", 6)}},
	}
	p := NewParser()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := allLinks(p.Parse("a.md", []byte(tt.md)).Record)
			// Columns: TestLinksBySection.
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(docir.LinkRef{}, "Column")); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tt.md, diff)
			}
		})
	}
}

// TestUndefinedReferences: a full or collapsed reference whose label the
// file does not define is recorded as undefined (check reports it, as
// markdownlint's MD052 does), and nothing else is: labels match as
// CommonMark matches them, a definition may stand anywhere, and brackets
// that prose, code and templates write are not references.
func TestUndefinedReferences(t *testing.T) {
	tests := []struct {
		name, md string
		want     []docir.LinkRef
	}{
		{"full", "See [the guide][guide] first.", []docir.LinkRef{undef("guide", 1)}},
		{"collapsed", "See [Install Guide][] first.", []docir.LinkRef{undef("Install Guide", 1)}},
		{"label as written", "[a][My  Label]", []docir.LinkRef{undef("My  Label", 1)}},
		{"in a heading and a list", "# [x][h]\n\n- see [y][l]\n", []docir.LinkRef{undef("h", 1), undef("l", 3)}},
		{"defined after", "[a][Guide]\n\n[guide]: g.md", []docir.LinkRef{link(docir.LinkReference, "g.md", 1)}},
		{"defined before", "[guide]: g.md\n\n[Guide][]", []docir.LinkRef{link(docir.LinkReference, "g.md", 3)}},
		{"case and spaces folded", "[a][The   GUIDE]\n\n[the guide]: g.md", []docir.LinkRef{link(docir.LinkReference, "g.md", 1)}},
		{"label over a line end", "[a][the\nguide]\n\n[the guide]: g.md", []docir.LinkRef{link(docir.LinkReference, "g.md", 1)}},
		{"defined in a quote", "[a][q]\n\n> [q]: g.md", []docir.LinkRef{link(docir.LinkReference, "g.md", 1)}},
		{"defined in a list", "[a][q]\n\n- [q]: g.md", []docir.LinkRef{link(docir.LinkReference, "g.md", 1)}},
		{"a definition in code defines nothing", "[a][q]\n\n```\n[q]: g.md\n```", []docir.LinkRef{undef("q", 1)}},
		{"shortcut alone", "[guide] and [ ] and [x] and [1]", nil},
		{"task list", "- [ ] todo\n- [x] done", nil},
		{"callout", "> [!NOTE]\n> Read it.", nil},
		{"code span", "`[a][b]` and ``x[a][]``", nil},
		{"fenced code", "```\n[a][b]\n```", nil},
		{"indented code", "    [a][b]", nil},
		{"array indexing", "matrix[i][j], cell_[0][1] and data[lang][key]", nil},
		{"after punctuation", "(see [a][b])", []docir.LinkRef{undef("b", 1)}},
		{"footnote label", "[text][^1] and [^2][]", nil},
		{"image", "![alt][pic] and ![pic][]", nil},
		{"the text of an inline link", "[foo][bar](b.md)", []docir.LinkRef{link(docir.LinkInline, "b.md", 1)}},
		{"the text of a reference", "[foo][bar][baz]\n\n[baz]: z.md", []docir.LinkRef{link(docir.LinkReference, "z.md", 1)}},
		{"labels in a row, none defined", "[foo][bar][baz]", []docir.LinkRef{undef("baz", 1)}},
		{"blank label is no label", "[a][ ]", nil}, // the shortcut [a], then text
		{"text with brackets is no label", "[a [b] c][]", nil},
		{"label too long", "[a][" + strings.Repeat("x", 1000) + "]", nil},
		{"html comment", "<!-- [a][b] -->", nil},
		{"html block", "<div>\n[a][b]\n</div>", nil},
	}
	p := NewParser()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := allLinks(p.Parse("a.md", []byte(tt.md)).Record)
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(docir.LinkRef{}, "Column")); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tt.md, diff)
			}
		})
	}
}

// TestHTMLLinks: the href of an HTML <a> or <area>, and of an MDX
// component (a tag whose name starts with a capital: Starlight's
// <LinkCard> and <LinkButton>), is a link (docir.LinkHTML), in an HTML
// block or inline, when it is a quoted string: as written, character
// references decoded, white space around it dropped. Not an expression
// (href={url}), nor the href of a tag that is no link (<link>, SVG's
// <use>), nor a tag in code or in a comment, nor an end tag's.
func TestHTMLLinks(t *testing.T) {
	html := func(target string, line int) docir.LinkRef { return link(docir.LinkHTML, target, line) }
	tests := []struct {
		name, md string
		want     []docir.LinkRef
	}{
		{"a, inline", "See <a href=\"guide.md#setup\">the guide</a>.", []docir.LinkRef{html("guide.md#setup", 1)}},
		{"a, in a block", "<p align=\"center\">\n  <a href='docs/install.md'>Install</a> ·\n  <A HREF=\"docs/faq.md\">FAQ</A>\n</p>", []docir.LinkRef{html("docs/install.md", 2), html("docs/faq.md", 3)}},
		{"starlight", "<CardGrid>\n  <LinkCard title=\"Guides\" href=\"/guides/x/\" />\n  <LinkButton href='/start/' variant=\"primary\">Start</LinkButton>\n</CardGrid>",
			[]docir.LinkRef{html("/guides/x/", 2), html("/start/", 3)}},
		{"a tag over lines", "Read\n<LinkCard\n  title=\"Guides\"\n  href=\"/guides/y/\"\n/>\nnow.", []docir.LinkRef{html("/guides/y/", 2)}},
		{"area", "<map><area shape=\"rect\" href=\"m.md\"></map>", []docir.LinkRef{html("m.md", 1)}},
		{"reference and spaces", "<a href=\" a.md?x=1&amp;y=2 \">a</a>", []docir.LinkRef{html("a.md?x=1&y=2", 1)}},
		{"the first href", "<a href=\"one.md\" href=\"two.md\">x</a>", []docir.LinkRef{html("one.md", 1)}},
		{"expression", "<LinkCard title=\"X\" href={url} />\n\n<a href={`/x/`}>x</a>", nil},
		{"unquoted", "<a href=x.md>x</a>", nil},
		{"empty", "<a href=\"\">x</a> <a href=\" \">y</a> <a name=\"top\"></a>", nil},
		{"no link tags", "<link rel=\"stylesheet\" href=\"s.css\">\n<svg><use href=\"#icon\"/></svg>\n\n<div href=\"d.md\">d</div>", nil},
		{"end tag", "<a>x</a href=\"e.md\">", nil},
		{"code span", "`<a href=\"x.md\">x</a>`", nil},
		{"fenced code", "```html\n<a href=\"x.md\">x</a>\n```", nil},
		{"comment", "<!-- <a href=\"x.md\">x</a> -->", nil},
		{"script", "<script>\nvar s = '<a href=\"x.md\">'\n</script>", nil},
		{"beside a markdown link", "[md](a.md) <a href=\"b.md\">b</a>", []docir.LinkRef{link(docir.LinkInline, "a.md", 1), html("b.md", 1)}},
	}
	p := NewParser()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := allLinks(p.Parse("a.md", []byte(tt.md)).Record)
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(docir.LinkRef{}, "Column")); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tt.md, diff)
			}
		})
	}
}

// TestLinksBySection: a link belongs to the section whose own text holds
// it; links before the first heading are the record's. Each has its line
// and its byte column in that line.
func TestLinksBySection(t *testing.T) {
	md := "---\ntitle: T\n---\nlead [l](l.md)\n\n# One\n\n[a](a.md)\n\n## Two\n\n[b](b.md) é <https://x.org>\n\n# Three\n"
	rec := NewParser().Parse("a.md", []byte(md)).Record
	got := map[string][]docir.LinkRef{"": rec.Links}
	for _, s := range rec.Sections {
		got[s.Slug] = s.Links
	}
	at := func(l docir.LinkRef, column int) docir.LinkRef {
		l.Column = column
		return l
	}
	want := map[string][]docir.LinkRef{
		"":      {at(link(docir.LinkInline, "l.md", 4), 6)},
		"one":   {at(link(docir.LinkInline, "a.md", 8), 1)},
		"two":   {at(link(docir.LinkInline, "b.md", 12), 1), at(link(docir.LinkAutolink, "https://x.org", 12), 14)},
		"three": nil,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestLinkScanIsLinear: on the shapes that are quadratic in goldmark's
// inline parser (docs/ingest.md), and others that would be in a naive
// scan, the bytes the scan looks at grow linearly with the input: 8 times
// the input, at most 8 times the steps (and a bounded number per byte).
func TestLinkScanIsLinear(t *testing.T) {
	shapes := map[string]string{
		"link openers":     "[a](",
		"nested parens":    "[a](((",
		"long destination": "[a](" + strings.Repeat("x", 100),
		"brackets":         "[",
		"closers":          "[]",
		"angle openers":    "<a:",
		"backticks":        "`` ` ",
		"shortcodes":       "{{< ref ",
		"comments":         "<!-- ",
		"titles":           `[a](b "`,
		"paren titles":     `[a](b (`,
		"labels":           "[a][",
		"bare urls":        "http://x",
	}
	steps := func(b []byte) int {
		s := scanner{t: b, refs: func([]byte) ([]byte, bool) { return []byte("x"), true }}
		s.run()
		return s.steps
	}
	for name, unit := range shapes {
		t.Run(name, func(t *testing.T) {
			small := []byte(strings.Repeat(unit, 10_000))
			large := []byte(strings.Repeat(unit, 80_000))
			ss, sl := steps(small), steps(large)
			if sl > 9*ss || sl > 40*len(large) {
				t.Errorf("%d bytes: %d steps; %d bytes: %d steps: not linear", len(small), ss, len(large), sl)
			}
		})
	}
}

// TestLinksWithinBudget: a whole 4 MiB file of link openers parses, links
// and all, well within the default budget.
func TestLinksWithinBudget(t *testing.T) {
	src := []byte(strings.Repeat("[a](", 1<<20))
	if _, err := NewParser().ParseContext(context.Background(), "a.md", src, DefaultLimits); err != nil {
		t.Fatal(err)
	}
}

// FuzzLinks holds the scan's invariants on any block text: every link
// starts inside the text, in order of discovery never past its end, and
// the work is bounded by the text's size.
func FuzzLinks(f *testing.F) {
	for _, s := range []string{"[a](b.md)", "[a][b]", "<http://x>", "``a`` [b](c)", `{{< ref "x" >}}`, "[a](<b", "[![i](j)](k)", "https://x.org/(a)."} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s := scanner{t: b, refs: func(l []byte) ([]byte, bool) { return l, len(l)%2 == 0 }}
		s.run()
		for _, l := range s.out {
			if l.at < 0 || l.at >= len(b) {
				t.Fatalf("link %+v outside the %d-byte text", l, len(b))
			}
		}
		if s.steps > 40*len(b)+64 {
			t.Fatalf("%d steps for %d bytes", s.steps, len(b))
		}
	})
}

// TestAnchorsAndTerms: ids a section's text defines besides its slug —
// HTML id and name attributes, and definition terms, slugged in one
// sequence with the headings as Hugo numbers them.
func TestAnchorsAndTerms(t *testing.T) {
	md := "lead <a id=\"top\"></a>\n\n`baseURL`\n: the base\n\n# Cascade\n\n<div id='box' name=x>\nhi\n</div>\n\n" +
		"`cascade`\n: (`map`) what cascades\n\n`[alias](x.md)` **Two words**\n: more\n\n`options`\n: a term before its heading\n\n## Options\n\n`not a term`\n\nplain\n: still a definition\n\n" +
		"`x` and `<span id=\"code\">`\n"
	rec := NewParser().Parse("a.md", []byte(md)).Record
	type anchors struct{ Anchors, Terms []string }
	got := map[string]anchors{"": {rec.Anchors, rec.Terms}}
	for _, s := range rec.Sections {
		got[s.Slug] = anchors{s.Anchors, s.Terms}
	}
	want := map[string]anchors{
		"":        {[]string{"top"}, []string{"baseurl"}},
		"cascade": {[]string{"box", "x"}, []string{"cascade-1", "alias-two-words", "options"}},
		// The heading after the term "options" is "options-1" where terms
		// have ids, as Hugo numbers it; its slug stays "options".
		"options": {nil, []string{"options-1", "plain"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestAnchorBeforeHeading: an HTML id with nothing but HTML and white
// space between its block's first line and the next heading belongs to
// that heading's section, where a browser lands (mdBook keeps a renamed
// heading's old anchor so); an id with text after it, or text before it
// in its block, stays with the section whose text holds it.
func TestAnchorBeforeHeading(t *testing.T) {
	for _, tt := range []struct {
		name, md string
		want     map[string][]string // by slug; "" the lead
	}{
		{"mdBook", "<a id=\"old-top\"></a>\n\n## Closures\n\nBody.\n\n<a id=\"old-second\"></a>\n\n### Second heading\n\nSecond body.\n",
			map[string][]string{"closures": {"old-top"}, "second-heading": {"old-second"}}},
		{"several lines", "# A\n\ntext\n\n<a id=\"x\"></a>\n<a name=\"y\"></a> <span id=z></span>\n\n<a id=\"w\"></a>\n\n## B\n",
			map[string][]string{"b": {"x", "y", "z", "w"}}},
		{"no blank line", "# A\n<a id=\"x\"></a>\n## B\n", map[string][]string{"b": {"x"}}},
		{"setext", "# A\n\n<a id=\"x\"></a>\n\nB\n-\n", map[string][]string{"b": {"x"}}},
		{"html block and comment", "# A\n\n<div id=\"d\">\n</div>\n<!-- old -->\n\n## B\n", map[string][]string{"b": {"d"}}},
		{"crlf", "# A\r\n\r\n<a id=\"x\"></a>\r\n\r\n## B\r\n", map[string][]string{"b": {"x"}}},
		{"text after", "# A\n\n<a id=\"x\"></a>\n\ntext\n\n## B\n", map[string][]string{"a": {"x"}}},
		{"text after, lead", "<a id=\"top\"></a>\n\nIntro.\n\n# A\n", map[string][]string{"": {"top"}}},
		{"later anchor before text", "# A\n\n<a id=\"x\"></a>\n\n<a id=\"y\"></a>\ntext\n\n<a id=\"z\"></a>\n\n## B\n",
			map[string][]string{"a": {"x", "y"}, "b": {"z"}}},
		{"text before on its line", "# A\n\nsee <a id=\"x\"></a>\n\n## B\n", map[string][]string{"a": {"x"}}},
		{"paragraph's second line", "# A\n\ntext\n<a id=\"x\"></a>\n\n## B\n", map[string][]string{"a": {"x"}}},
		{"list item", "# A\n\n- <a id=\"x\"></a>\n\n## B\n", map[string][]string{"a": {"x"}}},
		{"block quote", "# A\n\n> <a id=\"x\"></a>\n\n## B\n", map[string][]string{"a": {"x"}}},
		{"code between", "# A\n\n<a id=\"x\"></a>\n\n```\nc\n```\n\n## B\n", map[string][]string{"a": {"x"}}},
		{"open comment", "# A\n\n<a id=\"x\"></a> <!-- c\n\n## B\n", map[string][]string{"a": {"x"}}},
		{"in the heading", "# A\n\n## B <a id=\"x\"></a>\n\n## C\n", map[string][]string{"b-": {"x"}}},
		{"last section", "# A\n\n<a id=\"end\"></a>\n", map[string][]string{"a": {"end"}}},
		// MyST's targets name the heading after them (a review of a
		// Sphinx site: get 'content/metadata#jupyter-cell-tags' missed).
		{"myst targets", "(top)=\n# A\n\ntext\n\n(toc/numbering)=\n  (ref:two)=\n<a id=\"x\"></a>\n\n## B\n\n(late)=\n",
			map[string][]string{"a": {"top"}, "b": {"toc/numbering", "ref:two", "x", "late"}}},
		{"myst target after text", "# A\n\n(t)=\ntext\n\n## B\n", map[string][]string{"a": {"t"}}},
		// kramdown's block attribute list after a heading (Jekyll's
		// history page: "## 3.7.0 / 2018-01-02" then "{: #v3-7-0}") gives
		// it the id; after a paragraph, the paragraph; after a blank
		// line it names the block after it, which is left alone.
		{"kramdown IAL ids", "# A\n\n## 3.7.0 / 2018-01-02\n{: #v3-7-0}\n\ntext\n  {: #para .c}\n\n{: #standalone}\n## B\n{#b-id}\n{: .no-id}\n",
			map[string][]string{"370--2018-01-02": {"v3-7-0", "para"}, "b": {"b-id"}}},
		{"not myst targets", "# A\n\n(a b)=\n\n(x)= y\n\n    (code)=\n\n```\n(fence)=\n```\n\n## B\n", map[string][]string{}},
		// Obsidian's block ids: " ^id" ending a paragraph or a list
		// item's text, or "^id" on a line of its own (after a list, a
		// quotation, a callout, a table); the last line only, after a
		// space, letters, digits and '-'. One before a heading stays in
		// its section (it names the block before it).
		{"obsidian block ids", "# A\n\nThe quick gem. ^37066d\n\n## B\n\n- one\n- two ^item-2\n\n> quoted\n\n^quote-of-the-day\n\n## C\n\n![[pic.png]]^after-embed\n\n2^10 and x^y, ^mid here\n\n`code ^inspan`\n\n    ^indented\n\n^not_id\n\nline ^two\nnext\n",
			map[string][]string{"a": {"^37066d"}, "b": {"^item-2", "^quote-of-the-day"}, "c": {"^after-embed"}}},
		// An anchor in an Obsidian comment is no anchor, as a link there
		// is no link.
		{"anchors in an obsidian comment", "# A\n\n%%\nhidden paragraph ^hidden\n\n<a id=\"gone\"></a>\n%%\n\nshown ^shown\n",
			map[string][]string{"a": {"^shown"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := NewParser().Parse("a.md", []byte(tt.md)).Record
			got := map[string][]string{}
			if rec.Anchors != nil {
				got[""] = rec.Anchors
			}
			for _, s := range rec.Sections {
				if s.Anchors != nil {
					got[s.Slug] = s.Anchors
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tt.md, diff)
			}
		})
	}
}

// FuzzLinksGoldmark compares the scan with goldmark's own link parsing
// on one line of link syntax where a shortcut reference may stand before
// what is not an inline link or a label: each byte of the input picks a
// token (brackets, parentheses, a defined label, destinations, titles,
// spaces), and "[guide]" is defined. Both find the same links, in order.
// It leaves out where goldmark parts from CommonMark (and from
// commonmark.js, its reference implementation): a destination with
// unbalanced parentheses ("[a](b( )" is a link to "b(" in goldmark, no
// link in CommonMark); an image in a link's text ("[![](]( )" is a link
// in CommonMark, none in goldmark); and labels over 999 bytes
// ("[guide][x…]" is no link in goldmark, the shortcut [guide] in
// CommonMark), out of reach of its inputs.
func FuzzLinksGoldmark(f *testing.F) {
	tokens := []string{"[", "]", "(", ")", " ", "guide", "[guide]", "g.md", "\"t\"", "x", "[]", "]("}
	for _, s := range []string{"\x06\x02\x00\x00", "\x06\x00\x04", "\x06\x02\x07\x04\x09\x03"} {
		f.Add([]byte(s))
	}
	p := NewParser()
	gm := goldmark.New(goldmark.WithExtensions(extension.Footnote)).Parser() // as NewParser reads footnotes
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 64 {
			return
		}
		md := []byte(tokenLine("p ", tokens, b) + "\n\n[guide]: g.md\n")
		want, _ := goldmarkLinks(gm, md)
		sameLinks(t, p, md, want)
	})
}

// balanced reports whether the parentheses of a destination nest, as
// CommonMark wants them in one not written in <…> (FuzzLinksGoldmark
// writes none in <…>).
func balanced(d string) bool {
	depth := 0
	for _, c := range d {
		switch c {
		case '(':
			depth++
		case ')':
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// TestHTMLIDs: the ids of HTML, in an HTML block or inline, are the id and
// name attributes of its start tags as a browser reads them; not what a
// comment holds, nor text ("id=" in a <pre>), nor the text of a script,
// style or textarea, nor an end tag's attributes, nor a quoted value's
// text.
func TestHTMLIDs(t *testing.T) {
	tests := []struct {
		name, md string
		want     []string
	}{
		{"comment block", "<!--\n<a name=\"old-anchor\"></a>\n## Removed\n-->", nil},
		{"comment in a block", "<div>\n<!-- <a id=\"c\"></a> --><a id=\"real\"></a>\n</div>", []string{"real"}},
		{"empty comment", "<div><!--><a id=\"after\"></a></div>", []string{"after"}},
		{"text in pre", "<pre>\nset id=fake-id in the config\n</pre>", nil},
		{"tag in pre", "<pre>\n<span id=\"p\">x</span>\n</pre>", []string{"p"}},
		{"script", "<script>\nvar s = '<a id=\"s\">' + \" id=q\"\n</script>\n<a id=\"after\"></a>", []string{"after"}},
		{"textarea", "<textarea>\n<a id=\"t\"></a>\n</TEXTAREA>", nil},
		{"attributes", "<div ID=Up NAME='n' id=dup title=\"x id=y\" data-x='>'class=c>\n</div>", []string{"Up", "n"}},
		{"reference in a value", "<a id=\"caf&eacute;\"></a>", []string{"café"}},
		{"no space between", "<div id=\"a\"class=\"b\"></div>", []string{"a"}},
		{"end tag", "<div>\n</div id=\"e\">", nil},
		{"declaration", "<!DOCTYPE html id=d>\n<?php $id=1; ?>", nil},
		{"unclosed tag", "<div id=\"x\"", nil},
		{"inline", "a <span title=\"x id=y\" id=\"z\">b</span> <!-- <a id=\"c\"> --> c", []string{"z"}},
	}
	p := NewParser()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := p.Parse("a.md", []byte(tt.md)).Record.Anchors
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tt.md, diff)
			}
		})
	}
}

// FuzzHTMLTags holds htmlTags' invariants on any HTML: every id and every
// link's target is non-empty and placed inside the text, at a '<', in
// order; and HTML that ends inside a tag gives no id or link of that tag
// (the ids and links of a prefix that ends between tags are the whole's
// first ones). onlyMarkup is false of text that holds no tag, and true of
// markup written twice.
func FuzzHTMLTags(f *testing.F) {
	for _, s := range []string{"<a id=x name='y'>", "<!-- <a id=c> --><b id=d>", "<script><a id=s></script><i id=t>", "<div id=\"a\"class=b ID=c>", "<pre>id=fake</pre>",
		"<a href=\"x.md\">x</a>", "<LinkCard title=\"T\" href='/g/x/' />", "<Card href={url} /><area href=\" m.md \">"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ids, links := htmlTags(b, 3, nil, nil)
		for k, a := range ids {
			if a.id == "" || a.at < 3 || a.at-3 >= len(b) || b[a.at-3] != '<' || k > 0 && a.at < ids[k-1].at {
				t.Fatalf("%q: id %d %+v misplaced", b, k, a)
			}
		}
		for k, l := range links {
			if l.target == "" || l.kind != docir.LinkHTML || l.at < 3 || l.at-3 >= len(b) || b[l.at-3] != '<' || k > 0 && l.at <= links[k-1].at {
				t.Fatalf("%q: link %d %+v misplaced", b, k, l)
			}
		}
		if i := bytes.LastIndexByte(b, '<'); i >= 0 {
			prefix, prefixLinks := htmlTags(b[:i], 3, nil, nil)
			if len(prefix) > len(ids) || !slices.Equal(prefix, ids[:len(prefix)]) {
				t.Fatalf("%q: ids %+v, of the text before its last '<' %+v", b, ids, prefix)
			}
			if len(prefixLinks) > len(links) || !slices.Equal(prefixLinks, links[:len(prefixLinks)]) {
				t.Fatalf("%q: links %+v, of the text before its last '<' %+v", b, links, prefixLinks)
			}
		}
		if onlyMarkup(b) {
			if !bytes.ContainsRune(b, '<') && len(bytes.TrimSpace(b)) > 0 {
				t.Fatalf("%q: text is not markup", b)
			}
			if twice := append(append(slices.Clip(b), '\n'), b...); !onlyMarkup(twice) {
				t.Fatalf("%q: markup, but not twice", b)
			}
		}
	})
}

// TestMaxLinks: a document's record lists its first MaxLinks links, in
// document order, and counts the rest, wherever they are (one paragraph
// past the bound, or many); links in an Obsidian comment are none, and
// count toward nothing.
func TestMaxLinks(t *testing.T) {
	one := strings.Repeat("[a](b) ", MaxLinks+5)
	many := strings.Repeat("[x](y)\n\n", MaxLinks-1) + "## Last\n\n[c](d) [e](f) [g](h)\n"
	commentedOut := "%%\n" + strings.Repeat("[x](y) ", MaxLinks+5) + "\n%%\n\n## Real\n\n[r](s)\n"
	p := NewParser()
	for name, tt := range map[string]struct {
		md         string
		left       int
		lastTarget string
	}{
		"one paragraph":        {one, 5, "b"},
		"many, then a section": {many, 2, "d"},
		"under the bound":      {"[a](b)\n\n## S\n\n[c](d)\n", 0, "d"},
		"past a comment":       {commentedOut, 0, "s"},
	} {
		out := p.Parse("a.md", []byte(tt.md))
		links := slices.Clone(out.Record.Links)
		for _, s := range out.Record.Sections {
			links = append(links, s.Links...)
		}
		if out.LinksLeftOut != tt.left || len(links) > MaxLinks {
			t.Errorf("%s: %d links recorded, %d left out; want at most %d, and %d left out", name, len(links), out.LinksLeftOut, MaxLinks, tt.left)
		}
		if len(links) > 0 && links[len(links)-1].Target != tt.lastTarget {
			t.Errorf("%s: the last link recorded is %q, want %q (the first links in document order)", name, links[len(links)-1].Target, tt.lastTarget)
		}
	}
}

// sameLinks fails t unless p reads the links of md that goldmark does
// (want), skipping a destination goldmark takes with unbalanced
// parentheses, which CommonMark does not.
func sameLinks(t *testing.T, p *Parser, md []byte, want []string) {
	t.Helper()
	for _, d := range want {
		if !balanced(d) {
			t.Skip("goldmark takes a destination with unbalanced parentheses, which CommonMark does not")
		}
	}
	var got []string
	for _, l := range allLinks(p.Parse("a.md", md).Record) {
		// A wikilink is no CommonMark link, and a reference to a label
		// the file does not define ([guide][(]) is text to CommonMark,
		// which docir reports as broken: goldmark reads neither.
		if l.Kind != docir.LinkWiki && !l.Undefined {
			got = append(got, l.Target)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%q: links (-goldmark +docir):\n%s", md, diff)
	}
}

// tokenLine is prefix followed by the tokens that b's bytes pick, one a
// byte: a fuzzer's input made into markdown of chosen pieces.
func tokenLine(prefix string, tokens []string, b []byte) string {
	var line strings.Builder
	line.WriteString(prefix)
	for _, c := range b {
		line.WriteString(tokens[int(c)%len(tokens)])
	}
	return line.String()
}

// goldmarkLinks are the destinations of the links goldmark's parser gm
// reads in md, in order, and the table cells it reads (with its table
// extension; 0 without).
func goldmarkLinks(gm parser.Parser, md []byte) (links []string, cells int) {
	_ = ast.Walk(gm.Parse(text.NewReader(md)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			links = append(links, string(unescape(n.Destination)))
		case *east.TableCell:
			cells++
		}
		return ast.WalkContinue, nil
	})
	return links, cells
}

// TestListTerms: a list written as MDN's definition list (rari's is_dl:
// each item two blocks or more, the last a list whose items open with
// ": ") records its terms' text in the section that holds it, a term by
// its first element's text, in a loose list too; any other list records
// none, and the terms take no place in the sequence of slugs.
func TestListTerms(t *testing.T) {
	src := "# Input\n\n## Attributes\n\n" +
		"- `value` {{optional_inline}}\n  - : The value.\n- [`type`](#types)\n  - : The type.\n    More.\n- Required text\n  - : Whether.\n\n" +
		"## Loose\n\n- `options` {{optional_inline}}\n\n  - : An object.\n\n" +
		"## Not a list of terms\n\n- `min`\n  - : one\n  - two\n\n- a\n- b\n\n## Value\n\nText.\n"
	rec := NewParser().Parse("x.md", []byte(src)).Record
	got := map[string][]string{}
	for _, s := range rec.Sections {
		if len(s.ListTerms) > 0 {
			got[s.Slug] = s.ListTerms
		}
	}
	want := map[string][]string{"attributes": {"value", "type", "Required text"}, "loose": {"options"}}
	if diff := cmp.Diff(want, got); diff != "" || rec.ListTerms != nil {
		t.Errorf("list terms (-want +got):\n%s (lead %q)", diff, rec.ListTerms)
	}
	if s := rec.Sections[len(rec.Sections)-1]; s.Slug != "value" {
		t.Errorf("the heading after the terms: %q, want value (terms take no slug)", s.Slug)
	}
}

// TestLinksLinear: the links of a page past MaxLinks, with an Obsidian
// comment in it or not, cost memory in proportion to the page: twice the
// paragraphs allocate about twice the bytes (each block's links were
// copied with all those before them when a comment was on the page, and
// appended past a capacity cut to MaxLinks when one was not).
func TestLinksLinear(t *testing.T) {
	p := NewParser()
	alloc := func(md string) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		p.Parse("a.md", []byte(md))
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	for _, head := range []string{"", "%%c%%\n\n"} {
		n := 2 * MaxLinks
		one, two := alloc(head+strings.Repeat("[a](b)\n\n", n)), alloc(head+strings.Repeat("[a](b)\n\n", 2*n))
		if two > 5*one/2 {
			t.Errorf("%q then %d paragraphs of a link: %d bytes allocated, and %d for twice as many", head, n, one, two)
		}
	}
}
