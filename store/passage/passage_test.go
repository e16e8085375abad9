package passage

import (
	"encoding/json"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store/fulltext"
	"github.com/docir/docir/store/markdown"
)

func TestProse(t *testing.T) {
	tests := []struct {
		name, in string
		lead     bool
		want     string // with runs of spaces folded
	}{
		{"plain", "Just prose.", false, "Just prose."},
		{"comment", "before <!-- a note --> after", false, "before after"},
		{"multi-line comment", "a\n<!--\nnot\nprose\n-->\nb", false, "a b"},
		{"shortcode", `see {{< ref "x.md" >}} here`, false, "see here"},
		{"paired shortcode keeps its text", "{{% note %}}Mind the gap.{{% /note %}}", false, "Mind the gap."},
		// What a reader sees of a shortcode: its text, title, caption, alt.
		{"shortcode text parameters", `such as a {{< glossary_tooltip text="Deployment" term_id="deployment" >}} or {{< figure src="a.png" Caption = 'A cat' alt=` + "`x`" + ` >}} {{% tip title="Heads up" %}}`, false, "such as a Deployment or A cat x Heads up"},
		// Hugo's (and Docsy's) comment shortcode hides what it encloses.
		{"comment shortcode", "Before.\n{{< comment >}}\nTODO: hidden\n{{< /comment >}}\nAfter {{% comment %}}x{{%/comment %}} end {{< comments >}}kept{{< /comments >}} {{< comment >}} open", false, "Before. After end kept"},
		{"shortcode positional and unclosed values", `{{< param "text" >}} {{< x text="open >}} {{< y text=>}}`, false, ""},
		{"unterminated", "text {{< open", false, "text"},
		{"go template kept", "{{ math.Pi }} → 3.14", false, "{{ math.Pi }} → 3.14"},
		// mdBook replaces its link directives, in code blocks too; other
		// {{#…}} (a Handlebars section in an example) are kept.
		{"mdBook include", "Listing:\n```rust\n{{#rustdoc_include ../listings/ch03-common-programming-concepts/x/src/main.rs:here}}\n```\nThen {{ #include a.md }}.", false, "Listing: ``` ``` Then ."},
		{"mdBook title, playground", "{{#title Ownership}}{{#playground x.rs editable}} Text", false, "Text"},
		// A tag may run over lines (the Rust book's figures); a blank line
		// ends it, and the text after it on its last line is kept.
		{"tag over lines", "Before.\n<img alt=\"Three tables: the stack\nand the heap\" src=\"img/trpl04-05.svg\"\nclass=\"center\" style=\"width: 50%;\" />\n<span class=\"caption\">Figure 4-5</span>", false, "Before. Three tables: the stack and the heap Figure 4-5"},
		{"tag over CRLF lines", "<img\r\n  src=\"a.png\" /> After", false, "After"},
		{"no tag over a fence", "<img alt=\"a\n```\n\" />\n```", false, "<img alt=\"a ``` \" /> ```"},
		{"no tag over a blank line", "<img src=\"a.png\"\n\nclass=\"c\" />", false, "<img src=\"a.png\" class=\"c\" />"},
		{"an unclosed '<' is no tag", "if a <b then\nc is d", false, "if a <b then c is d"},
		{"not an mdBook directive", "{{#each items}} {{#include}} {{#include a}b}}", false, "{{#each items}} {{#include}} {{#include a}b}}"},
		{"toml front matter in the lead", "+++\ntitle = \"x\"\n+++\nBody.", true, "Body."},
		// MDX's import and export lines, which Docusaurus reads in a .md
		// file; prose that says "import" or "from" is kept, and so is the
		// same line in a fence.
		{"mdx imports", "import Tabs from '@theme/Tabs';\nimport TabItem from \"@theme/TabItem\"\nimport './x.css';\nexport { a } from './a';\n\nimport the module from 'pkg' first.\nTo import data from \"a file\";\n```js\nimport X from 'y';\n```", false, "import the module from 'pkg' first. To import data from \"a file\"; ``` import X from 'y'; ```"},
		// What a browser runs or applies is not prose (VitePress pages
		// open with <script setup>); the same block in a fence is code.
		{"script block", "<script setup>\nimport { onMounted } from 'vue'\n</script>\n\nThe lifecycle.", false, "The lifecycle."},
		{"style block, one line", "<STYLE>.a { color: red }</style>\nText.", false, "Text."},
		{"unclosed script", "Before.\n<script>\nvar x = 1", false, "Before."},
		{"script in a fence is code", "```vue\n<script setup>\nconst n = ref(0)\n</script>\n```", false, "``` <script setup> const n = ref(0) </script> ```"},
		// A fence's info string names its code's language for a
		// highlighter; a reader does not read it. A backtick line that
		// holds another backtick is a code span in prose, not a fence.
		{"fence info string", "Example:\n```go-html-template {linenos=true}\n{{ .Title }}\n```\n~~~~ toml\nx = 1\n~~~~", false, "Example: ``` {{ .Title }} ``` ~~~~ x = 1 ~~~~"},
		// Template tags of Jinja, Liquid and MkDocs macros, and block
		// attribute lists, are the generator's; in code they are kept.
		{"template tag", "Intro.\n\n{% include-markdown \"includes/x.md\" %}\n\nSee `{% raw %}` and {%if%} it.\n```\n{% if a %}\n```", false, "Intro. See `{% raw %}` and it. ``` {% if a %} ```"},
		{"attribute lists", "Title\n{: .subtitle }\n\nList\n{ .annotate }\n{#id .wide}\n{: }\n{ not: attrs }\n{\"a\": 1}", false, "Title List { not: attrs } {\"a\": 1}"},
		{"code span that opens a line", "```a``` is code, not a fence", false, "```a``` is code, not a fence"},
		{"not a script tag", "<scripted> text and <styles> kept", false, "text and kept"},
		// Indented four, no block opens: its tags are inline tags, blanked, their text kept.
		{"script indented four", "    <script>x</script>", false, "x"},
		{"container markers", "::: tip Mind the gap\nText.\n:::\n:::details\nMore.\n:::", false, "Mind the gap Text. More."},
		{"container title in brackets", ":::tip[See it in action]\nTry it.\n:::\n:::caution[Did you know?]{icon=\"heart\"}\nYes.\n:::\n:::note{.x}\nNo title.\n:::", false, "See it in action Try it. Did you know? Yes. No title."},
		{"toml only opens the lead", "+++\ntitle = \"x\"\n+++\nBody.", false, "+++ title = \"x\" +++ Body."},
		// mkdocs-material's changelog and conventions (review finding 7).
		{"heading attribute block and tag", "## 8.0.1 <small>November 28, 2021</small> { id=\"8.0.1\" }\n\n- Improved", false, "## 8.0.1 November 28, 2021 - Improved"},
		{"attr_list block with a key", "### <!-- md:option --> Customization { #customization data-toc-label=\"Customization\" }\nText", false, "### Customization Text"},
		{"setext heading's block", "Wide {.class key=value}\n====\n", false, "Wide ===="},
		// Python-Markdown's attr_list opens a block with "{:" too.
		{"attr_list colon block", "## Usage {: #usage .c }\nText {:#no}\n\nSetext{:#s}\n---\n", false, "## Usage Text {:#no} Setext ---"},
		{"closing sequence keeps the block", "## Closed {#cl} ##\n", false, "## Closed {#cl} ##"},
		// A list item's or quote's line before "---" is no setext heading (code review).
		{"list item before a thematic break", "- item {.x}\n---\n", false, "- item {.x} ---"},
		{"quote before a thematic break", "> q {.x}\n---\n", false, "> q {.x} ---"},
		{"ordered item before a thematic break", "1. one {.x}\n---\n", false, "1. one {.x} ---"},
		{"braces not on a heading kept", "a map {k=v}\n\n    # not {x=1}\n", false, "a map {k=v} # not {x=1}"},
		// MkDocs openers: the title is text, the marker and type are not.
		{"mkdocs openers", "!!! note \"Heads up\"\n    Body.\n\n??? tip\n    More.\n\n===+ \"Tab [one](a.md)\"\n    Text.\n\n  !!!warning \"\"\r\n- i\n\n    ???+ a b \"Nested\"  \n", false,
			"Heads up Body. More. Tab [one] Text. - i Nested"},
		{"mkdocs openers: code and lookalikes kept", "```\n!!! note \"x\"\n```\n!!! WARNING !!!\n=== Tab\n===\n", false, "``` !!! note \"x\" ``` !!! WARNING !!! === Tab ==="},
		{"tags blanked, text kept", `Press <kbd>Ctrl</kbd> <img src="a.png" alt='x'/> then<br>go`, false, "Press Ctrl x then go"},
		// A tag's text attributes show: a caption, a title, an image's alt.
		{"text attributes of tags", "<Listing number=\"15-19\" file-name=\"src/main.rs\" caption=\"Printing the reference count of `Rc<T>`\">\n\n</Listing>\n<abbr TITLE='HyperText'>HTML</abbr> <img src=x alt=unquoted> <a href=\"y\" title=\"\">z</a>", false,
			"Printing the reference count of `Rc<T>` HyperText HTML z"},
		{"text attributes of a tag over lines", "<LinkCard\n  title=\"gamma\"\n  href=\"/x/\"\n  description=\"beta\"\n/>\n<TabItem value=\"npm\" label=\"Using npm\">\n\nnpm i\n\n</TabItem>", false,
			"gamma beta Using npm npm i"},
		{"autolinks and comparisons kept", "<https://x.org> <a@b.c> a < b > c <3", false, "<https://x.org> <a@b.c> a < b > c <3"},
		{"tags in code kept", "`<small>` and\n```\n<div class=\"x\">\n```\n", false, "`<small>` and ``` <div class=\"x\"> ```"},
		// MDX's comments and spacers are dropped from the page (a
		// Docusaurus review: "prettier-ignore" and "Intentionally Omitted"
		// were searchable, "is{' '}" a snippet); in code they are code.
		{"mdx comments", "`ignoreIIFE` {/* insert option description */} text {/* prettier-ignore */}\n{/*\nIntentionally Omitted\n*/} after {/* a */}{/* b */} end", false, "`ignoreIIFE` text after end"},
		{"mdx comment closed mid-line", "Before {/* one\ntwo */} [link](x.md) and <b>bold</b>.", false, "Before [link] and bold ."},
		{"unclosed mdx comment runs on", "Text {/* open\nstill\n\nand on", false, "Text"},
		{"mdx spacers", "supported is{' '}\n{x.y}{\" \"}v. {' '} {'a'} {' x'}", false, "supported is {x.y} v. {'a'} {' x'}"},
		{"myst targets", "(intro)=\n# Intro\n\n  (a:b/c)=\nText (x)= and\n(not a target)=\n```\n(code)=\n```", false, "# Intro Text (x)= and (not a target)= ``` (code)= ```"},
		// GitBook: a tab's and a code block's title show; a trailing
		// space is written &#x20;.
		{"gitbook tags", "{% tabs %}\n{% tab title=\"Homebrew wizardry\" %}\nText{% code title='app.yaml' lineNumbers=\"true\" %}\n{%tab title=\"x\"%} {% include \"a.md\" %}", false, "Homebrew wizardry Text app.yaml x"},
		{"space references", "Released on May 7th&#x20;\nA&nbsp;b &#32;c&#160;d&#xa0;e &#x41; &#x20 `&#x20;` &amp;", false, "Released on May 7th A b c d e &#x41; &#x20 `&#x20;`"},
		// An HTML comment in code is what the reader sees; a shortcode
		// there is still Hugo's (sites escape it: {{</* x */>}}).
		{"mdx comments in code kept", "`{/* a */}` and\n```jsx\n<div>{/* b */}</div>\n```\nand {/*", false, "`{/* a */}` and ``` <div>{/* b */}</div> ``` and"},
	}
	for _, tt := range tests {
		checkProse(t, tt.name, tt.in, tt.lead, tt.want)
	}
}

