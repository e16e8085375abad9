package workspace

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/store"
	"github.com/docir/docir/workspace/rank"
)

// fixture indexes testdata/corpus into a temporary store.
func fixture(t *testing.T) *Service {
	t.Helper()
	root, err := filepath.Abs("../testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	ws := New(Config{Dir: t.TempDir(), Sources: []store.Source{{Path: root}}})
	t.Cleanup(func() { ws.Close() })
	if _, err := ws.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestSkeletonErrors(t *testing.T) {
	ws := fixture(t)
	ctx := context.Background()
	tests := []struct {
		name string
		call func() error
		code docir.Code
	}{
		{"empty search", func() error { _, err := ws.Search(ctx, docir.SearchParams{Query: "  "}); return err }, docir.CodeInvalidParams},
		{"search limit", func() error { _, err := ws.Search(ctx, docir.SearchParams{Query: "x", Limit: -1}); return err }, docir.CodeInvalidParams},
		{"search limit high", func() error {
			_, err := ws.Search(ctx, docir.SearchParams{Query: "x", Limit: docir.MaxLimit + 1})
			return err
		}, docir.CodeInvalidParams},
		{"long search", func() error {
			_, err := ws.Search(ctx, docir.SearchParams{Query: strings.Repeat("a", docir.MaxQueryBytes+1)})
			return err
		}, docir.CodeInvalidParams},
		{"empty context", func() error { _, err := ws.Context(ctx, docir.ContextParams{}); return err }, docir.CodeInvalidParams},
		{"context budget", func() error {
			_, err := ws.Context(ctx, docir.ContextParams{Query: "x", Budget: -5})
			return err
		}, docir.CodeInvalidParams},
		{"bad expression", func() error { _, err := ws.Query(ctx, docir.QueryParams{Expr: "nope"}); return err }, docir.CodeInvalidQuery},
		{"empty expression", func() error { _, err := ws.Query(ctx, docir.QueryParams{}); return err }, docir.CodeInvalidQuery},
		{"bad sort", func() error { _, err := ws.Query(ctx, docir.QueryParams{Expr: "id:*", Sort: "a b"}); return err }, docir.CodeInvalidQuery},
	}
	for _, tt := range tests {
		if err := tt.call(); docir.CodeOf(err) != tt.code {
			t.Errorf("%s: error %v, want code %s", tt.name, err, tt.code)
		}
	}
}

// TestNoWordsWarns: a query with no word to rank (punctuation and symbols
// alone, exclusions alone, or words it also excludes) matches nothing and says why, in search and
// in context; a query with a word says nothing of the kind, even when
// nothing matches it.
func TestNoWordsWarns(t *testing.T) {
	ws := fixture(t)
	ctx := context.Background()
	for _, tt := range []struct {
		query string
		warns bool
	}{
		{"+=", true},
		{"?? ->", true},
		{`-budget`, true},
		{`-"retry budget"`, true},
		{`""`, true},
		{"retry budget", false},
		{"zzzunheardof", false},
		{"retry -budget", false},
		// Every word it asks for it excludes: none is left to rank.
		{"budget -budget", true},
		{"retry budget -budget -retry", true},
		{"retry budget -budget", false},
	} {
		res, err := ws.Search(ctx, docir.SearchParams{Query: tt.query})
		if err != nil {
			t.Fatalf("%q: %v", tt.query, err)
		}
		want := []string(nil)
		if tt.warns {
			want = []string{rank.NoWords(tt.query)}
			if len(res.Hits) != 0 || res.Total != 0 {
				t.Errorf("%q: %d hits, total %d; want none", tt.query, len(res.Hits), res.Total)
			}
		}
		if d := cmp.Diff(want, res.Warnings); d != "" {
			t.Errorf("search %q: warnings (-want +got):\n%s", tt.query, d)
		}
		cres, err := ws.Context(ctx, docir.ContextParams{Query: tt.query})
		if err != nil {
			t.Fatalf("context %q: %v", tt.query, err)
		}
		if d := cmp.Diff(want, cres.Warnings); d != "" {
			t.Errorf("context %q: warnings (-want +got):\n%s", tt.query, d)
		}
	}
}

// TestSearchHitsResolve: every hit's matched_section is an address get
// reads, and the snippet comes from it.
func TestSearchHitsResolve(t *testing.T) {
	ws := fixture(t)
	ctx := context.Background()
	for _, q := range []string{"generation", "retry budget", "бюджет", "检索", "première lecture", "disk full", "the"} {
		res, err := ws.Search(ctx, docir.SearchParams{Query: q, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Total < len(res.Hits) {
			t.Errorf("%q: %d hits, total %d", q, len(res.Hits), res.Total)
		}
		seen := map[string]bool{}
		for i, h := range res.Hits {
			if seen[h.ID] {
				t.Errorf("%q: %s twice", q, h.ID)
			}
			seen[h.ID] = true
			if i > 0 && h.Score > res.Hits[i-1].Score {
				t.Errorf("%q: hits out of score order", q)
			}
			a, err := address.Parse(h.MatchedSection)
			if err != nil || a.ID != h.ID {
				t.Fatalf("%q: matched_section %q: %v", q, h.MatchedSection, err)
			}
			doc, err := docir.GetOne(ctx, ws, a, 0)
			if err != nil {
				t.Fatalf("%q: get %s: %v", q, a, err)
			}
			if len(h.Snippet) > docir.SnippetMax {
				t.Errorf("%q: snippet of %d bytes", q, len(h.Snippet))
			}
			words := strings.Fields(strings.Trim(h.Snippet, "…"))
			if len(words) > 2 && !strings.Contains(strings.Join(strings.Fields(doc.Body), " "), words[len(words)/2]) {
				t.Errorf("%q: snippet %q is not from %s", q, h.Snippet, a)
			}
		}
	}
}

// checkPlan checks a context reply: within budget, tokens adding up,
// addresses resolving, none overlapping another.
func checkPlan(t *testing.T, ws *Service, res docir.ContextResult) {
	t.Helper()
	ctx := context.Background()
	if res.Tokens > res.Budget {
		t.Errorf("%q: %d tokens over a budget of %d", res.Query, res.Tokens, res.Budget)
	}
	addrs, err := address.ParseAll(res.Addresses)
	if err != nil {
		t.Fatal(err)
	}
	got, err := docir.Get(ctx, ws, addrs, 0)
	if err != nil || len(got.Missing) != 0 {
		t.Fatalf("%q: get addresses: %v %v", res.Query, err, got.Missing)
	}
	sum := 0
	type span struct{ from, to int }
	byDoc := map[string][]span{}
	snap := heldSnapshot(t, ws)
	for i, d := range got.Documents {
		sum += rank.EstimateTokens([]byte(d.Body))
		rec, _, _ := snap.Record(d.ID)
		sp := span{0, int(rec.Size)}
		if addrs[i].HasHeading() {
			sec, _ := rec.FindSection(addrs[i].Heading)
			sp = span{sec.Start, sec.End}
		}
		for _, o := range byDoc[d.ID] {
			if sp.from < o.to && o.from < sp.to {
				t.Errorf("%q: %s overlaps an earlier address of %s", res.Query, addrs[i], d.ID)
			}
		}
		byDoc[d.ID] = append(byDoc[d.ID], sp)
	}
	if sum != res.Tokens {
		t.Errorf("%q: tokens %d, but the addresses read %d", res.Query, res.Tokens, sum)
	}
	for _, h := range res.Hits {
		for _, o := range h.Outline {
			if !strings.HasPrefix(o.Address, h.ID+"#") || o.Level < 1 || o.Tokens < 1 {
				t.Errorf("%q: outline entry %+v", res.Query, o)
			}
		}
	}
}

func TestContextPlan(t *testing.T) {
	ws := fixture(t)
	ctx := context.Background()
	for _, budget := range []int{1, 20, 60, 150, 400, 4000} {
		for _, q := range []string{"generation", "retry budget", "the", "disk full node"} {
			res, err := ws.Context(ctx, docir.ContextParams{Query: q, Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, ws, res)
		}
	}
	// The first address is the top hit's: whole when small, else its
	// matched section.
	res, _ := ws.Context(ctx, docir.ContextParams{Query: "generation", Budget: 4000})
	if res.Addresses[0] != res.Hits[0].ID {
		t.Errorf("small top document not read whole: %v", res.Addresses)
	}
	// With 60 tokens neither small document fits whole (68 and 121), so
	// each one's matched section does (15 and 40).
	res, _ = ws.Context(ctx, docir.ContextParams{Query: "generation", Budget: 60})
	if diff := cmp.Diff([]string{"runbooks/windows-crlf#checks", "runbooks/disk-full#mitigate"}, res.Addresses); diff != "" {
		t.Errorf("tight budget (-want +got):\n%s", diff)
	}
}

// TestContextPlanRFCs checks the plan on long documents with nested
// sections, where matched sections, not documents, fill the budget.
func TestContextPlanRFCs(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: indexes 648 RFCs (-short)")
	}
	root := filepath.Join(corpustest.Unpack(t, corpustest.RustRFCs), "rfcs")
	ws := New(Config{Dir: t.TempDir(), Sources: []store.Source{{Path: root}}})
	defer ws.Close()
	if _, err := ws.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	sections := 0
	for _, q := range []string{"object safety", "borrow checker non-lexical lifetimes", "async fn in traits", "the"} {
		for _, budget := range []int{500, 4000, 20000} {
			res, err := ws.Context(context.Background(), docir.ContextParams{Query: q, Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, ws, res)
			for _, a := range res.Addresses {
				if strings.Contains(a, "#") {
					sections++
				}
			}
		}
	}
	if sections == 0 {
		t.Error("no section was ever planned on the RFCs")
	}
}

// TestSkeletonReadsConcurrent: one service answers search, query and
// context from many goroutines (as a read batch does) with the replies it
// gives one at a time.
func TestSkeletonReadsConcurrent(t *testing.T) {
	ws := fixture(t)
	ctx := context.Background()
	want := func() []any {
		s, err1 := ws.Search(ctx, docir.SearchParams{Query: "generation"})
		q, err2 := ws.Query(ctx, docir.QueryParams{Expr: "kind:adr", Sort: "-date"})
		c, err3 := ws.Context(ctx, docir.ContextParams{Query: "retry budget", Budget: 300})
		if err1 != nil || err2 != nil || err3 != nil {
			t.Error(err1, err2, err3)
		}
		return []any{s, q, c}
	}
	first := want()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if diff := cmp.Diff(first, want()); diff != "" {
				t.Errorf("concurrent reply differs:\n%s", diff)
			}
		}()
	}
	wg.Wait()
}
