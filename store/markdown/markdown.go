// Package markdown turns the bytes of one markdown file into docir's IR: a
// docir.Record with its front matter, title and sections. goldmark is
// confined to this package; nothing else in docir sees a goldmark type.
//
// Rules (docs/ingest.md has them for users):
//   - Front matter is a YAML block that opens the file with a line "---" and
//     closes with a line "---" or "...", a TOML block between "+++" lines
//     (trailing spaces and tabs allowed on them), or a JSON object that
//     opens the file and ends a line (json.go); it is part of the body, not
//     markdown. RulesVersion names these rules' version.
//   - Sections come from ATX and setext headings at the top level of the
//     document; a '#' line inside a fenced or indented code block is not a
//     heading, and a heading inside a block quote, a list or the content
//     of an angle shortcode pair ({{< x >}} … {{< /x >}}) makes no
//     section: its slug is an anchor of the section that holds it.
//   - A section runs from the first byte of its heading line to the first byte
//     of the next heading of the same or a higher level; OwnEnd stops at the
//     next heading of any level.
//   - Slugs come from address.Slug through an address.Slugger, so repeats get
//     -1, -2 as on GitHub; every heading, nested or not, takes its place in
//     the sequence. A heading that ends with an attribute block
//     (Hugo's and Pandoc's `## Metadata {#metadata-schema}`, MkDocs'
//     `## Metadata {: #metadata-schema }`) has the id it gives as its
//     slug, and the block is not part of its text.
//   - Title: front-matter `title`, else the text of an <h1> in the HTML
//     block that opens the document (htmlTitle), else the document's
//     first heading when it is a level-1 heading, else the file name
//     without ".md" (FileTitle).
//   - MkDocs admonitions, details and content tabs (`!!! note`, `??? tip`,
//     `=== "Tab"`) are containers whose body is the lines indented 4
//     spaces under the opener (mkdocs.go); a heading in one makes no
//     section, as in a block quote.
//   - Links, as written, and the anchors besides slugs (HTML ids, definition
//     terms), per section: links.go.
//
// Parse does not decide ids, check sizes or validate encodings: that is the
// store's ingest, which knows the file's root and path. ParseContext bounds
// the work of one parse (Limits) and stops goldmark mid-parse when a limit
// or the context ends.
package markdown

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	stdhtml "html"
	"math"
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"go.yaml.in/yaml/v3"
	"golang.org/x/sys/unix"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
)

var bom = []byte{0xEF, 0xBB, 0xBF}

