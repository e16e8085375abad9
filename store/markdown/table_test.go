package markdown

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTableRowsAreInlineContexts: a GFM table's rows are each an inline
// context, as GitHub and Hugo read them: a backtick left open in one cell
// does not make the rows below it code, so their anchors and links are
// read (Traefik's option tables: 47 of 48 anchors were lost below one).
func TestTableRowsAreInlineContexts(t *testing.T) {
	md := "# T\n\nSome `text\n| Field | Description |\n|:------|:------------|\n" +
		"| <a id=\"opt-a\">`a`</a> | The format is:`[host]:port |\n" +
		"| <a id=\"opt-b\">`b`</a> | See [the guide](g.md) |\n" +
		"| <a id=\"opt-c\">`c`</a> | `x |\n\n" +
		"Not a `table <a id=\"in-code\">\n| a |\nno delimiter` row\n"
	rec := NewParser().Parse("t.md", []byte(md)).Record
	var targets []string
	for _, l := range rec.Sections[0].Links {
		targets = append(targets, l.Target)
	}
	if diff := cmp.Diff([]string{"opt-a", "opt-b", "opt-c"}, rec.Sections[0].Anchors); diff != "" {
		t.Errorf("anchors (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"g.md"}, targets); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
}

func TestIsDelimiterRow(t *testing.T) {
	for line, want := range map[string]bool{
		"|:------|:------------|": true,
		"| --- | :-: | --: |":     true,
		"--- | ---":               true,
		"| --- |":                 true,
		"---":                     false,
		"| --- | a |":             false,
		"| |":                     false,
		"||":                      false,
	} {
		if got := isDelimiterRow([]byte(line)); got != want {
			t.Errorf("isDelimiterRow(%q) = %v, want %v", line, got, want)
		}
	}
}
