package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/ingest"
)

// linksService indexes docs (file name to text) and returns its service.
func linksService(t testing.TB, docs map[string]string) *Service {
	t.Helper()
	return linksServiceWith(t, docs, store.LinkConfig{})
}

// linksServiceWith indexes docs under the link rules and returns its
// service.
func linksServiceWith(t testing.TB, docs map[string]string, rules store.LinkConfig) *Service {
	t.Helper()
	root := t.TempDir()
	writeDocs(t, root, docs)
	ws := New(Config{Dir: t.TempDir(), Sources: []store.Source{{Path: root}}, Ingest: ingest.Options{Links: rules}})
	t.Cleanup(func() { ws.Close() })
	if _, err := ws.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	return ws
}

// parseAll parses addresses, failing the test on a malformed one.
func parseAll(t testing.TB, ss ...string) []address.Address {
	t.Helper()
	out := make([]address.Address, len(ss))
	for i, s := range ss {
		a, err := address.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = a
	}
	return out
}

// TestLinksBundlePageByFileName: links reads a bundle's page by the name
// of its file (a/b/index, c/_index), as get does (TestBundlePageByFileName),
// with the address as asked and the folder's id; a name that is not the
// folder's page file misses.
func TestLinksBundlePageByFileName(t *testing.T) {
	ws := linksService(t, map[string]string{
		"a/b/index.md": "# Bundle\n\nSee [d](../../d.md).\n\n## Rendering\n\nSee [c](../../c/_index.md).\n",
		"c/_index.md":  "# Section\n",
		"d.md":         "# Page\n\nBack to [the bundle](a/b/index.md#rendering).\n",
	})
	type row struct {
		Address, ID, Reason string
		Out, In             int
	}
	want := []row{
		{"a/b/index", "a/b", "", 2, 1},
		{"a/b/index#rendering", "a/b", "", 1, 1},
		{"a/b/_index", "", docir.ReasonNoDocument, 0, 0},
		{"c/_index", "c", "", 0, 1},
		{"c/index", "", docir.ReasonNoDocument, 0, 0},
		{"d/index", "", docir.ReasonNoDocument, 0, 0},
	}
	var addrs []string
	for _, r := range want {
		addrs = append(addrs, r.Address)
	}
	res, err := ws.Links(context.Background(), parseAll(t, addrs...), wire.MaxReplyBytes)
	if err != nil {
		t.Fatal(err)
	}
	var got []row
	for i, it := range res.Items {
		r := row{Address: addrs[i], Reason: it.Reason}
		if s := it.Set; s != nil {
			r.Out, r.In = len(s.Outgoing), len(s.Incoming)
			if r.ID = s.ID; s.Address != addrs[i] {
				t.Errorf("%s: set address %q", addrs[i], s.Address)
			}
		}
		got = append(got, r)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestLinksStopAtTheReplyBound: a links read keeps get's running tally
// (docir.Tally) against the reply bound and stops, with get's
// reply_too_large, at the address whose link set passes it: 1000 copies
// of the address of a page with 3000 links (about 300 KB of link set
// each, 300 MB in all) are read no further than the tally says, instead
// of being gathered whole and refused once encoded.
func TestLinksStopAtTheReplyBound(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Hub\n\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "- [link %d](https://example.com/a/long/path/to/page/%d)\n", i, i)
	}
	ws := linksService(t, map[string]string{"hub.md": b.String()})
	ctx := context.Background()
	one, err := ws.Links(ctx, parseAll(t, "hub"), wire.MaxReplyBytes)
	if err != nil {
		t.Fatal(err)
	}
	set := one.Items[0].Set
	if set == nil || len(set.Outgoing) != 3000 {
		t.Fatalf("one read: %+v", one.Items[0])
	}
	// The tally's estimate is of the order of the set's JSON.
	js, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	probe := docir.Tally{}
	if err := probe.AddLinks(set, 1, 1); err != nil || probe.Bytes < len(js)/2 || probe.Bytes > 2*len(js) {
		t.Fatalf("estimate %d bytes for %d bytes of JSON (%v)", probe.Bytes, len(js), err)
	}
	// How far get's tally lets 1000 copies go, and what it says there.
	const n = 1000
	tally := docir.Tally{Bound: wire.MaxReplyBytes}
	var want error
	read := 0
	for want == nil && read < n {
		read++
		want = tally.AddLinks(set, read, n)
	}
	if want == nil || read > 10 {
		t.Fatalf("the tally stops after %d of %d copies (%v); the test wants a few", read, n, want)
	}
	addrs := make([]string, n)
	for i := range addrs {
		addrs[i] = "hub"
	}
	_, err = ws.Links(ctx, parseAll(t, addrs...), wire.MaxReplyBytes)
	if docir.CodeOf(err) != docir.CodeReplyTooLarge || err.Error() != want.Error() {
		t.Fatalf("links of %d copies: %v; want %v", n, err, want)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("after %d of %d addresses", read, n)) {
		t.Errorf("error does not say how far the read got: %v", err)
	}
}

