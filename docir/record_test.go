package docir

import "testing"

// TestFindSection: the heading part of an address finds a section by its
// slug, by the slug of the text given, and by its own heading text when
// its author gave it an id; the first match wins.
func TestFindSection(t *testing.T) {
	r := Record{Sections: []Section{
		{Slug: "setup", Heading: "Setup"},
		{Slug: "metadata-open-graph", Heading: "Metadata"},
		{Slug: "metadata-schema", Heading: "Metadata"},
		{Slug: "Upper-Case", Heading: "Kept as written"},
		{Slug: "guide-level-explanation", Heading: "Guide-level explanation"},
		{Slug: "über-größe", Heading: "Über Größe"},
		{Slug: "100-sure", Heading: "100% sure"},
		{Slug: "install", Heading: "Install", Anchors: []string{"step", "legacy-name"}},
		{Slug: "global", Heading: ":global(...)"},
		{Slug: "global-1", Heading: ":global"},
		{Slug: "context-", Heading: "Context 🤔"},
		{Slug: "get_page", Heading: "get_page"},
		{Slug: "injection-aliasing", Heading: "注入别名 *"},
		{Slug: "ctx", Heading: "Why 🤔"},
	}}
	for _, tt := range []struct {
		heading, want string // want "" for no section
	}{
		{"setup", "setup"},
		{"Setup", "setup"},
		{"metadata-schema", "metadata-schema"},
		{"Metadata", "metadata-open-graph"},
		{"Upper-Case", "Upper-Case"},
		{"upper-case", ""},
		{"Kept as written", "Upper-Case"},
		{"Guide-level explanation", "guide-level-explanation"},
		// The heading text exactly before the slug of the text (svelte.dev's
		// #:global); "global" is a slug.
		{":global", "global-1"},
		{"global", "global"},
		{":global(...)", "global"},
		{"nope", ""},
		// A fragment as a browser copies it, percent-encoded.
		{"%C3%BCber-gr%C3%B6%C3%9Fe", "über-größe"},
		{"%25C3%25BCber-gr%25C3%25B6%25C3%259Fe", "über-größe"},
		{"100%25-sure", "100-sure"},
		{"100% sure", "100-sure"},
		{"%zz", ""},
		// An anchor the section's own text defines: a nested heading, an HTML id.
		{"step", "install"},
		{"legacy-name", "install"},
		// A nested heading by its text, as a section's (its slug is the anchor).
		{"Legacy Name", "install"},
		{"LEGACY-NAME", "install"},
		// A heading that ends in an emoji, by its words.
		{"Context", "context-"},
		{"context", "context-"},
		{"Context 🤔", "context-"},
		// The same of a heading that writes its own id (Vue's docs mark
		// headings with " \*" and give each an id).
		{"注入别名", "injection-aliasing"},
		{"Why", "ctx"},
		// Zola's anchor of `get_page`.
		{"get-page", "get_page"},
	} {
		s, ok := r.FindSection(tt.heading)
		if got := s.Slug; ok != (tt.want != "") || got != tt.want {
			t.Errorf("FindSection(%q) = %q, %v; want %q", tt.heading, got, ok, tt.want)
		}
	}
}