// RulesVersion is the version of the rules by which Parse makes a record
// of the same bytes. A store records it with each generation, and a
// refresh by a docir of another version parses every file again (records
// made by older rules stay readable meanwhile): a change of the rules
// that makes another record of some file raises it, so that no store
// keeps records the rules no longer make, without a new store format.
//
//	0  (not recorded) the rules of store formats up to 14.
//	1  JSON front matter read (jsonFrontMatter): before, a file opening
//	   with a JSON object was markdown.
//	2  a paragraph of more than MaxDefinitionLines lines that opens with
//	   a link reference definition is over the parse budget: such a file
//	   is skipped (before, it was indexed). Raising the version costs
//	   every store made by version 1 a full parse on its next refresh.
//	3  MkDocs admonitions, details and content tabs (mkdocs.go): the
//	   body indented under an opener line is markdown, not an indented
//	   code block, so its links and headings' anchors are read; and the
//	   passages of a section no longer carry its heading's attribute
//	   block or inline HTML tags (store/passage Prose), which only a
//	   parse again re-indexes.
//	4  Python-Markdown's attr_list blocks that open with "{:" (`## Usage
//	   {: #usage }`) read as attribute blocks: their id is the heading's
//	   slug, and they are out of its text and of the indexed text; and
//	   the passages of a section carry an MkDocs opener line's title
//	   without its marker, type and quotes (`!!! note "Heads up"` is
//	   "Heads up"; store/passage Prose).
//	5  an HTML id with nothing but HTML and white space between its
//	   block and the next heading (mdBook's `<a id="old"></a>` on a line
//	   of its own before a renamed heading) is an anchor of that
//	   heading's section, not of the section (or lead) before it
//	   (headingOwners).
//	6  a paragraph of more than MaxDefinitionLines lines is refused only
//	   when it really opens with a link reference definition ("[a]: /x"),
//	   not when it opens with a link or a bracketed note (the file was
//	   skipped).
//	7  a level-1 heading is the title only when it is the document's
//	   first heading (an RFC titled "Drawbacks" by a "# Drawbacks" after
//	   its "## Summary" is titled by its file name); and the passages no
//	   longer carry raw HTML script and style blocks, nor the colons and
//	   type of a ::: container's line (store/passage Prose), which only a
//	   parse again re-indexes.
//	8  GitHub's footnote definitions ("[^1]: text") are footnotes, whose
//	   text's links are read, not link reference definitions ("[^x]: url"
//	   made "[^x]" a link to url, and a broken one when the text was a
//	   link); and the passages no longer carry mdBook's link directives
//	   ({{#include path}}) nor an inline HTML tag that runs over lines
//	   (store/passage Prose), which only a parse again re-indexes.
//	9  a heading written as a question (store/passage QuestionHeading)
//	   is indexed as a name of its section, the heading that holds a
//	   page titled by its file name as a name of the page
//	   (EnclosingHeading), and the field index keys a
//	   path through a list of objects (docir/query IndexKeys:
//	   `author.name` of `author: [{name: …}]`), which only a parse again
//	   indexes.
//	10 the info string of a code fence's opening line (```go-html-template)
//	   is not a passage's text (store/passage Prose), which only a parse
//	   again re-indexes.
//	11 a GFM table's rows are each an inline context for links and
//	   anchors (a backtick left open in one cell made the rows below it
//	   code: their links and HTML ids were not read).
//	12 a section that says nothing past its heading (store/passage
//	   QuietPassage) is indexed without the document's title, which only a
//	   parse again re-indexes.
//	13 template tags ({% include-markdown "x.md" %}: Jinja, Liquid,
//	   MkDocs macros) and block attribute lists on lines of their own
//	   ({: .subtitle }) are not a passage's text (store/passage Prose),
//	   which only a parse again re-indexes.
//	14 a GFM table's cells, not only its rows, are each an inline context
//	   (a row splits at every unescaped '|', inside a code span too, as
//	   GFM reads it; FuzzTableLinksGoldmark).
//	15 the values of a shortcode's text, title, caption and alt parameters
//	   are a passage's text ({{< glossary_tooltip text="Deployment" >}};
//	   store/passage blankShortcode), which only a parse again re-indexes.
//	16 the text a comment shortcode encloses ({{< comment >}} … {{< /comment
//	   >}}, Hugo's and Docsy's) is not a passage's text, as an HTML
//	   comment's is not (store/passage commentEnd).
//	17 wikilinks ([[Note]], [[Note#Heading|text]], ![[file]]) are links
//	   (docir.LinkWiki), resolved by the note's name (store resolver.wiki).
//	18 the same records as 17; raised so that a store 17 resolved with
//	   every wikilink on is resolved again under links.wikilinks (on in a
//	   vault only).
//	19 a key written twice in YAML front matter is read as Hugo reads it,
//	   the last pair winning, where every field was dropped (lastKeysWin).
//	20 the same records as 19; raised so that links are resolved again
//	   under Hugo's page paths (root_fallback, ref: x.md is also the bundle
//	   x/_index.md, and a name alone the one page of that name) and a
//	   source's prefix (/manuals/x is x below the source prefixed manuals).
//	21 the terms of definition lists written as MDN writes them (`- term`,
//	   then `  - : definition`) are recorded (docir.Section.ListTerms), for
//	   links.mdn_anchors.
//	22 MDX's import and export lines (`import Tabs from '@theme/Tabs';`)
//	   are not a passage's text (store/passage Prose), which only a parse
//	   again re-indexes.
//	23 a heading's shortcodes are read as a reader sees them, not as
//	   markup: its text and slug are the values of their text parameters,
//	   or, where that leaves no word, their first quoted values
//	   (`## {{% heading "whatsnext" %}}` is "whatsnext"; headingShortcodes).
//	24 a link records its column (docir.LinkRef.Column), which check
//	   prints as file:line:column.
//	25 a stacked heading (nothing under it, right above one of its level)
//	   ends where that one ends (Stacked): a read of it reads the text
//	   under both.
//	26 YAML front matter that does not parse gives its top-level
//	   `key: value` lines as text fields (keyLines), where it gave none.
//	27 a line written as a heading in the content of an angle shortcode
//	   pair ({{< highlight yaml >}} … {{< /highlight >}}) makes no
//	   section (angleInners): Hugo never renders that content as the
//	   page's markdown.
//	28 a document's file name (store/passage FileName) is indexed as one
//	   of its names, which only a parse again re-indexes.
//	29 the same records as 28; raised so that links are resolved again: a
//	   link's anchor read as heading text finds a heading in a block quote
//	   or a list (`#Side-Note` for `> ### Side Note`), as get does.
//	30 YAML front matter whose aliases expand it past MaxFrontMatterBytes
//	   is over the parse budget (expandedBytes): its fields are ignored.
//	31 MDX's comments (`{/* prettier-ignore */}`) and spacers (`{' '}`)
//	   are not a passage's text (store/passage Prose), which only a parse
//	   again re-indexes; and links are resolved again: below a source
//	   whose ids are read by name (front_matter_id: name), a path that
//	   names no file names the document whose id it spells (byID), and
//	   a link to x.mdx names the file x.md where there is one; and
//	   MyST's target lines, `(label)=`, are anchors of the heading after
//	   them (myst.go) and not a passage's text, and a link that names a
//	   label alone leads to it (docir.Section.Labels, store's labelAlias).
//	32 records hold their MyST labels (docir.Section.Labels); a template
//	   tag's title, text, caption and alt values are text (GitBook's
//	   `{% tab title="x" %}`), and a character reference to a space
//	   (`&#x20;`) a space (store/passage Prose); links are resolved again:
//	   an anchor finds a heading whose slug is it and trailing '-'s; and
//	   a book's table of contents (SUMMARY.md of links) has no passages
//	   (store/passage TableOfContents); a kramdown attribute list's id on
//	   the line after a heading or text is an anchor (ialIDs); a link's
//	   destination written in Liquid is read whole (Jekyll), and links
//	   resolve again by it and by pages' permalink:/url: paths.
//	33 an HTML comment in a code span or a fenced code block is code,
//	   and a passage's text (store/passage Prose); front matter after
//	   blank lines is front matter (blankLines), as Hugo and Zola read it;
//	   Docsify's _sidebar.md and _navbar.md and a GitHub wiki's _Sidebar.md
//	   and _Footer.md have no passages (store/passage TableOfContents);
//	   a template tag in a heading ({% addedin "0.7.0" %}) is read as a
//	   shortcode is (headingShortcodes); links are resolved again: Zola's
//	   @/ paths, Docsify's ?id= anchors; Docsify's heading marks (:id=x,
//	   {docsify-ignore}) are an id and nothing (docsifyMarks); Zola's
//	   shortcode calls outside code, {{ name(args) }}, are not text.
//	34 a wikilink keeps its part after '|' (docir.LinkRef.Alt): a GitHub
//	   wiki's [[text|Page]] names Page; a line written as a heading in a
//	   template's captured block ({% set x %} … {% endset %}, {% capture
//	   x %} … {% endcapture %}) makes no section (captureInners); links
//	   are resolved again: a target whose colon may be a page name's
//	   (Basics:-Paths) is that page where there is one.
//	35 a passage's text (store/passage Prose) leaves out pymdownx block
//	   markers (`/// note | Title` keeps `Title`), code includes (`{*
//	   path *}`, `{! path !}`, `--8<--`), attribute lists after links
//	   (`{.internal-link}`), tables' delimiter rows, a backslash that
//	   ends a line (a hard line break), abbreviation definitions
//	   (`*[HTML]: …`), MkDocs Material's icons (`:material-check:`),
//	   and bullet items
//	   that are one link to an anchor of the page (its table of
//	   contents), which only a parse again re-indexes; and links are
//	   resolved again: a link to the root's index.html names its
//	   index.md (it named ./index.md), x.markdown names x.md, and
//	   x.html also x.html.md.
//	36 a passage's text (store/passage Prose) leaves out a bullet item
//	   that ends in its one link, to another page (`- [Title](x.md)`,
//	   `* Learn more about [Title](/x/).`): a list of them is the site's
//	   navigation (What's next, Further reading, Related links); a
//	   character reference to a mark (`&mdash;`, `&quot;`, `&amp;`) is
//	   no word; a link's destination on the line after its "](" is no
//	   text; an HTML tag whose attribute is a JSX expression (`values={
//	   f(["web"])}`) is a tag.
//	37 a front-matter title's template tags and shortcodes are read as a
//	   heading's are (titleText: GitHub's docs title pages `Installing {%
//	   data variables.product.prodname_enterprise %}`).
//	38 links are resolved again: below a source whose ids are read by
//	   name, a path without an extension (a URL) names the page whose id
//	   it spells before the file of its name (store resolver.link).
//	39 a line written as a heading in a MyST colon-fence directive
//	   (`:::{note}` … `:::`) makes no section (directiveInners); a MyST
//	   comment line (`% …`) and a role's name ({term}`x`) are not a
//	   passage's text (store/passage Prose); links are resolved again:
//	   an anchor alone that the page lacks names a MyST label of another
//	   page ([](#label)); a ref in a leaf bundle's index.md is read from
//	   the bundle's level, as Hugo reads it; with hugo_aliases, a URL
//	   below links.site names the page that declares its path.
//	40 (a review of 36-39) a navigation item's lead-in is four words at
//	   most, and an item that goes on on its next line is prose; a MyST
//	   comment only where a block may start, three spaces in at most; a
//	   reference to a number (&sup2;) is its word's; a fenced div of
//	   Pandoc or Quarto (`:::{.class}`) is no MyST directive: its headings
//	   make sections; a ref in a leaf bundle's translation (index.fr.md)
//	   is read from the bundle's level too.
//	41 an HTML tag's text attributes (caption, title, alt, text) are a
//	   passage's text: the Rust book's `<Listing caption="…">`.
//	42 a folder's index.md or _index.md that gives no title is titled by
//	   its folder's name (FileTitle), not "_index"; a tag over lines
//	   keeps its text attributes, and a card's description and a tab's
//	   label are text attributes (store/passage blankTag); a ::: container's
//	   title in brackets (`:::tip[Title]{icon="x"}`) is its text, without
//	   brackets or attributes (store/passage blankContainer); a
//	   configured front-matter field's dotted name reads a nested field
//	   (front_matter: [hero.tagline]; store/passage fieldValue).
//	43 a full or collapsed reference whose label the file does not
//	   define ([text][nope], [nope][]) is recorded (docir.LinkRef.
//	   Undefined), a broken link (no_definition): CommonMark shows it as
//	   text, and the link was silently lost; a heading's GFM
//	   strikethrough marks are dropped, its words kept (`## ~~Old~~
//	   New` is "Old New"), as emphasis marks are; the href of an HTML
//	   <a> or <area>, and of an MDX component (<LinkCard href="/x/" />),
//	   is a link (docir.LinkHTML), inline or in an HTML block.
//	44 a document whose first content is an HTML block opening with an
//	   <h1> (a README's `<h1 align="center"><img …><br>Name</h1>`) is
//	   titled by that h1's text (htmlTitle), as GitHub shows it, where
//	   it was titled by its file's name; a folder's README.md (in any
//	   case) that gives no title is titled by its folder's name
//	   (FileTitle), as its index.md is, not "README"; links are
//	   resolved again: a relative path that opens with "./" or "../" is
//	   read from its page's folder alone, root_fallback and a ref too,
//	   as Hugo's GetPage reads it (store/links pageRelative).
//	45 Obsidian's comments (`%%inline%%`, a block from a "%%" to the
//	   next, outside code; Comments) are not a passage's text (store/
//	   passage Prose), and a link in one is no link, as in an HTML
//	   comment (commented); the wikilinks of the front matter's text
//	   values and lists of text (Obsidian's properties: `related:
//	   "[[Other]]"`) are the document's links (propertyLinks).
//	46 Obsidian's block ids (" ^37066d" ending a paragraph or a list
//	   item's text, or "^id" on a line of its own; blockIDs) are anchors
//	   ("^37066d") of the section that holds them: [[Note#^37066d]]
//	   leads there, and a block id no block has is a broken link.
//	47 a "%%" inside an HTML comment opens no Obsidian comment (Comments:
//	   `<!-- 50%% -->` hid the page's links up to the next "%%"), and an
//	   anchor inside an Obsidian comment is no anchor, as a link there is
//	   no link.
//	48 a link in an Obsidian comment is dropped before MaxLinks counts
//	   it: a comment of 10,000 links no longer pushes the real links
//	   after it out of the record (nor into LinksLeftOut); a backtick
//	   fence's info string holds no backtick (OpensFence: "```ls```
//	   lists files" opens with a code span, and the rest of its section
//	   is not code to Prose, comments and links); a fence closes as
//	   CommonMark closes it, on a run of its character at least as long
//	   with nothing after (ClosesFence, one rule for every reader: "```go"
//	   or "```" inside a "````" fence closed it, and what followed was
//	   read as prose, a comment after it as code).
//	49 a code span closes at the next run of exactly its backticks, and
//	   a backslash-escaped backtick opens none, as CommonMark reads them,
//	   in every reader of code spans without the parse (Prose, comments,
//	   links; TickRuns, held to goldmark by FuzzCodeSpansGoldmark):
//	   "`a``` [x](/y) ``" was read as code whole (its runs taken for a
//	   span's closers and openers), and the link after "\`" as code up
//	   to the next backtick; shortcode inners (captureInners) read a
//	   line's code spans so too, not by the parity of its backticks.
//	50 a link reference definition is blanked (store/passage Prose) on
//	   every line goldmark reads it on (Definitions, held to goldmark by
//	   FuzzDefinitionsGoldmark): its destination or title on a line of
//	   its own, and in a block quote or a list item, where only a
//	   definition on one line outside containers was; and a line written
//	   as one that goes on a paragraph is text, as CommonMark reads it,
//	   which only a parse again re-indexes.
const RulesVersion = 50

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
	// LinksLeftOut counts the links past the first MaxLinks, which the
	// record does not list.
	LinksLeftOut int
	// UnclosedFence, when set, says that a code fence the file's last
	// block opens is never closed and holds lines written as headings:
	// CommonMark reads the rest of the file as code, so they are no
	// sections (see unclosedFence).
	UnclosedFence string
}