// TestLinksRepeatedAddressReadOnce: an address asked again is read once:
// its sets share their links (the same backing arrays), each a set of its
// own, so that a caller that relabels one (federation) leaves the other.
func TestLinksRepeatedAddressReadOnce(t *testing.T) {
	ws := linksService(t, map[string]string{
		"a.md": "# A\n\nSee [b](b.md).\n",
		"b.md": "# B\n\nBack to [a](a.md).\n",
	})
	res, err := ws.Links(context.Background(), parseAll(t, "a", "b", "a", "nope", "a"), wire.MaxReplyBytes)
	if err != nil {
		t.Fatal(err)
	}
	first := res.Items[0].Set
	for _, i := range []int{2, 4} {
		s := res.Items[i].Set
		if s == nil || s == first || &s.Outgoing[0] != &first.Outgoing[0] || &s.Incoming[0] != &first.Incoming[0] {
			t.Errorf("item %d: %+v; want a set of its own sharing item 0's links", i, s)
		}
	}
	if s := res.Items[1].Set; s == nil || s.ID != "b" || res.Items[3].Reason != docir.ReasonNoDocument {
		t.Errorf("items 1 and 3: %+v, %+v", res.Items[1], res.Items[3])
	}
}

// TestLinksMissSuggestions: a links miss gets get's suggestions, whatever
// its reason: the nearest ids for a document that is not there, the
// nearest sections for a section the document lacks (links is keyed like
// get, misses and all).
func TestLinksMissSuggestions(t *testing.T) {
	ws := linksService(t, map[string]string{
		"guide.md": "# Guide\n\n## Install\n\ntext\n\n## Upgrade\n\ntext\n",
	})
	addrs := []string{"guide#instal", "gude"}
	links, err := ws.Links(context.Background(), parseAll(t, addrs...), wire.MaxReplyBytes)
	if err != nil {
		t.Fatal(err)
	}
	get, err := ws.Resolve(context.Background(), parseAll(t, addrs...), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range addrs {
		l, g := links.Items[i], get.Items[i]
		if l.Reason != g.Reason || len(g.Suggestions) == 0 || !cmp.Equal(l.Suggestions, g.Suggestions) {
			t.Errorf("%s: links says %s %q, get says %s %q; want the same miss and suggestions", a, l.Reason, l.Suggestions, g.Reason, g.Suggestions)
		}
	}
}

// hubDocs is a hub page with a section, and pages p/pageNN.md that each
// link per times to that section.
func hubDocs(pages, per int) map[string]string {
	docs := map[string]string{"hub.md": "# Hub\n\n## Sec\n\ntext\n"}
	for p := range pages {
		var b strings.Builder
		fmt.Fprintf(&b, "# Page %d\n\n", p)
		for i := range per {
			fmt.Fprintf(&b, "[s%d](../hub.md#sec) ", i)
		}
		docs[fmt.Sprintf("p/page%02d.md", p)] = b.String()
	}
	return docs
}

// TestLinksIncomingStopAtTheBound: the incoming links of a hub page are
// counted as they are read, and the read stops at the first that passes
// the reply bound: no more are gathered than the bound holds (the error
// says how far it got), where it used to gather all of them first.
func TestLinksIncomingStopAtTheBound(t *testing.T) {
	const pages, per = 20, 700
	ws := linksService(t, hubDocs(pages, per))
	ctx := context.Background()
	_, err := ws.Links(ctx, parseAll(t, "hub"), wire.MaxReplyBytes)
	if docir.CodeOf(err) != docir.CodeReplyTooLarge {
		t.Fatalf("links of the hub: %v; want reply_too_large", err)
	}
	var out, in, n int
	msg := err.Error()
	i := strings.Index(msg, "(hub is more than ")
	if i < 0 {
		t.Fatalf("the error does not say how far the read got: %v", err)
	}
	if _, err := fmt.Sscanf(msg[i:], "(hub is more than %d bytes: read stopped at %d outgoing and %d incoming links)", &n, &out, &in); err != nil {
		t.Fatalf("%v: %v", msg, err)
	}
	l := docir.Link{From: "p/page00", Target: "../hub.md#sec", Kind: "inline", Status: docir.LinkResolved, Address: "hub#sec"}
	if most := wire.MaxReplyBytes/docir.LinkBytes(&l) + 1; out != 0 || in > most || in >= pages*per || n <= wire.MaxReplyBytes {
		t.Errorf("stopped at %d outgoing, %d incoming links (%d bytes); want none, at most %d, and the bound passed", out, in, n, most)
	}
	// A page with fewer links than the bound is read as before.
	res, err := ws.Links(ctx, parseAll(t, "p/page00"), wire.MaxReplyBytes)
	if err != nil || res.Items[0].Set == nil || len(res.Items[0].Set.Outgoing) != per {
		t.Fatalf("links of a page: %+v, %v", res.Items, err)
	}
}

// TestLinkBytesIsTheTallys: docir.LinkBytes counts a link as docir.Tally.AddLinks
// does.
func TestLinkBytesIsTheTallys(t *testing.T) {
	ls := []docir.Link{
		{},
		{From: "a#b", Target: "../c.md#d", Kind: "inline", Line: 3, Status: docir.LinkBroken, Reason: "no_section", ResolvesWith: []string{"ignore_case", "mkdocs_anchors"}},
		{From: "a", Target: "https://example.com", Kind: "reference", Status: docir.LinkExternal, URL: "https://example.com/"},
	}
	for _, l := range ls {
		var empty, one docir.Tally
		_ = empty.AddLinks(&docir.LinkSet{}, 1, 1)
		_ = one.AddLinks(&docir.LinkSet{Incoming: []docir.Link{l}}, 1, 1)
		if got, want := docir.LinkBytes(&l), one.Bytes-empty.Bytes; got != want {
			t.Errorf("%+v: LinkBytes %d, the tally counts %d", l, got, want)
		}
	}
}

// TestCheckPagesAtItsBound: a check counts the links it lists as it
// gathers them and ends its page at its bound (docir serve's page bound
// unless the caller sets another), with More where the next page starts;
// the pages, walked, are the whole list once. It used to stop with
// reply_too_large, and before that list every broken link and leave the
// reply to be refused once encoded. A link that alone passes the bound is
// reply_too_large, naming it.
func TestCheckPagesAtItsBound(t *testing.T) {
	docs := map[string]string{"hub.md": "# Hub\n"}
	const pages, per = 10, 1000
	for p := range pages {
		var b strings.Builder
		fmt.Fprintf(&b, "# Page %d\n\n", p)
		for i := range per {
			fmt.Fprintf(&b, "[x%d](../hub.md#x%d) <https://example.com/%d/%d> ", i, i, p, i)
		}
		docs[fmt.Sprintf("p/page%02d.md", p)] = b.String()
	}
	ws := linksService(t, docs)
	ctx := context.Background()
	all, err := ws.Check(ctx, docir.CheckParams{External: true, MaxBytes: -1})
	if err != nil || len(all.Broken) != pages*per || len(all.External) != pages*per || all.More != nil {
		t.Fatalf("unbounded check: %d broken, %d external, more %v, %v; want %d of each", len(all.Broken), len(all.External), all.More, err, pages*per)
	}
	for _, bound := range []int{0, 100_000} {
		walked, n := walkCheck(t, ws, docir.CheckParams{External: true, MaxBytes: bound}, func(res docir.CheckResult) {
			want := bound
			if want == 0 {
				want = wire.MaxPageBytes
			}
			res.Next = strings.Repeat("x", docir.MaxCursorBytes)
			out, _ := wire.EncodeResult(res)
			if len(out) > want {
				t.Errorf("a page of %d+%d links is %d bytes; the bound is %d", len(res.Broken), len(res.External), len(out), want)
			}
		})
		if n < 2 {
			t.Errorf("bound %d: %d pages; want the list cut", bound, n)
		}
		if diff := cmp.Diff(all, walked); diff != "" {
			t.Errorf("bound %d: the pages joined differ from the whole list (-whole +pages):\n%s", bound, diff)
		}
	}
	// A position names the document a page starts in and the link in it,
	// so that the next page starts there without reading those before.
	var mores []docir.PagePos
	walked, n := walkCheck(t, ws, docir.CheckParams{External: true, MaxBytes: -1, Page: docir.Page{Limit: 999}}, func(res docir.CheckResult) {
		if res.More != nil {
			mores = append(mores, *res.More)
		}
	})
	if want := []docir.PagePos{{B: 0, C: 999}, {B: 1, C: 998}}; len(mores) < 2 || mores[0] != want[0] || mores[1] != want[1] {
		t.Errorf("limit 999: pages start at %v; want %v first (document, then link)", mores[:min(2, len(mores))], want)
	}
	if last := mores[len(mores)-1]; last.A != 1 || last.B != 9 {
		t.Errorf("limit 999: the last page starts at %v; want in the external links of document 9", last)
	}
	if want := (2*pages*per + 998) / 999; n != want {
		t.Errorf("limit 999: %d pages; want %d", n, want)
	}
	if diff := cmp.Diff(all, walked); diff != "" {
		t.Errorf("limit 999: the pages joined differ from the whole list (-whole +pages):\n%s", diff)
	}
	_, err = ws.Check(ctx, docir.CheckParams{MaxBytes: 100})
	if docir.CodeOf(err) != docir.CodeReplyTooLarge || !strings.Contains(err.Error(), "the link at p/page00.md:3 (p/page00#page-0) to \"../hub.md#x0\"") {
		t.Errorf("a page too small for one link: %v; want reply_too_large naming it", err)
	}
	// A check that fits is answered whole, without More.
	few := linksService(t, map[string]string{"a.md": "# A\n\n[b](b.md) [c](a.md#c)\n"})
	res, err := few.Check(ctx, docir.CheckParams{})
	if err != nil || len(res.Broken) != 2 || res.More != nil {
		t.Fatalf("a small check: %+v, %v", res, err)
	}
}

// walkCheck reads every page of a check from p's first and returns them
// joined, and how many there were; each page is handed to seen.
func walkCheck(t *testing.T, ws *Service, p docir.CheckParams, seen func(docir.CheckResult)) (docir.CheckResult, int) {
	t.Helper()
	var joined docir.CheckResult
	for n := 1; ; n++ {
		res, err := ws.Check(context.Background(), p)
		if err != nil {
			t.Fatalf("page %d: %v", n, err)
		}
		if len(res.Broken)+len(res.External) == 0 && res.More != nil {
			t.Fatalf("page %d is empty and says more follow", n)
		}
		if seen != nil {
			seen(res)
		}
		if n == 1 {
			joined = res
		} else {
			joined.Broken = append(joined.Broken, res.Broken...)
			joined.External = append(joined.External, res.External...)
		}
		if res.More == nil {
			joined.More = nil
			return joined, n
		}
		if n > 10_000 {
			t.Fatal("the pages do not end")
		}
		p.Page.From = *res.More
	}
}

// TestChangesPages: changes between two generations, walked a page at a
// time (by limit, and by a byte bound), is the unpaged reply: every list in
// its order, no address twice; and the sections of a changed document are
// read only when a page reaches them.
func TestChangesPages(t *testing.T) {
	root := t.TempDir()
	docs := map[string]string{}
	for i := range 30 {
		docs[fmt.Sprintf("d/doc%02d.md", i)] = fmt.Sprintf("# Doc %d\n\n## One\n\nold\n\n## Two\n\nold\n\n## Gone\n\nx\n", i)
	}
	docs["a!b.md"] = "# Odd id\n\n## S\n\nold\n"
	docs["a.md"] = "# A\n\n## S\n\nold\n"
	writeDocs(t, root, docs)
	ws := New(Config{Dir: t.TempDir(), Sources: []store.Source{{Path: root}}})
	t.Cleanup(func() { ws.Close() })
	ctx := context.Background()
	if _, err := ws.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	edit := map[string]string{}
	for i := range 30 {
		switch i % 3 {
		case 0:
			edit[fmt.Sprintf("d/doc%02d.md", i)] = fmt.Sprintf("# Doc %d\n\n## One\n\nnew\n\n## Two\n\nold\n\n## Three\n\nx\n", i)
		case 1:
			edit[fmt.Sprintf("e/new%02d.md", i)] = "# New\n"
		}
	}
	edit["a!b.md"] = "# Odd id\n\n## S\n\nnew\n"
	edit["a.md"] = "# A\n\n## S\n\nnew\n"
	writeDocs(t, root, edit)
	if _, err := ws.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	whole, err := ws.Changes(ctx, docir.ChangesParams{Since: 1, MaxBytes: -1})
	if err != nil || whole.More != nil || len(whole.Sections.Changed) != 12 {
		t.Fatalf("whole: %+v, %v", whole, err)
	}
	for _, l := range []docir.ChangeLists{whole.Documents, whole.Sections} {
		for _, list := range [][]string{l.Added, l.Changed, l.Removed} {
			if !slices.IsSorted(list) {
				t.Errorf("not sorted: %q", list)
			}
		}
	}
	for _, p := range []docir.ChangesParams{
		{Since: 1, MaxBytes: -1, Page: docir.Page{Limit: 1}},
		{Since: 1, MaxBytes: -1, Page: docir.Page{Limit: 7}},
		{Since: 1, MaxBytes: 300},
	} {
		joined := docir.ChangesResult{Since: whole.Since, Until: whole.Until}
		pages := 0
		for {
			res, err := ws.Changes(ctx, p)
			if err != nil {
				t.Fatalf("%+v: page %d: %v", p.Page, pages, err)
			}
			pages++
			for _, l := range []struct{ to, from *docir.ChangeLists }{{&joined.Documents, &res.Documents}, {&joined.Sections, &res.Sections}} {
				l.to.Added = append(l.to.Added, l.from.Added...)
				l.to.Changed = append(l.to.Changed, l.from.Changed...)
				l.to.Removed = append(l.to.Removed, l.from.Removed...)
			}
			if res.More == nil {
				break
			}
			if pages > 1000 {
				t.Fatal("the pages do not end")
			}
			p.Page.From = *res.More
		}
		want := whole
		for _, l := range []*docir.ChangeLists{&joined.Documents, &joined.Sections} {
			for _, list := range []*[]string{&l.Added, &l.Changed, &l.Removed} {
				if *list == nil {
					*list = []string{}
				}
			}
		}
		if diff := cmp.Diff(want, joined); diff != "" {
			t.Errorf("limit %d, bound %d: %d pages joined differ from the whole (-whole +pages):\n%s", p.Page.Limit, p.MaxBytes, pages, diff)
		}
		if p.Page.Limit == 1 && pages != 10+12+3*10+2 { // documents added, changed; sections
			t.Errorf("limit 1: %d pages; want one an address", pages)
		}
	}
}

// TestGetFollowsLinkRules: get (and links) read a section by every anchor
// a link resolves by under the link rules the generation was resolved
// with: with mkdocs_anchors, the anchor MkDocs gives a heading
// (#caret-mark-tilde, which check accepted and get refused), with
// definition_ids a definition term's id, percent-encoded too; each the
// section the link resolved to. A generation resolved without the rules
// reads none of them.
func TestGetFollowsLinkRules(t *testing.T) {
	docs := map[string]string{
		"ext.md": "# Ext\n\n## Caret, Mark & Tilde\n\ntext\n\n## Glossary\n\nRetry budget\n: retries a caller may spend\n\n" +
			"## Café\n\nmore\n",
		"fmt.md": "# Fmt\n\n[caret](ext.md#caret-mark-tilde) [term](ext.md#retry-budget) [cafe](ext.md#cafe)\n",
	}
	anchors := map[string]string{ // asked -> the section's slug
		"caret-mark-tilde":   "caret-mark--tilde",
		"retry-budget":       "glossary",
		"cafe":               "café",
		"caret%2Dmark-tilde": "caret-mark--tilde",
	}
	for _, on := range []bool{false, true} {
		rules := store.LinkConfig{MkDocsAnchors: on, DefinitionIDs: on}
		ws := linksServiceWith(t, docs, rules)
		linked, err := ws.Links(context.Background(), parseAll(t, "fmt"), 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range linked.Items[0].Set.Outgoing {
			if on != (l.Status == docir.LinkResolved) {
				t.Errorf("rules %+v: link %s %s", rules, l.Target, l.Status)
			}
		}
		// In one read too: from its second section on, a document
		// answers from its section index.
		var all []address.Address
		for asked := range anchors {
			all = append(all, parseAll(t, "ext#"+asked)...)
		}
		res, err := ws.Resolve(context.Background(), all, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i, got := range res.Items {
			if slug := anchors[all[i].Heading]; on && (got.Document == nil || got.Document.Section.Slug != slug) {
				t.Errorf("rules on: get %s in one read: %+v, want section %s", all[i], got, slug)
			}
		}
		for asked, slug := range anchors {
			a := parseAll(t, "ext#"+asked)
			res, err := ws.Resolve(context.Background(), a, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := res.Items[0]
			switch {
			case !on && got.Reason != docir.ReasonNoSection:
				t.Errorf("rules off: get ext#%s: %+v, want no_section", asked, got)
			case on && (got.Document == nil || got.Document.Section.Slug != slug):
				t.Errorf("rules on: get ext#%s: %+v, want section %s", asked, got, slug)
			}
			ls, err := ws.Links(context.Background(), a, 0)
			if err != nil {
				t.Fatal(err)
			}
			if found := ls.Items[0].Set != nil; found != on {
				t.Errorf("rules %+v: links ext#%s found %v", rules, asked, found)
			}
		}
	}
}

// TestGetLeadAnchor: get (and links) of an anchor the lead holds (before
// the first heading, with text after it) read the document, as a link to
// it resolves: an HTML id, and with definition_ids a term's id; no
// section, the whole body.
func TestGetLeadAnchor(t *testing.T) {
	body := "<a id=\"top\"></a>\n\nIntro.\n\nLead term\n: a term\n\n# Doc\n\ntext\n"
	docs := map[string]string{"doc.md": body, "b.md": "# B\n\n[top](doc.md#top) [term](doc.md#lead-term)\n"}
	ws := linksServiceWith(t, docs, store.LinkConfig{DefinitionIDs: true})
	linked, err := ws.Links(context.Background(), parseAll(t, "b"), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range linked.Items[0].Set.Outgoing {
		if l.Status != docir.LinkResolved || l.Address != "doc" {
			t.Errorf("link %s: %s %s, want resolved to doc", l.Target, l.Status, l.Address)
		}
	}
	for _, asked := range []string{"doc#top", "doc#lead-term"} {
		res, err := ws.Resolve(context.Background(), parseAll(t, asked), 0)
		if err != nil {
			t.Fatal(err)
		}
		if d := res.Items[0].Document; d == nil || d.Section != nil || d.Body != body {
			t.Errorf("get %s: %+v, want the document", asked, res.Items[0])
		}
		ls, err := ws.Links(context.Background(), parseAll(t, asked), 0)
		if err != nil {
			t.Fatal(err)
		}
		if set := ls.Items[0].Set; set == nil || set.Section != nil || len(set.Incoming) != 2 {
			t.Errorf("links %s: %+v, want the document's", asked, ls.Items[0])
		}
	}
}

// TestNestedHeadingByText: a heading in a block quote (the Rust book's
// asides, "> ### The Stack and the Heap") is an anchor of the section that
// holds it, and its text finds it as a section's does, in get and in a
// link's anchor, in any case, as its slug does.
func TestNestedHeadingByText(t *testing.T) {
	docs := map[string]string{
		"doc.md": "# Doc\n\n## Ownership\n\n> ### The Stack and the Heap\n>\n> Aside.\n\n## Rules\n\ntext\n",
		"b.md":   "# B\n\n[a](doc.md#The-Stack-and-the-Heap) [b](doc.md#the-stack-and-the-heap)\n",
	}
	ws := linksServiceWith(t, docs, store.LinkConfig{})
	for _, asked := range []string{"doc#the-stack-and-the-heap", "doc#The Stack and the Heap", "doc#THE-STACK-AND-THE-HEAP"} {
		res, err := ws.Resolve(context.Background(), parseAll(t, asked), 0)
		if err != nil {
			t.Fatal(err)
		}
		if d := res.Items[0].Document; d == nil || d.Section == nil || d.Section.Slug != "ownership" {
			t.Errorf("get %s: %+v, want doc#ownership", asked, res.Items[0])
		}
	}
	linked, err := ws.Links(context.Background(), parseAll(t, "b"), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range linked.Items[0].Set.Outgoing {
		if l.Status != docir.LinkResolved || l.Address != "doc#ownership" {
			t.Errorf("link %s: %s %s, want resolved to doc#ownership", l.Target, l.Status, l.Address)
		}
	}
}

// BenchmarkGetMissingHeadings gets 1,000 headings that a document of
// 9,000 sections does not have, with the link rules whose anchors get
// tries after its own (definition_ids, mkdocs_anchors): ns/address must
// not grow with the sections (each miss built the document's anchor
// tables again: 21 s for this get, against 0.24 s before the rules were
// tried).
func BenchmarkGetMissingHeadings(b *testing.B) {
	root := b.TempDir()
	var doc strings.Builder
	doc.WriteString("# Big\n\n")
	for i := range 9000 {
		fmt.Fprintf(&doc, "## Heading %d\n\nText %d.\n\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(root, "big.md"), []byte(doc.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	rules := store.LinkConfig{MkDocsAnchors: true, DefinitionIDs: true}
	ws := New(Config{Dir: b.TempDir(), Sources: []store.Source{{Path: root}}, Ingest: ingest.Options{Links: rules}})
	b.Cleanup(func() { ws.Close() })
	if _, err := ws.Refresh(context.Background()); err != nil {
		b.Fatal(err)
	}
	var addrs []address.Address
	for i := range 1000 {
		a, err := address.Parse(fmt.Sprintf("big#missing-%d", i))
		if err != nil {
			b.Fatal(err)
		}
		addrs = append(addrs, a)
	}
	for b.Loop() {
		res, err := docir.Get(context.Background(), ws, addrs, 0)
		if err != nil || len(res.Missing) != len(addrs) {
			b.Fatalf("get: %v, %d missing", err, len(res.Missing))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(addrs)), "ns/address")
}

// TestChangesLead: an edit of a document's lead (the text before its first
// heading) lists the document's own address among the changed sections,
// the address that reads it; an edit of its front matter alone lists none.
func TestChangesLead(t *testing.T) {
	root := t.TempDir()
	writeDocs(t, root, map[string]string{
		"lead.md": "---\ntitle: Lead\n---\nThe opening paragraph.\n\n## Usage\n\nx\n",
		"fm.md":   "---\ntitle: FM\nweight: 1\n---\nSame.\n\n## Usage\n\nx\n",
	})
	ws := New(Config{Dir: t.TempDir(), Sources: []store.Source{{Path: root}}})
	t.Cleanup(func() { ws.Close() })
	ctx := context.Background()
	if _, err := ws.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	writeDocs(t, root, map[string]string{
		"lead.md": "---\ntitle: Lead\n---\nThe opening paragraph, edited.\n\n## Usage\n\nx\n",
		"fm.md":   "---\ntitle: FM\nweight: 2\n---\nSame.\n\n## Usage\n\nx\n",
	})
	if _, err := ws.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := ws.Changes(ctx, docir.ChangesParams{Since: 1, MaxBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"fm", "lead"}, res.Documents.Changed); diff != "" {
		t.Errorf("documents changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"lead"}, res.Sections.Changed); diff != "" {
		t.Errorf("sections changed (-want +got):\n%s", diff)
	}
}

// BenchmarkLinksEveryPage reads the links of every page of the Hugo docs
// in one read, the store made without link rules (so that every broken
// link's set is filled with the rules it would resolve with): the rules'
// index of files by name and their 1,023 sets are the snapshot's, made
// once, not once a page: 1.55 s an op before, 0.22 s (the CLI's `docir
// links -` of the 993 ids, one process: 1.36 s, 0.28 s).
func BenchmarkLinksEveryPage(b *testing.B) {
	dir := corpustest.Unpack(b, corpustest.HugoDocs)
	ws := New(Config{Dir: b.TempDir(), Sources: []store.Source{{Path: filepath.Join(dir, "hugo-docs")}}})
	b.Cleanup(func() { ws.Close() })
	if _, err := ws.Refresh(context.Background()); err != nil {
		b.Fatal(err)
	}
	res, err := ws.Query(context.Background(), docir.QueryParams{Expr: "id:*", Limit: 1000})
	if err != nil || len(res.Hits) < 900 {
		b.Fatalf("query: %d hits, %v", len(res.Hits), err)
	}
	var addrs []address.Address
	for _, h := range res.Hits {
		a, err := address.Parse(h.ID)
		if err != nil {
			b.Fatal(err)
		}
		addrs = append(addrs, a)
	}
	for b.Loop() {
		if _, err := ws.Links(context.Background(), addrs, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLinksHeld: the links a set gathers come back whole and in order,
// past a chunk's length and below it, equal to what was added (their
// strings shared, not changed), and an empty set is an empty list.
func TestLinksHeld(t *testing.T) {
	for _, n := range []int{0, 1, linkChunk - 1, linkChunk, linkChunk + 1, 3*linkChunk + 7} {
		var h linksHeld
		var want []docir.Link
		for i := range n {
			l := docir.Link{From: fmt.Sprintf("p/page%d#s", i%3), Line: i, Target: "../hub.md#sec", Kind: "inline", Status: docir.LinkResolved, Address: "hub#sec"}
			want = append(want, l)
			h.add(l)
		}
		got := h.all()
		if got == nil {
			t.Errorf("%d links: nil; want a list", n)
		}
		if n > 0 {
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%d links: (-added +all):\n%s", n, d)
			}
		} else if len(got) != 0 {
			t.Errorf("no links: %d back", len(got))
		}
		if again := h.all(); again == nil || len(again) != 0 {
			t.Errorf("%d links: a second all() = %d links; want an empty list", n, len(again))
		}
	}
}

// BenchmarkLinksHub reads the links of a page that 40,000 links lead to
// (20 pages of 2,000), with no bound: the set gathered in chunks with its
// strings shared, not grown by append with each link's own copies.
func BenchmarkLinksHub(b *testing.B) {
	ws := linksService(b, hubDocs(20, 2000))
	addrs := parseAll(b, "hub")
	b.ReportAllocs()
	for b.Loop() {
		res, err := ws.Links(context.Background(), addrs, 0)
		if err != nil || len(res.Items[0].Set.Incoming) != 40000 {
			b.Fatalf("links of the hub: %v", err)
		}
	}
}
