package main

import (
	"encoding/json"
	"testing"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// TestResolvesWithValues: every value a broken link's resolves_with may
// hold (each link rule check names, and a site base, docir.BaseRule)
// passes the check and links result schemas, and a value that is neither
// does not: a client that checks replies must not refuse what a check of
// a VitePress or Hugo site or of a site served below /docs/ sends.
func TestResolvesWithValues(t *testing.T) {
	values := []string{
		docir.LinkRuleDefinitionIDs, docir.LinkRuleIgnoreCase, docir.LinkRuleMkDocsAnchors, docir.LinkRuleRootFallback,
		store.LinkRuleDirectoryURLs, store.LinkRuleVitePressAnchors, store.LinkRuleHugoAliases, store.LinkRuleBlackfridayAnchors, store.LinkRuleMDNAnchors,
		docir.BaseRule("/docs/"), docir.BaseRule("/a/b/"),
	}
	check, links := compiled(t, "docir.check.result.json"), compiled(t, "docir.links.result.json")
	reply := func(rw []string) (checkRaw, linksRaw []byte) {
		l := docir.Link{From: "a#a", Line: 1, Target: "/docs/x.md", Kind: docir.LinkInline, Status: docir.LinkBroken, Reason: docir.ReasonNoDocument, ResolvesWith: rw}
		c, err := json.Marshal(docir.CheckResult{Broken: []docir.CheckedLink{{Link: l, Path: "a.md"}}, External: nil})
		if err != nil {
			t.Fatal(err)
		}
		ls, err := json.Marshal(docir.LinkResult{Links: docir.LinkSet{Address: "a", ID: "a", Path: "a.md", Store: "local", Outgoing: []docir.Link{l}, Incoming: []docir.Link{}}})
		if err != nil {
			t.Fatal(err)
		}
		return c, ls
	}
	for _, v := range values {
		c, l := reply([]string{v})
		if err := validate(check, c); err != nil {
			t.Errorf("check result with resolves_with %q: %v", v, err)
		}
		if err := validate(links, l); err != nil {
			t.Errorf("links result with resolves_with %q: %v", v, err)
		}
	}
	for _, v := range []string{"links.nope", "links.base", "links.base: docs/"} {
		c, l := reply([]string{v})
		if validate(check, c) == nil || validate(links, l) == nil {
			t.Errorf("resolves_with %q passes the schemas", v)
		}
	}
}
