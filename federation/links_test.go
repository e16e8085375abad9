package federation

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
)

// A page of links in each store: local's a links to its own b and to a
// page only the team has; the team's t links to its own u.
var (
	localLinks = map[string]string{
		"a.md": "# A\n\n[b](b.md#usage) and [t](t.md)\n",
		"b.md": "# B\n\n## Usage\n",
	}
	teamLinks = map[string]string{
		"t.md": "# T\n\n[u](u.md) <https://example.com>\n",
		"u.md": "# U\n",
	}
)

// linkSummary is a link set in short: its store and its links' targets and
// where they lead.
type linkSummary struct {
	Address, Store string
	Out, In        []string
}

func summarizeLinks(res docir.LinksResult) []linkSummary {
	var out []linkSummary
	for _, s := range res.Links {
		ls := linkSummary{Address: s.Address, Store: s.Store}
		for _, l := range s.Outgoing {
			ls.Out = append(ls.Out, l.Target+" "+l.Status+" "+l.Address+l.URL+l.Reason)
		}
		for _, l := range s.Incoming {
			ls.In = append(ls.In, l.From+" "+l.Address)
		}
		out = append(out, ls)
	}
	return out
}

// TestLinksPerAddress: links resolves per address like get — local first,
// then each peer once for what is left — and each set is the answering
// store's own: a link resolves within the store that holds its source.
// check and changes are the local store's and never ask a peer.
func TestLinksPerAddress(t *testing.T) {
	ctx := context.Background()
	team := &counting{Reader: openLocal(t, makeStore(t, teamLinks))}
	for _, kind := range []string{KindPath, KindURL} {
		t.Run(kind, func(t *testing.T) {
			var peer *Peer
			switch kind {
			case KindPath:
				peer = NewPeer("team", KindPath, "team", 0, team)
			default:
				srv := httptest.NewServer(rpcServer(team, ""))
				defer srv.Close()
				peer = httpPeerOf(t, "team", srv.URL, "", 0)
			}
			fed := New(Config{Local: openLocal(t, makeStore(t, localLinks)), Peers: []*Peer{peer}})
			defer fed.Close()
			before := len(team.calls())
			res, err := docir.GetLinks(ctx, fed, mustParseAll(t, "a", "b#usage", "t", "zz"), 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			want := []linkSummary{
				{Address: "a", Store: "local", Out: []string{"b.md#usage resolved b#usage", "t.md broken no_document"}},
				{Address: "b#usage", Store: "local", In: []string{"a#a b#usage"}},
				{Address: "t", Store: "team", Out: []string{"u.md resolved u", "https://example.com external https://example.com"}},
			}
			if diff := cmp.Diff(want, summarizeLinks(res)); diff != "" {
				t.Errorf("link sets (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]docir.Missing{{Address: "zz", Reason: docir.ReasonNoDocument}}, res.Missing); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
			if kind == KindPath {
				if diff := cmp.Diff([][]string{{"t", "zz"}}, team.calls()[before:]); diff != "" {
					t.Errorf("the team was asked (-want +got):\n%s", diff)
				}
			}
			one, err := docir.GetLinksOne(ctx, fed, address.MustParse("t"), 1<<20)
			if err != nil || one.Links.Store != "team" {
				t.Errorf("GetLinksOne(t) = %+v, %v", one, err)
			}
			checkLinkPages(t, fed)

			// check and changes: the local store's, no peer asked.
			team.mu.Lock()
			other := team.other
			team.mu.Unlock()
			chk, err := fed.Check(ctx, docir.CheckParams{External: true})
			if err != nil || chk.Counts != (docir.LinkCounts{Resolved: 1, Broken: 1}) || len(chk.Broken) != 1 || chk.Broken[0].Path != "a.md" {
				t.Errorf("check = %+v, %v", chk, err)
			}
			ch, err := fed.Changes(ctx, docir.ChangesParams{Since: 1})
			if err != nil || ch.Since != 1 || ch.Until != 1 {
				t.Errorf("changes = %+v, %v", ch, err)
			}
			team.mu.Lock()
			if team.other != other {
				t.Errorf("check or changes asked the peer")
			}
			team.mu.Unlock()
		})
	}
}

// A peer that fails leaves its addresses unavailable, with a warning, and
// costs nothing of what the local store answered.
func TestLinksPeerFails(t *testing.T) {
	fed := New(Config{Local: openLocal(t, makeStore(t, localLinks)), Peers: []*Peer{pathPeerOf(t, "gone", "/nonexistent/docir-peer")}})
	defer fed.Close()
	res, err := docir.GetLinks(context.Background(), fed, mustParseAll(t, "a", "t"), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Links) != 1 || res.Links[0].Store != "local" || len(res.Missing) != 1 || res.Missing[0].Reason != docir.ReasonUnavailable || len(res.Warnings) != 1 {
		t.Errorf("got %+v", res)
	}
}

// FuzzLinksReply: whatever a peer answers to a doc_ids links read,
// decoding either fails or accounts for every address asked exactly once,
// each set naming the document of its address, each miss's suggestions
// at most maxSuggestions addresses.
func FuzzLinksReply(f *testing.F) {
	for _, s := range []string{
		`{"links":[{"address":"a","id":"a","outgoing":[],"incoming":[]}],"missing":[{"address":"b#c","reason":"no_section"}]}`,
		`{"links":[{"address":"a","id":"z","outgoing":[],"incoming":[]}],"missing":[{"address":"b#c","reason":"no_section"}]}`,
		`{"links":[],"missing":[{"address":"a","reason":"no_document"},{"address":"b#c","reason":"gone"}]}`,
		`{"links":[{"address":"a","id":"a"}],"missing":[]}`, `{}`, `[]`,
		`{"links":[],"missing":[{"address":"a","reason":"no_document","suggestions":["ab","b#c","c","d"]},{"address":"b#c","reason":"no_section","suggestions":["x y"]}]}`,
	} {
		f.Add([]byte(s))
	}
	asked := []address.Address{address.MustParse("a"), address.MustParse("b#c")}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, _, err := decodeLinksResult(raw, asked)
		if err != nil {
			return
		}
		if len(got) != len(asked) {
			t.Fatalf("accounted for %d of %d", len(got), len(asked))
		}
		for i, a := range asked {
			o := got[i]
			if o.Value != nil && (o.Value.Address != a.String() || o.Value.ID != a.ID || o.Value.Outgoing == nil) {
				t.Fatalf("set %+v for %s", o.Value, a)
			}
			if o.Value == nil && o.Reason != docir.ReasonNoDocument && o.Reason != docir.ReasonNoSection && o.Reason != docir.ReasonUnavailable {
				t.Fatalf("reason %q", o.Reason)
			}
			checkSuggestions(t, o.Suggestions)
		}
	})
}

// checkLinkPages: a page of links is the local store's: a local set is
// paged (its More says where the next page starts); a peer's set is read
// whole on a first page with no limit, as Links reads it, and with a limit
// or a cursor the local miss answers, with a warning that says why.
func checkLinkPages(t *testing.T, fed *Reader) {
	t.Helper()
	ctx := context.Background()
	page, err := docir.GetLinksPage(ctx, fed, address.MustParse("a"), docir.Page{Limit: 1}, 1<<20)
	if err != nil || page.Links.Store != "local" || len(page.Links.Outgoing) != 1 || page.Links.More == nil || *page.Links.More != (docir.PagePos{B: 1}) {
		t.Errorf("a page of a's links = %+v, %v", page, err)
	}
	whole, err := docir.GetLinksPage(ctx, fed, address.MustParse("t"), docir.Page{}, 1<<20)
	if err != nil || whole.Links.Store != "team" || len(whole.Links.Outgoing) != 2 || whole.Links.More != nil {
		t.Errorf("the first page of the team's t = %+v, %v", whole, err)
	}
	_, err = docir.GetLinksPage(ctx, fed, address.MustParse("t"), docir.Page{Limit: 1}, 1<<20)
	if docir.CodeOf(err) != docir.CodeNotFound || !strings.Contains(fmt.Sprint(err), "page the local store's links only") {
		t.Errorf("a page of the team's t with a limit: %v; want not_found with a warning", err)
	}
}
