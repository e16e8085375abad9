package workspace

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/docir/docir/docir"
)

// TestBlankPageIsNotPlanned: a site's section page that is front matter
// alone (or a shortcode that lists the section) may rank first for its
// title, and search shows it, but context plans no read of it: its hit
// says all a read would. The page that says something is read first.
func TestBlankPageIsNotPlanned(t *testing.T) {
	files := map[string]string{
		"alerting/index.md": "---\ntitle: Alertmanager\nsort_rank: 7\n---\n",
		"cast/_index.md":    "---\ntitle: Cast functions\n---\n\n{{< list-pages-in-section path=/cast >}}\n",
		"glossary.md":       "# Glossary\n\n## Alertmanager\n\nThe Alertmanager takes in alerts, aggregates them into groups, de-duplicates and sends notifications.\n\n## Cast\n\nA cast turns a value of one type into another.\n",
	}
	for i := range 10 {
		files[fmt.Sprintf("p%d.md", i)] = fmt.Sprintf("# Page %d\n\nSomething about routing %d.\n", i, i)
	}
	ws, ctx := indexedFiles(t, files)
	for _, c := range []struct{ q, blank string }{
		{"what is alertmanager", "alerting"},
		{"cast functions", "cast"},
	} {
		res, err := ws.Search(ctx, docir.SearchParams{Query: c.q})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(res.Hits, func(h docir.Hit) bool { return h.ID == c.blank }) {
			t.Errorf("search %q: %v, want %s among the hits", c.q, res.Hits, c.blank)
		}
		plan, err := ws.Context(ctx, docir.ContextParams{Query: c.q})
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(plan.Addresses, c.blank) || len(plan.Addresses) == 0 || !strings.HasPrefix(plan.Addresses[0], "glossary") {
			t.Errorf("context %q: plan %v, want the glossary (a short page, read whole) first and no read of %s", c.q, plan.Addresses, c.blank)
		}
	}
}
