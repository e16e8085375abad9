package workspace

import (
	"context"
	"testing"

	"github.com/docir/docir/docir"
)

// TestQueryNamesSection: a query that says a section's heading lands on
// that section, though the word telling it from its siblings is also the
// page's title's (the section was chosen on the words beyond the title
// alone, and a shorter sibling that says those won): a review of real
// documentation found "Adding tooltips", "Using icons", "Code annotations"
// and FastAPI's "Model for Output" each landing on a sibling, and one of
// Redis's "RESP3 to Lua type conversion" landing on "Lua to RESP3 type
// conversion".
func TestQueryNamesSection(t *testing.T) {
	ws := linksService(t, map[string]string{
		"tooltips.md": "# Tooltips\n\n## Adding tooltips\n\nTooltips are added with the title attribute of a link, and shown on hover\n" +
			"when the reader points at the link with the mouse.\n\n## Adding abbreviations\n\nAbbreviations are defined with a special syntax.\n",
		"schemas.md": "# Separate Schemas for Input and Output\n\n## Pydantic Models for Input and Output\n\nText.\n\n" +
			"### Model for Input\n\nA model as the request body declares it, with its defaults.\n\n" +
			"### Model for Output\n\nThe same model as the response declares it, with its defaults filled in by the server before it is sent.\n",
		"statusz.md": "# Component statusz\n\n## Endpoint Response Format\n\nThe endpoint answers with a text body, one field a line, in an order that may change.\n\n" +
			"### Response Body: Statusz Object\n\nFields.\n",
		"rfc.md": "# Private fields\n\n## Summary\n\nPrivate fields are fields that only the defining module reads. Private fields, private fields.\n\n" +
			"## Motivation\n\nEncapsulation of the fields.\n",
		"lua.md": "# Lua API\n\n## Lua to RESP3 type conversion\n\nA table.\n\n## RESP3 to Lua type conversion\n\n" +
			"Each type of the reply a command gives is converted to a Lua value, as the table below lists, one row a type.\n",
	})
	wantMatched(t, ws, map[string]string{
		"adding tooltips":                  "tooltips#adding-tooltips",
		"Model for Output":                 "schemas#model-for-output",
		"model for input":                  "schemas#model-for-input",
		"statusz endpoint response format": "statusz#endpoint-response-format",
		"private fields motivation":        "rfc#motivation",                   // a heading that only repeats the title names nothing
		"RESP3 to Lua type conversion":     "lua#resp3-to-lua-type-conversion", // not its sibling of the same words in another order
	})
}

// TestQuerySaysHeading: a query that shares no word with a page's title
// goes to the section whose heading says it, words in order ("8.0.0" in
// the heading 8.0.0), not to a shorter one with the same digits in
// another order (mkdocs-material's changelog: "1.7.1" landed on 7.1.7,
// "0.1.1" on 0.1.0, "8.0.0" on 8.0.2), nor to one whose notes say it
// ("forgotten in 8.0.0"), nor to a subsection whose heading says more
// ("Null bulk strings" for "bulk strings", on Redis's protocol page); but
// never to a section the query excludes.
func TestQuerySaysHeading(t *testing.T) {
	ws := linksService(t, map[string]string{
		"changelog.md": "# Changelog\n\n## 8.0.3\n\n- Removed a setting (forgotten in 8.0.0)\n\n## 8.0.2\n\n- Fixed annotations\n\n## 8.0.0\n\n" +
			"- Added navigation tabs in the header, with sticky navigation, and instant loading\n\n" +
			"## 7.1.7\n\n- Fixed search\n\n## 1.7.1\n\n- Added a dark palette for the header and the footer of every page\n\n" +
			"## 0.1.0\n\n- First\n\n## 0.1.1\n\n- Fixed the first release's broken icons on small screens, in every browser\n",
		"design.md": "# Design\n\n## Drawbacks\n\nThe primary drawback is its cost, which every reader pays.\n\n## Alternatives\n\nDrawbacks: none known.\n",
		"protocol.md": "# Protocol specification\n\n## Types\n\n### Bulk strings\n\nA bulk string is a binary blob: its length in bytes, then the bytes, " +
			"then a line ending, so that any byte may be in it, and a reader knows where it ends before it reads it.\n\n" +
			"#### Null bulk strings\n\nThe null bulk string is bulk strings' null.\n",
	})
	wantMatched(t, ws, map[string]string{
		"8.0.0":          "changelog#800",
		"1.7.1":          "changelog#171",
		"0.1.1":          "changelog#011",
		"drawbacks":      "design#drawbacks",
		"drawbacks -the": "design#alternatives",   // #drawbacks holds "the"
		"bulk strings":   "protocol#bulk-strings", // not its shorter subsection, whose heading adds a word
	})
}