// Limits bound the work Parse may do on one file. A file that passes a
// limit is not parsed: ParseContext returns an error wrapping ErrBudget.
// The zero value sets no limit.
type Limits struct {
	// Time is the wall-clock budget of one parse; 0: none.
	Time time.Duration
	// Headings is the most headings a file may hold (at any depth); 0:
	// none.
	Headings int
	// Blocks is the most blocks (paragraphs, list items, quotes, code
	// blocks, headings...) a file may hold; 0: none. goldmark keeps a few
	// hundred bytes per block, so this bounds the memory of a parse.
	Blocks int
	// Lines is the most lines a file may have; 0: none. goldmark keeps
	// some bytes per line of a run of lines with no blank line between, for
	// every block open around it.
	Lines int
}

// DefaultLimits are ingest's defaults: far above what a page of
// documentation holds (the largest of 40,000 real pages measured has 2,400
// headings and 9,000 lines), and low enough that a hostile 4 MiB file
// costs at most a few seconds and about 100 MB (docs/ingest.md).
var DefaultLimits = Limits{Time: 5 * time.Second, Headings: 10_000, Blocks: 100_000, Lines: 200_000}

// MaxDepth is how deeply blocks (list items, block quotes) may nest; a
// deeper file is over budget. goldmark's work per line grows with the
// depth, so a line of 100,000 "- " takes seconds.
const MaxDepth = 32

// stepsPerLine bounds goldmark's steps (reads and moves through the file)
// at this many per line Limits.Lines allows. goldmark keeps a few bytes per
// step over a run of lines with no blank line between; real pages take at
// most 17 steps per line (1,641 Rust RFC and Hugo pages measured), a file of
// lines under 30 nested block quotes a hundred.
const stepsPerLine = 16

// MaxHeadingBytes is how much of a heading's text is read for its title and
// slug: a heading longer than this is cut (at a character boundary) before
// its inline markup is parsed, which keeps a hostile heading linear.
const MaxHeadingBytes = 1024

// ErrBudget is wrapped by the error of a parse that passed its Limits.
var ErrBudget = errors.New("over the parse budget")

// ErrBudgetTime is also wrapped by the error of a parse that passed its
// time (Limits.Time): the one limit that the file's bytes alone do not
// decide (a busy machine parses slower), so a refresh may read the file
// again; every other limit passes again on the same bytes.
var ErrBudgetTime = errors.New("over the parse time")

// overTime is the error of a parse over its time: ErrBudget, and
// ErrBudgetTime too.
type overTime struct{ error }

func (e overTime) Unwrap() error      { return e.error }
func (overTime) Is(target error) bool { return target == ErrBudgetTime }

// Parser parses markdown files. It is not safe for concurrent use; make one
// per goroutine.
//
// goldmark reads the blocks of the whole file (paragraphs, lists, headings)
// through a text.Reader that checks the budget as it goes; inline markup
// (emphasis, links, code spans) is parsed only in headings, whose text and
// slug need it, and at most MaxHeadingBytes of each: docir never renders
// paragraphs, and goldmark's inline parsing is where its quadratic shapes
// live (docs/ingest.md lists them).
type Parser struct {
	md     parser.Parser // blocks only: no inline parsers
	inline parser.Parser // inline markup of one heading at a time
	b      *budget
	replay *replayHeading
}

// NewParser returns a CommonMark parser.
func NewParser() *Parser {
	b := &budget{}
	var blocks []util.PrioritizedValue
	for _, v := range parser.DefaultBlockParsers() {
		bp := v.Value.(parser.BlockParser)
		// The setext parser is the one triggered by '-' and '=' alone.
		setext := string(bp.Trigger()) == "-="
		blocks = append(blocks, util.Prioritized(&budgetedBlock{BlockParser: bp, b: b, setext: setext}, v.Priority))
	}
	// Before the indented code block's parser, which would take a body
	// line an opener's container has not taken.
	blocks = append(blocks, util.Prioritized(&budgetedBlock{BlockParser: mkdocsBlockParser{}, b: b}, 450))
	// GitHub's footnote definitions ("[^1]: text", footnote.go), at the
	// priority goldmark's footnote extension gives them.
	blocks = append(blocks, util.Prioritized(&budgetedBlock{BlockParser: footnoteBlockParser{}, b: b}, 999))
	replay := &replayHeading{}
	return &Parser{
		md: parser.NewParser(
			parser.WithBlockParsers(blocks...),
			parser.WithParagraphTransformers(append(budgetedTransformers(b),
				util.Prioritized(collapse{b}, math.MaxInt))...),
		),
		inline: parser.NewParser(
			parser.WithBlockParsers(util.Prioritized(replay, 100)),
			// GFM's strikethrough (strike.go), at the priority goldmark's
			// extension gives it.
			parser.WithInlineParsers(append(parser.DefaultInlineParsers(),
				util.Prioritized(strikeParser{}, 500))...),
		),
		b:      b,
		replay: replay,
	}
}

// Parse reads src, the whole file, named name (its base name gives the title
// of last resort), with no limits.
func (p *Parser) Parse(name string, src []byte) Parsed {
	out, _ := p.ParseContext(context.Background(), name, src, Limits{})
	return out
}

