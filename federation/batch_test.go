package federation

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

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
