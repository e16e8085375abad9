package fulltext

import (
	"testing"
)

// TestMenusIsMenu: the chain makes a word ending in "us" one term with
// the word without its "s", and "cookies" one with "cookie", in passages
// and queries alike, so "menu" finds a page about its menus.
func TestMenusIsMenu(t *testing.T) {
	x := indexed(t, []Passage{{ID: "a#x", Text: "Define the main menus of the site."}, {ID: "b#y", Text: "The status of the build."},
		{ID: "c#z", Text: "Set a cookie."}})
	for _, q := range []string{"menu", "status", "cookies"} {
		got, _, err := x.Search(t.Context(), q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 {
			t.Errorf("%q: %d matches, want 1: %v", q, len(got), got)
		}
	}
}

// TestFiltersOnlyOfThisChain: pair filters are made with this build's
// chain (Pairs); an index analyzed by another (a store indexed before
// PluralName, which keeps stemmer_en_plural) reads none of them, so that
// no bound rests on terms its queries do not have.
func TestFiltersOnlyOfThisChain(t *testing.T) {
	ps := []Passage{{ID: "a#x", Text: "the main menus of the site and the main menus of the docs"}}
	for range 40 {
		ps = append(ps, Passage{ID: "b#" + string(rune('a'+len(ps)%26)) + string(rune('a'+len(ps)/26)), Text: "main page of a site, with menus"})
	}
	x := indexed(t, ps)
	_, rt, cands := retrieved(t, x, "main menus site")
	enc, err := Pairs("a", ps[:1])
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for i := range cands {
		c := &cands[i]
		if id, _ := rt.ID(c); id != "a#x" {
			continue
		}
		if _, ok := rt.FilterBound(c, enc, "#x"); ok == c.Exact {
			t.Errorf("this chain's index: filter read %v, exact %v", ok, c.Exact)
		}
		if !c.Exact {
			read++
		}
		old := *rt.x.fast
		old.us = false
		x.fast = &old
		if _, ok := rt.FilterBound(c, enc, "#x"); ok {
			t.Errorf("an index of stemmer_en_plural's chain read a filter of this build's")
		}
		x.fast.us = true
	}
	if read == 0 {
		t.Fatal("no candidate whose filter is read: the test tests nothing")
	}
}