// ParseContext is Parse within a budget: it returns an error wrapping
// ErrBudget when the file passes lim, and ctx's error when ctx ends first.
// Either way it stops within milliseconds, not when goldmark would finish.
func (p *Parser) ParseContext(ctx context.Context, name string, src []byte, lim Limits) (out Parsed, err error) {
	rec := &out.Record
	src = lineFeeds(src)

	base := 0
	if bytes.HasPrefix(src, bom) {
		base = len(bom)
	}
	rec.BodyStart = base

	fmEnd, fields, fmErr := frontMatter(src, base)
	if fmErr != nil {
		out.Warning = fmErr.Error()
	}
	rec.Fields = fields
	rec.MarkdownStart = fmEnd
	switch id := fields["id"].(type) {
	case nil:
	case string:
		out.FrontMatterID = strings.TrimSpace(id)
	default:
		out.Warning = strings.TrimPrefix(out.Warning+"; ", "; ") + fmt.Sprintf("front-matter id %v is a %s, not a string; ignored", id, yamlKind(id))
	}

	body := src[fmEnd:]
	if lim.Lines > 0 {
		if n := bytes.Count(body, []byte{'\n'}); n > lim.Lines {
			return Parsed{}, fmt.Errorf("%w: more than %d lines", ErrBudget, lim.Lines)
		}
	}
	*p.b = budget{ctx: ctx, limits: lim, underlined: map[ast.Node]bool{}, setext: map[ast.Node]bool{}}
	runtime.LockOSThread() // Limits.Time is this thread's CPU time
	defer runtime.UnlockOSThread()
	p.b.start, p.b.began = threadCPU(), time.Now()
	defer func() {
		if r := recover(); r != nil {
			a, ok := r.(abort)
			if !ok {
				panic(r)
			}
			// goldmark's parser keeps no state between parses that an
			// abort could leave half-made, but build a fresh one anyway.
			*p = *NewParser()
			out, err = Parsed{}, a.err
		}
	}()
	pc := parser.NewContext()
	doc := p.md.Parse(&budgetReader{Reader: text.NewReader(body), b: p.b}, parser.WithContext(pc))
	lines := newLineIndex(src)
	var nested []foundAnchor
	rec.Sections, nested = p.sections(doc, src, fmEnd, lines, pc)
	out.LinksLeftOut = p.extractLinks(doc, src, fmEnd, lines, pc, rec, nested, propertyLinks(fields, src[base:fmEnd], base, fmEnd))
	if at, n := unclosedFence(doc, body); n > 0 {
		out.UnclosedFence = fmt.Sprintf("the code fence opened at line %d is never closed, so the rest of the file is code, as CommonMark reads it: its %d line(s) written as headings are no sections; close the fence", lines.line(fmEnd+at), n)
	}

	switch t := fields["title"].(type) {
	case string:
		rec.Title = strings.TrimSpace(titleText(t))
	}
	if rec.Title == "" {
		// An <h1> written in HTML that opens the document (htmlTitle)
		// comes before any heading: it is the title a level-1 heading
		// there would be.
		rec.Title = htmlTitle(doc, body)
	}
	if rec.Title == "" && len(rec.Sections) > 0 && rec.Sections[0].Level == 1 {
		// A level-1 heading that opens the document's headings is its
		// title; one after other headings is a part of it (an RFC's
		// "# Drawbacks" after its "## Summary", Redis's "# Appendix" at
		// the end of a command's page).
		rec.Title = rec.Sections[0].Heading
	}
	if rec.Title == "" {
		rec.Title = FileTitle(name)
	}
	return out, nil
}

// FileTitle is the title of a document that gives none: its file's name
// without ".md", or, for a folder's index.md or _index.md (a Hugo
// section's or bundle's page, whose id is the folder's), the folder's
// name, as Hugo titles a section page it is given no title for (a
// runbooks site's `runbooks/_index.md`, front matter alone, was titled
// "_index"); and so for a folder's README.md, in any case (readme.md,
// Readme.md), the page GitHub shows for the folder (five of a code
// repository's pages were titled "README"). The root's keep their
// file's name: the source folder's name is the checkout's, not the
// project's.
func FileTitle(name string) string {
	base := strings.TrimSuffix(path.Base(name), ".md")
	folderPage := base == "index" || base == "_index" || strings.EqualFold(base, "readme")
	if dir := path.Base(path.Dir(name)); folderPage && dir != "." && dir != "/" {
		return dir
	}
	return base
}

func yamlKind(v any) string {
	switch v.(type) {
	case int, int64, uint64, float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "list"
	case map[string]any:
		return "mapping"
	}
	return fmt.Sprintf("%T", v)
}

// lineFeeds returns src with each carriage return that is not followed by
// a line feed (a classic Mac OS line ending, which CommonMark counts and
// goldmark does not) made a line feed, in a copy; src itself when it has
// none. The copy has src's length and every other byte of it, so the
// offsets of a parse of it (sections' ranges, which bodies are read by)
// are offsets into src too.
func lineFeeds(src []byte) []byte {
	var out []byte
	for i := bytes.IndexByte(src, '\r'); i >= 0; {
		if i+1 >= len(src) || src[i+1] != '\n' {
			if out == nil {
				out = bytes.Clone(src)
			}
			out[i] = '\n'
		}
		j := bytes.IndexByte(src[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	if out == nil {
		return src
	}
	return out
}

// budget is the state of one parse's Limits.
type budget struct {
	ctx      context.Context
	limits   Limits
	start    time.Duration // the thread's CPU time when the parse began
	began    time.Time     // the wall clock then: see check
	ticks    int
	headings int
	blocks   int
	// underlined holds the paragraphs a setext underline is turning into
	// headings: their lines are kept for the heading.
	underlined map[ast.Node]bool
	// setext holds the setext headings: the others are ATX headings.
	setext map[ast.Node]bool
}

// abort is what a budget check panics with; ParseContext recovers it.
type abort struct{ err error }

// tick counts a step of goldmark's work and checks the clock and ctx every
// 256 steps.
func (b *budget) tick() {
	b.ticks++
	if b.ticks&255 == 0 {
		b.check()
		if lim := b.limits.Lines; lim > 0 && b.ticks > stepsPerLine*lim {
			panic(abort{fmt.Errorf("%w: more than %d parser steps", ErrBudget, stepsPerLine*lim)})
		}
	}
}

// check panics with an abort when ctx has ended or the time is spent.
func (b *budget) check() {
	if b.ctx != nil {
		if err := b.ctx.Err(); err != nil {
			panic(abort{err})
		}
	}
	// A thread cannot have used more CPU time than has passed: the clock
	// (a read of memory, not a system call as the thread's CPU time is)
	// rules the budget out until the parse has taken that long.
	if b.limits.Time > 0 && time.Since(b.began) > b.limits.Time && threadCPU()-b.start > b.limits.Time {
		panic(abort{overTime{fmt.Errorf("%w: parsing took more than %v of CPU time", ErrBudget, b.limits.Time)}})
	}
}

// threadCPU is the CPU time the calling OS thread has used. A parse locks
// its goroutine to its thread, so this measures the parse alone, whatever
// else the machine is doing.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// budgetReader is goldmark's reader of the file, ticking the budget on
// every line and move.
type budgetReader struct {
	text.Reader
	b *budget
}

func (r *budgetReader) PeekLine() ([]byte, text.Segment) { r.b.tick(); return r.Reader.PeekLine() }
func (r *budgetReader) Advance(n int)                    { r.b.tick(); r.Reader.Advance(n) }
func (r *budgetReader) AdvanceLine()                     { r.b.tick(); r.Reader.AdvanceLine() }
func (r *budgetReader) AdvanceToEOL()                    { r.b.tick(); r.Reader.AdvanceToEOL() }
func (r *budgetReader) Peek() byte                       { r.b.tick(); return r.Reader.Peek() }

// budgetedBlock wraps one of goldmark's block parsers to count headings and
// bound nesting as blocks open.
type budgetedBlock struct {
	parser.BlockParser
	b      *budget
	setext bool
}

func (w *budgetedBlock) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	w.b.tick()
	n, st := w.BlockParser.Open(parent, reader, pc)
	if n == nil {
		return n, st
	}
	if w.setext {
		w.b.underlined[pc.LastOpenedBlock().Node] = true
		w.b.setext[n] = true
	}
	w.b.blocks++
	if lim := w.b.limits.Blocks; lim > 0 && w.b.blocks > lim {
		panic(abort{fmt.Errorf("%w: more than %d blocks", ErrBudget, lim)})
	}
	if len(pc.OpenedBlocks()) >= MaxDepth {
		panic(abort{fmt.Errorf("%w: blocks nested more than %d deep", ErrBudget, MaxDepth)})
	}
	if _, ok := n.(*ast.Heading); ok {
		w.b.headings++
		if lim := w.b.limits.Headings; lim > 0 && w.b.headings > lim {
			panic(abort{fmt.Errorf("%w: more than %d headings", ErrBudget, lim)})
		}
	}
	return n, st
}

// MaxDefinitionLines is how many lines a paragraph that opens with a link
// reference definition ("[label]: url") may have; a file with a longer
// one is over budget. goldmark reads such a paragraph's definitions in one
// call that the budget cannot look into (its own reader over the lines),
// and each definition costs time in proportion to the paragraph's lines:
// 40,000 definitions took 1.5 s, 199,000 took 100 s. At this bound one
// paragraph takes about 0.1 s, and the budget, checked between them,
// bounds the file.
const MaxDefinitionLines = 10_000

// budgetedTransformers is goldmark's paragraph transformers, with the one
// that reads link reference definitions held to MaxDefinitionLines.
func budgetedTransformers(b *budget) []util.PrioritizedValue {
	ts := parser.DefaultParagraphTransformers()
	for i, v := range ts {
		if v.Value == parser.LinkReferenceParagraphTransformer {
			ts[i].Value = budgetedDefinitions{parser.LinkReferenceParagraphTransformer, b}
		}
	}
	return ts
}

// budgetedDefinitions wraps goldmark's link reference definition reader:
// it checks the budget before each paragraph, and refuses one that opens
// with a definition and has more than MaxDefinitionLines lines.
type budgetedDefinitions struct {
	parser.ParagraphTransformer
	b *budget
}

func (w budgetedDefinitions) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	w.b.check()
	if lines := node.Lines(); lines.Len() > MaxDefinitionLines && opensDefinition(paragraphStart(lines, reader.Source())) {
		// goldmark would read it line by line for definitions.
		panic(abort{fmt.Errorf("%w: a paragraph of more than %d lines opens with a link reference definition", ErrBudget, MaxDefinitionLines)})
	}
	w.ParagraphTransformer.Transform(node, reader, pc)
}

// paragraphStart is the text of the first of lines, in src, as far as a
// link label can reach: up to maxLabelScan bytes, across lines.
func paragraphStart(lines *text.Segments, src []byte) []byte {
	var out []byte
	for i := 0; i < lines.Len() && len(out) < maxLabelScan; i++ {
		seg := lines.At(i)
		out = append(out, seg.Value(src)...)
	}
	return out
}

// maxLabelScan bounds how far opensDefinition looks for the end of a
// link label: CommonMark's label is at most 999 characters, each at most
// 4 bytes of UTF-8, after its '[' and the spaces before it.
const maxLabelScan = 4*999 + 16

// opensDefinition reports whether text, a paragraph's start, may open a
// link reference definition (CommonMark 4.7): '[' after any spaces or
// tabs, a label without an unescaped bracket, ']' and ':' right after it.
// A paragraph that opens with a link ("[item](url)") or a bracketed note
// ("[3] see below") does not; a label whose end is past maxLabelScan may
// (this errs on the side of the budget). goldmark reads no definition
// from a paragraph that opens with none.
func opensDefinition(text []byte) bool {
	rest := bytes.TrimLeft(text, " \t")
	if len(rest) == 0 || rest[0] != '[' {
		return false
	}
	for i := 1; i < len(rest); i++ {
		switch rest[i] {
		case '\\':
			i++ // an escaped character
		case '[':
			return false
		case ']':
			return i+1 < len(rest) && rest[i+1] == ':'
		}
	}
	return true // the label's end is past what was read: it may be one
}

// collapse is the last paragraph transformer: it makes a paragraph's lines
// one segment, from its first byte to its last. docir reads no paragraph's
// text, and goldmark's inline pass would otherwise keep a node per line. A
// paragraph a setext underline turns into a heading keeps its lines.
type collapse struct{ b *budget }

func (c collapse) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	lines := node.Lines()
	if lines.Len() < 2 || c.b.underlined[node] {
		return
	}
	first, last := lines.At(0), lines.At(lines.Len()-1)
	node.SetLines(text.NewSegments())
	node.Lines().Append(text.NewSegment(first.Start, last.Stop))
}

