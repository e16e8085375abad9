package rank

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store/markdown"
	"github.com/docir/docir/store/passage"
)

func TestLeadSlug(t *testing.T) {
	body := "---\ntitle: KEP\n---\n<!-- toc -->\n\n# KEP\n\nSummary.\n\n## Drawbacks\n\n<!-- none -->\n"
	h1 := strings.Index(body, "# KEP")
	dr := strings.Index(body, "## Drawbacks")
	rec := docir.Record{ID: "k", MarkdownStart: strings.Index(body, "<!--"), Sections: []docir.Section{
		{Slug: "kep", Level: 1, Start: h1, OwnEnd: dr, End: len(body)},
		{Slug: "drawbacks", Level: 2, Start: dr, OwnEnd: len(body), End: len(body)},
	}}
	if got := leadSlug(&rec, []byte(body)); got != "kep" {
		t.Errorf("a comment before the first heading is not prose: lead %q, want kep", got)
	}
	body2 := strings.Replace(body, "<!-- toc -->", "Intro text.  ", 1)
	if got := leadSlug(&rec, []byte(body2)); got != "" {
		t.Errorf("prose before the first heading: lead %q, want the document", got)
	}
	if got := leadSlug(&docir.Record{ID: "x"}, []byte("text")); got != "" {
		t.Errorf("no headings: lead %q, want the document", got)
	}
}