// TestProseObsidianComments: Obsidian's comments are blanked
// (markdown.Comments; a review of a vault: "secretword" found its block
// comment, "[[Phantom]]" was shown), not in code, nor one nothing closes.
func TestProseObsidianComments(t *testing.T) {
	tests := []struct {
		name, in string
		lead     bool
		want     string // with runs of spaces folded
	}{
		{"obsidian comments", "Visible.\n\n%%\nsecretword [[Phantom]]\n\nmore\n%%\n\nInline %%zebraword%% here.\n%% one line [[Ghost]] %%", false, "Visible. Inline here."},
		// Markup inside an Obsidian comment opens nothing; a "%%" inside
		// an HTML comment opens no Obsidian comment.
		{"obsidian comment holds an HTML opener", "%% draft <!-- todo %%\n\nvisible text", false, "visible text"},
		{"HTML comment holds a %%", "<!-- 50%% -->\n\nvisible one\n\n%% hidden %%", false, "visible one"},
		{"obsidian comment marks in code kept", "`%% a %%` b\n```matlab\n%% cell\n%% two\n```\n\n    %% x\n\nthe %%timeit magic", false, "`%% a %%` b ``` %% cell %% two ``` %% x the %%timeit magic"},
	}
	for _, tt := range tests {
		checkProse(t, tt.name, tt.in, tt.lead, tt.want)
	}
}