// replayHeading is the one block parser of Parser.inline: it makes the
// whole (short) source one heading, whose inline markup goldmark then
// parses as it would have in place.
type replayHeading struct {
	lines *text.Segments
}

func (r *replayHeading) Trigger() []byte { return nil }

func (r *replayHeading) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	h := ast.NewHeading(1)
	h.SetLines(r.lines)
	for {
		if line, _ := reader.PeekLine(); line == nil {
			break
		}
		reader.AdvanceLine()
	}
	return h, parser.NoChildren
}

func (r *replayHeading) Continue(ast.Node, text.Reader, parser.Context) parser.State {
	return parser.Close
}
func (r *replayHeading) Close(ast.Node, text.Reader, parser.Context) {}
func (r *replayHeading) CanInterruptParagraph() bool                 { return false }
func (r *replayHeading) CanAcceptIndentedLine() bool                 { return true }

// headingText parses the inline markup of heading h (found in body by the
// block parse) and returns its text as a reader sees it and the text its
// slug is made of (plainText). At most MaxHeadingBytes of it are read.
func (p *Parser) headingText(h *ast.Heading, body []byte, pc parser.Context) (shown, slugText string) {
	n, mini := p.inlineOf(h.Lines(), body, pc)
	if n == nil {
		return "", ""
	}
	return plainText(n, mini)
}

// inlineContext is a parser context holding pc's link reference
// definitions: what inlineOf parses a heading's or a term's text with.
func inlineContext(pc parser.Context) parser.Context {
	c := parser.NewContext()
	for _, r := range pc.References() {
		c.AddReference(r)
	}
	return c
}

// inlineOf parses the inline markup of lines of body (at most
// MaxHeadingBytes of them, their shortcodes read as headingShortcodes
// reads them) as one heading's text, with pc's link references, and
// returns the node that holds it and the bytes its
// segments are in; nil for none.
func (p *Parser) inlineOf(lines *text.Segments, body []byte, pc parser.Context) (ast.Node, []byte) {
	var vals [][]byte
	size := 0
	for i := range lines.Len() {
		seg := lines.At(i)
		v := seg.Value(body)
		if room := MaxHeadingBytes - size; len(v) > room {
			for room > 0 && !utf8.RuneStart(v[room]) {
				room--
			}
			v = v[:room]
		}
		if len(v) == 0 {
			break
		}
		vals = append(vals, v)
		size += len(v)
	}
	headingShortcodes(vals) // within the bound: it can only shorten them
	var mini []byte
	segs := text.NewSegments()
	for _, v := range vals {
		segs.Append(text.NewSegment(len(mini), len(mini)+len(v)))
		mini = append(mini, v...)
	}
	if len(mini) == 0 {
		return nil, nil
	}
	p.b.check()
	p.replay.lines = segs
	doc := p.inline.Parse(text.NewReader(mini), parser.WithContext(pc))
	return doc.FirstChild(), mini
}

// The front matter's share of the parse budget, fixed: far above what a
// page's front matter holds (the largest of 1,641 real pages measured has
// 481 bytes, 16 keys and 4 levels), low enough that decoding one costs
// milliseconds. yaml.v3 checks a mapping's keys for repeats pairwise, so
// 80,000 keys took 14 s and 380,000 more than 20 minutes; and a value
// nested 10,000 deep decoded, then failed every later read of the record
// (encoding/json stops at that depth).
const (
	MaxFrontMatterBytes = 64 << 10 // bytes of YAML
	MaxFrontMatterKeys  = 1000     // keys, of all its mappings together
	MaxFrontMatterDepth = 32       // mappings and lists nested in each other
)

// frontMatter finds a front-matter block that starts at src[base:] and
// returns the offset just past it (base when there is none) and its fields:
// YAML between a "---" line and a "---" or "..." line, TOML (Hugo's other
// format) between "+++" lines, or a JSON object (jsonFrontMatter). A YAML
// or TOML block that does not decode, or is over its budget (the bounds
// above), is still skipped as markdown; its fields are empty and the error
// says why.
func frontMatter(src []byte, base int) (end int, fields map[string]any, err error) {
	// Hugo and Zola read a block after blank lines too (Hugo's
	// lexIntroSection skips white space; Zola's ^[[:space:]]*\+\+\+): 129
	// of Zola's theme pages open with one.
	if skip := blankLines(src[base:]); skip > 0 {
		if end, fields, err := frontMatter(src, base+skip); end > base+skip {
			return end, fields, err
		}
		return base, nil, nil
	}
	rest := src[base:]
	first, ok := lineAt(rest, 0)
	if !ok {
		return base, nil, nil
	}
	if rest[0] == '{' {
		return jsonFrontMatter(src, base)
	}
	closing, decode := []string{"---", "..."}, decodeFrontMatter
	switch fenceLine(rest[:first]) {
	case "---":
	case "+++":
		closing, decode = []string{"+++"}, decodeTOML
	default:
		return base, nil, nil
	}
	for at := first; at < len(rest); {
		next, _ := lineAt(rest, at)
		if slices.Contains(closing, fenceLine(rest[at:next])) {
			end = base + next
			fields, err := decode(rest[first:at])
			return end, fields, err
		}
		at = next
	}
	// No closing line: this was a thematic break (or text), not front
	// matter.
	return base, nil, nil
}