func TestPlainName(t *testing.T) {
	for in, want := range map[string]string{
		"Transpile Sass to CSS.": "Transpile Sass to CSS",
		"  a   b ":               "a b",
		"What?":                  "What",
		"math.Pi":                "math.Pi",
	} {
		if got := plainName(in); got != want {
			t.Errorf("plainName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOutline(t *testing.T) {
	var secs []docir.Section
	for i, lv := range []int{1, 2, 3, 2, 3, 4, 2} {
		secs = append(secs, docir.Section{Slug: string(rune('a' + i)), Heading: string(rune('A' + i)), Level: lv, Start: i, End: i + 1})
	}
	body := []byte("0123456789")
	d := planned{rec: docir.Record{ID: "d", Sections: secs}, tc: newTokenCounter(body)}
	var got []string
	for _, e := range outline(&d, 40, nil) {
		got = append(got, e.Address)
	}
	if diff := cmp.Diff([]string{"d#a", "d#b", "d#d", "d#g"}, got); diff != "" {
		t.Errorf("two levels from the top (-want +got)\n%s", diff)
	}
	if n := len(outline(&d, 2, nil)); n != 2 {
		t.Errorf("bounded to 2: %d entries", n)
	}
	// A planned section shows at any depth, with its ancestors, past the
	// bound too: every heading the plan recommends is in its outline.
	got = nil
	for _, e := range outline(&d, 2, map[string]bool{"d#f": true}) {
		got = append(got, e.Address)
	}
	if diff := cmp.Diff([]string{"d#a", "d#b", "d#d", "d#e", "d#f", "d#g"}, got); diff != "" {
		t.Errorf("a planned level-4 section (-want +got)\n%s", diff)
	}
}

// TestSteps: a plan reads the matched sections in the order of their
// scores, a document's matched section at the document's score, its other
// sections (every passage scored on the query, not only those the ranking
// read) at their own, a small document whole; and makePlan nothing under
// ReadFloor of its first read: another document's section no more than a
// document's own.
func TestSteps(t *testing.T) {
	// ps: the matched section first (the ranking's), then the others.
	big := func(id string, score float64, ps ...passageHit) planned {
		return planned{rec: docir.Record{ID: id}, doc: rankedDoc{id: id, score: score, passages: ps[:1]}, matched: ps, whole: 601}
	}
	all := []planned{ // in rank order
		big("a", 10, passageHit{"lead", 4}, passageHit{"x", 9}, passageHit{"y", 4.9}, passageHit{"under", 1.9}),
		{rec: docir.Record{ID: "c"}, doc: rankedDoc{id: "c", score: 8.5}, whole: 100},
		big("b", 8, passageHit{"z", 8}),
		big("d", 1.99, passageHit{"weak", 1.99}),
	}
	var got []string
	for _, st := range steps(all, 600) {
		name := st.d.rec.ID + "#" + st.ph.slug
		if st.whole {
			name = st.d.rec.ID + " whole"
		}
		got = append(got, name)
	}
	if diff := cmp.Diff([]string{"a#lead", "a#x", "c whole", "b#z", "a#y", "d#weak", "a#under"}, got); diff != "" {
		t.Errorf("steps (-want +got)\n%s", diff)
	}
	// Planned: down to a fifth of the first read (a#lead, at a's 10).
	for i := range all {
		all[i].rec.Sections = []docir.Section{{Slug: "lead"}, {Slug: "x"}, {Slug: "y"}, {Slug: "under"}, {Slug: "z"}, {Slug: "weak"}}
		for j := range all[i].rec.Sections {
			all[i].rec.Sections[j].Start, all[i].rec.Sections[j].End = 10*j, 10*j+10
		}
		all[i].size = 60
		all[i].tc = newTokenCounter(make([]byte, 60))
	}
	if diff := cmp.Diff([]string{"a#lead", "a#x", "c", "b#z", "a#y"}, makePlan(all, 2400).addrs); diff != "" {
		t.Errorf("plan (-want +got)\n%s", diff)
	}
	// A document the ranking put first whatever its score (the query names
	// it) has its matched section read first; its other sections keep
	// their own scores.
	named := []planned{big("n", 2, passageHit{"faq", 2}, passageHit{"other", 1.9}), big("m", 5, passageHit{"s", 5})}
	got = nil
	for _, st := range steps(named, 600) {
		got = append(got, st.d.rec.ID+"#"+st.ph.slug)
	}
	if diff := cmp.Diff([]string{"n#faq", "m#s", "n#other"}, got); diff != "" {
		t.Errorf("steps of a named document (-want +got)\n%s", diff)
	}
}

func TestSnippetSkipsMarkup(t *testing.T) {
	// hit() blanks markup before cutting the snippet; Snippet itself keeps
	// what it is given.
	f := &found{
		rec:  docir.Record{ID: "d", Title: "T", MarkdownStart: 0},
		body: []byte("<!-- hidden note -->\n{{< figure src=\"x.png\" >}}\nThe visible prose about budgets."),
		q:    "budgets",
	}
	h := f.hit()
	if h.Snippet != "The visible prose about budgets." || h.MatchedSection != "d" {
		t.Errorf("hit: snippet %q, matched %q", h.Snippet, h.MatchedSection)
	}
}

// TestReadPlanSaysSomethingNew: a read whose every line, as a reader
// reads it, a read planned before holds is not planned, whichever
// document it is of; a line of its own, or a line worded anew, is read.
func TestReadPlanSaysSomethingNew(t *testing.T) {
	p := newReadPlan(1000)
	for _, r := range []struct {
		id, body string
		want     bool
	}{
		{"build", "## Options\n\n<dt id=\"build-locked\">--locked</dt>\nAsserts the lock file.\n", true},
		{"check", "## Options\n\n<dt id=\"check-locked\">--locked</dt>\n  Asserts the lock file.\n\n", false}, // markup and spaces differ
		{"fetch", "## Options\n\n--locked\nAsserts the lock file.\n--offline\n", true},                        // a line of its own
		{"help", "## Options\n\n--offline\n", false},                                                          // every line read
		{"info", "## Options\n\n--locked asserts\nthe lock file.\n", true},                                    // wrapped anew
		{"blank", "<br>\n", true}, // no prose: read
	} {
		d := &planned{rec: docir.Record{ID: r.id}, body: []byte(r.body)}
		if got := p.addOf(d, r.id+"#options", 0, len(r.body), 10); got != r.want {
			t.Errorf("addOf %s: %v, want %v", r.id, got, r.want)
		}
	}
}

// TestReadPlanEndsWhenFull: the plan is the best reads in order; once a
// read that fits the budget does not fit what is left of it, nothing after
// it is planned, even a smaller read that would fit. A read over the whole
// budget is skipped, and the plan goes on.
func TestReadPlanEndsWhenFull(t *testing.T) {
	p := newReadPlan(100)
	for _, r := range []struct {
		addr   string
		tokens int
		want   bool
	}{
		{"huge", 150, false}, // over the whole budget: skipped
		{"a", 60, true},
		{"a-again", 10, false}, // overlaps a: skipped
		{"b", 50, false},       // fits the budget, not what is left: the plan is full
	} {
		from := len(p.addrs) * 1000
		if r.addr == "a-again" {
			from -= 1000
		}
		if got := p.add("d", r.addr, from, from+10, r.tokens); got != r.want {
			t.Errorf("add %s: %v, want %v", r.addr, got, r.want)
		}
		if full := r.addr == "b"; p.full != full {
			t.Errorf("after %s: full %v, want %v", r.addr, p.full, full)
		}
	}
	if diff := cmp.Diff([]string{"a"}, p.addrs); diff != "" {
		t.Errorf("planned (-want +got)\n%s", diff)
	}
	// The same through makePlan: three small documents, best first.
	small := func(id string, score float64, tokens int) planned {
		return planned{rec: docir.Record{ID: id}, doc: rankedDoc{id: id, score: score, passages: []passageHit{{"", score}}}, whole: tokens, size: 4 * tokens}
	}
	all := []planned{small("huge", 4, 150), small("a", 3, 60), small("b", 2, 50), small("c", 1, 30)}
	if diff := cmp.Diff([]string{"a"}, makePlan(all, 100).addrs); diff != "" {
		t.Errorf("makePlan (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, makePlan(all, 140).addrs); diff != "" {
		t.Errorf("makePlan, room for all but huge (-want +got)\n%s", diff)
	}
	// A short document (a quarter of the budget at most) that does not fit
	// whole is narrowed to its matched section, and the plan goes on.
	body := []byte(strings.Repeat("x", 400))
	s := planned{rec: docir.Record{ID: "s", Sections: []docir.Section{{Slug: "x", Start: 0, End: 40}}},
		doc: rankedDoc{id: "s", score: 2, passages: []passageHit{{"x", 2}}}, tc: newTokenCounter(body), whole: 100, size: 400, lead: "x"}
	all = []planned{small("a", 3, 320), s, small("c", 1, 5)}
	if diff := cmp.Diff([]string{"a", "s#x", "c"}, makePlan(all, 400).addrs); diff != "" {
		t.Errorf("makePlan, a short document narrowed (-want +got)\n%s", diff)
	}
}

// longLeadDocument is a document of 1,000 tokens matched by its lead
// (which has no address of its own), at 5: sections a (30 tokens), b (80
// with its subsections b1, b2, b3: 20, 40, 10), c (40), e (1).
func longLeadDocument() planned {
	body := []byte(strings.Repeat("x", 4000))
	sec := func(slug string, level, start, own, end int) docir.Section {
		return docir.Section{Slug: slug, Level: level, Start: start, OwnEnd: own, End: end}
	}
	return planned{
		rec: docir.Record{ID: "d", Sections: []docir.Section{
			sec("a", 2, 400, 520, 520),
			sec("b", 2, 520, 560, 840),
			sec("b1", 3, 560, 640, 640),
			sec("b2", 3, 640, 800, 800),
			sec("b3", 3, 800, 840, 840),
			sec("c", 2, 840, 1000, 1000),
			sec("e", 2, 1000, 1004, 1004),
		}},
		doc: rankedDoc{id: "d", score: 5, passages: []passageHit{{"", 5}}}, tc: newTokenCounter(body), whole: 1000, size: 4000, lead: "",
	}
}

// TestReadPlanNamedLongDocument: a document matched as itself (its title)
// whose lead has no address of its own and which no plan of the budget
// could hold whole is read from its top, section by section, a section
// that does not fit narrowed to its subsections, until one without
// subsections does not fit: then the plan ends. (A review of Redis's docs
// found context planning nothing of the page a query named, for 21 of its
// 98 titles, and leaving its outline empty.)
func TestReadPlanNamedLongDocument(t *testing.T) {
	long := longLeadDocument()
	small := planned{rec: docir.Record{ID: "s"}, doc: rankedDoc{id: "s", score: 1, passages: []passageHit{{"", 1}}}, whole: 1, size: 4}
	if diff := cmp.Diff([]string{"d#a", "d#b1", "d#b2", "d#b3"}, makePlan([]planned{long, small}, 100).addrs); diff != "" {
		t.Errorf("makePlan (-want +got)\n%s", diff)
	}
	// With room for b whole, b is one read; c does not fit what is left,
	// and the plan ends there, though e and s would fit.
	if diff := cmp.Diff([]string{"d#a", "d#b"}, makePlan([]planned{long, small}, 112).addrs); diff != "" {
		t.Errorf("makePlan, b fits (-want +got)\n%s", diff)
	}
}

// TestReadPlanLeadMatchedLongDocument: a document over the budget whose
// lead matched by its words, not by its name (its sections were scored),
// is read best first, as a matched section over the budget is, and not
// below the floor: a review of Prometheus's repository found a question
// on backfilling plan twelve sections of promtool's reference from its
// top, matched by its one-line lead ("Tooling for the Prometheus
// monitoring system."), and its tsdb commands, which answer, not among
// them.
func TestReadPlanLeadMatchedLongDocument(t *testing.T) {
	long := longLeadDocument()
	long.matched = []passageHit{{"", 5}, {"c", 3}, {"b2", 2}}
	small := planned{rec: docir.Record{ID: "s"}, doc: rankedDoc{id: "s", score: 1, passages: []passageHit{{"", 1}}}, whole: 1, size: 4}
	// c, the best; b does not fit what is left and is narrowed to b2,
	// the one of its subsections over the floor; a and e hold no word of
	// the query. The plan goes on to s.
	if diff := cmp.Diff([]string{"d#c", "d#b2", "s"}, makePlan([]planned{long, small}, 100).addrs); diff != "" {
		t.Errorf("makePlan (-want +got)\n%s", diff)
	}
}

// TestReadPlanMatchedSectionOverBudget: a hit's matched section that no
// plan of the budget holds whole, under one heading that holds the rest of
// its page (as mdBook writes a page), is read as its subsections, best
// first (document order on a tie), until one does not fit; another section
// of the page over the budget is skipped, and the plan goes on.
func TestReadPlanMatchedSectionOverBudget(t *testing.T) {
	body := []byte(strings.Repeat("x", 4000))
	sec := func(slug string, level, start, own, end int) docir.Section {
		return docir.Section{Slug: slug, Level: level, Start: start, OwnEnd: own, End: end}
	}
	page := func(matched string) planned {
		return planned{
			rec: docir.Record{ID: "d", Sections: []docir.Section{
				sec("top", 2, 0, 400, 1000),  // 250 tokens with its subsections
				sec("a", 3, 400, 520, 520),   // 30
				sec("b", 3, 520, 840, 840),   // 80
				sec("c", 3, 840, 1000, 1000), // 40
			}},
			doc: rankedDoc{id: "d", score: 5, passages: []passageHit{{matched, 5}}}, tc: newTokenCounter(body), whole: 1000, size: 4000,
			matched: []passageHit{{matched, 5}, {"top", 4.5}},
		}
	}
	other := planned{rec: docir.Record{ID: "s"}, doc: rankedDoc{id: "s", score: 4, passages: []passageHit{{"", 4}}}, whole: 5, size: 20}
	// The first subsection is read (what the ranking put first is not
	// skipped for its size); the others, which hold no word of the query,
	// are under the floor (rule 6), and the plan goes on.
	if diff := cmp.Diff([]string{"d#a", "s"}, makePlan([]planned{page("top"), other}, 120).addrs); diff != "" {
		t.Errorf("matched section over the budget (-want +got)\n%s", diff)
	}
	// Matched in c: top, over the budget, is not read from its top.
	if diff := cmp.Diff([]string{"d#c", "s"}, makePlan([]planned{page("c"), other}, 120).addrs); diff != "" {
		t.Errorf("another section over the budget (-want +got)\n%s", diff)
	}
	// Its subsections are read best first: c, whose text scores, and not
	// the rest, under the floor (Node's modules page read "Cycles" eighth,
	// from its top).
	scored := page("top")
	scored.matched = append(scored.matched, passageHit{"c", 3})
	if diff := cmp.Diff([]string{"d#c", "s"}, makePlan([]planned{scored, other}, 120).addrs); diff != "" {
		t.Errorf("matched section over the budget, c scored (-want +got)\n%s", diff)
	}
}

// TestTokenCounter: the counts a tokenCounter keeps per block give every
// range's estimate as a count of each byte would.
func TestTokenCounter(t *testing.T) {
	body := []byte(strings.Repeat("ab 日本語 ", 40) + "x")
	for _, n := range []int{0, 1, tokenBlock - 1, tokenBlock, tokenBlock + 1, 2 * tokenBlock, len(body)} {
		b := body[:n]
		tc := newTokenCounter(b)
		for from := 0; from <= n; from++ {
			for to := from; to <= n; to++ {
				wide := 0
				for _, c := range b[from:to] {
					if c >= 0xE0 {
						wide++
					}
				}
				if got, want := tc.count(from, to), (to-from+wide+3)/4; got != want {
					t.Fatalf("%d bytes [%d,%d): %d tokens, want %d", n, from, to, got, want)
				}
			}
		}
	}
}

// TestSnippetPlainLines: a snippet reads as the page does: no block quote
// markers, alert or callout markers (in any case, with a callout's fold
// sign; its title stays) or fence lines (the code in a fence stays).
func TestSnippetPlainLines(t *testing.T) {
	// As passage.Prose leaves a fence: its info string blank.
	text := "## Notes\n\n> **Note:** Cargo does not\n> > nest it.\n\n> [!NOTE]\n> This does not affect x.\n\n```    \n[patch.crates-io]\nfoo = 1\n```\nAfter a > b.\n\n" +
		"> [!tip]- \n> Folded.\n\n> [!Warning]+ Mind the gap\n> Text.\n\n> [!not a callout]"
	want := "Notes Note: Cargo does not nest it. This does not affect x. [patch.crates-io] foo = 1 After a > b. Folded. Mind the gap Text. [!not a callout]"
	if got := Snippet(text, "", 1000); got != want {
		t.Errorf("Snippet:\n got %q\nwant %q", got, want)
	}
}

// TestSnippetLinkPunctuation: the space a link's blanked destination left
// before the punctuation after the link is dropped; other spaces fold.
func TestSnippetLinkPunctuation(t *testing.T) {
	text := "Refer to [Provisioning Grafana]        . See [a]     , [b]   ), [c]  .NET and [d] x . ; [e]\n\n"
	want := "Refer to [Provisioning Grafana]. See [a], [b]), [c] .NET and [d] x . ; [e]"
	if got := Snippet(text, "", 1000); got != want {
		t.Errorf("Snippet:\n got %q\nwant %q", got, want)
	}
}

// TestSnippetCodeKeepsHashes: a code block's lines are code, whatever they
// open with ("# sysctl" is a root prompt, not a heading); its fences are
// markup, dropped, and so is a quoted fence.
func TestSnippetCodeKeepsHashes(t *testing.T) {
	in := "## Diagnosis\n\nAs root:\n\n````shell\n# sysctl -a\n---\n```\n# lsof -n\n````\n\n# Next\n\n> ```\n> x\n> ```\n"
	want := "Diagnosis As root: # sysctl -a --- ``` # lsof -n Next x"
	if got := Snippet(in, "", 1000); got != want {
		t.Errorf("Snippet:\n got %q\nwant %q", got, want)
	}
}

// TestSnippetBullets: a bullet item's marker and a thematic break are
// markup; a numbered item's number, a product's star and a hyphen are not.
func TestSnippetBullets(t *testing.T) {
	in := "Steps:\n\n* `long: 1h` first\n  - nested\n+ plus\n\n* * *\n\n1. one\n2 * 3 - 1 and -x\n___\n"
	want := "Steps: `long: 1h` first nested plus 1. one 2 * 3 - 1 and -x"
	if got := Snippet(in, "", 1000); got != want {
		t.Errorf("Snippet:\n got %q\nwant %q", got, want)
	}
}

// TestSnippetEmphasis: emphasis delimiters are dropped from a snippet;
// code spans, identifiers, products and globs keep theirs.
func TestSnippetEmphasis(t *testing.T) {
	for in, want := range map[string]string{
		"**Note:** the `_` of _emphasis_ and __strong__.": "Note: the `_` of emphasis and strong.",
		"snake_case and 2 * 3 and file_*.txt and `**x**`": "snake_case and 2 * 3 and file_*.txt and `**x**`",
		"(*see* below) ***all***, ****four**** *":         "(see below) all, ****four**** *",
		"a **`code`** word and _日本_":                      "a `code` word and 日本",
		// A run before punctuation opens when a run closes it later
		// (CommonMark pairs them); a glob's star has no closer. Two
		// tildes strike through; one is "about".
		"less than **~2 days** -- fix **(now)** and **\"this\"**": "less than ~2 days -- fix (now) and \"this\"",
		"delete *.txt files, ~~old~~ and ~2 days":                 "delete *.txt files, old and ~2 days",
		// A run pairs with the next of its marks, in its paragraph: a
		// glob before emphasis, or before a later paragraph's, keeps its
		// star; code keeps its bytes; "```foo```" is a code span.
		"delete *.txt files *emphasis* here":         "delete *.txt files emphasis here",
		"delete *.txt files\n\nSome *emphasis* here": "delete *.txt files Some emphasis here",
		"~~~\nls *.md and *x*\n~~~\ntext":            "ls *.md and *x* text",
		"```foo```\n# Heading\n* item":               "```foo``` Heading item",
		// An escaped mark is no delimiter: its backslash goes, it stays.
		"Define \\_\\_init\\_\\_ in the class":      "Define __init__ in the class",
		"Use \\*literal stars\\* here, *real* ones": "Use *literal stars* here, real ones",
		// A code span of two backticks holds a backtick, and its marks
		// are its text (a toggle at each backtick read "*baz*" as
		// emphasis); a run of backticks no run of its length closes is text.
		"Use ``foo `bar` *baz*`` then _it_": "Use ``foo `bar` *baz*`` then it",
		"a `` b `*x*` and *y*":              "a `` b `*x*` and y",
		// A paragraph that opens with a code span is no fence; lines
		// joined keep their '\r'; an escaped backtick opens no span.
		"```ls``` lists *all* files":                "```ls``` lists all files",
		"- ```ls``` lists *all* [[Note|notes]]":     "```ls``` lists all notes",
		"Some text\r\n```inline``` then *emph*\r\n": "Some text ```inline``` then emph",
		"\\`a [[b]] `c":                             "`a b `c",
		"\\`a *b* `c":                               "`a b `c",
		"x \\\\`code *y*` z":                        "x \\`code *y*` z", // an escaped backslash, then a code span
	} {
		if got := Snippet(in, "", 1000); got != want {
			t.Errorf("Snippet(%q):\n got %q\nwant %q", in, got, want)
		}
	}
}

// TestSnippetObsidianMarks: a snippet shows a wikilink's text, not its
// brackets; an embed, a block id that ends a paragraph and a backslash
// escape's backslash are not shown; a highlight shows its words, and a
// closing run before a no-break space closes. Code keeps its bytes, and
// brackets that are no wikilink (a shell test) stay. (A review of an
// Obsidian vault found all of these in its snippets.)
func TestSnippetObsidianMarks(t *testing.T) {
	for in, want := range map[string]string{
		"See [[Internal links|internal link]] and **[[Settings]]** now.":            "See internal link and Settings now.",
		"Click ![[lucide-x.svg#icon]] to close [[Note#Heading#Sub]] or [[#Local]].": "Click to close Note > Heading > Sub or Local.",
		"Intro paragraph. ^intro-block\n\nNext one.":                                "Intro paragraph. Next one.",
		"An id of digits ^37066\n\n![[shot.png]]^shot-id\n\nCtrl ^C quits":          "An id of digits Ctrl ^C quits",
		"A power x ^2 and [[Note.md]]":                                              "A power x ^2 and Note",
		"Use \\[\\[double bracket syntax\\]\\] here, ==highlighted== text; a == b.": "Use [[double bracket syntax]] here, highlighted text; a == b.",
		"the **vault switcher**\u00a0and **Help**":                                  "the vault switcher and Help",
		"if [[ -f file ]]; then `[[x]]` and `\\*` stay":                             "if [[ -f file ]]; then `[[x]]` and `\\*` stay",
		"| [[a\\|b]] | c |": "| b | c |",
		"[[unclosed and " + strings.Repeat("[[", 1000) + "x": "[[unclosed and " + strings.Repeat("[[", 1000) + "x",
	} {
		if got := Snippet(in, "", 10000); got != want {
			t.Errorf("Snippet(%q):\n got %q\nwant %q", in, got, want)
		}
	}
}

// TestReadPlanMergesQuietSections: a section that says nothing of its own
// (its heading alone before its first subsection) and whose every
// subsection the plan reads is read as one, in the place of the first;
// one with text of its own, or with a subsection the plan leaves out, is
// not; a merge climbs (a merged section's parent merges too).
func TestReadPlanMergesQuietSections(t *testing.T) {
	plan := func(body string, slugs ...string) (*readPlan, planned) {
		b := []byte(body)
		rec := markdown.NewParser().Parse("t.md", b).Record
		rec.ID = "t"
		d := planned{rec: rec, body: b, tc: newTokenCounter(b)}
		p := newReadPlan(4000)
		for _, slug := range slugs {
			if slug == "other" {
				p.add("o", "o#x", 0, 10, 10)
				continue
			}
			i, ok := passage.Config{}.Cutter(&rec).Section(slug)
			if !ok {
				t.Fatalf("no section %s in %v", slug, rec.Sections)
			}
			s := rec.Sections[i]
			p.add("t", "t#"+slug, s.Start, s.End, d.tc.count(s.Start, s.End))
		}
		return p, d
	}
	p, d := plan("# Troubleshoot\n\n"+
		"## Port already allocated\n\n### Error message\n\nBind failed.\n\n### Cause\n\nAnother process.\n\n### Solution\n\nStop it.\n\n"+
		"## Slow builds\n\nBuilds are slow when the cache is cold.\n\n### Cause\n\nNo cache.\n\n### Solution\n\nWarm it.\n\n"+
		"## Disk\n\n### Full\n\nPrune.\n\n### Slow\n\nMove it.\n",
		"error-message", "cause-1", "cause", "other", "solution", "solution-1", "full")
	used := p.used
	p.mergeSubsections([]planned{d})
	if diff := cmp.Diff([]string{"t#port-already-allocated", "t#cause-1", "o#x", "t#solution-1", "t#full"}, p.addrs); diff != "" {
		t.Errorf("plan (-want +got)\n%s", diff)
	}
	// What is planned is what the plan reads (the outline shows it): a
	// merged subsection is not, the first or another.
	if want := map[string]bool{"t#port-already-allocated": true, "t#cause-1": true, "o#x": true, "t#solution-1": true, "t#full": true}; !cmp.Equal(want, p.planned) {
		t.Errorf("planned %v, want %v", p.planned, want)
	}
	// The section's tokens for its subsections': its heading line added.
	sec := func(slug string) int {
		i, _ := passage.Config{}.Cutter(&d.rec).Section(slug)
		return d.tc.count(d.rec.Sections[i].Start, d.rec.Sections[i].End)
	}
	if want := used - sec("error-message") - sec("cause") - sec("solution") + sec("port-already-allocated"); p.used != want || want <= used {
		t.Errorf("tokens %d after the merge, %d before; want %d", p.used, used, want)
	}
	p, d = plan("# A\n\n## B\n\n### C\n\nc.\n\n### D\n\nd.\n\n## E\n\ne.\n", "other", "c", "d", "e")
	p.mergeSubsections([]planned{d})
	if diff := cmp.Diff([]string{"o#x", "t#a"}, p.addrs); diff != "" {
		t.Errorf("a merge that climbs: plan (-want +got)\n%s", diff)
	}
}

// TestReadPlanFloorOfTheBest: the floor is a fifth of the best read's
// score, whether or not the best read fits the budget: a budget too small
// for the best reads plans none of the weak ones (it planned the first
// weak read that fitted, and reads a fifth as good as that).
func TestReadPlanFloorOfTheBest(t *testing.T) {
	small := func(id string, score float64, tokens int) planned {
		return planned{rec: docir.Record{ID: id}, doc: rankedDoc{id: id, score: score, passages: []passageHit{{"", score}}}, whole: tokens, size: 4 * tokens}
	}
	all := []planned{small("best", 5, 150), small("good", 2, 40), small("weak", 0.5, 10)}
	if diff := cmp.Diff([]string{"good"}, makePlan(all, 100).addrs); diff != "" {
		t.Errorf("makePlan (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{}, makePlan(all, 30).addrs); diff != "" {
		t.Errorf("makePlan, room for the weak read alone (-want +got)\n%s", diff)
	}
}

// TestLoneCharacters: a word of one character of a script written without
// spaces is named in a miss's warning; a pair of them, or a letter of a
// spaced script, is not.
func TestLoneCharacters(t *testing.T) {
	for q, want := range map[string]string{
		"槽": "槽", "v-model 槽": "槽", "槽 and の": "槽 の", "插槽": "", "a": "", "x槽y": "槽", "": "",
	} {
		got := LoneCharacters(q)
		if want == "" && got != "" || want != "" && !strings.HasPrefix(got, want+": ") {
			t.Errorf("LoneCharacters(%q) = %q, want it to name %q", q, got, want)
		}
	}
}
