package ingest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// TestHugoPagePaths: with links.root_fallback (Hugo's GetPage, which a
// site's link render hook and ref/relref use), "x.md" also names the
// bundle x/_index.md (or x/index.md), "index.md" the folder's _index.md,
// and a path without a '/' that names no file the one page of the sources
// with that file name (a root-relative one names the top of the site
// only); a name two pages share names none (Hugo refuses it). A ref shortcode reads paths so whatever the rule (Docker review 2:
// "rootless.md" for rootless/_index.md, "index.md" for _index.md,
// "new-company.md" from another folder).
func TestHugoPagePaths(t *testing.T) {
	src := t.TempDir()
	writeFile(t, src, "manuals/engine/security/rootless/_index.md", "# Rootless\n\n## Known limitations\n")
	writeFile(t, src, "manuals/engine/network/_index.md", "# Networking\n")
	writeFile(t, src, "manuals/admin/company/new-company.md", "# New company\n")
	writeFile(t, src, "manuals/a/dup.md", "# Dup A\n")
	writeFile(t, src, "manuals/b/dup.md", "# Dup B\n")
	writeFile(t, src, "manuals/engine/network/links.md", "# Links\n\n"+
		"[a](../security/rootless.md#known-limitations) [b](/manuals/engine/security/rootless.md) [c](index.md) "+
		"[d](new-company.md) [e](dup.md) [f](nope.md) [g](/new-company.md) {{< ref \"../security/rootless.md\" >}}\n")
	rootless := "manuals/engine/security/rootless"
	want := []ruleWant{
		{"../security/rootless.md#known-limitations", broken, rootless + "#known-limitations"},
		{"/manuals/engine/security/rootless.md", broken, rootless},
		{"index.md", broken, "manuals/engine/network"},
		{"new-company.md", broken, "manuals/admin/company/new-company"},
		{"dup.md", broken, broken},
		{"nope.md", broken, broken},
		{"/new-company.md", broken, broken}, // the top of the site, not a name
		{"../security/rootless.md", rootless, rootless},
	}
	rule := ruleOnOff{name: docir.LinkRuleRootFallback, set: func(c *store.LinkConfig) { c.RootFallback = true }, reason: docir.ReasonNoDocument}
	rule.check(t, src, "manuals/engine/network/links", want, nil)
}

// TestRootRelativeSourcePrefix: with a source prefixed manuals, a
// root-relative link resolves to its page whether written as the URL the
// site serves it at (/engine/install/, the folder's content at /) or as
// its content path (/manuals/engine/install.md, as its ids read): the
// Docker docs write both (review 1).
func TestRootRelativeSourcePrefix(t *testing.T) {
	site, manuals := t.TempDir(), t.TempDir()
	writeFile(t, manuals, "engine/install/_index.md", "# Install\n\n## Ubuntu\n")
	writeFile(t, site, "guide.md", "# Guide\n\n[a](/engine/install/) [b](/manuals/engine/install/_index.md#ubuntu) [c](/manuals/nope.md)\n")
	dir := t.TempDir()
	srcs := []store.Source{{Path: site}, {Path: manuals, Prefix: "manuals"}}
	if _, err := Refresh(t.Context(), dir, srcs, Options{}); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := map[string]string{}
	for target, l := range linksByTarget(t, s, "guide") {
		got[target] = l.Status + " " + l.Address
	}
	want := map[string]string{
		"/engine/install/":                         "resolved manuals/engine/install",
		"/manuals/engine/install/_index.md#ubuntu": "resolved manuals/engine/install#ubuntu",
		"/manuals/nope.md":                         "broken ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
}