// TestQueryIdentifierSection: an identifier typed as the pages write it
// goes to the section it heads, as a word of its own: a part of it that is
// a word of the title ("file" of fs.readFile on *File system*) is not the
// title's (the section was chosen on "fs read" alone, and the shorter
// *Class: fs.ReadStream* won), and a heading says the identifier only as
// whole words (*fs.mkdirSync* does not say fs.mkdir, nor *fs.StatWatcher*
// fs.Stats). A review of Node's API reference found each of these on a
// sibling.
func TestQueryIdentifierSection(t *testing.T) {
	ws := linksService(t, map[string]string{
		"fs.md": "# File system\n\n## Class: `fs.ReadStream`\n\nInstances are created with a function.\n\n" +
			"## `fs.readFile(path[, options], callback)`\n\nAsynchronously reads the entire contents of a file at the path given, and calls back.\n\n" +
			"## `fs.readFileSync(path[, options])`\n\nReturns the contents.\n\n" +
			"## `fs.mkdir(path[, options], callback)`\n\nAsynchronously creates a directory, and calls the callback with an error or nothing at all when done.\n\n" +
			"## `fs.mkdirSync(path[, options])`\n\nCreates a directory.\n\n" +
			"## Class: `fs.StatWatcher`\n\nA watcher.\n\n" +
			"## Class: `fs.Stats`\n\nAn object that gives information about a file, its size, its times, and the kind of entry it is on the disk.\n",
	})
	wantMatched(t, ws, map[string]string{
		"fs.readFile":     "fs#fsreadfilepath-options-callback",
		"fs.readFileSync": "fs#fsreadfilesyncpath-options",
		"fs.mkdir":        "fs#fsmkdirpath-options-callback",
		"class fs.Stats":  "fs#class-fsstats",
	})
}

// TestQueryJoinedWord: an identifier typed in lower case ("wordcount"),
// which no passage holds as one word, finds the page that writes it
// (WordCount, indexed as its parts).
func TestQueryJoinedWord(t *testing.T) {
	ws := linksService(t, map[string]string{
		"wordcount.md": "# WordCount\n\nReturns the number of words in the content of the page: `{{ .WordCount }}`.\n",
		"count.md":     "# Count\n\nReturns how many items a collection holds, as a word would.\n",
	})
	res, err := ws.Search(context.Background(), docir.SearchParams{Query: "wordcount", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].ID != "wordcount" {
		t.Errorf("search wordcount: %+v, want the page wordcount", res.Hits)
	}
}

// TestQueryPhraseSection: the matched section of a query with a quoted
// phrase holds the phrase, though the words beyond the title, read without
// it, score a shorter section higher (a review found `"ConvertTo Json"
// Depth` naming ConvertFrom-Json's -Depth section, which never says
// ConvertTo).
func TestQueryPhraseSection(t *testing.T) {
	ws := linksService(t, map[string]string{
		"tools.md": "# Json tools\n\n## Depth\n\nThe depth of the input.\n\n## Example\n\nHow to convert json, shown at some length, with more words here and there, and then some more.\n",
	})
	wantMatched(t, ws, map[string]string{
		`"convert json" depth`: "tools#example",
		"convert json depth":   "tools#depth", // without the phrase, the shorter section
	})
}

// wantMatched searches ws for each query and wants its first hit's
// matched section to be the one given.
// TestQuestionFrame: a question is ranked by its topic, not by its frame
// ("how do I"), which a corpus of FAQ headings says on every page: a
// review of VS Code's docs found "how do I change the font size in the
// terminal" planning seven "How do I …" answers about other things. A page
// titled as a question is still named by its title, and a "how" that asks
// for a measure ("how long") is the topic's.
func TestQuestionFrame(t *testing.T) {
	ws := linksService(t, map[string]string{
		"faq.md": "# FAQ\n\n## How do I create an admin terminal?\n\nRun the editor as an administrator.\n\n" +
			"## How do I find the version?\n\nOpen the About dialog.\n\n## How do I disable the cache in the editor?\n\nDelete the folder.\n",
		"appearance.md": "# Terminal appearance\n\n## Text style\n\nThe terminal's font and its size are settings: " +
			"terminal.integrated.fontSize changes the size of the font the terminal draws its text with, in pixels.\n\n" +
			"## Colors\n\nThe terminal's colors follow the theme, and each can be changed in the settings.\n",
		"module.md": "# How to write a script module\n\nA script module is a file of functions that a session imports; " +
			"this page shows the steps, from the first function to a module others can install.\n",
		"modules.md": "# Script modules\n\n## Write a script module\n\nWrite a script module: write a script, write a module.\n",
		"builds.md": "# Builds\n\n## Duration\n\nA build takes as long as its slowest step: how long each step takes is in the log.\n\n" +
			"## Steps\n\nA build runs its steps in order, each of them a command that takes its input from the one before.\n",
	})
	wantMatched(t, ws, map[string]string{
		"How do I change the font size in the terminal?": "appearance#text-style",
		"how do I change the font size":                  "appearance#text-style",
		"How to write a script module":                   "module#how-to-write-a-script-module",
		"how long does a build step take?":               "builds#duration",
	})
}

func wantMatched(t *testing.T, ws *Service, want map[string]string) {
	t.Helper()
	for q, sec := range want {
		res, err := ws.Search(context.Background(), docir.SearchParams{Query: q, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].MatchedSection != sec {
			t.Errorf("search %q: %+v, want %s", q, res.Hits, sec)
		}
	}
}