// TestProseReferencesAndWrappedLinks: a character reference to a mark is
// the mark, no word (one to a letter is its word's), and a link's
// destination may start on the next line.
func TestProseReferencesAndWrappedLinks(t *testing.T) {
	tests := []struct {
		name, in string
		lead     bool
		want     string // with runs of spaces folded
	}{
		// A JSX attribute's value is an expression in braces.
		{"jsx expressions as attribute values", "<Tabs groupId=\"guide\" queryString defaultValue=\"web\" values={constants.getDevNotesTabs([\"web\"])}>\nText <img src=\"/a.png\" width={225} style={{float: 'right', margin: \"0 {1}\"}} /> here <X a={b\nc}> <Y a={'}'}>\n", false,
			"Text here"},
		// MyST: comment lines, and a role's name before its text.
		{"myst comments and roles", "## Diagrams\n% It is possible to use mermaid\n  %\n%% also\n50% of it, %PATH% and\n%APPDATA% stay\nSee {term}`Environment Manager` and {py:func}`f`, not {x} `y` or `{z}`\n```\n% code\n```\n" +
			"Costs rose by 20\n% in one year.\n\n    % make install\n\n\t% csh\n\n% a comment\r\n% and another\r\n", false,
			"## Diagrams 50% of it, %PATH% and %APPDATA% stay See `Environment Manager` and `f`, not {x} `y` or `{z}` ``` % code ``` Costs rose by 20 % in one year. % make install % csh"},
		// CommonMark lets a destination start on the next line.
		{"a destination on the next line", "see [Get a Shell to a Running Container](\n  /docs/tasks/get-shell/) and [b](\r\nx.md) now\n[c](\n\n/not/a/link) [d]( y\n/z) [e](\nw", false,
			"see [Get a Shell to a Running Container] and [b] now [c]( /not/a/link) [d]( y /z) [e]( w"},
		{"mark references", "scales horizontally&mdash;that is, &quot;more&quot; &amp; &lt;div&gt; x&#8212;y &#X2014; caf&eacute; &foo; &#x; &#12ab; &CounterClockwiseContourIntegral; `&mdash;` & amp; x&sup2; &frac12;", false,
			"scales horizontally that is, more div x y caf&eacute; &foo; &#x; &#12ab; `&mdash;` & amp; x&sup2; &frac12;"},
	}
	for _, tt := range tests {
		checkProse(t, tt.name, tt.in, tt.lead, tt.want)
	}
}

// checkProse checks Prose(in, lead): as long as in, and want with runs of
// spaces folded.
func checkProse(t *testing.T, name, in string, lead bool, want string) {
	t.Helper()
	got := Prose(in, lead)
	if len(got) != len(in) {
		t.Errorf("%s: %d bytes out of %d in: offsets must line up", name, len(got), len(in))
	}
	if d := cmp.Diff(want, strings.Join(strings.Fields(got), " ")); d != "" {
		t.Errorf("%s: (-want +got)\n%s", name, d)
	}
}

// TestProseCodeAndSiteMarks: an HTML comment in code is code; Zola's
// shortcode calls and Docsify's heading marks are not prose.
func TestProseCodeAndSiteMarks(t *testing.T) {
	tests := []struct{ name, in, want string }{
		// Zola's shortcode calls; in code, Jinja's and Ansible's
		// expressions are code.
		{"zola shortcode calls", "A {{ resize_image(path=\"a.png\", width=600) }} and {{ youtube(id=\"dQw4w9WgXcQ\", alt=\"A talk\") }}.\n`{{ lookup('env', 'HOME') }}` {{ page.title }} {{ f(x) }\n```\n{{ range(10) }}\n```", "A and A talk . `{{ lookup('env', 'HOME') }}` {{ page.title }} {{ f(x) } ``` {{ range(10) }} ```"},
		{"docsify heading marks", "## themeColor :id=themecolor\nText :id=kept\n## Intro {docsify-ignore}\n", "## themeColor Text :id=kept ## Intro"},
		{"html comments in code kept", "add `<!-- more -->` here <!-- hidden -->\n```html\n<!-- shown -->\n{{< x >}}\n```\n~~~\n<!-- open\n~~~\nafter <!-- gone\n-->\n``<!--``", "add `<!-- more -->` here ``` <!-- shown --> ``` ~~~ <!-- open ~~~ after ``<!--``"},
	}
	for _, tt := range tests {
		checkProse(t, tt.name, tt.in, false, tt.want)
	}
}