// blankLines is the length of the lines of white space that open b
// (none when b is nothing else: there is no block after them).
func blankLines(b []byte) int {
	n := 0
	for at := 0; at < len(b); {
		next, _ := lineAt(b, at)
		if len(bytes.TrimLeft(b[at:next], " \t\r\n")) > 0 {
			return n
		}
		n, at = next, next
	}
	return 0
}

// fenceLine is a line of the file as a front-matter fence is compared:
// without its line ending and the spaces and tabs before it (Jekyll and
// Hugo accept "---  ").
func fenceLine(line []byte) string {
	return string(bytes.TrimRight(line, " \t\r\n"))
}

// decodeFrontMatter decodes a front-matter block within its budget: parsed
// first into yaml.v3's node tree (which checks nothing pairwise), measured,
// and only then decoded into fields.
func decodeFrontMatter(block []byte) (map[string]any, error) {
	if len(block) > MaxFrontMatterBytes {
		return nil, fmt.Errorf("front matter over the parse budget (%d bytes, more than %d), fields ignored", len(block), MaxFrontMatterBytes)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(block, &doc); err != nil {
		if fields := keyLines(block); fields != nil {
			return fields, fmt.Errorf("front matter is not valid YAML (%w); its top-level key: value lines were read as text", err)
		}
		return nil, fmt.Errorf("front matter is not valid YAML, fields ignored: %w", err)
	}
	var size yamlSize
	if err := measureYAML(&doc, 0, &size); err != nil {
		return nil, fmt.Errorf("front matter over the parse budget (%w), fields ignored", err)
	}
	// Decode expands every alias: a list of 1,000 aliases of a 40 KB
	// string is 40 MB of fields from 60 KB of YAML, and its record passed
	// what the store keeps of one document, failing the whole refresh.
	// Without an alias the block's own bytes bound it.
	if size.aliases && expandedBytes(&doc, map[*yaml.Node]int{}, MaxFrontMatterBytes) > MaxFrontMatterBytes {
		return nil, fmt.Errorf("front matter over the parse budget (its aliases expand it to more than %d bytes), fields ignored", MaxFrontMatterBytes)
	}
	var warn error
	if k, first, second, ok := lastKeysWin(&doc); ok {
		warn = fmt.Errorf("front matter repeats the key %q (lines %d and %d); the last is read, as Hugo reads it", k, first, second)
	}
	var fields map[string]any
	if err := doc.Decode(&fields); err != nil {
		return nil, fmt.Errorf("front matter is not valid YAML, fields ignored: %w", err)
	}
	if fields == nil {
		return nil, warn
	}
	return jsonSafe(fields).(map[string]any), warn
}

// keyLines reads a front-matter block that is not valid YAML as a site's
// own line reader does (svelte.dev's extract_frontmatter: each `key:
// value` line): every line that starts with a name (a letter or '_',
// then letters, digits, '_', '-' or '.'), a ':' and a value on that line
// gives that key the value as text, trimmed, a pair of quotes around it
// taken off; a later line of one key wins, as in lastKeysWin. Indented,
// list and comment lines are no keys, and `id` is not read so: a
// document's address is not taken from a block that does not parse. So
// `title: {#if ...}`, which YAML reads as a flow mapping it cannot close,
// is the title "{#if ...}". nil when no line is such a pair.
func keyLines(block []byte) map[string]any {
	var fields map[string]any
	for line := range bytes.Lines(block) {
		name, value, ok := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(":"))
		if !ok || !isKeyName(name) || len(value) == 0 || value[0] != ' ' && value[0] != '\t' || string(name) == "id" {
			continue // no pair; or the id, which a block YAML cannot read does not give
		}
		v := string(bytes.TrimSpace(value))
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		if v == "" {
			continue
		}
		if fields == nil {
			fields = map[string]any{}
		}
		fields[string(name)] = v
	}
	return fields
}

// isKeyName reports whether b is a name keyLines reads a key by.
func isKeyName(b []byte) bool {
	for i, c := range b {
		letter := 'a' <= c|0x20 && c|0x20 <= 'z' || c == '_'
		if !letter && (i == 0 || !('0' <= c && c <= '9') && c != '-' && c != '.') {
			return false
		}
	}
	return len(b) > 0
}

// lastKeysWin drops from each mapping of n the pairs whose key a later
// pair of the same mapping repeats, as Hugo reads such front matter (and
// as yaml.v2 did; yaml.v3 refuses it, and a page whose author wrote
// `keywords:` twice lost its title and every other field), and reports
// the first key found repeated and the lines of its first two pairs.
// Only plain keys are compared: a merge key (<<) is left as it is.
func lastKeysWin(n *yaml.Node) (key string, first, second int, found bool) {
	if n.Kind == yaml.MappingNode && len(n.Content) >= 4 {
		at := map[string]int{} // a key -> the index of its last pair
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Tag != "!!merge" {
				if j, ok := at[k.Value]; ok && !found {
					key, first, second, found = k.Value, n.Content[j].Line, k.Line, true
				}
				at[k.Value] = i
			}
		}
		if len(at) < len(n.Content)/2 {
			kept := n.Content[:0]
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind == yaml.ScalarNode && k.Tag != "!!merge" && at[k.Value] != i {
					continue
				}
				kept = append(kept, k, n.Content[i+1])
			}
			n.Content = kept
		}
	}
	for _, c := range n.Content {
		if k, f, l, ok := lastKeysWin(c); ok && !found {
			key, first, second, found = k, f, l, true
		}
	}
	return key, first, second, found
}

// yamlSize is what measureYAML counts of a front-matter block: its keys,
// and whether it holds an alias (what aliases expand to is expandedBytes').
type yamlSize struct {
	keys    int
	aliases bool
}

// measureYAML checks the node n, depth levels down, and what it holds
// against the front matter's key and depth budget, adding to size. An
// alias is not followed here (see expandedBytes).
func measureYAML(n *yaml.Node, depth int, size *yamlSize) error {
	switch n.Kind {
	case yaml.MappingNode, yaml.SequenceNode:
		if depth++; depth > MaxFrontMatterDepth {
			return fmt.Errorf("nested more than %d deep", MaxFrontMatterDepth)
		}
	case yaml.AliasNode:
		size.aliases = true
	}
	if n.Kind == yaml.MappingNode {
		if size.keys += len(n.Content) / 2; size.keys > MaxFrontMatterKeys {
			return fmt.Errorf("more than %d keys", MaxFrontMatterKeys)
		}
	}
	for _, c := range n.Content {
		if err := measureYAML(c, depth, size); err != nil {
			return err
		}
	}
	return nil
}

// expandedBytes is the bytes of n's scalars (keys and values), and one a
// node, as Decode makes them, every alias expanded, counted until it passes limit (the
// count returned is then over it, not exact); memo holds each node's
// count once known, -1 while it is being counted (an alias to a node that
// holds it, which Decode refuses, counts as over).
func expandedBytes(n *yaml.Node, memo map[*yaml.Node]int, limit int) int {
	if c, ok := memo[n]; ok {
		if c < 0 {
			return limit + 1
		}
		return c
	}
	memo[n] = -1
	total := 1 + len(n.Value) // a node is a byte at least: a list of empty strings is no free list
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		total = expandedBytes(n.Alias, memo, limit)
	}
	for _, c := range n.Content {
		if total += expandedBytes(c, memo, limit); total > limit {
			break
		}
	}
	memo[n] = total
	return total
}

// lineAt returns the offset just past the line starting at i (past its '\n',
// or len(b)), and whether the line ended with '\n'.
func lineAt(b []byte, i int) (int, bool) {
	if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
		return i + j + 1, true
	}
	return len(b), false
}

// heading is a heading found in the AST, before ranges are known.
type heading struct {
	text     string
	slugText string // what its slug is made of when id is ""
	id       string // the id its attributes give ({#id}); "" when none
	level    int
	start    int // first byte of its first line, in the whole file
	last     int // a byte of its last line of text (of a top-level heading)
	// nested: inside a block quote or a list item. It makes no section,
	// but takes its place in the slug sequence and its slug is an anchor
	// of the section that holds it.
	nested bool
}

