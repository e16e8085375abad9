package workspace

import (
	"fmt"
	"slices"
	"testing"

	"github.com/docir/docir/docir"
)

// TestRepeatedSectionsGiveWay: a section a generated reference repeats on
// every page (its lines the same as a reader reads them: the ids of its
// HTML tags differ) is one hit, the others listed in its also; the hits
// asked for are filled with pages that say something of their own, and
// context plans them. A copy with a line of its own is a hit.
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
	res, err := ws.Search(ctx, docir.SearchParams{Query: q, Limit: 3})
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
	}
	if len(got) != 3 || copies != 1 || !slices.Contains(got, "faq") || !slices.Contains(got, "cmd-own") {
		t.Errorf("hits %v: want one copy of the repeated section, faq and cmd-own", got)
	}
	// Every copy but the one given is listed, at most the limit (3).
	if also != 3 {
		t.Errorf("also lists %d sections, want 3 (5 copies, at most the limit)", also)
	}
	for _, h := range res.Hits {
		for _, a := range h.Also {
			if a == h.MatchedSection || a[:4] != "cmd-" {
				t.Errorf("hit %s: also %v", h.ID, h.Also)
			}
		}
	}
	plan, err := ws.Context(ctx, docir.ContextParams{Query: q, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(plan.Addresses, "faq") && !slices.Contains(plan.Addresses, "faq#how-can-the-tool-work-offline") {
		t.Errorf("context plan %v: want the FAQ entry", plan.Addresses)
	}
}
