package markdown

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden is the reviewable form of a parse: the record, and for each section
// the first line and last line of its range, so a wrong offset shows.
type golden struct {
	Parsed   Parsed          `json:"parsed"`
	Sections []goldenSection `json:"ranges"`
}

type goldenSection struct {
	Slug      string `json:"slug"`
	FirstLine string `json:"first_line"`
	LastLine  string `json:"last_line"`
}

// TestGolden parses every fixture under testdata/corpus and testdata/markdown
// and compares with testdata/ir/<name>.json. Run with -update to rewrite.
func TestGolden(t *testing.T) {
	var files []string
	for _, dir := range []string{"../../testdata/corpus", "../../testdata/markdown"} {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 10 {
		t.Fatalf("found only %d fixtures", len(files))
	}
	p := NewParser()
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got := p.Parse(filepath.Base(f), src)
		checkInvariants(t, f, src, got)
		g := golden{Parsed: got}
		for _, s := range got.Record.Sections {
			body := src[s.Start:s.End]
			g.Sections = append(g.Sections, goldenSection{Slug: s.Slug, FirstLine: firstLine(body), LastLine: lastLine(body)})
		}
		out, err := json.MarshalIndent(g, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel("../../testdata", f)
		gf := filepath.Join("../../testdata/ir", strings.NewReplacer("/", "__").Replace(rel)+".json")
		if *update {
			if err := os.MkdirAll(filepath.Dir(gf), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(gf, append(out, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(gf)
		if err != nil {
			t.Fatalf("%s: %v (run go test -update)", f, err)
		}
		if diff := cmp.Diff(string(want), string(out)+"\n"); diff != "" {
			t.Errorf("%s: IR differs from %s (-want +got):\n%s", f, gf, diff)
		}
	}
}

func firstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return string(bytes.TrimRight(b, "\r"))
}

func lastLine(b []byte) string {
	b = bytes.TrimRight(b, "\r\n")
	return string(b[bytes.LastIndexByte(b, '\n')+1:])
}

// checkInvariants holds for every parse of every input: ranges lie inside the
// file, in order, each starting on a line start; a section contains its own
// part and every deeper section that follows it before its end, and a
// section of its level only when it is stacked over it; slugs are
// unique; line numbers match the offsets.
func checkInvariants(t *testing.T, name string, src []byte, got Parsed) {
	t.Helper()
	rec := got.Record
	seen := map[string]bool{}
	prev := rec.BodyStart
	for i, s := range rec.Sections {
		if s.Start < prev || s.Start > s.OwnEnd || s.OwnEnd > s.End || s.End > len(src) {
			t.Fatalf("%s: section %d %q has bad range %d..%d..%d (prev %d, len %d)", name, i, s.Slug, s.Start, s.OwnEnd, s.End, prev, len(src))
		}
		if s.Start > 0 && src[s.Start-1] != '\n' && src[s.Start-1] != '\r' && s.Start != rec.BodyStart {
			t.Fatalf("%s: section %q does not start a line", name, s.Slug)
		}
		if s.Level < 1 || s.Level > 6 {
			t.Fatalf("%s: section %q level %d", name, s.Slug, s.Level)
		}
		if seen[s.Slug] || s.Slug == "" {
			t.Fatalf("%s: slug %q repeated or empty", name, s.Slug)
		}
		seen[s.Slug] = true
		if want := 1 + lineEndings(src[:s.Start]); s.Line != want {
			t.Fatalf("%s: section %q line %d, want %d", name, s.Slug, s.Line, want)
		}
		if s.EndLine < s.Line {
			t.Fatalf("%s: section %q end line %d before line %d", name, s.Slug, s.EndLine, s.Line)
		}
		for _, n := range rec.Sections[i+1:] {
			if n.Start >= s.End {
				if n.Level > s.Level && n.Start == s.End {
					t.Fatalf("%s: deeper section %q cut from %q", name, n.Slug, s.Slug)
				}
				break
			}
			// A stacked heading ends where those of its level under it end.
			if n.Level < s.Level || n.Level == s.Level && (n.End != s.End || !onlyHeadingLine(src[s.Start:s.OwnEnd])) {
				t.Fatalf("%s: %q (level %d) inside %q (level %d)", name, n.Slug, n.Level, s.Slug, s.Level)
			}
		}
		prev = s.Start
	}
}

// lineEndings counts the line endings of b as CommonMark does: LF, CRLF,
// and a CR alone.
func lineEndings(b []byte) int {
	return bytes.Count(b, []byte("\n")) + bytes.Count(b, []byte("\r")) - bytes.Count(b, []byte("\r\n"))
}

// TestCRBodies: a file with CR line endings is parsed as CommonMark reads
// it, and its sections' bodies are still its own bytes.
func TestCRBodies(t *testing.T) {
	src := []byte("# Title\r\rIntro\r\r## Install\r\rsteps [a](#title)\r")
	orig := bytes.Clone(src)
	rec := NewParser().Parse("mac.md", src).Record
	if !bytes.Equal(src, orig) {
		t.Fatalf("the parse changed its input: %q", src)
	}
	var bodies []string
	for _, s := range rec.Sections {
		bodies = append(bodies, string(src[s.Start:s.End]))
	}
	want := []string{string(orig), "## Install\r\rsteps [a](#title)\r"}
	if diff := cmp.Diff(want, bodies); diff != "" {
		t.Errorf("bodies (-want +got):\n%s", diff)
	}
	if len(rec.Sections) == 2 && (rec.Sections[1].Line != 5 || len(rec.Sections[1].Links) != 1 || rec.Sections[1].Links[0].Line != 7) {
		t.Errorf("install section %+v", rec.Sections[1])
	}
}

func TestParseCases(t *testing.T) {
	p := NewParser()
	tests := []struct {
		name, src string
		title     string
		slugs     []string
		heads     []string
	}{
		{"atx", "# A\n\n## B\n\ntext\n\n## B\n", "A", []string{"a", "b", "b-1"}, []string{"A", "B", "B"}},
		{"setext", "Title\n=====\n\nSub\n---\n", "Title", []string{"title", "sub"}, []string{"Title", "Sub"}},
		{"fenced", "```\n# no\n```\n\n## yes\n", "x", []string{"yes"}, []string{"yes"}},
		{"crlf", "# A\r\n\r\ntext\r\n## B\r\n", "A", []string{"a", "b"}, []string{"A", "B"}},
		// A lone CR ends a line (CommonMark); CRLF is one line ending.
		{"cr", "# Title\r\rIntro\r\r## Install\r\rsteps\r", "Title", []string{"title", "install"}, []string{"Title", "Install"}},
		{"cr and crlf", "---\rtitle: T\r\n---\r\r# A\r\r\nB\r===\r", "T", []string{"a", "b"}, []string{"A", "B"}},
		{"bom", "\ufeff# A\n", "A", []string{"a"}, []string{"A"}},
		{"front matter title wins", "---\ntitle: T\n---\n# A\n", "T", []string{"a"}, []string{"A"}},
		{"front matter dots", "---\ntitle: T\n...\n# A\n", "T", []string{"a"}, []string{"A"}},
		{"no front matter close", "---\n\n# A\n", "A", []string{"a"}, []string{"A"}},
		// Jekyll and Hugo accept trailing blanks on the fence lines.
		{"front matter fences with trailing blanks", "---  \r\ntitle: T\r\n--- \t\r\n# A\n", "T", []string{"a"}, []string{"A"}},
		{"front matter dots with trailing blanks", "--- \ntitle: T\n...\t\n# A\n", "T", []string{"a"}, []string{"A"}},
		// A level-1 heading after another heading is a part, not the title
		// (an RFC's "# Drawbacks" after its "## Summary").
		{"first h1 not first heading", "## Intro\n# Real\n", "x", []string{"intro", "real"}, []string{"Intro", "Real"}},
		{"first heading an h1", "# Real\n## Intro\n# Part\n", "Real", []string{"real", "intro", "part"}, []string{"Real", "Intro", "Part"}},
		{"non-ascii", "# Поиск\n## 例子\n", "Поиск", []string{"поиск", "例子"}, []string{"Поиск", "例子"}},
		{"escaped", "# a \\* b\n", "a * b", []string{"a--b"}, []string{"a * b"}},
		// GitHub slugs a heading's text content: character references
		// decoded, raw HTML and images contributing no text, every space a
		// '-', a tab dropped (docs/ingest.md has the evidence).
		{"github: references", "# Q&amp;A &#x20;x\n", "Q&A x", []string{"qa--x"}, []string{"Q&A x"}},
		{"github: escaped reference", "# a \\&amp; b\n", "a &amp; b", []string{"a-amp-b"}, []string{"a &amp; b"}},
		{"github: inline html", "# Title <a name=\"legacy\"></a>\n", "Title", []string{"title-"}, []string{"Title"}},
		{"github: spaces kept", "# A  Double  Space\n", "A Double Space", []string{"a--double--space"}, []string{"A Double Space"}},
		{"github: image", "# Proj ![build](badge.svg)\n", "Proj build", []string{"proj-"}, []string{"Proj build"}},
		{"code span over two lines", "`a\nb` c\n===\n", "a b c", []string{"a-b-c"}, []string{"a b c"}},
		// Inline marks are dropped, the words kept: emphasis, and GFM's
		// strikethrough (one tilde or two; three are text, as is a tilde
		// that opens nothing).
		{"emphasis and strikethrough", "## *Em* __Strong__ ~~Old~~ New ~one~\n## ~~~x~~~ and ~/.config, a ~ b\n", "x",
			[]string{"em-strong-old-new-one", "x-and-config-a--b"}, []string{"Em Strong Old New one", "~~~x~~~ and ~/.config, a ~ b"}},
		{"github: tab", "# Tab\tHere `c  d`\n", "Tab Here c d", []string{"tabhere-c--d"}, []string{"Tab Here c d"}},
		// An attribute block is read as goldmark reads it: an ATX
		// heading's line with its closing '#'s; the last id of a block.
		{"attributes: before the closing sequence", "## Closed {#cl} ##\n", "x", []string{"closed-cl"}, []string{"Closed {#cl}"}},
		{"attributes: after the closing sequence", "## Closed2 ## {#cl2}\n## # {#e}\n", "x", []string{"cl2", "e"}, []string{"Closed2", ""}},
		{"attributes: the last id", "## Ids {#one .cls #two}\nSetext {#three #four}\n---\n", "x", []string{"two", "four"}, []string{"Ids", "Setext"}},
		{"attributes: an escape before the window", "## a\\{#x" + strings.Repeat(" .c", 84) + "}\n", "x",
			[]string{"ax" + strings.Repeat("-c", 84)}, []string{"a{#x" + strings.Repeat(" .c", 84) + "}"}},
		{"attributes: no-break space after", "## nb {#nb}\u00a0\n", "x", []string{"nb-nb"}, []string{"nb {#nb}"}},
		// Python-Markdown's attr_list (MkDocs) opens a block with "{:": read
		// as goldmark reads the block without the colon.
		{"attr_list: colon", "## Heading {: #custom-id }\n## Tight{:#tight}\n## Full {: .class #full key=value }\nSetext {: #st}\n---\n", "x",
			[]string{"custom-id", "tight", "full", "st"}, []string{"Heading", "Tight", "Full", "Setext"}},
		{"attr_list: colon, id as a key", "## Keyed {:id=\"k.1\" data-toc-label=\"K\"}\n## No id {: .c }\n", "x", []string{"k.1", "no-id"}, []string{"Keyed", "No id"}},
		// "{:}" is none, as in Python-Markdown (goldmark's "{ }" is none).
		{"attr_list: colon, not a block", "## Two {::#x}\n## Esc \\{:#y}\n## Closed {:#cl} ##\n## Empty {:}\n", "x",
			[]string{"two-x", "esc-y", "closed-cl", "empty-"}, []string{"Two {::#x}", "Esc {:#y}", "Closed {:#cl}", "Empty {:}"}},
		// A heading's shortcodes read as a reader sees them: their text
		// parameters, else (the heading left without a word) their first
		// quoted values or names; in a code span, or written to be shown
		// (`{{</* … */>}}`), they stay as written, as an unclosed one does.
		{"shortcodes: text parameter", "## Using {{< glossary_tooltip text=\"kubectl\" term_id=\"kubectl\" >}} here\n", "x",
			[]string{"using-kubectl-here"}, []string{"Using kubectl here"}},
		{"shortcodes: heading alone", "## {{% heading \"whatsnext\" %}}\n## {{< glossary_tooltip term_id='containerd' >}}\n## {{< toc >}}\n", "x",
			[]string{"whatsnext", "containerd", "toc"}, []string{"whatsnext", "containerd", "toc"}},
		{"shortcodes: paired", "## {{% note %}}Inside{{% /note %}}\n", "x", []string{"inside"}, []string{"Inside"}},
		{"shortcodes: as written", "## Call `{{< ref \"x\" >}}` {{</* y */>}}\n## Open {{< ref \"x\"\n", "x",
			[]string{"call--ref-x---y-", "open--ref-x"}, []string{`Call {{< ref "x" >}} {{</* y */>}}`, `Open {{< ref "x"`}},
		{"empty", "", "x", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkParse(t, p, tt.name, tt.src, tt.title, tt.slugs, tt.heads) })
	}
}

// checkParse parses src and checks its invariants, title, slugs and
// headings.
func checkParse(t *testing.T, p *Parser, name, src, title string, slugs, heads []string) {
	t.Helper()
	got := p.Parse("dir/x.md", []byte(src))
	checkInvariants(t, name, []byte(src), got)
	if got.Record.Title != title {
		t.Errorf("title = %q, want %q", got.Record.Title, title)
	}
	var gotSlugs, gotHeads []string
	for _, s := range got.Record.Sections {
		gotSlugs = append(gotSlugs, s.Slug)
		gotHeads = append(gotHeads, s.Heading)
	}
	if diff := cmp.Diff(slugs, gotSlugs); diff != "" {
		t.Errorf("slugs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(heads, gotHeads); diff != "" {
		t.Errorf("headings (-want +got):\n%s", diff)
	}
}

// TestParseSiteMarks: the marks of site generators in and around
// headings: template tags, captured blocks, Docsify's heading marks.
func TestParseSiteMarks(t *testing.T) {
	p := NewParser()
	tests := []struct {
		name, src, title string
		slugs, heads     []string
	}{
		// A template tag of Liquid, Nunjucks or Jinja is read so too:
		// Eleventy's {% addedin %}, Jekyll's {%- include -%}.
		{"template tags", "## Watch JavaScript Dependencies {% addedin \"0.7.0\" %}\n## New {%- include badge.html -%}\n## {% tab title=\"Homebrew\" %}\n## `{% raw %}` tags\n", "x",
			[]string{"watch-javascript-dependencies", "new", "homebrew", "-raw--tags"}, []string{"Watch JavaScript Dependencies", "New", "Homebrew", "{% raw %} tags"}},
		// A template's captured block is not rendered where it stands: its
		// YAML's "---" makes no setext heading; {% set x = 1 %} captures
		// nothing.
		{"captured blocks", "## A\n{%- set codeBlock %}{% raw %}\n---\ndate: 2016-01-01\n---\n{% endraw %}{%- endset %}\n{% capture c %}\n# Not\n{% endcapture %}\n{% set n = 1 %}\n## B\n", "x",
			[]string{"a", "b"}, []string{"A", "B"}},
		// A tag in code, or in a raw block, is shown, not run: it captures
		// nothing.
		{"capture tags in code", "Use `{% set x %}` to capture.\n## C\n```\n{% set y %}\n```\n## D\n{% raw %}{% set z %}{% endraw %}\n## E\nClose with `{% endset %}`.\n", "x",
			[]string{"c", "d", "e"}, []string{"C", "D", "E"}},
		// A MyST colon-fence directive's content is the directive's: its
		// headings make no section (the outer fence has more colons).
		{"myst directives", "## Headings\n:::{myst-example}\n# A header\n:::\n## After\n::::{code} markdown\n# Introduction\n:::{note}\n## Inner\n:::\n::::\n```\n:::{x}\n```\n## Code kept\n    :::{indented}\n## Four spaces\n:::{open}\n## Never closed\n", "x",
			[]string{"headings", "after", "code-kept", "four-spaces", "never-closed"}, []string{"Headings", "After", "Code kept", "Four spaces", "Never closed"}},
		// Pandoc's and Quarto's fenced divs hold the page's own text.
		{"fenced divs", ":::{.content-visible when-format=\"html\"}\n## Interactive plots\n:::\n:::{#fig-x}\n## Figure\n:::\n", "x",
			[]string{"interactive-plots", "figure"}, []string{"Interactive plots", "Figure"}},
		// A front-matter title's tags read as a heading's (GitHub's docs).
		{"template tags in a title", "---\ntitle: Installing {% data variables.product.prodname_enterprise %}\n---\n## A\n", "Installing", []string{"a"}, []string{"A"}},
		{"a title of tags alone is none", "---\ntitle: '{% data variables.product.product_name %}'\n---\n# Help\n", "Help", []string{"help"}, []string{"Help"}},
		{"a title's shortcode", "---\ntitle: Using {{< glossary_tooltip text=\"kubectl\" term_id=\"k\" >}} well\n---\n", "Using kubectl well", nil, nil},
		// Docsify's heading marks: an id, and the sidebar's ignore marks.
		{"docsify marks", "## themeColor ⚠️ :id=themecolor\n## Getting Started {docsify-ignore}\n## Both :id=both {docsify-ignore-all}\n## Not:id=x\n## :id=alone\n", "x",
			[]string{"themecolor", "getting-started", "both", "notidx", "idalone"}, []string{"themeColor ⚠️", "Getting Started", "Both", "Not:id=x", ":id=alone"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkParse(t, p, tt.name, tt.src, tt.title, tt.slugs, tt.heads) })
	}
}

func TestFrontMatterFields(t *testing.T) {
	src := "---\nid: custom/id\nstatus: accepted\ndate: 2024-01-10\nn: 3\nodd: {1: one}\n---\n# T\n"
	got := NewParser().Parse("x.md", []byte(src))
	if got.FrontMatterID != "custom/id" {
		t.Errorf("FrontMatterID = %q", got.FrontMatterID)
	}
	want := map[string]any{"id": "custom/id", "status": "accepted", "date": "2024-01-10", "n": 3, "odd": map[string]any{"1": "one"}}
	if diff := cmp.Diff(want, got.Record.Fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if _, err := json.Marshal(got.Record); err != nil {
		t.Errorf("record does not encode: %v", err)
	}
}

// TestFrontMatterAfterBlankLines: a block after lines of white space is
// front matter, as Hugo and Zola read it (129 of Zola's theme pages open
// with a blank line); text before it, or a block that does not close, is
// not.
func TestFrontMatterAfterBlankLines(t *testing.T) {
	for _, tt := range []struct {
		name, src, title string
		fields           map[string]any
	}{
		{"toml", "\n \t\n+++\ntitle = \"Ergo\"\n+++\n# Configuration\n", "Ergo", map[string]any{"title": "Ergo"}},
		{"yaml after a BOM", "\ufeff\r\n---\ntitle: Yammy\n---\nText\n", "Yammy", map[string]any{"title": "Yammy"}},
		{"text first", "Intro\n\n---\ntitle: No\n---\n", "x", nil},
		{"unclosed", "\n---\ntitle: No\n# Body\n", "Body", nil},
		{"blank only", "\n\n  \n", "x", nil},
	} {
		got := NewParser().Parse("x.md", []byte(tt.src))
		if got.Record.Title != tt.title || !cmp.Equal(got.Record.Fields, tt.fields) {
			t.Errorf("%s: title %q, fields %v; want %q, %v", tt.name, got.Record.Title, got.Record.Fields, tt.title, tt.fields)
		}
	}
}

// TestYAMLRepeatedKeys: a key written twice in YAML front matter (which
// yaml.v3 refuses) is read as Hugo reads it, the last pair winning, at
// any depth, and the page keeps its title and other fields, with a
// warning that names the key and its lines (Docker review 5: a page with
// two keywords: lines lost its title).
func TestYAMLRepeatedKeys(t *testing.T) {
	src := "---\ntitle: Debug a container\nkeywords: a, b\nweight: 3\nkeywords: c\nparams:\n  x: 1\n  x: 2\n  y: [1]\n---\n# Body\n"
	got := NewParser().Parse("x.md", []byte(src))
	want := map[string]any{"title": "Debug a container", "keywords": "c", "weight": 3, "params": map[string]any{"x": 2, "y": []any{1}}}
	if diff := cmp.Diff(want, got.Record.Fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if got.Record.Title != "Debug a container" || got.Warning != `front matter repeats the key "keywords" (lines 2 and 4); the last is read, as Hugo reads it` {
		t.Errorf("title %q, warning %q", got.Record.Title, got.Warning)
	}
	// As many repeats as the budget allows keys are read in one pass.
	many := NewParser().Parse("x.md", []byte("---\n"+strings.Repeat("a: 1\n", MaxFrontMatterKeys-1)+"a: 2\n---\n# Body\n"))
	if many.Record.Fields["a"] != 2 || !strings.Contains(many.Warning, `repeats the key "a" (lines 1 and 2)`) {
		t.Errorf("%d repeats: fields %v, warning %q", MaxFrontMatterKeys, many.Record.Fields, many.Warning)
	}
	// A merge key stays as YAML reads it.
	merged := NewParser().Parse("x.md", []byte("---\nbase: &b {a: 1}\nm:\n  <<: *b\n  c: 2\n---\n# Body\n"))
	if m, _ := merged.Record.Fields["m"].(map[string]any); m["a"] != 1 || m["c"] != 2 || merged.Warning != "" {
		t.Errorf("merge key: fields %v, warning %q", merged.Record.Fields, merged.Warning)
	}
}

// TestInvalidYAMLKeyLines: front matter YAML cannot parse gives its
// top-level key: value lines as text, as a site's line reader reads them
// (svelte.dev's `title: {#if ...}` page kept no title: Svelte review F4);
// indented, list and comment lines are no keys, an id line is not read,
// and a block with no pair is ignored, each with a warning.
func TestInvalidYAMLKeyLines(t *testing.T) {
	src := "---\ntitle: {#if ...}\ndescription: 'Renders a block'\nid: elsewhere\n  nested: x\n- item: y\n# note: z\nbad key: w\ntags:\ntitle: {#if ...} blocks\n---\n# Body\n"
	got := NewParser().Parse("x.md", []byte(src))
	want := map[string]any{"title": "{#if ...} blocks", "description": "Renders a block"}
	if diff := cmp.Diff(want, got.Record.Fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if got.Record.Title != "{#if ...} blocks" || got.FrontMatterID != "" || !strings.HasPrefix(got.Warning, "front matter is not valid YAML (yaml: ") || !strings.HasSuffix(got.Warning, "its top-level key: value lines were read as text") {
		t.Errorf("title %q, id %q, warning %q", got.Record.Title, got.FrontMatterID, got.Warning)
	}
	none := NewParser().Parse("x.md", []byte("---\n[a, b\n---\n# Body\n"))
	if none.Record.Fields != nil || none.Record.Title != "Body" || !strings.Contains(none.Warning, "fields ignored") {
		t.Errorf("no pair: fields %v, title %q, warning %q", none.Record.Fields, none.Record.Title, none.Warning)
	}
}

// TestTOMLFrontMatter: Hugo's TOML front matter ("+++" lines) gives
// fields as YAML's does: dates as strings, tables as maps, integers as
// ints; a block that is not valid TOML is a warning, and still not
// markdown.
func TestTOMLFrontMatter(t *testing.T) {
	src := "+++ \ntitle = \"TOML page\"\ndraft = true\nweight = 3\ndate = 2024-01-10\n" +
		"lastmod = 2024-01-10T00:00:00Z\nat = 07:32:00.500\ntags = [\"a\", \"b\"]\n" +
		"[params]\nratio = 0.5\nwhen = 1979-05-27T07:32:00\n[[menu]]\nname = \"m\"\n+++\n# Body\n"
	want := map[string]any{
		"title": "TOML page", "draft": true, "weight": 3, "date": "2024-01-10",
		"lastmod": "2024-01-10T00:00:00Z", "at": "07:32:00.500", "tags": []any{"a", "b"},
		"params": map[string]any{"ratio": 0.5, "when": "1979-05-27T07:32:00"},
		"menu":   []any{map[string]any{"name": "m"}},
	}
	checkFrontMatterPage(t, src, want, "TOML page")

	bad := NewParser().Parse("x.md", []byte("+++\ntitle = \"a\"\ntitle = \"b\"\n+++\n# Body\n"))
	if !strings.Contains(bad.Warning, "not valid TOML") || bad.Record.Fields != nil || bad.Record.Title != "Body" || len(bad.Record.Sections) != 1 {
		t.Errorf("invalid TOML: warning %q, fields %v, title %q", bad.Warning, bad.Record.Fields, bad.Record.Title)
	}
}

// checkFrontMatterPage parses src, a page of front matter then "# Body",
// and checks its fields, its title and where its markdown starts.
func checkFrontMatterPage(t *testing.T, src string, want map[string]any, title string) {
	t.Helper()
	got := NewParser().Parse("x.md", []byte(src))
	if diff := cmp.Diff(want, got.Record.Fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if got.Record.Title != title || got.Warning != "" || len(got.Record.Sections) != 1 || got.Record.MarkdownStart != strings.Index(src, "# Body") {
		t.Errorf("title %q, warning %q, sections %+v, markdown start %d", got.Record.Title, got.Warning, got.Record.Sections, got.Record.MarkdownStart)
	}
	if _, err := json.Marshal(got.Record); err != nil {
		t.Errorf("record does not encode: %v", err)
	}
}

// TestJSONFrontMatter: Hugo's JSON front matter (an object opening the
// file) gives fields as YAML's does (whole numbers as ints); a brace that
// opens no valid object ending its line (a shortcode, a Pandoc attribute
// block, text after the object) is markdown, without a warning.
func TestJSONFrontMatter(t *testing.T) {
	src := "{\n  \"title\": \"JSON {page}\",\n  \"draft\": true, \"weight\": 3, \"ratio\": 0.5, \"big\": 1e400,\n" +
		"  \"q\": \"a \\\" } quote\", \"tags\": [\"a\", \"b\"], \"params\": {\"n\": null}\n} \t\n# Body\n"
	want := map[string]any{
		"title": "JSON {page}", "draft": true, "weight": 3, "ratio": 0.5, "big": "1e400",
		"q": "a \" } quote", "tags": []any{"a", "b"}, "params": map[string]any{"n": nil},
	}
	checkFrontMatterPage(t, src, want, "JSON {page}")
	for _, md := range []string{
		"{{< figure src=\"a.png\" >}}\n# Body\n",
		"{#intro .lead}\n# Body\n",
		"{\"title\": \"t\"} and text\n# Body\n",
		"{\"title\": \"t\",}\n# Body\n",
		"{\"title\": \"t\"\n# Body\n",
	} {
		got := NewParser().Parse("x.md", []byte(md))
		if got.Record.Fields != nil || got.Warning != "" || got.Record.MarkdownStart != 0 || got.Record.Title != "Body" {
			t.Errorf("%q: fields %v, warning %q, markdown start %d, title %q; want markdown", md, got.Record.Fields, got.Warning, got.Record.MarkdownStart, got.Record.Title)
		}
	}
	big := "{\"title\": \"" + strings.Repeat("x", MaxFrontMatterBytes) + "\"}\n# Body\n"
	over := NewParser().Parse("x.md", []byte(big))
	if !strings.Contains(over.Warning, "over the parse budget") || over.Record.Fields != nil || over.Record.Title != "Body" || over.Record.MarkdownStart != strings.Index(big, "# Body") {
		t.Errorf("over the budget: warning %q, fields %v, title %q", over.Warning, over.Record.Fields, over.Record.Title)
	}
	deep := "{\"a\": " + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "}\n# Body\n"
	if d := NewParser().Parse("x.md", []byte(deep)); !strings.Contains(d.Warning, "nested more than") || d.Record.Fields != nil {
		t.Errorf("nested: warning %q, fields %v", d.Warning, d.Record.Fields)
	}
}

// FuzzParse holds the range invariants on any input and that the record
// always encodes as JSON; and that a parse within a small budget either
// stops with ErrBudget or gives what the unbounded parse gives.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"# A\n## B\n", "A\n=\n", "---\na: 1\n---\n# x", "```\n# x\n```", "\ufeff#\r\n##\r\n", "> # q\n- # l\n", "---\n- [\n---\n", "# a {#x}\n## a {#x}\n### a\n", "b {.c #d}\n===\n", "# \\{#e}\n# {#}\n# {id=\"f g\"}\n", "# a {: #x }\n## b{:#y .c k=v}\nc {:id=\"z\"}\n---\n# d {::#w}\n"} {
		f.Add([]byte(s))
	}
	for _, s := range []string{"+++\ntitle = \"t\"\nd = 2024-01-10\n[a.b]\nc = [1, {d = 1979-05-27T07:32:00Z}]\n+++\n# x", "+++\na = nan\nb = -inf\n+++\n", "+++\n[[a]]\n[a\n+++\n", "{\"title\": \"t\", \"a\": [1, 2.5, {\"b\": \"}\\\"\"}]}\n# x", "{{< s >}}\n# x", "\ufeff{}\n"} {
		f.Add([]byte(s))
	}
	for _, s := range []string{"!!! note \"T [a](b)\"\n    x [c](d)\n\n    ## h\n", "=== \"A\"\n\t???+ tip\n\t    [e](f)\n===! \"B\"\n", "- i\n\n    !!!n\n        > # q\n", "p\n??? \"t\"\n    ```\n    [g](h)\n"} {
		f.Add([]byte(s))
	}
	f.Add([]byte("<a id=x></a>\n\n# A\n<a name=y></a> <!-- c -->\n\n<div id=d>\n</div>\n## B\n<a id=e></a> <!--\n# C\n"))
	f.Add([]byte(strings.Repeat("- ", 40) + "x"))
	f.Add([]byte("<!-- c -->\n<h1 align=center><img alt=L src=l.svg><br>Name &amp;\n<b>x</b></h1>\n\n# T\n"))
	f.Add([]byte("# [a](" + strings.Repeat("[a](", 400) + "\n"))
	f.Add([]byte("## {{% h \"w\" %}}\n## a `{{< b text='c' >}}` {{< d text=\"e\" >}}{{</* f */>}}\ng {{% /h %}}\n---\n"))
	f.Add([]byte("# A\n{{< t y >}}\nk: v\n---\n# c\n{{< a >}}{{< /t >}}\n## B {{< x />}}\n{{</* t */>}}\n# d\n{{% /t %}}\n"))
	f.Add([]byte("## A {% addedin \"1\" %}\n{%- set c %}{% raw %}\n---\nd: 1\n---\n{% endraw %}{%- endset %}\n{% capture x %}\n# n\n{%- endcapture -%}\n## B :id=b {docsify-ignore}\n{% set y = 1 %}{% set z %}\n"))
	p, small := NewParser(), NewParser()
	f.Fuzz(func(t *testing.T, src []byte) {
		got := p.Parse("f.md", src)
		checkInvariants(t, "fuzz", src, got)
		if _, err := json.Marshal(got.Record); err != nil {
			t.Fatalf("record does not encode: %v", err)
		}
		bounded, err := small.ParseContext(context.Background(), "f.md", src, Limits{Time: time.Second, Headings: 8, Blocks: 40, Lines: 40})
		if err != nil {
			if !errors.Is(err, ErrBudget) {
				t.Fatalf("error %v is not ErrBudget", err)
			}
			return
		}
		if diff := cmp.Diff(got, bounded); diff != "" {
			t.Fatalf("bounded parse differs (-unbounded +bounded):\n%s", diff)
		}
	})
}

// TestNestedHeadings: a heading inside a block quote or a list item makes
// no section, but it has an id, as on GitHub: it takes its place in the
// slug sequence (the top-level "Note" after a quoted one is "note-1") and
// its slug is an anchor of the section that holds it.
func TestNestedHeadings(t *testing.T) {
	md := "> # Lead {#lead-id}\n\n# T\n\n> ## Note\n\n- ## Step\n  - > ##\n\n## Note\n\n1. Step\n   ===\n\n`note-1`\n: a term\n"
	rec := NewParser().Parse("t.md", []byte(md)).Record
	type sec struct {
		Slug, Heading  string
		Anchors, Terms []string
	}
	got := []sec{{"", "", rec.Anchors, rec.Terms}}
	for _, s := range rec.Sections {
		got = append(got, sec{s.Slug, s.Heading, s.Anchors, s.Terms})
	}
	want := []sec{
		{"", "", []string{"lead-id"}, nil},
		{"t", "T", []string{"note", "step", "section"}, nil},
		// The term "note-1" comes after the heading that took the slug:
		// in Hugo's sequence it is "note-1-1".
		{"note-1", "Note", []string{"step-1"}, []string{"note-1-1"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestAngleShortcodeHeadings: a line written as a heading in the content of
// an angle shortcode pair ({{< highlight >}} … {{< /highlight >}}) is no
// heading of the page: YAML's "---" separator made a setext heading of the
// lines above it (from the opening tag's line), and a "# comment" an ATX
// one, each cutting the section that holds the code short. In a {{% … %}}
// pair, whose content is the page's markdown, a heading is one.
func TestAngleShortcodeHeadings(t *testing.T) {
	md := "---\ntitle: Repro\n---\n\n## Configure\n\nApply both:\n\n{{< highlight yaml >}}\napiVersion: v1\nmetadata:\n  name: a\n---\napiVersion: v1\n{{< /highlight >}}\n\n" +
		"{{< text yaml >}}\n# The selector matches.\nselector: {}\n{{< /text >}}\n\n{{</* text */>}}\n\n# Shown {{< x />}}\n\nThe rest.\n\n" +
		"{{% note %}}\n## Inside a note\n{{% /note %}}\n\n{{< open >}}\n\n## After an unclosed opener\n"
	rec := NewParser().Parse("page.md", []byte(md)).Record
	type sec struct {
		Slug    string
		Level   int
		Anchors []string
	}
	var got []sec
	for _, s := range rec.Sections {
		got = append(got, sec{s.Slug, s.Level, s.Anchors})
	}
	want := []sec{
		{"configure", 2, []string{"-apiversion-v1-metadata-name-a", "the-selector-matches"}},
		{"shown", 1, nil},
		{"inside-a-note", 2, nil},
		{"after-an-unclosed-opener", 2, nil},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestAngleInners(t *testing.T) {
	for _, c := range []struct {
		in   string
		want [][2]int
	}{
		{"a {{< b >}}x{{< /b >}} c", [][2]int{{11, 12}}},
		{"{{< a >}}{{< b >}}x{{< /b >}}y{{</a>}}", [][2]int{{9, 30}}}, // the outer pair covers the inner
		{"{{< a >}}{{< b >}}x{{< /a >}}", [][2]int{{9, 19}}},          // b, never closed, closes with a
		{"{{< a />}}x{{< /a >}}", nil},                                // self-closing
		{"{{</* a */>}}x{{< /a >}}", nil},                             // commented: shown, not run
		{"{{</* x {{</* {{< a >}}y{{< /a >}}", [][2]int{{23, 24}}},    // a comment left open is text
		{"{{% a %}}x{{% /a %}}", nil},                                 // markdown content
		{"{{< a >}}x{{% /a %}}", [][2]int{{9, 10}}},
		{"{{< docs/note title=\"t\" >}}x{{< /docs/note >}}", [][2]int{{27, 28}}},
		{"{{< a >}}x", nil},
		{"{{< a", nil},
		{"{{", nil},
	} {
		if got := angleInners([]byte(c.in)); !slices.Equal(got, c.want) {
			t.Errorf("angleInners(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// FuzzHeadingAttributesGoldmark compares headingAttributes with goldmark's
// own attribute parsing (parser.WithAttribute) on headings made of tokens
// (ATX marks, braces, ids, classes, escapes; each byte picks one): both
// give the same id and leave the same text. A block that opens with "{:"
// (Python-Markdown's attr_list) is compared with goldmark's reading of
// the block with a space for the colon, and texts with a space for it
// too (a heading's text that ends with "{:" is "{", its space trimmed);
// except where "{:" stands before a run of '#'s that may end the text
// (before a space, a tab, a brace or the line's end), which a space for
// the colon would make a closing sequence.
func FuzzHeadingAttributesGoldmark(f *testing.F) {
	tokens := []string{"## ", "#", " ", "{", "}", "#a", ".c", "\\", "x", "{#i}", "\n===", "k=v", "\"q}\"", "\t", "{#j .c}", "\n---", "> ", "\n- ",
		"{:", "{: #m}", "id=\"n\""}
	for _, s := range []string{"\x00\x08\x09\x02\x01\x01", "\x00\x08\x02\x01\x01\x02\x09", "\x08\x02\x0e\x0a", "\x00\x07\x09",
		"\x00\x08\x02\x13", "\x00\x08\x12\x14\x04", "\x00\x08\x07\x12\x05\x04", "\x00\x08\x12\x12\x05\x04\x02\x00", "\x08\x02\x12\x0a"} {
		f.Add([]byte(s))
	}
	p := NewParser()
	gm := goldmark.New(goldmark.WithParserOptions(parser.WithAttribute())).Parser()
	closingColon := regexp.MustCompile(`\{:#+[ \t\n{]`)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) >= MaxDepth { // blocks nested deeper are over the budget
			return
		}
		var src strings.Builder
		for _, c := range b {
			src.WriteString(tokens[int(c)%len(tokens)])
		}
		md := []byte(src.String() + "\n")
		for line := range bytes.Lines(md) {
			w, pos := util.IndentWidth(line, 0)
			if _, _, ok := MkDocsOpener(bytes.TrimRight(line[pos:], "\r\n")); ok && w <= 3 {
				return // an MkDocs block's opener, which docir reads and goldmark does not (mkdocs.go)
			}
		}
		if closingColon.Match(md) {
			return
		}
		gmd := bytes.ReplaceAll(md, []byte("{:"), []byte("{ ")) // goldmark's input
		type got struct {
			ID, Text string
		}
		headings := func(doc ast.Node, src []byte, id func(*ast.Heading) string) (out []got) {
			_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
				if h, ok := n.(*ast.Heading); ok && entering {
					g := got{ID: id(h)}
					for i := range h.Lines().Len() {
						seg := h.Lines().At(i)
						line := strings.TrimSuffix(string(seg.Value(src)), ":")
						g.Text += strings.ReplaceAll(line, "{:", "{ ") + "\n"
					}
					out = append(out, g)
				}
				return ast.WalkContinue, nil
			})
			return out
		}
		want := headings(gm.Parse(text.NewReader(gmd)), gmd, func(h *ast.Heading) string {
			v, _ := h.AttributeString("id")
			return anchorID(v)
		})
		*p.b = budget{underlined: map[ast.Node]bool{}, setext: map[ast.Node]bool{}}
		have := headings(p.md.Parse(text.NewReader(md)), md, func(h *ast.Heading) string {
			return headingAttributes(h, md, p.b.setext[h])
		})
		if diff := cmp.Diff(want, have); diff != "" {
			t.Fatalf("%q: headings (-goldmark +docir):\n%s", md, diff)
		}
	})
}

// TestUnclosedFence: a code fence the file's last block opens and nothing
// closes swallows the headings after it (CommonMark reads the rest of the
// file as code): the parse says so, with the opener's line; a closed fence,
// an open one with no line written as a heading, or a heading-like line
// indented four spaces say nothing.
func TestUnclosedFence(t *testing.T) {
	for _, tt := range []struct{ md, want string }{
		{"# A\n\ntext\n\n```go\ncode\n\n## B\n\nmore\n### C\n", "line 5 is never closed"},
		{"---\ntitle: T\n---\n# A\n\n~~~\n## B\n", "line 6 is never closed"},
		{"# A\n\n```go\ncode\n```\n\n## B\n", ""},
		{"# A\n\n```sh\n# a comment\n```\n", ""},
		{"# A\n\n```\ncode\n", ""},
		{"# A\n\n```\n    ## indented\n", ""},
		{"# A\n\n- item\n\n  ```\n  ## in a list\n", ""}, // its container closes it
	} {
		got := NewParser().Parse("a.md", []byte(tt.md)).UnclosedFence
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("%q: %q, want %q", tt.md, got, tt.want)
		}
	}
}

// TestStackedHeadings: a heading with nothing under it, right above one
// of its level, ends where that one ends (Node's two signatures of one
// API over one body); one with text, one above a deeper heading, and one
// above a higher heading end as before.
func TestStackedHeadings(t *testing.T) {
	md := "# T\n\n## `f(a)`\n\n## `f(a, b)`\n<!-- YAML -->\n\nbody\n\n## Empty\n\n# Part\n\n## Says\nx\n## Next\n\n### Deeper\ny\n"
	rec := NewParser().Parse("t.md", []byte(md)).Record
	type span struct {
		Slug          string
		Stacked       bool
		Body, OwnText string
	}
	var got []span
	for i, s := range rec.Sections {
		got = append(got, span{s.Slug, Stacked(rec.Sections, i), md[s.Start:s.End], md[s.Start:s.OwnEnd]})
	}
	want := []span{
		{"t", false, md[:strings.Index(md, "# Part")], "# T\n\n"},
		{"fa", true, "## `f(a)`\n\n## `f(a, b)`\n<!-- YAML -->\n\nbody\n\n", "## `f(a)`\n\n"},
		{"fa-b", false, "## `f(a, b)`\n<!-- YAML -->\n\nbody\n\n", "## `f(a, b)`\n<!-- YAML -->\n\nbody\n\n"},
		{"empty", false, "## Empty\n\n", "## Empty\n\n"},
		{"part", false, md[strings.Index(md, "# Part"):], "# Part\n\n"},
		{"says", false, "## Says\nx\n", "## Says\nx\n"},
		{"next", false, "## Next\n\n### Deeper\ny\n", "## Next\n\n"},
		{"deeper", false, "### Deeper\ny\n", "### Deeper\ny\n"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestFileTitle: a document that gives no title is titled by its file's
// name; a folder's index.md or _index.md by its folder's, as Hugo titles a
// section page, and so its README.md in any case, the page GitHub shows
// for the folder; the root's by its file's.
func TestFileTitle(t *testing.T) {
	p := NewParser()
	for name, want := range map[string]string{
		"a/b/guide.md":       "guide",
		"runbooks/_index.md": "runbooks",
		"a/b/index.md":       "b",
		"_index.md":          "_index",
		"index.md":           "index",
		"tsdb/README.md":     "tsdb",
		"a/b/readme.md":      "b",
		"a/b/Readme.md":      "b",
		"README.md":          "README",
		"a/READMEs.md":       "READMEs",
	} {
		if got := p.Parse(name, []byte("---\nbookHidden: true\n---\ntext\n")).Record.Title; got != want {
			t.Errorf("%s: title %q, want %q", name, got, want)
		}
	}
}

// TestHTMLTitle: a document with no front-matter title whose first
// content is an HTML block opening with an <h1> (a repository's README,
// `<h1 align="center"><img …><br>Prometheus</h1>`) is titled by that h1's
// text, as GitHub shows it: tags and comments left out, references decoded,
// white space collapsed. An h1 with no text, one after other content, one
// that is not the block's first element, and a front-matter title leave
// the rules as they were.
func TestHTMLTitle(t *testing.T) {
	p := NewParser()
	for _, c := range []struct{ md, want string }{
		{"<h1 align=\"center\" style=\"border-bottom: none\">\n    <a href=\"https://prometheus.io\"><img alt=\"Prometheus\" src=\"logo.svg\"></a><br>Prometheus\n</h1>\n\ntext\n\n## Install\n", "Prometheus"},
		{"<!-- markdownlint-disable -->\n\n<H1>Tom &amp;\n  <b>Jerry</b><!-- x --></h1>\n# Later\n", "Tom & Jerry"},
		{"<h1 align=center><img src=logo.png alt=Logo></h1>\n\n## Usage\n", "README"},
		{"<h1>A</h1>\n\n# B\n", "A"},
		{"---\ntitle: Given\n---\n<h1>A</h1>\n", "Given"},
		{"<p align=center><img src=x.png></p>\n\n<h1>A</h1>\n", "README"},
		{"<div><h1>A</h1></div>\n", "README"},
		{"text\n\n<h1>A</h1>\n", "README"},
		{"# Markdown\n\n<h1>A</h1>\n", "Markdown"},
		{"<h1>Open <script>x</script>end\n\nmore\n", "Open end"},
		{"<h10>x</h10>\n", "README"},
	} {
		if got := p.Parse("README.md", []byte(c.md)).Record.Title; got != c.want {
			t.Errorf("%q: title %q, want %q", c.md, got, c.want)
		}
	}
}

// FuzzH1Text holds h1Text to a title on any HTML after an <h1>: words
// with single spaces between them and none at either end, in UTF-8 when
// the HTML is.
func FuzzH1Text(f *testing.F) {
	for _, s := range []string{"<img alt=x><br>Prometheus\n</h1>", "Tom &amp;\n <b>Jerry</b><!-- x --></h1># y", "a <script>b</script>c", "x < y </h1 >", "<a href='>'>z", "&#x20;&nbsp;q<!--", "<//>w</H1>"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := h1Text(b, 0)
		if got != strings.Join(strings.Fields(got), " ") {
			t.Fatalf("%q: title %q is not words with single spaces", b, got)
		}
		if utf8.Valid(b) && !utf8.ValidString(got) {
			t.Fatalf("%q: title %q is not UTF-8", b, got)
		}
	})
}
