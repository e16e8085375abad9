package federation

import (
	"context"
	"fmt"
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
// order, and an address that alone is too large fails the run as before.
func TestInBatchesHalvesTooLargeReplies(t *testing.T) {
	addrs := mustParseAll(t, "a", "b", "c", "d", "e")
	var asked []int
	ask := func(limit int) func([]address.Address) ([]string, []string, error) {
		return func(batch []address.Address) ([]string, []string, error) {
			asked = append(asked, len(batch))
			if len(batch) > limit {
				return nil, nil, docir.Errorf(docir.CodeReplyTooLarge, "too large")
			}
			return addrStrings(batch), []string{"w"}, nil
		}
	}
	got, warnings, err := inBatches(addrs, ask(2))
	if err != nil || !cmp.Equal(got, []string{"a", "b", "c", "d", "e"}) || !cmp.Equal(warnings, []string{"w"}) {
		t.Errorf("halves: %v, %q, %v", got, warnings, err)
	}
	if want := []int{5, 2, 3, 1, 2}; !cmp.Equal(asked, want) {
		t.Errorf("runs asked %v; want %v", asked, want)
	}
	if _, _, err := inBatches(addrs, ask(0)); docir.CodeOf(err) != docir.CodeReplyTooLarge {
		t.Errorf("one address too large: %v; want reply_too_large", err)
	}
}
