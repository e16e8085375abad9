package federation

import (
	"context"
	"fmt"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
)

// More addresses than `docir serve` takes in one doc_ids call go to an
// HTTP peer in calls of at most docir.MaxBatch, in order, and each address
// keeps its own answer: the peer's documents come back, the rest are
// no_document (not the whole batch unavailable because one call was
// refused), for get and links alike.
func TestHTTPPeerSplitsLargeBatches(t *testing.T) {
	ctx := context.Background()
	team, _, fed := overHTTP(t, "")

	raw := []string{"b"}
	for i := range docir.MaxBatch + 1 {
		raw = append(raw, fmt.Sprintf("nope%d", i))
	}
	raw = append(raw, "b#nope")
	addrs := mustParseAll(t, raw...)
	res, err := docir.Get(ctx, fed, addrs, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Documents) != 1 || res.Documents[0].Address != "b" || res.Documents[0].Store != "team" || len(res.Warnings) != 0 {
		t.Fatalf("documents %+v, warnings %q; want b from team and no warning", res.Documents, res.Warnings)
	}
	if len(res.Missing) != len(raw)-1 || res.Missing[0].Address != "nope0" || res.Missing[0].Reason != docir.ReasonNoDocument ||
		!cmp.Equal(res.Missing[len(res.Missing)-1], docir.Missing{Address: "b#nope", Reason: docir.ReasonNoSection}) {
		t.Errorf("missing: %d, first %+v, last %+v", len(res.Missing), res.Missing[0], res.Missing[len(res.Missing)-1])
	}
	var sizes []int
	for _, c := range team.calls() {
		sizes = append(sizes, len(c))
	}
	if diff := cmp.Diff([]int{docir.MaxBatch, 3}, sizes); diff != "" {
		t.Errorf("calls to team by size (-want +got):\n%s", diff)
	}

	links, err := docir.GetLinks(ctx, fed, addrs, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(links.Links) != 1 || links.Links[0].Address != "b" || len(links.Missing) != len(raw)-1 || len(links.Warnings) != 0 {
		t.Errorf("links: %d sets, %d missing, warnings %q", len(links.Links), len(links.Missing), links.Warnings)
	}
}

// A run of MaxBatch long addresses would pass the peer's frame bound
// (64 KiB of request, which it refuses whole as frame_too_large, every
// address then unavailable): runs are cut by the bytes of their addresses
// too, and the peer's document still comes back.
func TestHTTPPeerSplitsLongAddresses(t *testing.T) {
	ctx := context.Background()
	team, _, fed := overHTTP(t, "")
	raw := []string{"b"}
	pad := strings.Repeat("x", 60)
	for i := range docir.MaxBatch {
		raw = append(raw, fmt.Sprintf("docs/%s-%d", pad, i))
	}
	res, err := docir.Get(ctx, fed, mustParseAll(t, raw...), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Documents) != 1 || len(res.Warnings) != 0 {
		t.Fatalf("documents %d, warnings %q; want b from team and no warning", len(res.Documents), res.Warnings)
	}
	calls := team.calls()
	if len(calls) < 2 {
		t.Errorf("%d calls to team; want the run cut by its bytes", len(calls))
	}
}

// A run whose reply passes the peer's reply bound is asked again in
// halves, down to one address; each address keeps its own answer, in
// order, and an address that alone is too large is answered unavailable,
// with a warning that says why, while the others keep theirs. (It failed
// the whole run, and every address of it was unavailable.)
func TestInBatchesHalvesTooLargeReplies(t *testing.T) {
	addrs := mustParseAll(t, "a", "b", "c", "d", "e")
	var asked []int
	ask := func(tooLarge func([]address.Address) bool) func([]address.Address) ([]string, []string, error) {
		return func(batch []address.Address) ([]string, []string, error) {
			asked = append(asked, len(batch))
			if tooLarge(batch) {
				return nil, nil, docir.Errorf(docir.CodeReplyTooLarge, "too large")
			}
			return addrStrings(batch), []string{"w"}, nil
		}
	}
	got, warnings, err := inBatches(addrs, ask(func(b []address.Address) bool { return len(b) > 2 }), "-")
	if err != nil || !cmp.Equal(got, []string{"a", "b", "c", "d", "e"}) || !cmp.Equal(warnings, []string{"w"}) {
		t.Errorf("halves: %v, %q, %v", got, warnings, err)
	}
	if want := []int{5, 2, 3, 1, 2}; !cmp.Equal(asked, want) {
		t.Errorf("runs asked %v; want %v", asked, want)
	}

	asked = nil
	withC := func(b []address.Address) bool { return slices.Contains(b, address.MustParse("c")) }
	got, warnings, err = inBatches(addrs, ask(withC), "-")
	if err != nil || !cmp.Equal(got, []string{"a", "b", "-", "d", "e"}) ||
		!cmp.Equal(warnings, []string{"w", "c: unavailable: its reply alone is too large: too large"}) {
		t.Errorf("c alone too large: %v, %q, %v", got, warnings, err)
	}
	if want := []int{5, 2, 3, 1, 2}; !cmp.Equal(asked, want) {
		t.Errorf("runs asked %v; want %v", asked, want)
	}
}

// A document over the peer's own reply bound (1 MiB) is unavailable, with
// the peer's reason in a warning, and the documents asked beside it come
// back: before, the one-address run's error failed the peer, and every
// address it was asked, b too, was unavailable. Deep reads and links
// alike.
func TestHTTPPeerOneDocumentTooLarge(t *testing.T) {
	ctx := context.Background()
	files := maps.Clone(teamFiles)
	files["big.md"] = "# Big\n\n" + strings.Repeat("many words of text\n", 70_000)
	var hub strings.Builder // a page of links whose link set is over 1 MiB
	hub.WriteString("# Hub\n\n")
	for i := range 20_000 {
		fmt.Fprintf(&hub, "<https://example.com/%d>\n", i)
	}
	files["hub.md"] = hub.String()
	team := openLocal(t, makeStore(t, files))
	srv := httptest.NewServer(rpcServer(team, ""))
	defer srv.Close()
	fed := New(Config{Local: openLocal(t, makeStore(t, localFiles)), Peers: []*Peer{httpPeerOf(t, "team", srv.URL, "", 0)}})
	defer fed.Close()

	res, err := docir.Get(ctx, fed, mustParseAll(t, "a", "b", "big", "zz"), 0)
	if err != nil {
		t.Fatal(err)
	}
	docs, missing := summarize(res)
	if diff := cmp.Diff([]docSummary{{"a", "local", "A in local"}, {"b", "team", "B in team"}}, docs); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]docir.Missing{{Address: "big", Reason: "unavailable"}, {Address: "zz", Reason: "no_document"}}, missing); diff != "" {
		t.Errorf("missing (-want +got):\n%s", diff)
	}
	if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], "peer team reports: big: unavailable: its reply alone is too large: ") ||
		!strings.Contains(res.Warnings[0], "(reply_too_large)") {
		t.Errorf("warnings %q", res.Warnings)
	}

	links, err := docir.GetLinks(ctx, fed, mustParseAll(t, "b", "hub"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(links.Links) != 1 || links.Links[0].Address != "b" || links.Links[0].Store != "team" ||
		cmp.Diff([]docir.Missing{{Address: "hub", Reason: "unavailable"}}, links.Missing) != "" || len(links.Warnings) != 1 {
		t.Errorf("links: %d sets; missing %+v; warnings %q", len(links.Links), links.Missing, links.Warnings)
	}
}
