package workspace

import (
	"fmt"
	"slices"
	"testing"

	"github.com/docir/docir/docir"
)

// TestRepeatedSectionsGiveWay: a section a generated reference repeats on
// every page (its lines the same as a reader reads them: the ids of its
// HTML tags differ) is one hit, the others listed in its also; a copy with
// a line of its own is a hit. A search gives the limit documents ranked,
// repeats folded; a context fills its hits from further down, and plans
// the page that says something else.
func TestRepeatedSectionsGiveWay(t *testing.T) {
	files := map[string]string{
		"faq.md":     "# FAQ\n\n## How can the tool work offline?\n\nThe offline flag tells the tool not to touch the network.\n",
		"cmd-own.md": "# cmd-own\n\n## Manifest Options\n\n<dt id=\"own-offline\">--offline</dt>\n\nPrevents the tool from accessing the network for any reason.\n\nAn option only this command has.\n",
	}
	for i := range 6 {
		files[fmt.Sprintf("cmd-%d.md", i)] = fmt.Sprintf("# cmd-%d\n\n## Manifest Options\n\n<dt id=\"cmd-%d-offline\">--offline</dt>\n\nPrevents the tool from accessing the network for any reason.\n", i, i)
	}
	ws, ctx := indexedFiles(t, files)
	const q = "tool network access offline"
	res, err := ws.Search(ctx, docir.SearchParams{Query: q, Limit: 8})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	also, copies := 0, 0
	for _, h := range res.Hits {
		got = append(got, h.ID)
		also += len(h.Also)
		if h.ID != "faq" && h.ID != "cmd-own" {
			copies++
		}
		for _, a := range h.Also {
			if a == h.MatchedSection || a[:4] != "cmd-" {
				t.Errorf("hit %s: also %v", h.ID, h.Also)
			}
		}
	}
	if len(got) != 3 || copies != 1 || !slices.Contains(got, "faq") || !slices.Contains(got, "cmd-own") || also != 5 {
		t.Errorf("hits %v (also %d): want one copy of the repeated section, faq and cmd-own, and 5 copies in also", got, also)
	}
	// With a limit of 3, a search ranks 3 documents, and gives those that
	// are not repeats; a context fills its 3 from further down.
	res, err = ws.Search(ctx, docir.SearchParams{Query: q, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	folded := 0
	for _, h := range res.Hits {
		folded += len(h.Also)
	}
	if len(res.Hits)+folded != 3 || folded == 0 {
		t.Errorf("limit 3: %d hits, %d folded; want 3 documents ranked, a copy folded", len(res.Hits), folded)
	}
	plan, err := ws.Context(ctx, docir.ContextParams{Query: q, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	var planned []string
	for _, h := range plan.Hits {
		planned = append(planned, h.ID)
	}
	if len(planned) != 3 || !slices.Contains(planned, "faq") || !slices.Contains(planned, "cmd-own") {
		t.Errorf("context hits %v: want 3 that are not repeats, faq and cmd-own among them", planned)
	}
	if !slices.Contains(plan.Addresses, "faq") && !slices.Contains(plan.Addresses, "faq#how-can-the-tool-work-offline") {
		t.Errorf("context plan %v: want the FAQ entry", plan.Addresses)
	}
}

// TestRepeatedLeadsAreNotCopies: pages matched as a whole (by their
// titles) that share a lead's boilerplate line are not copies: each is a
// hit.
func TestRepeatedLeadsAreNotCopies(t *testing.T) {
	files := map[string]string{}
	for _, n := range []string{"alpha", "beta", "gamma"} {
		files[n+".md"] = "---\ntitle: " + n + " widget\n---\nThis page is for version 2 of the product.\n"
	}
	ws, ctx := indexedFiles(t, files)
	for _, q := range []string{"widget", "beta widget"} {
		res, err := ws.Search(ctx, docir.SearchParams{Query: q, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 3 {
			t.Errorf("search %q: %d hits (%v), want 3", q, len(res.Hits), res.Hits)
		}
	}
}