// FuzzProse: the output is as long as the input, keeps its newlines, and
// changes bytes only to spaces.
func FuzzProse(f *testing.F) {
	for _, s := range []string{"a <!-- b --> c", "{{< x >}}y{{< /x >}}", "{{< comment >}}a{{% /comment %}}b{{< /comment >}}", `{{< t text="a" title='b' x=` + "`c`" + ` >}}`, "+++\na\n+++\nb", "{{%", "<!--", "", "# a <b c='d'>e</b> { #f .g h=\"i\" }\n", "t {#x}\r---\r\n<a/ ><a =x>", "## a {: #b }\nc{:d}\n===\n", "!!! n \"t [a](b)\"\r\n    x\n\t=== \"u\"\r???+\n```\n??? x\n", "<script setup>\nx\n</SCRIPT>\n::: tip T\n:::\n", "  <style\r\n```\n</style>", "%%\na\n%% b `%%` %%",
		"/// note | T\n////\n{* a.py *}\n{!> b !}\n--8<--\nc.md\n--8<--\n[a](b){.c d=e}\n|-|:-:|\n- [x](#y)\n"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, lead bool) {
		got := Prose(s, lead)
		if SaysSomething(s) && strings.TrimSpace(got) == "" {
			t.Fatalf("%q: SaysSomething, but blank as prose", s)
		}
		if len(got) != len(s) {
			t.Fatalf("%q: %d bytes, want %d", s, len(got), len(s))
		}
		for i := range len(s) {
			if got[i] != s[i] && got[i] != ' ' || s[i] == '\n' && got[i] != '\n' {
				t.Fatalf("%q: byte %d changed to %q", s, i, got[i])
			}
		}
	})
}