// codeRanges are the byte ranges of doc's code blocks, fenced and
// indented, at offsets of the body it was parsed from, in order.
func codeRanges(doc ast.Node) [][2]int {
	var out [][2]int
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			if l := n.Lines(); l.Len() > 0 {
				out = append(out, [2]int{l.At(0).Start, l.At(l.Len() - 1).Stop})
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// sections makes the sections of the top-level headings of doc, and
// returns, beside them, the anchors the nested headings give (their slugs,
// at offsets of body, for extractLinks to give to the sections that hold
// them). Every heading, nested or not, is slugged in document order, as
// GitHub gives every heading an id.
func (p *Parser) sections(doc ast.Node, src []byte, off int, lines lineIndex, pc parser.Context) ([]docir.Section, []foundAnchor) {
	hs := p.headings(doc, src[off:], off, pc)
	if bytes.Contains(src[off:], []byte("{{<")) || bytes.Contains(src[off:], []byte("{%")) || bytes.Contains(src[off:], []byte(":::{")) {
		// A heading in the content of an angle shortcode pair, of a
		// template's captured block, or of a MyST directive, is no
		// heading of the page (angleInners, captureInners,
		// directiveInners): it makes no section.
		code := codeRanges(doc)
		inner, k := mergeRanges(slices.Concat(angleInners(src[off:]), captureInners(src[off:], code), directiveInners(src[off:], code))), 0
		for i := range hs {
			if hs[i].nested {
				continue
			}
			// its last line: a setext heading's text can start at the
			// opening tag's line, its underline being in the content
			at := hs[i].last - off
			for k < len(inner) && inner[k][1] <= at {
				k++
			}
			if k < len(inner) && inner[k][0] <= at {
				hs[i].nested = true
			}
		}
	}
	out := make([]docir.Section, 0, len(hs))
	var nested []foundAnchor
	var slugs address.Slugger
	for i, h := range hs {
		slug := ""
		if h.id != "" {
			slug = slugs.Take(h.id)
		} else {
			slug = slugs.Next(h.slugText)
		}
		if h.nested {
			nested = append(nested, foundAnchor{at: h.start - off, id: slug, heading: true})
			continue
		}
		end, ownEnd := len(src), len(src)
		for _, next := range hs[i+1:] {
			if next.nested {
				continue
			}
			ownEnd = min(ownEnd, next.start)
			if next.level <= h.level {
				end = next.start
				break
			}
		}
		out = append(out, docir.Section{
			Slug:    slug,
			Heading: h.text,
			Level:   h.level,
			Start:   h.start,
			OwnEnd:  ownEnd,
			End:     end,
			Line:    lines.line(h.start),
			EndLine: lines.line(max(h.start, end-1)),
		})
	}
	// Stacked headings: one with nothing under it, right above another of
	// its level, heads that one's text too (last first, so that a stack of
	// several reads down to the text).
	for i := len(out) - 2; i >= 0; i-- {
		s, next := &out[i], out[i+1]
		if next.Level == s.Level && s.End == next.Start && onlyHeadingLine(src[s.Start:s.End]) {
			s.End, s.EndLine = next.End, next.EndLine
		}
	}
	return out, nested
}

// onlyHeadingLine reports whether text, a section from its heading line
// to the next heading, holds nothing but that line and white space.
func onlyHeadingLine(text []byte) bool {
	end := bytes.IndexAny(text, "\r\n") // a CR alone ends a line too
	return end < 0 || len(bytes.TrimSpace(text[end:])) == 0
}

// Stacked reports whether section i of secs is a stacked heading: one
// with nothing under it, right above a heading of its own level, which
// heads that heading's text too (its End is that section's; see
// docir.Section). Node's docs write an API with two signatures so
// (`## http.request(options[, callback])` over `## http.request(url[,
// options][, callback])`, one body under both, as its site shows them),
// and link the first.
func Stacked(secs []docir.Section, i int) bool {
	return i+1 < len(secs) && secs[i+1].Level == secs[i].Level && secs[i].OwnEnd == secs[i+1].Start && secs[i].End == secs[i+1].End
}

// headings finds the headings of doc, the markdown body (at offset off of
// the file), in document order: those at the top level, and (nested) those
// inside block quotes and list items.
func (p *Parser) headings(doc ast.Node, body []byte, off int, pc parser.Context) []heading {
	// The headings' inline markup is parsed with the file's link
	// reference definitions, as goldmark would have.
	inlinePC := inlineContext(pc)
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
				hd := p.newHeading(h, body, off+start, inlinePC)
				hd.last = hd.start
				if n := h.Lines().Len(); n > 0 {
					hd.last = off + h.Lines().At(n-1).Start
				}
				hs = append(hs, hd)
				cursor = start + 1
			}
		} else if n.HasChildren() {
			hs = p.nestedHeadings(n, body, off, cursor, inlinePC, hs)
		}
		if end := lastStop(n); end > cursor {
			cursor = end
		}
	}
	return hs
}

// nestedHeadings appends the headings inside container n (a block quote, a
// list) to hs, in document order, each at the start of its first line; an
// empty one ("> #"), which goldmark gives no segment, at the end of what
// came before it (from on), which is in the same section.
func (p *Parser) nestedHeadings(n ast.Node, body []byte, off, from int, pc parser.Context, hs []heading) []heading {
	at := from
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || c.Type() != ast.TypeBlock {
			return ast.WalkContinue, nil
		}
		l := c.Lines()
		h, ok := c.(*ast.Heading)
		if !ok {
			if l.Len() > 0 {
				at = max(at, l.At(l.Len()-1).Stop)
			}
			return ast.WalkContinue, nil
		}
		start := at
		if l.Len() > 0 {
			start = lineStart(body, l.At(0).Start)
			at = max(at, l.At(l.Len()-1).Stop)
		}
		hd := p.newHeading(h, body, off+start, pc)
		hd.nested = true
		hs = append(hs, hd)
		return ast.WalkSkipChildren, nil
	})
	return hs
}

// newHeading reads heading h, whose first line starts at offset start of
// the file: its attribute block, text and slug text.
func (p *Parser) newHeading(h *ast.Heading, body []byte, start int, pc parser.Context) heading {
	hd := heading{id: headingAttributes(h, body, p.b.setext[h]), level: h.Level, start: start}
	hd.text, hd.slugText = p.headingText(h, body, pc)
	return hd
}

// maxAttributeBytes bounds the attribute block read at the end of a
// heading. Hugo's ids are a few dozen bytes; goldmark's own attribute parsing
// (parser.WithAttribute) reads a whole line and is quadratic in the classes
// of one block (a heading of 1.5 MB of ".a " took 94 s), so docir reads the
// block itself, from the last bytes of the line only.
const maxAttributeBytes = 256

// headingAttributes reads the attribute block that ends heading h's last
// line ({#id .class key=value}, as Hugo and Pandoc write it; {: #id }, as
// Python-Markdown's attr_list does), when there is one within its last
// maxAttributeBytes: it cuts the block from the
// heading's text (its last segment) and returns the id the block gives, ""
// when none. It reads as goldmark's parser.WithAttribute does: the first
// '{' (not escaped) that opens a block reaching the end of the line opens
// it; the last id in a block is the heading's; an ATX heading's line is
// read before its closing '#'s are taken off (`## A {#a} ##` has none, and
// its text is "A {#a}"; `## B ## {#b}` is "B"). setext: h is a setext
// heading, whose line has no closing sequence.
func headingAttributes(h *ast.Heading, body []byte, setext bool) string {
	n := h.Lines().Len()
	if n == 0 {
		return ""
	}
	last := h.Lines().At(n - 1)
	if !setext { // the whole line, closing sequence and all
		end, _ := lineAt(body, last.Start)
		last.Stop = end
	}
	line := util.TrimRightSpace(body[last.Start:last.Stop])
	i, attrs := attributeBlock(line)
	if i < 0 {
		var id string
		if i, id = docsifyMarks(line); i < 0 {
			return ""
		}
		attrs = parser.Attributes{{Name: []byte("id"), Value: []byte(id)}}
	}
	last.Stop = last.Start + i
	last = last.TrimRightSpace(body)
	if !setext {
		stop := closedATX(body[last.Start:last.Stop])
		if stop < 0 { // "## # {#a}": no text, as goldmark leaves it
			h.SetLines(text.NewSegments())
		}
		last.Stop = last.Start + max(stop, 0)
	}
	if h.Lines().Len() > 0 {
		h.Lines().Set(n-1, last)
	}
	var id any
	for _, a := range attrs {
		if string(a.Name) == "id" {
			id = a.Value // the last one, as goldmark sets them in turn
		}
	}
	return anchorID(id)
}

