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
// and FastAPI's "Model for Output" each landing on a sibling.
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
	})
	for q, want := range map[string]string{
		"adding tooltips":                  "tooltips#adding-tooltips",
		"Model for Output":                 "schemas#model-for-output",
		"model for input":                  "schemas#model-for-input",
		"statusz endpoint response format": "statusz#endpoint-response-format",
		"private fields motivation":        "rfc#motivation", // a heading that only repeats the title names nothing
	} {
		res, err := ws.Search(context.Background(), docir.SearchParams{Query: q, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].MatchedSection != want {
			t.Errorf("search %q: %+v, want %s", q, res.Hits, want)
		}
	}
}
