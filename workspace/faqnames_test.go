package workspace

import (
	"context"
	"fmt"
	"testing"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/store"
)

// TestQuestionHeadingNamesItsSection: a FAQ entry's heading, a question,
// names its section as a title names its page, however common the
// question's words: "What is Widget?" on a corpus whose every page says
// "Widget" ranks the entries that ask it first, whatever their scores, and
// context reads them first. A heading that is no question names nothing.
func TestQuestionHeadingNamesItsSection(t *testing.T) {
	files := map[string]string{
		"faq.md":      "# FAQ\n\n## General\n\n### What is Widget?\n\nA monitoring toolkit.\n\n### Who wrote Widget?\n\nSome people.\n",
		"overview.md": "# Overview\n\n## What is Widget?\n\nWidget is an open-source toolkit, first built in 2012, with a long history of releases and a community of users.\n\n## Components\n\nParts.\n",
		"intro.md":    "# Widget Widget\n\nWidget.\n",
		"usage.md":    "# Usage\n\n## Widget\n\nWidget widget widget.\n",
	}
	for i := range 20 {
		files[fmt.Sprintf("p%d.md", i)] = fmt.Sprintf("# Page %d\n\nWidget does thing %d with Widget.\n", i, i)
	}
	ws, ctx := indexedFiles(t, files)
	for _, q := range []string{"What is Widget?", "what is widget"} {
		res, err := ws.Search(ctx, docir.SearchParams{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range res.Hits[:min(2, len(res.Hits))] {
			got = append(got, h.MatchedSection)
		}
		if len(got) < 2 || got[0] != "faq#what-is-widget" && got[0] != "overview#what-is-widget" ||
			got[1] != "faq#what-is-widget" && got[1] != "overview#what-is-widget" {
			t.Errorf("search %q: first hits %v, want the two entries that ask it", q, got)
		}
		plan, err := ws.Context(ctx, docir.ContextParams{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		// A short page is read whole (rule 3 of the token budget).
		if first := res.Hits[0].ID; len(plan.Addresses) == 0 || plan.Addresses[0] != first && plan.Addresses[0] != got[0] {
			t.Errorf("context %q: plan %v, want %s (or %s) first", q, plan.Addresses, got[0], first)
		}
	}
	// "Widget" is a heading, not a question: it names nothing, and the
	// page titled with the word twice is first, as before.
	res, err := ws.Search(ctx, docir.SearchParams{Query: "widget"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].ID == "usage" {
		t.Errorf("search widget: %v", res.Hits)
	}
}

// TestQuestionTitleBeforeItsEntries: a page titled with a question (in
// front matter, or its level-1 heading) is named by it above the FAQ
// entries that ask it: the page is about the question, an entry is one
// section among others; and an entry still goes above a page that only
// matches.
func TestQuestionTitleBeforeItsEntries(t *testing.T) {
	long := "More words about other things to make it longer: layouts, partials, blocks, shortcodes, functions, variables, methods.\n"
	for name, page := range map[string]string{
		"front matter": "---\ntitle: What is a template?\n---\nA template renders pages.\n\n" + long,
		"heading":      "# What is a template?\n\nA template renders pages.\n\n" + long,
	} {
		ws, ctx := indexedFiles(t, map[string]string{
			"a.md":   page,
			"faq.md": "# FAQ\n\n## What is a template?\n\nA template.\n\n## What is a page?\n\nA page.\n",
			"gl.md":  "# Glossary\n\n## What is a template?\n\nTemplate.\n",
			"t.md":   "# Templates\n\nA template, a template, what a template is: templates.\n",
		})
		res, err := ws.Search(ctx, docir.SearchParams{Query: "What is a template?"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.ID)
		}
		if len(got) < 3 || got[0] != "a" || got[1] != "faq" && got[1] != "gl" || got[2] != "faq" && got[2] != "gl" {
			t.Errorf("%s: hits %v; want a, then the two entries", name, got)
		}
	}
}

// TestEnclosingHeadingNamesThePage: an mdBook page has no title of its own
// (its title is its file name) and one "##" heading that holds the rest;
// a query equal to that heading names the page, however common its words,
// as its title would.
func TestEnclosingHeadingNamesThePage(t *testing.T) {
	files := map[string]string{
		"ch03-03-how-functions-work.md": "## Functions\n\nFunctions are everywhere.\n\n### Parameters\n\nA function takes parameters.\n",
		"ch20-04-advanced-functions.md": "## Advanced Functions and Closures\n\nFunctions functions functions, and closures.\n",
		"ch05-03-method-syntax.md":      "## Method Syntax\n\nMethods are functions defined on a struct. Functions, functions.\n",
		"ch01-02-hello-world.md":        "## Hello, World!\n\nWrite functions.\n\n## Anatomy\n\nThe main function.\n",
	}
	ws, ctx := indexedFiles(t, files)
	for q, want := range map[string]string{"Functions": "ch03-03-how-functions-work", "method syntax": "ch05-03-method-syntax"} {
		res, err := ws.Search(ctx, docir.SearchParams{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].ID != want {
			t.Errorf("search %q: %v, want %s first", q, res.Hits, want)
		}
	}
	// Two level-2 headings: neither stands for the page.
	res, err := ws.Search(ctx, docir.SearchParams{Query: "Anatomy"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].MatchedSection != "ch01-02-hello-world#anatomy" {
		t.Errorf("search Anatomy: %v", res.Hits)
	}
}

// indexedFiles is a workspace over a folder of files (name -> text),
// refreshed.
func indexedFiles(t *testing.T, files map[string]string) (*Service, context.Context) {
	t.Helper()
	src := t.TempDir()
	if err := corpustest.WriteFiles(src, files); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ws := New(Config{Dir: t.TempDir(), Sources: []store.Source{{Path: src}}})
	t.Cleanup(func() { ws.Close() })
	if _, err := ws.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	return ws, ctx
}

// TestFileNameNamesThePage: a query equal to a page's file name (the name
// a site serves it under, `eip-1559`) names the page, however many pages
// say those words more often; a page whose title is the query goes before
// it (a title says more of a page than its file's name).
func TestFileNameNamesThePage(t *testing.T) {
	files := map[string]string{
		"EIPS/eip-1559.md": "---\ntitle: Fee market change\n---\n\n## Abstract\n\nA base fee per gas that is burned.\n",
		"notes.md":         "---\ntitle: EIP 1559\n---\n\nNotes on the fee market.\n",
	}
	for i := range 20 {
		files[fmt.Sprintf("EIPS/eip-%d.md", 9000+i)] = fmt.Sprintf("---\ntitle: Extension %d\n---\n\nThis extends EIP-1559 (EIP-1559, EIP-1559) with thing %d.\n", i, i)
	}
	ws, ctx := indexedFiles(t, files)
	for _, q := range []string{"EIP-1559", "eip 1559"} {
		res, err := ws.Search(ctx, docir.SearchParams{Query: q, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.ID)
		}
		if len(got) < 2 || got[0] != "notes" || got[1] != "EIPS/eip-1559" {
			t.Errorf("search %q: %v, want notes (its title), then EIPS/eip-1559 (its file name)", q, got)
		}
	}
}

// TestQueryNotUTF8: bytes of a query that are not UTF-8 are symbols, not
// the end of the query: "\xff\xfe ownership" finds what "ownership" finds
// (the word segmenter stopped at the two bytes, and the query had no word).
func TestQueryNotUTF8(t *testing.T) {
	ws, ctx := indexedFiles(t, map[string]string{"a.md": "# Ownership\n\nRules.\n", "b.md": "# Other\n\nText.\n"})
	for _, q := range []string{"\xff\xfe ownership", "\xfe\xff ownership", "a\xff\xfe ownership", "ownership \xff\xfe"} {
		res, err := ws.Search(ctx, docir.SearchParams{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].ID != "a" {
			t.Errorf("search %q: %+v, want a first", q, res.Hits)
		}
	}
}
