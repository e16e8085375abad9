package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/store"
)

// linksService indexes docs (file name to text) and returns its service.
func linksService(t *testing.T, docs map[string]string) *Service {
	t.Helper()
	root := t.TempDir()
	writeDocs(t, root, docs)
	ws := New(Config{Dir: t.TempDir(), Sources: []store.Source{{Path: root}}})
	t.Cleanup(func() { ws.Close() })
	if _, err := ws.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	return ws
}

// parseAll parses addresses, failing the test on a malformed one.
func parseAll(t *testing.T, ss ...string) []address.Address {
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

// TestLinksIncomingStopAtTheBound: the incoming links of a hub page are
// counted as they are read, and the read stops at the first that passes
// the reply bound: no more are gathered than the bound holds (the error
// says how far it got), where it used to gather all of them first.
func TestLinksIncomingStopAtTheBound(t *testing.T) {
	docs := map[string]string{"hub.md": "# Hub\n\n## Sec\n\ntext\n"}
	const pages, per = 20, 700
	for p := range pages {
		var b strings.Builder
		fmt.Fprintf(&b, "# Page %d\n\n", p)
		for i := range per {
			fmt.Fprintf(&b, "[s%d](../hub.md#sec) ", i)
		}
		docs[fmt.Sprintf("p/page%02d.md", p)] = b.String()
	}
	ws := linksService(t, docs)
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

// TestCheckStopsAtItsBound: a check counts the links it lists as it
// gathers them and stops with reply_too_large at its bound (docir serve's
// reply bound unless the caller sets another), where it used to list
// every broken link and leave the reply to be refused once encoded.
func TestCheckStopsAtItsBound(t *testing.T) {
	docs := map[string]string{"hub.md": "# Hub\n"}
	const pages, per = 10, 1000
	for p := range pages {
		var b strings.Builder
		fmt.Fprintf(&b, "# Page %d\n\n", p)
		for i := range per {
			fmt.Fprintf(&b, "[x%d](../hub.md#x%d) ", i, i)
		}
		docs[fmt.Sprintf("p/page%02d.md", p)] = b.String()
	}
	ws := linksService(t, docs)
	ctx := context.Background()
	all, err := ws.Check(ctx, docir.CheckParams{MaxBytes: -1})
	if err != nil || len(all.Broken) != pages*per {
		t.Fatalf("unbounded check: %d broken, %v; want %d", len(all.Broken), err, pages*per)
	}
	for _, bound := range []int{0, 100_000} {
		_, err := ws.Check(ctx, docir.CheckParams{MaxBytes: bound})
		if docir.CodeOf(err) != docir.CodeReplyTooLarge {
			t.Fatalf("check within %d bytes: %v; want reply_too_large", bound, err)
		}
		var max, got, total int
		if _, e := fmt.Sscanf(err.Error(), "check: the links listed pass the %d-byte reply bound after %d of %d broken links", &max, &got, &total); e != nil {
			t.Fatalf("the error does not say how far the check got: %v", err)
		}
		want := bound
		if want == 0 {
			want = wire.MaxReplyBytes
		}
		if max != want || total != pages*per || got*64 > want+64 || got == 0 {
			t.Errorf("stopped after %d of %d links at a %d-byte bound; want the bound %d passed with at most %d", got, total, max, want, want/64+1)
		}
	}
	// A check that fits is answered whole.
	few := linksService(t, map[string]string{"a.md": "# A\n\n[b](b.md) [c](a.md#c)\n"})
	res, err := few.Check(ctx, docir.CheckParams{})
	if err != nil || len(res.Broken) != 2 {
		t.Fatalf("a small check: %+v, %v", res, err)
	}
}
