package ingest

import (
	"testing"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// writeVitePressFixture writes a small VitePress site: headings whose
// VitePress anchors are not their GitHub slugs (punctuation, a code span,
// a badge in HTML, a leading digit, repeats), and a page that links them
// as the Vite docs do.
func writeVitePressFixture(t *testing.T, src string) {
	t.Helper()
	writeFile(t, src, "guide/index.md", "# Getting Started\n\n## `index.html` and Project Root\n\n"+
		"## Examples\n\n## Examples\n\n## Examples\n")
	writeFile(t, src, "config/server-options.md", "# Server Options\n\n## server.open\n\n"+
		"## server.host <Badge text=\"dev\" />\n\n## 1st step\n\n## Server Open\n")
	writeFile(t, src, "blog/post.md", "# Post\n\n"+
		"[a](/guide/#index-html-and-project-root) [b](../config/server-options.md#server-open)\n\n"+
		"[c](/config/server-options#server-host) [d](/config/server-options.html#_1st-step)\n\n"+
		"[e](/guide/#examples-2) [f](/config/server-options#Server.Open) [g](/config/server-options#server-open-1)\n\n"+
		"[h](/config/server-options#server-close) [i](/guide/#examples-3)\n")
}

// TestVitePressAnchors: with links.vitepress_anchors an anchor names the
// section VitePress gives it (as written, or slugified as VitePress 2
// slugifies a link's anchor; repeats by "-1", "-2") before any slug, and
// get reads that section (LinkRuleSections); without the rule such links
// are broken and name the rule they resolve with, or lead to the section
// whose GitHub slug the anchor is.
func TestVitePressAnchors(t *testing.T) {
	src := t.TempDir()
	writeVitePressFixture(t, src)
	want := []ruleWant{ // the address without and with the rule
		{"/guide/#index-html-and-project-root", broken, "guide#indexhtml-and-project-root"},
		{"../config/server-options.md#server-open", "config/server-options#server-open", "config/server-options#serveropen"},
		{"/config/server-options#server-host", broken, "config/server-options#serverhost-"},
		{"/config/server-options.html#_1st-step", broken, "config/server-options#1st-step"},
		{"/guide/#examples-2", "guide#examples-2", "guide#examples-2"},
		{"/config/server-options#Server.Open", "config/server-options#serveropen", "config/server-options#serveropen"},
		{"/config/server-options#server-open-1", broken, "config/server-options#server-open"},
		{"/config/server-options#server-close", broken, broken},
		{"/guide/#examples-3", broken, broken},
	}
	rule := ruleOnOff{name: store.LinkRuleVitePressAnchors, set: func(c *store.LinkConfig) { c.VitePressAnchors = true }, reason: docir.ReasonNoSection}
	rule.check(t, src, "blog/post", want, getByRule(rule.name, "config/server-options",
		map[string]string{"server-open-1": "server-open", "_1st-step": "1st-step", "server.host": "serverhost-", "server-host": "serverhost-"}))
}

// getByRule checks what get's heading part finds in document id after
// get's own rules (LinkRuleSections), the rule named rule on or off: for
// each anchor, the section of the slug want gives it when the rule is
// on, and nothing when it is off.
func getByRule(rule, id string, want map[string]string) func(t *testing.T, on bool, snap *store.Snapshot) {
	return func(t *testing.T, on bool, snap *store.Snapshot) {
		t.Helper()
		rec, ok, err := snap.Record(id)
		if err != nil || !ok {
			t.Fatalf("%s: %v, %v", id, ok, err)
		}
		f, err := snap.LinkRuleSections(&rec)
		if err != nil {
			t.Fatal(err)
		}
		for anchor, slug := range want {
			sec, _, found := f.Find(anchor)
			if on && (!found || sec.Slug != slug) || !on && found {
				t.Errorf("%s %v: get %s#%s reads %q (found %v), want %q", rule, on, id, anchor, sec.Slug, found, slug)
			}
		}
	}
}

// TestBlackfridayAnchors: with links.blackfriday_anchors an anchor names
// the section Hugo's blackfriday autoHeadingIDType gives it (every run of
// characters that are no letters or numbers one '-'; repeats by "-1")
// when no slug is it, and get reads that section; without the rule such
// links are broken and name the rule (VitePress' rule resolves two of
// them too, but not "ünï-code": blackfriday's resolves the most).
func TestBlackfridayAnchors(t *testing.T) {
	src := t.TempDir()
	writeFile(t, src, "reference/labels.md", "# Labels\n\n## kubernetes.io/arch\n\n## What's next\n\n## What's next\n\n## Ünï.code\n")
	writeFile(t, src, "concepts/pods.md", "# Pods\n\n"+
		"[a](../reference/labels.md#kubernetes-io-arch) [b](../reference/labels.md#what-s-next-1) [c](../reference/labels.md#kubernetesioarch) [d](../reference/labels.md#nope) [e](../reference/labels.md#ünï-code)\n")
	want := []ruleWant{
		{"../reference/labels.md#kubernetes-io-arch", broken, "reference/labels#kubernetesioarch"},
		{"../reference/labels.md#what-s-next-1", broken, "reference/labels#whats-next-1"},
		{"../reference/labels.md#kubernetesioarch", "reference/labels#kubernetesioarch", "reference/labels#kubernetesioarch"},
		{"../reference/labels.md#nope", broken, broken},
		{"../reference/labels.md#ünï-code", broken, "reference/labels#ünïcode"},
	}
	rule := ruleOnOff{name: store.LinkRuleBlackfridayAnchors, set: func(c *store.LinkConfig) { c.BlackfridayAnchors = true }, reason: docir.ReasonNoSection}
	rule.check(t, src, "concepts/pods", want, getByRule(rule.name, "reference/labels", map[string]string{"kubernetes-io-arch": "kubernetesioarch"}))
}

// TestMDNAnchors: with links.mdn_anchors an anchor names the section MDN
// Web Docs gives it (rari: punctuation dropped, spaces '_', a repeat
// numbered from _2) when no slug is it, and get reads that section;
// without the rule such links are broken and name it. VitePress' rule,
// which reads '_' as '-', would take #result_2 to the third "Result"
// (VitePress' result-2); MDN's takes it to the second. The terms of MDN's
// definition lists (`- term`, `  - : definition`) are anchors too,
// numbered after the headings, of the section that holds them.
func TestMDNAnchors(t *testing.T) {
	src := t.TempDir()
	writeFile(t, src, "web/html/element/th.md", "# th\n\n## Formal syntax\n\n## Examples\n\n### Result\n\n### Result\n\n### Result\n\n## SignificantDigits/FractionDigits default values\n")
	writeFile(t, src, "web/html/element/input.md", "---\ntitle: input\n---\nLead.\n\n- `type`\n  - : The type, in the lead.\n\n## Attributes\n\n- `value` {{optional_inline}}\n  - : The value.\n- [`required`](#x)\n  - : Whether.\n\n## Value\n")
	writeFile(t, src, "web/guide.md", "# Guide\n\n"+
		"[a](html/element/th.md#formal_syntax) [b](html/element/th.md#result_2) [c](html/element/th.md#significantdigitsfractiondigits_default_values) [d](html/element/th.md#result_4) [e](html/element/th.md#formal-syntax) "+
		"[f](html/element/input.md#value_2) [g](html/element/input.md#required) [h](html/element/input.md#type) [i](html/element/input.md#value)\n")
	want := []ruleWant{
		{"html/element/th.md#formal_syntax", broken, "web/html/element/th#formal-syntax"},
		{"html/element/th.md#result_2", broken, "web/html/element/th#result-1"},
		{"html/element/th.md#significantdigitsfractiondigits_default_values", broken, "web/html/element/th#significantdigitsfractiondigits-default-values"},
		{"html/element/th.md#result_4", broken, broken},
		{"html/element/th.md#formal-syntax", "web/html/element/th#formal-syntax", "web/html/element/th#formal-syntax"},
		// A definition list's term, numbered after every heading: the
		// heading Value is #value, the term value #value_2.
		{"html/element/input.md#value_2", broken, "web/html/element/input#attributes"},
		{"html/element/input.md#required", broken, "web/html/element/input#attributes"},
		{"html/element/input.md#type", broken, "web/html/element/input"},
		{"html/element/input.md#value", "web/html/element/input#value", "web/html/element/input#value"},
	}
	rule := ruleOnOff{name: store.LinkRuleMDNAnchors, set: func(c *store.LinkConfig) { c.MDNAnchors = true }, reason: docir.ReasonNoSection}
	rule.check(t, src, "web/guide", want, getByRule(rule.name, "web/html/element/th", map[string]string{"result_2": "result-1"}))
}