// docsifyMarks finds the marks Docsify reads at the end of a heading's
// line: `:id=name`, the heading's id (`## themeColor ⚠️ :id=themecolor`),
// and `{docsify-ignore}` or `{docsify-ignore-all}`, which keep it out of
// the sidebar; neither is shown. It returns where the marks start (-1
// when there are none) and the id ("" when none), each mark after a space.
func docsifyMarks(line []byte) (int, string) {
	from, id := -1, ""
	for {
		rest := util.TrimRightSpace(line)
		k := bytes.LastIndexAny(rest, " \t")
		if k < 0 {
			return from, id
		}
		switch mark := rest[k+1:]; {
		case string(mark) == "{docsify-ignore}" || string(mark) == "{docsify-ignore-all}":
		case bytes.HasPrefix(mark, []byte(":id=")) && len(mark) > len(":id=") && id == "":
			id = string(mark[len(":id="):])
		default:
			return from, id
		}
		from, line = k, rest[:k]
	}
}

// attributeBlock finds the attribute block that ends line, within its last
// maxAttributeBytes: the offset of its '{' (-1 when there is none) and its
// attributes.
//
// A block that opens with "{:", as Python-Markdown's attr_list (MkDocs)
// and kramdown write it (`{: #id .class }`), is read as goldmark reads the
// block with a space for the colon: `{:#id}` gives the id "id" and
// `{:id="x"}` the id "x" (goldmark alone reads neither: its name of an
// attribute may start with ':', so it reads `{:id="x"}` as an attribute
// ":id"). Only the one colon after the brace: `{::#x}` is no block, and
// neither is `{:}` (goldmark's `{ }` is none; nor is it Python-Markdown's).
func attributeBlock(line []byte) (int, parser.Attributes) {
	if len(line) == 0 || line[len(line)-1] != '}' {
		return -1, nil
	}
	from := max(0, len(line)-maxAttributeBytes)
	for from > 0 && line[from-1] == '\\' {
		from-- // read a run of backslashes whole: "\\{" is an escaped '{'
	}
	var colon []byte // a "{:" block, the colon a space
	for i := from; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++ // an escaped character is text: "\{#x}" is not a block
			continue
		case '{':
		default:
			continue
		}
		block := line[i:]
		if len(block) > 1 && block[1] == ':' {
			colon = append(append(colon[:0], '{', ' '), block[2:]...)
			block = colon
		}
		r := text.NewReader(block)
		attrs, ok := parser.ParseAttributes(r)
		if !ok {
			continue
		}
		if rest, _ := r.PeekLine(); rest != nil && !util.IsBlank(rest) {
			continue
		}
		return i, attrs
	}
	return -1, nil
}

// HeadingAttributeStart is the offset in line, the line of an ATX heading
// or the last text line of a setext heading, of the attribute block that
// ends it as Parse reads it (`## Metadata {#metadata-schema}`, `## 8.0.1 {
// id="8.0.1" }`, `## Usage {: #usage }`), or Docsify's marks that end it
// (docsifyMarks): -1 when it has none. The block is not part of the
// heading's text; store/passage leaves it out of the text it indexes.
func HeadingAttributeStart(line []byte) int {
	line = util.TrimRightSpace(line)
	if i, _ := attributeBlock(line); i >= 0 {
		return i
	}
	i, _ := docsifyMarks(line)
	return i
}

// closedATX is the length of an ATX heading's text line without its
// closing sequence of '#'s, as goldmark takes it off: -1 when the line is
// all '#'s (the heading has no text line).
func closedATX(line []byte) int {
	stop := len(line)
	if stop == 0 {
		return 0
	}
	i := stop - 1
	for ; line[i] == '#' && i > 0; i-- {
	}
	if i == 0 && line[0] == '#' {
		return -1
	}
	if i != stop-1 && util.IsSpace(line[i]) {
		stop = i - util.TrimRightSpaceLength(line[:i])
	}
	return stop
}

// anchorID is an attribute's id value when it can be an HTML id (no
// whitespace) and the heading part of an address; else "", and the
// heading's text gives its slug.
func anchorID(v any) string {
	var id string
	switch v := v.(type) {
	case []byte:
		id = string(v)
	case string:
		id = v
	}
	if id == "" || strings.ContainsFunc(id, unicode.IsSpace) {
		return ""
	}
	a, err := address.Parse("x#" + id)
	if err != nil {
		return ""
	}
	return a.Heading // in normal form C, as addresses are
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

// plainText gives a heading's text two ways. text is what a reader sees:
// markup dropped, code spans and the texts of links and images kept,
// character references decoded, white space folded. slugText is its text
// content as GitHub slugs it (docs/ingest.md has the evidence): the same,
// except that an image gives no text and white space is kept as written.
// Both keep soft line breaks as spaces.
func plainText(n ast.Node, src []byte) (text, slugText string) {
	var all, gh strings.Builder
	images := 0 // images open around the node walked
	write := func(v []byte) {
		all.Write(v)
		if images == 0 {
			gh.Write(v)
		}
	}
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if _, ok := c.(*ast.Image); ok && entering {
			images++
		} else if ok {
			images--
		}
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			v := c.Value(src)
			if c.IsRaw() { // in a code span: a line ending is a space
				if l := len(v); l > 0 && v[l-1] == '\n' {
					v = append(v[:l-1:l-1], ' ')
				}
			} else {
				v = decodeText(v)
			}
			write(v)
			if c.SoftLineBreak() || c.HardLineBreak() {
				write([]byte{' '})
			}
		case *ast.String:
			write(c.Value)
		case *ast.AutoLink:
			write(c.Label(src))
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return strings.Join(strings.Fields(all.String()), " "), gh.String()
}

// decodeText decodes the backslash escapes and character references of
// text as goldmark renders them (`\&amp;` stays "&amp;"): through its HTML
// writer, whose output escapes every '&', '<', '>' and '"', so that
// unescaping that gives the text back.
func decodeText(v []byte) []byte {
	if bytes.IndexByte(v, '\\') < 0 && bytes.IndexByte(v, '&') < 0 && bytes.IndexByte(v, 0) < 0 {
		return v
	}
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	html.DefaultWriter.Write(w, v)
	_ = w.Flush()
	return []byte(stdhtml.UnescapeString(b.String()))
}

// unclosedFence finds the code fence that the document's last block opens
// when nothing closes it, and counts the lines in it written as ATX
// headings (ATXHeadingLine): a fence left open swallows the sections
// after it, which an author seldom means. It returns the opener's offset
// in body and the count; 0, 0 when the last block is no fence, is closed,
// or holds no such line.
func unclosedFence(doc ast.Node, body []byte) (at, headings int) {
	fb, ok := doc.LastChild().(*ast.FencedCodeBlock)
	if !ok || fb.Lines().Len() == 0 {
		return 0, 0
	}
	ls := fb.Lines()
	last := ls.At(ls.Len() - 1)
	if rest := bytes.TrimSpace(body[min(last.Stop, len(body)):]); len(rest) > 0 {
		return 0, 0 // its closing fence
	}
	for i := range ls.Len() {
		seg := ls.At(i)
		if ATXHeadingLine(bytes.TrimRight(seg.Value(body), "\n")) {
			headings++
		}
	}
	first := ls.At(0).Start
	at = bytes.LastIndexByte(body[:first], '\n') // the opener's line ends there
	at = bytes.LastIndexByte(body[:max(at, 0)], '\n') + 1
	return at, headings
}

// ATXHeadingLine reports whether line (without its line feed) is written
// as an ATX heading: up to three spaces, one to six '#', then a space, a
// tab, a carriage return or the line's end.
func ATXHeadingLine(line []byte) bool {
	t := bytes.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return false
	}
	n := len(t) - len(bytes.TrimLeft(t, "#"))
	return n >= 1 && n <= 6 && (n == len(t) || t[n] == ' ' || t[n] == '\t' || t[n] == '\r')
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

// lineColumn is the 1-based line of offset off and its 1-based byte
// column in that line.
func (l lineIndex) lineColumn(off int) (line, column int) {
	line = l.line(off)
	return line, off - l[line-1] + 1
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