func TestPassagesFrontMatter(t *testing.T) {
	body := "---\ntitle: math.Pi\ndescription: Returns the constant pi.\nkeywords: [math, constant]\nweight: 10\n---\n\n<!-- hidden -->\nLead text.\n\n## Usage\n\n{{< code >}}Use it.{{< /code >}}\n"
	start := strings.Index(body, "\n\n<!--") + 1
	usage := strings.Index(body, "## Usage")
	rec := docir.Record{
		ID: "functions/math/Pi", Title: "math.Pi", MarkdownStart: start,
		Fields:   map[string]any{"title": "math.Pi", "description": "Returns the constant pi.", "keywords": []any{"math", "constant"}, "weight": 10},
		Sections: []docir.Section{{Slug: "usage", Heading: "Usage", Level: 2, Start: usage, OwnEnd: len(body), End: len(body)}},
	}
	fold := func(ps []fulltext.Passage) []fulltext.Passage {
		for i := range ps {
			ps[i].Text = strings.Join(strings.Fields(ps[i].Text), " ")
		}
		return ps
	}
	got := fold(Passages(&rec, []byte(body)))
	head := "math.Pi\nfunctions/math/Pi"
	want := []fulltext.Passage{
		{ID: "functions/math/Pi", Text: "math.Pi Lead text.", Head: head},
		{ID: "functions/math/Pi#", Text: "math.Pi math.Pi Returns the constant pi. math constant", Head: head,
			Names: []string{"math.Pi", "Returns the constant pi.", "Pi"}}, // the file name last
		{ID: "functions/math/Pi#usage", Text: "math.Pi ## Usage Use it.", Head: head + "\nUsage"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("passages (-want +got)\n%s", d)
	}
	// Each passage cut alone is the one Passages cuts, less the names, and
	// so is each cut from the span of the body PassageSpan names.
	checkPassagesAlone(t, &rec, body)
	noLead := rec
	noLead.MarkdownStart = usage
	checkPassagesAlone(t, &noLead, body)
	short := rec // offsets past the body's end, as a damaged record has
	short.Sections = []docir.Section{{Slug: "usage", Heading: "Usage", Level: 2, Start: usage, OwnEnd: len(body) + 50, End: len(body) + 50}}
	checkPassagesAlone(t, &short, body)
	past := rec
	past.Sections = []docir.Section{{Slug: "usage", Heading: "Usage", Level: 2, Start: len(body) + 10, OwnEnd: len(body) + 50, End: len(body) + 50}}
	checkPassagesAlone(t, &past, body)
	if _, ok := (Config{}).Passage(&rec, []byte(body), "functions/math/Pi#nope"); ok {
		t.Error("Passage of a slug the record lacks")
	}
	// Ids only, for a delete: the same ids, the head included.
	var ids []string
	for _, p := range Passages(&rec, nil) {
		ids = append(ids, p.ID)
	}
	if d := cmp.Diff([]string{"functions/math/Pi", "functions/math/Pi#", "functions/math/Pi#usage"}, ids); d != "" {
		t.Errorf("ids (-want +got)\n%s", d)
	}
	// A configured list: only the named fields.
	got = fold(Config{FrontMatter: []string{"keywords"}}.Passages(&rec, []byte(body)))
	if got[1].Text != "math.Pi math constant" {
		t.Errorf("keywords only: head %q", got[1].Text)
	}
	if n := (Config{}).Names(&rec); !cmp.Equal(n, []string{"math.Pi", "Returns the constant pi."}) {
		t.Errorf("names %q", n)
	}
}

// TestFrontMatterPatterns: by default a field whose name ends in "title"
// or "description", in any case, is read in the pattern's place, in the
// order of its name (VS Code's PageTitle and MetaDescription,
// Hugo's linkTitle), once; it names nothing. An explicit list reads only
// what it names, and "*x" in it is the fields ending in x.
func TestFrontMatterPatterns(t *testing.T) {
	rec := docir.Record{ID: "terminal/basics", Title: "Terminal Basics", Fields: map[string]any{
		"PageTitle": "Integrated Terminal in Visual Studio Code", "MetaDescription": "Visual Studio Code has an integrated terminal.",
		"linkTitle": "Terminal", "title": "Terminal Basics", "Area": "terminal", "DateApproved": "12/10/2025", "subtitle": 7,
	}}
	for _, c := range []struct {
		fields []string
		want   string
	}{
		{nil, "Terminal Basics\nIntegrated Terminal in Visual Studio Code\nTerminal\n7\nVisual Studio Code has an integrated terminal."},
		{[]string{"Area", "*TITLE"}, "terminal\nIntegrated Terminal in Visual Studio Code\nTerminal\n7\nTerminal Basics"},
		{[]string{"*", "Area"}, "terminal"}, // "*" alone is the field named so
		{[]string{}, ""},
	} {
		if got := (Config{FrontMatter: c.fields}).frontMatterText(&rec); got != c.want {
			t.Errorf("front_matter %q: %q, want %q", c.fields, got, c.want)
		}
	}
	if n := (Config{}).Names(&rec); !cmp.Equal(n, []string{"Terminal Basics"}) {
		t.Errorf("names %q: a field a pattern matches names nothing", n)
	}
	if n := (Config{FrontMatter: []string{"PageTitle"}}).Names(&rec); !cmp.Equal(n, []string{"Terminal Basics", "Integrated Terminal in Visual Studio Code"}) {
		t.Errorf("names %q: a field named exactly names the page", n)
	}
}

// TestFrontMatterNested: a configured field's dotted name reads a nested
// one, as the query language does (Starlight's hero.tagline); a key
// written with a dot is read as written first.
func TestFrontMatterNested(t *testing.T) {
	rec := docir.Record{ID: "index", Title: "Starlight", Fields: map[string]any{
		"hero":    map[string]any{"tagline": "Make your docs shine", "actions": []any{map[string]any{"text": "Get started"}}},
		"sidebar": map[string]any{"label": "Home"}, "a.b": "as written", "a": map[string]any{"b": "nested"},
	}}
	got := (Config{FrontMatter: []string{"hero.tagline", "sidebar.label", "a.b", "hero.missing"}}).frontMatterText(&rec)
	if want := "Make your docs shine\nHome\nas written"; got != want {
		t.Errorf("frontMatterText %q, want %q", got, want)
	}
}

// TestWritePassages writes the passages of every markdown file under
// $DOCIR_PASSAGES_SRC to $DOCIR_PASSAGES, one JSON line each, for the
// corpus tests and benchmarks of store/fulltext:
//
//	DOCIR_PASSAGES_SRC=<folder> DOCIR_PASSAGES=/tmp/p.jsonl go test ./store/passage -run WritePassages
func TestWritePassages(t *testing.T) {
	src, dst := os.Getenv("DOCIR_PASSAGES_SRC"), os.Getenv("DOCIR_PASSAGES")
	if src == "" || dst == "" {
		t.Skip("no $DOCIR_PASSAGES_SRC and $DOCIR_PASSAGES")
	}
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	p := markdown.NewParser()
	n := 0
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		rec := p.Parse(rel, body).Record
		rec.ID = strings.TrimSuffix(filepath.ToSlash(rel), ".md")
		for _, ps := range Passages(&rec, body) {
			if err := enc.Encode(ps); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d passages written to %s", n, dst)
}

// TestHeadingPath: a section's head is the title, the path, the headings
// above it (outermost first, the one that repeats the title left out) and
// its own.
func TestHeadingPath(t *testing.T) {
	rec := docir.Record{ID: "configuration/front-matter", Title: "Front matter", Sections: []docir.Section{
		{Heading: "Front matter", Level: 1}, {Heading: "Fields", Level: 2}, {Heading: "Dates", Level: 3},
		{Heading: "Cascade", Level: 2}, {Heading: "Target", Level: 4},
	}}
	for i, want := range []string{
		"Front matter\nconfiguration/front-matter\nFront matter",
		"Front matter\nconfiguration/front-matter\nFields",
		"Front matter\nconfiguration/front-matter\nFields\nDates",
		"Front matter\nconfiguration/front-matter\nCascade",
		"Front matter\nconfiguration/front-matter\nCascade\nTarget",
	} {
		if got := headingPath(&rec, i, nil); got != want {
			t.Errorf("section %d: %q, want %q", i, got, want)
		}
		if got := headingPath(&rec, i, parents(rec.Sections)); got != want {
			t.Errorf("section %d by its parents: %q, want %q", i, got, want)
		}
	}
	if got := headingPath(&rec, -1, nil); got != "Front matter\nconfiguration/front-matter" {
		t.Errorf("lead: %q", got)
	}
}

// TestProseLinks: link and image destinations, reference labels and
// reference definitions are blanked (offsets kept); link text, footnotes
// and links in code are kept.
func TestProseLinks(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"see [the docs](/a/b#c) now", "see [the docs]         now"},
		{"an ![image](img/x.png \"title\") here", "an ![image]                    here"},
		{"nested [a](/x_(y)) end", "nested [a]" + strings.Repeat(" ", len("(/x_(y))")) + " end"},
		{"by [reference][ref-1] and [collapsed][].", "by [reference]        and [collapsed]  ."},
		{"[ref-1]: /configuration/front-matter/#dates \"Dates\"\nnext", strings.Repeat(" ", len(`[ref-1]: /configuration/front-matter/#dates "Dates"`)) + "\nnext"},
		{"   [x]: https://example.com", strings.Repeat(" ", 27)},
		{"[^1]: a footnote is prose", "[^1]: a footnote is prose"},
		{"code `[a](/b)` stays", "code `[a](/b)` stays"},
		// A span closes at a run of its own length only, and an escaped
		// backtick opens none (CommonMark): these links are not code.
		{"`a``` [x](/y) ``", "`a``` [x]     ``"},
		{"\\`a [x](/y) `b`", "\\`a [x]     `b`"},
		{"\\\\`a [x](/y) `b`", "\\\\`a [x](/y) `b`"},
		{"```md\n[a](/b)\n[x]: /y\n```\nafter [c](/d)", "```  \n[a](/b)\n[x]: /y\n```\nafter [c]    "},
		{"a [b] c", "a [b] c"},
		// A CR alone ends a line, as CommonMark reads it.
		{"text\r\r[x]: /y\r```\r[a](/b)\r```\r", "text\r\r       \r```\r[a](/b)\r```\r"},
		{"text\r\n\r\n[x]: /y\r\n", "text\r\n\r\n       \r\n"},
		// A definition over lines, with its title on the next, in a block
		// quote or a list item is blanked whole; a line written as one that
		// goes on a paragraph is no definition (CommonMark), and is text.
		{"Read [it][r].\n\n[r]:\nhttps://x.org/manatee\n", "Read [it]   .\n\n    \n                     \n"},
		{"[r]: https://x.org/kinkajou\n    \"Loris title\"\n", strings.Repeat(" ", 27) + "\n" + strings.Repeat(" ", 17) + "\n"},
		{"> [r]: https://x.org/nilgai\n- [s]: https://x.org/gazelle\n", strings.Repeat(" ", 27) + "\n" + strings.Repeat(" ", 28) + "\n"},
		{"text\n[r]: https://x.org/okapi\n", "text\n[r]: https://x.org/okapi\n"},
		{"<!-- a\r-->\r```\r[a](/b)\r```", "      \r   \r```\r[a](/b)\r```"},
	} {
		if got := Prose(tt.in, false); got != tt.want {
			t.Errorf("Prose(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// checkPassagesAlone: every passage of rec, cut alone from the whole body
// (Passage) and from the span PassageSpan names (PassageIn), is the one
// Passages cuts, less the names.
func checkPassagesAlone(t *testing.T, rec *docir.Record, body string) {
	t.Helper()
	for _, p := range Passages(rec, []byte(body)) {
		p.Names = nil
		alone, ok := Config{}.Passage(rec, []byte(body), p.ID)
		if d := cmp.Diff(p, alone); !ok || d != "" {
			t.Errorf("Passage(%s) (-in Passages +alone), found %v:\n%s", p.ID, ok, d)
		}
		from, to, ok := Config{}.PassageSpan(rec, p.ID)
		if !ok {
			t.Errorf("PassageSpan(%s): not found", p.ID)
			continue
		}
		// The window as a store reads it: clipped to the body, at the
		// offset asked for.
		end := to
		if end < 0 || end > len(body) {
			end = len(body)
		}
		start := min(from, end)
		in, ok := Config{}.PassageIn(rec, []byte(body[start:end]), from, p.ID)
		if d := cmp.Diff(p, in); !ok || d != "" {
			t.Errorf("PassageIn(%s) of [%d, %d) (-in Passages +in the span), found %v:\n%s", p.ID, from, to, ok, d)
		}
	}
}

// TestCutter: a Cutter cuts every passage as Config does, the first of two
// sections that share a slug included, and only the first section headed
// by the title is its own (the title not put before it again).
func TestCutter(t *testing.T) {
	var body string
	rec := &docir.Record{ID: "d", Title: "Doc"}
	for _, s := range []struct{ slug, heading, text string }{
		{"doc", "Doc", "A."}, {"b", "B", "b."}, {"b", "B", "b2."}, {"doc-1", "Doc", "C."}, {"e", "e", "e."},
	} {
		if body == "" {
			body = "Lead.\n"
		}
		start := len(body)
		body += "# " + s.heading + "\n" + s.text + "\n"
		rec.Sections = append(rec.Sections, docir.Section{Slug: s.slug, Heading: s.heading, Level: 1, Start: start, OwnEnd: len(body), End: len(body)})
	}
	c := Config{}
	x := c.Cutter(rec)
	ids := []string{"d", "d#", "d#doc", "d#b", "d#doc-1", "d#e", "d#nope", "e#b", "", "d#a", "d#z"}
	for _, id := range ids {
		want, wok := c.Passage(rec, []byte(body), id)
		got, gok := x.Passage([]byte(body), id)
		if d := cmp.Diff(want, got); d != "" || wok != gok {
			t.Errorf("Passage %q: ok %v, want %v (-want +got)\n%s", id, gok, wok, d)
		}
		from, to, ok := c.PassageSpan(rec, id)
		gf, gt, gok := x.PassageSpan(id)
		if gf != from || gt != to || gok != ok {
			t.Errorf("PassageSpan %q: %d %d %v, want %d %d %v", id, gf, gt, gok, from, to, ok)
		}
		if ok && to >= 0 {
			want, _ := c.PassageIn(rec, []byte(body[from:to]), from, id)
			got, _ := x.PassageIn([]byte(body[from:to]), from, id)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("PassageIn %q (-want +got)\n%s", id, d)
			}
		}
	}
	if p, _ := x.Passage([]byte(body), "d#b"); !strings.Contains(p.Text, "b.") || strings.Contains(p.Text, "b2.") {
		t.Errorf("d#b is the first section with slug b: %q", p.Text)
	}
	if p, _ := x.Passage([]byte(body), "d#doc"); strings.HasPrefix(p.Text, "Doc\n") {
		t.Errorf("the first section headed by the title says it once: %q", p.Text)
	}
	if p, _ := x.Passage([]byte(body), "d#doc-1"); !strings.HasPrefix(p.Text, "Doc\n") {
		t.Errorf("a second section headed by the title has it before its text: %q", p.Text)
	}
}

// TestParents: a section's parent is the nearest section before it of a
// lower level, and a heading path by parents is the one a scan back finds,
// on sections of every order of levels.
func TestParents(t *testing.T) {
	levels := []int{2, 3, 1, 4, 4, 2, 6, 3, 3, 1, 2, 5, 2, 1}
	rec := docir.Record{ID: "d", Title: "T1"}
	for i, lv := range levels {
		rec.Sections = append(rec.Sections, docir.Section{Heading: "T" + strconv.Itoa(i), Level: lv})
	}
	par := parents(rec.Sections)
	for i := range rec.Sections {
		want := -1
		for j := i - 1; j >= 0; j-- {
			if levels[j] < levels[i] {
				want = j
				break
			}
		}
		if int(par[i]) != want {
			t.Errorf("section %d: parent %d, want %d", i, par[i], want)
		}
		if got, want := headingPath(&rec, i, par), headingPath(&rec, i, nil); got != want {
			t.Errorf("section %d: %q, want %q", i, got, want)
		}
	}
}

// TestTagNeverClosed: lines that each open a tag that never closes blank
// nothing (each look stops at maxTagBytes past its '<', or at once when no
// '>' lies within them), and neither does one line of many (the line's
// '>' is looked for once, not from every '<': a review's 3.9 MB line of
// "<a " took 90 s to index).
func TestTagNeverClosed(t *testing.T) {
	for _, text := range []string{
		strings.Repeat("<a b\n", 5_000), strings.Repeat("<a b=\"\n", 5_000), strings.Repeat("<img\n", 5_000),
		strings.Repeat("<a b=\"x\n\n\">\n", 5_000),
		strings.Repeat("<a ", 300_000) + "\n", strings.Repeat(`<a id="x" `, 100_000) + "\n",
		// and no other opener either: each is looked for once, or within a bound
		"{ " + strings.Repeat("{%", 300_000) + "\n", strings.Repeat("{{#title x", 100_000) + "\n",
		strings.Repeat("{* a ", 300_000) + "\n", strings.Repeat("{!> a ", 300_000) + "\n*}!}",
		strings.Repeat("x --8<-- ", 300_000) + "\n",
		strings.Repeat("<a b={", 300_000) + "\n", strings.Repeat("<a b={'", 300_000) + "\n",
		strings.Repeat("[a](", 300_000) + strings.Repeat(" ", 300_000) + "\n x\n", strings.Repeat("&a", 300_000) + "\n", strings.Repeat("&#x", 300_000) + "\n",
	} {
		if got := Prose(text, false); got != text {
			t.Errorf("%.20q…: blanked a tag that never closes", text)
		}
	}
}

// TestEnclosingHeading: a document titled by its file name whose first
// heading holds every other one (an mdBook page under "## What Is
// Ownership?") is named by that heading; one with a title of its own, or
// a first heading with a sibling, or a level-1 first heading (the title
// already), is not.
func TestEnclosingHeading(t *testing.T) {
	sec := func(h string, level int) docir.Section { return docir.Section{Heading: h, Level: level} }
	for _, tt := range []struct {
		name  string
		rec   docir.Record
		want  string
		names bool
	}{
		{"mdBook page", docir.Record{Title: "ch04-01", Path: "src/ch04-01.md", Sections: []docir.Section{sec("What Is Ownership?", 2), sec("The Stack", 3), sec("Rules", 3)}}, "What Is Ownership?", true},
		{"alone", docir.Record{Title: "x", Path: "x.md", Sections: []docir.Section{sec("Functions", 2)}}, "Functions", true},
		{"a sibling", docir.Record{Title: "x", Path: "x.md", Sections: []docir.Section{sec("Usage", 2), sec("More", 3), sec("Options", 2)}}, "", false},
		{"a title of its own", docir.Record{Title: "Ownership", Path: "x.md", Sections: []docir.Section{sec("What Is Ownership?", 2)}}, "", false},
		{"level 1", docir.Record{Title: "x", Path: "x.md", Sections: []docir.Section{sec("Heading", 1)}}, "", false},
		{"no headings", docir.Record{Title: "x", Path: "x.md"}, "", false},
	} {
		got, ok := EnclosingHeading(&tt.rec)
		if got != tt.want || ok != tt.names {
			t.Errorf("%s: %q, %v", tt.name, got, ok)
		}
		if names := (Config{}).Names(&tt.rec); tt.names != slices.Contains(names, tt.want) || len(names) != map[bool]int{true: 2, false: 1}[tt.names] {
			t.Errorf("%s: names %q", tt.name, names)
		}
	}
}

func TestFileName(t *testing.T) {
	for id, want := range map[string]string{
		"EIPS/eip-1559":                        "eip-1559",
		"functions/strings/Split":              "Split",
		"keps/sig-apps/1847-autoremove/README": "1847-autoremove",
		"ops/readme":                           "ops",
		"README":                               "",
		"index":                                "",
		"_index":                               "",
		"intro":                                "intro",
	} {
		if got := FileName(&docir.Record{ID: id}); got != want {
			t.Errorf("FileName(%q) = %q, want %q", id, got, want)
		}
	}
	// A page without a title is titled by its file's name: named once.
	rec := docir.Record{ID: "guide/intro", Title: "intro", Sections: []docir.Section{{Slug: "a", Heading: "A", Level: 2, End: 5, OwnEnd: 5}}}
	if got := (Config{}).Passages(&rec, []byte("## A\n"))[0].Names; !slices.Equal(got, []string{"intro"}) {
		t.Errorf("names %q, want [intro]", got)
	}
}

// TestTickRuns: where the first run of exactly n backticks at or after p
// starts is what a scan of the line's runs says.
func TestTickRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, rng.IntN(60))
		for i := range b {
			b[i] = "``` a"[rng.IntN(5)]
		}
		ticks := markdown.NewTickRuns(b)
		for p := 0; p < len(b); p += 1 + rng.IntN(4) {
			n := 1 + rng.IntN(4)
			want := -1
			for i := 0; i < len(b); i++ {
				j := i
				for j < len(b) && b[j] == '`' {
					j++
				}
				if j-i == n && i >= p {
					want = i
					break
				}
				i = max(i, j-1)
			}
			if got := ticks.Closer(p, n); got != want {
				t.Fatalf("%q: %d backticks from %d at %d, want %d", b, n, p, got, want)
			}
		}
	}
	// a line of unclosed runs of falling length: each run looked at once
	var line strings.Builder
	for n := 2000; n > 0; n-- {
		line.WriteString(strings.Repeat("`", n) + " a ")
	}
	text := "{ " + line.String() + "\n"
	if got := Prose(text, false); got != text {
		t.Errorf("blanked text without a code span's end")
	}
}

