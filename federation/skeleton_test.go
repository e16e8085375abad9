package federation

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/workspace/rank"
)

func TestRRF(t *testing.T) {
	type got struct {
		Key         string
		Store, Rank int
	}
	tests := []struct {
		name  string
		lists [][]string
		want  []got
	}{
		{"one store keeps its order", [][]string{{"x", "y", "z"}}, []got{{"x", 0, 0}, {"y", 0, 1}, {"z", 0, 2}}},
		// y: 1/62+1/61 beats x: 1/61; w (1/62) beats z (1/63); y is
		// shown as its nearest store (0) has it.
		{"shared id rises", [][]string{{"x", "y", "z"}, {"y", "w"}, nil}, []got{{"y", 0, 1}, {"x", 0, 0}, {"w", 1, 1}, {"z", 0, 2}}},
		{"ties keep store order", [][]string{{"a"}, {"b"}, {"c"}}, []got{{"a", 0, 0}, {"b", 1, 0}, {"c", 2, 0}}},
		{"interleaves by rank", [][]string{{"a1", "a2"}, {"b1", "b2"}}, []got{{"a1", 0, 0}, {"b1", 1, 0}, {"a2", 0, 1}, {"b2", 1, 1}}},
		{"failed store", [][]string{nil, {"b"}}, []got{{"b", 1, 0}}},
		{"nothing", nil, []got{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := []got{}
			for _, p := range rrf(tt.lists) {
				out = append(out, got{p.key, p.store, p.rank})
			}
			if diff := cmp.Diff(tt.want, out); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	p := rrf([][]string{{"x", "y"}, {"y"}})
	if want := 1.0/62 + 1.0/61; p[0].key != "y" || math.Abs(p[0].score-want) > 1e-15 {
		t.Errorf("y scored %v, want %v", p[0].score, want)
	}
}

func TestSearchAcrossStores(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	res, err := f.fed.Search(ctx, docir.SearchParams{Query: "retry budget"})
	if err != nil {
		t.Fatal(err)
	}
	type hit struct{ ID, Store, MatchedSection string }
	var got []hit
	for _, h := range res.Hits {
		got = append(got, hit{h.ID, h.Store, h.MatchedSection})
		if h.Score != 1.0/61 {
			t.Errorf("%s: score %v, want the fused 1/61", h.ID, h.Score)
		}
	}
	// Each store's first hit scores 1/61: ties keep store order.
	want := []hit{{"a", "local", "a#a-in-local"}, {"b", "team", "b#b-in-team"}, {"c", "archive", "c#sec"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hits (-want +got):\n%s", diff)
	}
	wantStores := []docir.StoreStatus{{Store: "local", Status: "ok"}, {Store: "team", Status: "ok"}, {Store: "archive", Status: "ok"}}
	if diff := cmp.Diff(wantStores, res.Stores); diff != "" {
		t.Errorf("stores (-want +got):\n%s", diff)
	}
	if res.Total != 3 || res.Query != "retry budget" || len(res.Warnings) != 0 {
		t.Errorf("total %d, query %q, warnings %q", res.Total, res.Query, res.Warnings)
	}

	// "intro" matches a in local and in team: one hit, local's, with both
	// stores' shares of the score.
	res, err = f.fed.Search(ctx, docir.SearchParams{Query: "intro", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].Store != "local" || res.Hits[0].MatchedSection != "a#intro" || res.Hits[0].Score != 2.0/61 || res.Total != 1 {
		t.Errorf("intro: %+v total %d", res.Hits, res.Total)
	}

	// The limit applies to the merge.
	res, err = f.fed.Search(ctx, docir.SearchParams{Query: "retry budget", Limit: 2})
	if err != nil || len(res.Hits) != 2 || res.Total != 3 {
		t.Errorf("limit 2: %d hits, total %d, %v", len(res.Hits), res.Total, err)
	}

	// A query with no word to rank: the local store's warning as it says
	// it, once, though every store says it.
	res, err = f.fed.Search(ctx, docir.SearchParams{Query: "+="})
	if err != nil || len(res.Hits) != 0 {
		t.Fatalf("+=: %d hits, %v", len(res.Hits), err)
	}
	if diff := cmp.Diff([]string{rank.NoWords("+=")}, res.Warnings); diff != "" {
		t.Errorf("+=: warnings (-want +got):\n%s", diff)
	}

	// A request the local store refuses is the caller's error.
	for _, p := range []docir.SearchParams{{Query: "  "}, {Query: "x", Limit: -1}, {Query: "x", Limit: docir.MaxLimit + 1}} {
		if _, err := f.fed.Search(ctx, p); docir.CodeOf(err) != docir.CodeInvalidParams {
			t.Errorf("%+v: %v, want invalid_params", p, err)
		}
	}
}

func TestSearchPeerFailures(t *testing.T) {
	ctx := context.Background()
	junk := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"query":"q","hits":[{"id":"x","matched_section":"y#z"}],"total":1}}`))
	}))
	defer junk.Close()
	f := newFixture(t)
	if err := os.RemoveAll(f.archiveDir); err != nil {
		t.Fatal(err)
	}
	f.fed.peers = append(f.fed.peers, httpPeerOf(t, "junk", junk.URL, "", 0))
	res, err := f.fed.Search(ctx, docir.SearchParams{Query: "retry budget"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2 || res.Hits[0].Store != "local" || res.Hits[1].Store != "team" {
		t.Errorf("hits %+v", res.Hits)
	}
	if res.Stores[2].Status != "failed" || !strings.Contains(res.Stores[2].Error, "does not exist") {
		t.Errorf("archive %+v", res.Stores[2])
	}
	if res.Stores[3].Status != "failed" || res.Stores[3].Error != `answered garbage: hit 0: matched_section "y#z" is not an address of document "x"` {
		t.Errorf("junk %+v", res.Stores[3])
	}
	if len(res.Warnings) != 2 || !strings.HasPrefix(res.Warnings[0], "peer archive: ") || !strings.HasSuffix(res.Warnings[1], "; its hits are left out") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

func TestQueryAcrossStores(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	ids := func(res docir.SearchResult) (out []string) {
		for _, h := range res.Hits {
			out = append(out, h.ID+"@"+h.Store)
		}
		return out
	}
	tests := []struct {
		p     docir.QueryParams
		want  []string
		total int
	}{
		// local: a d; team: a b; archive: a b c d.
		{docir.QueryParams{Expr: "title:*in*"}, []string{"a@local", "b@team", "c@archive", "d@local"}, 4},
		{docir.QueryParams{Expr: "title:*in*", Sort: "-title"}, []string{"d@local", "c@archive", "b@team", "a@local"}, 4},
		// Each store returns its first two (local a d, team a b, archive
		// a b): 8 matches, 6 returned, 3 distinct -> the estimate 5.
		{docir.QueryParams{Expr: "title:*in*", Limit: 2}, []string{"a@local", "b@team"}, 5},
		// size is not on a hit: rank by rank, nearest store first.
		// By size, local is [a d], team [b a], archive [c d a b].
		{docir.QueryParams{Expr: "title:*in*", Sort: "-size"}, []string{"a@local", "b@team", "c@archive", "d@local"}, 4},
	}
	for _, tt := range tests {
		res, err := f.fed.Query(ctx, tt.p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, ids(res)); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tt.p, diff)
		}
		if res.Total != tt.total {
			t.Errorf("%+v: total %d, want %d", tt.p, res.Total, tt.total)
		}
		for _, h := range res.Hits {
			if h.Score != 1 {
				t.Errorf("%+v: %s scored %v, want a filter's 1", tt.p, h.ID, h.Score)
			}
		}
	}
	f.local.other, f.team.other = 0, 0
	if _, err := f.fed.Query(ctx, docir.QueryParams{Expr: `title:"x`}); docir.CodeOf(err) != docir.CodeInvalidQuery {
		t.Errorf("bad expression: %v", err)
	}
	if f.local.other+f.team.other != 0 {
		t.Errorf("a store was asked for a bad expression")
	}
}

func TestContextAcrossStores(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	res, err := f.fed.Context(ctx, docir.ContextParams{Query: "retry budget"})
	if err != nil {
		t.Fatal(err)
	}
	var hits []string
	for _, h := range res.Hits {
		hits = append(hits, h.ID+"@"+h.Store)
		if len(h.Outline) == 0 && h.ID != "b" {
			t.Errorf("%s: no outline", h.ID)
		}
	}
	if diff := cmp.Diff([]string{"a@local", "b@team", "c@archive"}, hits); diff != "" {
		t.Errorf("hits (-want +got):\n%s", diff)
	}
	// Small documents are read whole; every address reads back from the
	// store whose hit it came with.
	if diff := cmp.Diff([]string{"a", "b", "c"}, res.Addresses); diff != "" {
		t.Errorf("addresses (-want +got):\n%s", diff)
	}
	wantTokens := 0
	for _, h := range res.Hits {
		wantTokens += h.Tokens
	}
	if res.Tokens != wantTokens || res.Budget != docir.DefaultBudget || res.Generation != 1 {
		t.Errorf("tokens %d (want %d), budget %d, generation %d", res.Tokens, wantTokens, res.Budget, res.Generation)
	}
	got, err := docir.Get(ctx, f.fed, mustParseAll(t, res.Addresses...), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range got.Documents {
		if d.Store != res.Hits[i].Store {
			t.Errorf("%s read from %s, ranked from %s", d.Address, d.Store, res.Hits[i].Store)
		}
	}

	// A budget that fits only the first document: read by its matched
	// section, since a document is short (read whole) at a quarter of the
	// budget at most.
	res, err = f.fed.Context(ctx, docir.ContextParams{Query: "retry budget", Budget: res.Hits[0].Tokens})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a#a-in-local"}, res.Addresses); diff != "" || res.Tokens > res.Budget {
		t.Errorf("small budget: tokens %d of %d (-want +got):\n%s", res.Tokens, res.Budget, diff)
	}
}
