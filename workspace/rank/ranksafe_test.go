package rank_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/fulltext"
	"github.com/docir/docir/workspace"
	"github.com/docir/docir/workspace/rank"
)

// This file holds search to its definition on the shared corpora. It is an
// external test of package rank, not of workspace, so that its exhaustive
// readings (most of the corpus tests' time) run in a test binary of their
// own, beside workspace's, each within go test's per-package time limit.

// corpus is a shared corpus indexed for a test: its service, and its
// current generation's snapshot and full-text index for the exhaustive
// reference.
type corpus struct {
	ws   *workspace.Service
	snap *store.Snapshot
	ft   *fulltext.Index
}

// indexCorpus unpacks a shared corpus and indexes the folder sub of it.
func indexCorpus(t *testing.T, tarball, sub string) *corpus {
	t.Helper()
	root := filepath.Join(corpustest.Unpack(t, tarball), filepath.FromSlash(sub))
	ws := workspace.New(workspace.Config{Dir: t.TempDir(), Sources: []store.Source{{Path: root}}})
	t.Cleanup(func() { ws.Close() })
	start := time.Now()
	sum, err := ws.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("indexed %d documents of %s in %.1fs", sum.Documents, sub, time.Since(start).Seconds())
	v, err := ws.Current(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close() })
	ft, err := fulltext.Open(v.Snapshot().FullTextPath(), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ft.Close() })
	return &corpus{ws: ws, snap: v.Snapshot(), ft: ft}
}

// referenceSearch is a search answered by rank.Reference: every passage
// that holds a query word scored on its text.
func (c *corpus) referenceSearch(ctx context.Context, p docir.SearchParams) (docir.SearchResult, error) {
	return rank.Reference(ctx, c.snap, c.index, p)
}

// referenceContext is Context on an exhaustive reading (rank.ReferenceContext).
func (c *corpus) referenceContext(ctx context.Context, p docir.ContextParams) (docir.ContextResult, error) {
	return rank.ReferenceContext(ctx, c.snap, c.index, p)
}

func (c *corpus) index() (*fulltext.Index, error) { return c.ft, nil }

// topicRow is one row of testdata/eval/*-topics.jsonl (see its README).
type topicRow struct {
	Query    string   `json:"query"`
	Relevant []string `json:"relevant"`
	Best     string   `json:"best"`
	Kind     string   `json:"kind"`
}

func readTopics(t *testing.T, name string) []topicRow {
	t.Helper()
	return corpustest.ReadJSONL[topicRow](t, filepath.Join("..", "..", "testdata", "eval", name))
}

// evalRow is the part of a ../shared/eval/*.jsonl row these tests read.
type evalRow struct {
	Query string `json:"query"`
}

func readEval(t *testing.T, name string) []evalRow {
	t.Helper()
	return corpustest.ReadJSONL[evalRow](t, filepath.Join(corpustest.Shared(t), "eval", name))
}