// TestProseMkDocsAndSpecMarks: the marks of MkDocs Material's extensions
// (pymdownx blocks, code includes, attribute lists after links), a
// table's delimiter row and a page's own table of contents are not prose.
func TestProseMkDocsAndSpecMarks(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"pymdownx blocks", "/// note | Technical Details\n\nBody.\n\n///\n//// tab | Python 3.10+\n\nx\n\n////\n/// tip\ny\n///\n    /// details | Open me\n/// Returns the value\n/// note extra words\n", "Technical Details Body. Python 3.10+ x y Open me /// Returns the value /// note extra words"},
		{"code includes", "Import `Depends`\n\n{* ../../docs_src/dependencies/tutorial001_an_py310.py hl[3] *}\n\n{!> ../../docs_src/python_types/tutorial009_py310.py!}\n{! x.md !}\nkept {*x*} and {!x!}\n", "Import `Depends` kept {*x*} and {!x!}"},
		{"snippets", "A\n--8<-- \"includes/abbreviations.md\"\n```py\n  --8<-- \"docs_src/app.py\"\n```\n--8<--\nfile1.md\nfile2.md\n--8<--\nB ;--8<-- \"shown.md\" and x --8<-- y\n", "A ``` ``` B ;--8<-- \"shown.md\" and x --8<-- y"},
		{"attribute lists after links", "[help FastAPI](help-fastapi.md){.internal-link target=_blank} and [Start](other.md#setup){ .md-button } but [a](b){kept} {.x}\n", "[help FastAPI] and [Start] but [a] {kept} {.x}"},
		{"one-dash delimiter rows", "| a | b |\n|-|-|\n| c | d |\n| - | :-: |\n", "| a | b | | c | d |"},
		{"a CR alone ends a directive's line", "--8<-- \"a.md\"\rreal text here\r{* a\r b *} x\r--8<--\rf.md\r--8<--\rafter\r", "real text here {* a b *} x after"},
		{"abbreviations and icons", "The HTML spec :material-check: done :octicons-mark-github-16: and :tada: or :material-: x\n*[HTML]: Hyper Text Markup Language\n  *[CSS]: Cascading Style Sheets\n*[x] not one\n", "The HTML spec done and :tada: or :material-: x *[x] not one"},
		{"table delimiter rows", "| Name | Default |\n|------|:-------:|\n| `OTEL_X` | 30 |\n --- | ---\n---\n", "| Name | Default | | `OTEL_X` | 30 | ---"},
		{"hard line breaks", "Russ Cox \\\nDecember 2022 \\\r\nkept \\\\\n`code \\`\nend of a paragraph \\\n\nlast \\", "Russ Cox December 2022 kept \\\\ `code \\` end of a paragraph \\ last \\"},
		{"a page's table of contents", "# Spec\n\n<!-- toc -->\n\n- [Overview](#overview)\n  * [Span Limits](#span-limits)\n1. [Intro](#intro)\n- [Other page](other.md#x)\n- [Overview](#overview) and more\n- [ ] [a task](#t)\n\n## Overview\n", "# Spec 1. [Intro] - [Overview] and more - [ ] [a task] ## Overview"},
		{"navigation items: ending in their one link, to another page", "## What's next\n\n* Learn more about [scaling a StatefulSet](/docs/scale/).\n- \"[About two-factor authentication](/articles/about-2fa)\"\n+ [Pod Disruption Budgets](https://k8s.io/docs/pdb/)\n\n## Kept\n\n* [kubeadm init](/docs/init/) to bootstrap a control-plane node.\n- [a](x) and [b](y)\n- ![diagram](img.png)\n- see [it](x.md)\n- [a](#b), [c](#d)\n1. [Step one](one.md)\n- [x]\n- Learn about [the TTL controller](/ttl/) that cleans up finished Jobs.\n[Not an item](x.md)\n" +
			"- Pods using hostNetwork cannot share a port; see [Networking](/docs/net/).\n- Install the CLI, which must be on your PATH, or read [the guide](install.md)\n" +
			"- [kubeadm init](/docs/init/)\n  to bootstrap a node.\n- [Pods](/pods/)\nare the smallest unit.\n- [Last](/last/)\n",
			"## What's next ## Kept * [kubeadm init] to bootstrap a control-plane node. - [a] and [b] - ![diagram] - [a] , [c] 1. [Step one] - [x] - Learn about [the TTL controller] that cleans up finished Jobs. [Not an item]" +
				" - Pods using hostNetwork cannot share a port; see [Networking] . - Install the CLI, which must be on your PATH, or read [the guide] - [kubeadm init] to bootstrap a node. - [Pods] are the smallest unit."},
	}
	for _, tt := range tests {
		checkProse(t, tt.name, tt.in, false, tt.want)
	}
}

// TestFrontMatterProse: a field of three words or more is prose for a
// snippet, a word of a script written without spaces counted for every
// two of its characters; the title and shorter values are not.
func TestFrontMatterProse(t *testing.T) {
	rec := &docir.Record{Title: "Reactivity", Fields: map[string]any{
		"description": "这是一个关于响应式系统的说明",
		"summary":     "two words",
		"title":       "Reactivity",
	}}
	if got, want := (Config{}).FrontMatterProse(rec), "这是一个关于响应式系统的说明"; got != want {
		t.Errorf("FrontMatterProse = %q, want %q", got, want)
	}
	rec.Fields["description"] = "响应式"
	if got := (Config{}).FrontMatterProse(rec); got != "" {
		t.Errorf("a three-character value: FrontMatterProse = %q, want none", got)
	}
	rec.Fields["summary"] = "Three words here"
	if got, want := (Config{}).FrontMatterProse(rec), "Three words here"; got != want {
		t.Errorf("FrontMatterProse = %q, want %q", got, want)
	}
}