// titleQueries makes queries from the corpus's documents: every title, and
// every title padded with the corpus's most common words before and after
// it ("the a Menu templates of the"), and every word of a title alone.
func titleQueries(t *testing.T, c *corpus, r *rand.Rand, n int) []string {
	t.Helper()
	snap := c.snap
	var titles []string
	count := map[string]int{}
	err := snap.Records(func(rec docir.Record) error {
		titles = append(titles, rec.Title)
		desc, _ := rec.Fields["description"].(string)
		for _, w := range strings.Fields(strings.ToLower(rec.Title + " " + desc)) {
			count[w]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	common := make([]string, 0, len(count))
	for w := range count {
		common = append(common, w)
	}
	sort.Slice(common, func(i, j int) bool {
		if count[common[i]] != count[common[j]] {
			return count[common[i]] > count[common[j]]
		}
		return common[i] < common[j]
	})
	common = common[:min(6, len(common))]
	var out []string
	for range n {
		title := titles[r.IntN(len(titles))]
		out = append(out, title, common[r.IntN(len(common))]+" "+common[r.IntN(len(common))]+" "+title+" "+common[r.IntN(len(common))])
		if words := strings.Fields(title); len(words) > 0 {
			out = append(out, words[r.IntN(len(words))])
		}
	}
	return out
}

// sameTop reports how a search's hits differ from the reference's, or "":
// the same scores place by place, and the same document at each place whose
// score no other hit shares (documents of equal score may come in either
// order).
func sameTop(got, want []docir.Hit) string {
	if len(got) != len(want) {
		return "hits: " + strconv.Itoa(len(got)) + ", reference " + strconv.Itoa(len(want))
	}
	score := func(h []docir.Hit, i int) float64 { return h[i].Score }
	for i := range got {
		a, b := score(got, i), score(want, i)
		if math.Abs(a-b) > 1e-9*math.Max(a, b) {
			return "place " + strconv.Itoa(i+1) + ": " + got[i].ID + " scores " + ftoa(a) + ", reference " + want[i].ID + " " + ftoa(b)
		}
		tied := i > 0 && math.Abs(score(want, i-1)-b) <= 1e-9*b || i+1 < len(want) && math.Abs(score(want, i+1)-b) <= 1e-9*b
		if !tied && got[i].ID != want[i].ID {
			return "place " + strconv.Itoa(i+1) + ": " + got[i].ID + ", reference " + want[i].ID
		}
	}
	return ""
}

func ftoa(f float64) string { return strings.TrimRight(strings.TrimRight(jsonNumber(f), "0"), ".") }

func jsonNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// TestRankSafe holds search to its definition: on each corpus, for every
// query of the evaluation sets and for queries made of titles (alone, and
// padded with the corpus's most common words) and single words, the ten
// hits of Search are the ten of rank.Reference, which scores every passage
// that holds a query word on its text. Search reads the text of only the
// passages whose bound can still reach the tenth document's score.
func TestRankSafe(t *testing.T) {
	corpustest.SkipHeavy(t)
	r := rand.New(rand.NewPCG(22, 22))
	type set struct {
		tarball, sub string
		queries      func(c *corpus) []string
		topics       string  // testdata/eval's topic set for the corpus
		prefix       string  // what the set's ids lack of the store's
		r1, r3       float64 // the topic set's floors: a relevant page first, in the top 3
	}
	shared := func(name string, every int) []string {
		var out []string
		for i, row := range readEval(t, name) {
			if i%every == 0 {
				out = append(out, row.Query)
			}
		}
		return out
	}
	topics := func(name string) []string {
		var out []string
		for _, row := range readTopics(t, name) {
			out = append(out, row.Query)
		}
		return out
	}
	corpora := []set{
		{corpustest.HugoDocs, "hugo-docs", func(c *corpus) []string {
			return append(append(shared("hugo-docs.jsonl", 1), topics("hugo-topics.jsonl")...), titleQueries(t, c, r, 30)...)
		}, "hugo-topics.jsonl", "", 0.48, 0.69},
		{corpustest.RustRFCs, "rfcs", func(c *corpus) []string {
			return append(append(shared("rust-rfcs.sections.jsonl", 8), topics("rfc-topics.jsonl")...), titleQueries(t, c, r, 15)...)
		}, "rfc-topics.jsonl", "", 0.60, 0.76},
		{corpustest.TLDRPages, "tldr/pages", func(c *corpus) []string {
			return append(append(shared("tldr-pages.docs.jsonl", 3), topics("tldr-topics.jsonl")...), titleQueries(t, c, r, 30)...)
		}, "tldr-topics.jsonl", "", 0.40, 0.62},
	}
	ctx := context.Background()
	for _, c := range corpora {
		cp := indexCorpus(t, c.tarball, c.sub)
		ws := cp.ws
		queries := c.queries(cp)
		queries = append(queries, `"front matter" dates`, "menu -template", `"retry" -"the"`)
		failed := 0
		eachParallel(t, len(queries), func(i int) (string, error) {
			q := queries[i]
			p := docir.SearchParams{Query: q, Limit: 10}
			got, err := ws.Search(ctx, p)
			if err != nil {
				return "", fmt.Errorf("search %q: %v", q, err)
			}
			want, err := cp.referenceSearch(ctx, p)
			if err != nil {
				return "", fmt.Errorf("reference %q: %v", q, err)
			}
			if d := sameTop(got.Hits, want.Hits); d != "" {
				return fmt.Sprintf("%s: %q: %s", c.sub, q, d), nil
			}
			return "", nil
		}, func(string) { failed++ })
		t.Logf("%s: %d queries, %d differ from the exhaustive reference", c.sub, len(queries), failed)
		// A context plan reads the sections that score at least half
		// the best, every one of them: the same plan on an exhaustive
		// reading, however much the rank-safe one passed over.
		plans := 0
		rows := readTopics(t, c.topics)
		eachParallel(t, len(rows), func(i int) (string, error) {
			p := docir.ContextParams{Query: rows[i].Query}
			got, err := ws.Context(ctx, p)
			if err != nil {
				return "", fmt.Errorf("context %q: %v", p.Query, err)
			}
			want, err := cp.referenceContext(ctx, p)
			if err != nil {
				return "", fmt.Errorf("reference context %q: %v", p.Query, err)
			}
			if d := cmp.Diff(want.Addresses, got.Addresses); d != "" {
				return fmt.Sprintf("%s: context %q: its plan differs from an exhaustive reading's (-want +got):\n%s", c.sub, p.Query, d), nil
			}
			return "", nil
		}, func(string) { plans++ })
		t.Logf("%s: context plans of the topic queries, %d differ from the exhaustive reference", c.sub, plans)
		m := measureTopics(t, ws, readTopics(t, c.topics), c.prefix)
		t.Logf("%s: %s", c.topics, m)
		if m.r1 < c.r1 || m.r3 < c.r3 {
			t.Errorf("%s below floor: a relevant page first %.3f (want ≥ %.2f), in the top 3 %.3f (want ≥ %.2f)", c.topics, m.r1, c.r1, m.r3, c.r3)
		}
	}
}

// eachParallel runs check(i) for i in [0, n) on GOMAXPROCS goroutines (a
// search and its exhaustive reference are independent of every other
// query's, and the exhaustive reading is most of this package's test time),
// then, in order of i, fails the test on the first error and reports each
// difference check returned (and calls differs with it).
func eachParallel(t *testing.T, n int, check func(i int) (string, error), differs func(string)) {
	t.Helper()
	diffs, errs := make([]string, n), make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(n, 1)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				diffs[i], errs[i] = check(i)
			}
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if diffs[i] != "" {
			differs(diffs[i])
			t.Error(diffs[i])
		}
	}
}

// topics is what a topic set measured: how often a relevant page came
// first (r1), in the top 3 (r3), the mean reciprocal rank of the first
// relevant page in the top 10, and how often the top hit's matched section
// was the row's best one (a page id: the page).
type topics struct {
	n            int
	r1, r3, mrr  float64
	best, bestOf float64
}

func (m topics) String() string {
	return fmt.Sprintf("%d queries: relevant page first %.3f, in the top 3 %.3f, MRR@10 %.3f, best section first %.3f",
		m.n, m.r1, m.r3, m.mrr, m.best/max(m.bestOf, 1))
}

// measureTopics runs each topic row as a search of 10 hits (see
// testdata/eval/README.md).
func measureTopics(t *testing.T, ws *workspace.Service, rows []topicRow, prefix string) topics {
	t.Helper()
	var m topics
	for _, row := range rows {
		res, err := ws.Search(context.Background(), docir.SearchParams{Query: row.Query, Limit: 10})
		if err != nil {
			t.Fatalf("search %q: %v", row.Query, err)
		}
		// A bundle's index.md is its folder's document: the set may name
		// it either way.
		bundle := func(id string) string {
			id = strings.TrimPrefix(id, prefix)
			return strings.TrimSuffix(strings.TrimSuffix(id, "/_index"), "/index")
		}
		var relevant []string
		for _, id := range row.Relevant {
			relevant = append(relevant, bundle(id))
		}
		rank := 0
		for i, h := range res.Hits {
			if slices.Contains(relevant, bundle(h.ID)) {
				rank = i + 1
				break
			}
		}
		m.n++
		if rank > 0 {
			m.mrr += 1 / float64(rank)
		}
		if rank == 1 {
			m.r1++
		}
		if rank >= 1 && rank <= 3 {
			m.r3++
		}
		if row.Best != "" && len(res.Hits) > 0 {
			m.bestOf++
			top := res.Hits[0]
			bestDoc, bestSlug, hasSlug := strings.Cut(row.Best, "#")
			topDoc, topSlug, _ := strings.Cut(top.MatchedSection, "#")
			if bundle(topDoc) == bundle(bestDoc) && (!hasSlug || topSlug == bestSlug) {
				m.best++
			}
		}
	}
	n := float64(max(m.n, 1))
	m.r1, m.r3, m.mrr = m.r1/n, m.r3/n, m.mrr/n
	return m
}
