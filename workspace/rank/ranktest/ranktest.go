// Package ranktest checks, for tests, that search is the ranking its
// scoring function defines on a shared corpus (issue 22's property test):
// for every query of the corpus's evaluation sets, titles alone and padded
// with the corpus's most common words, and single words, the ten hits of
// Search are the ten of rank.Reference, which scores every passage that
// holds a query word on its text; and a context's plan is the plan of an
// exhaustive reading. Check runs it on one corpus. workspace/rank's tests
// run it on the Hugo docs and this package's own tests on the RFCs and
// tldr, so that each exhaustive reading has a test binary, and go test's
// time limit, of its own.
//
// It is imported only by tests.
package ranktest

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

// Set is a corpus and what Check asks of it.
type Set struct {
	Tarball, Sub string  // the shared corpus and the folder of it indexed
	Known        string  // its known-item set in ../shared/eval
	Every        int     // Check takes every Every-th of the known-item rows
	Topics       string  // its topic set in testdata/eval
	Titles       int     // titles drawn (each alone, padded, and one word of it)
	R1, R3       float64 // the topic set's floors: a relevant page first, in the top 3
	Stemming     string  // the searches' stemming (workspace.Config.Stemming)
}

// The corpora Check runs on. The RFCs are long documents (a query's
// exhaustive reading costs most there) and tldr's known-item rows many.
var (
	Hugo = Set{corpustest.HugoDocs, "hugo-docs", "hugo-docs.jsonl", 1, "hugo-topics.jsonl", 30, 0.48, 0.69, ""}
	RFCs = Set{corpustest.RustRFCs, "rfcs", "rust-rfcs.sections.jsonl", 8, "rfc-topics.jsonl", 15, 0.60, 0.76, ""}
	TLDR = Set{corpustest.TLDRPages, "tldr/pages", "tldr-pages.docs.jsonl", 3, "tldr-topics.jsonl", 30, 0.40, 0.62, ""}
	// HugoStemming is the Hugo docs searched with English stemming, on
	// every other known-item row.
	HugoStemming = Set{corpustest.HugoDocs, "hugo-docs", "hugo-docs.jsonl", 2, "hugo-topics.jsonl", 15, 0.48, 0.69, fulltext.StemEnglish}
)

// Check indexes set's corpus and holds Search and Context to the
// exhaustive reading on its queries, and the topic set to its floors.
func Check(t *testing.T, set Set) {
	corpustest.SkipHeavy(t)
	r := rand.New(rand.NewPCG(22, 22)) // the titles drawn
	cp := indexCorpus(t, set.Tarball, set.Sub, set.Stemming)
	ws := cp.ws
	var queries []string
	for i, row := range readEval(t, set.Known) {
		if i%set.Every == 0 {
			queries = append(queries, row.Query)
		}
	}
	for _, row := range readTopics(t, set.Topics) {
		queries = append(queries, row.Query)
	}
	queries = append(queries, titleQueries(t, cp, r, set.Titles)...)
	queries = append(queries, `"front matter" dates`, "menu -template", `"retry" -"the"`)
	// Identifiers and version numbers, whose parts a heading may say in
	// order (headingSays), a word no passage holds, a URL's, and an
	// exclusion of a word every heading's passage holds.
	queries = append(queries, "hugo.Environment", "strings.Contains in a template", "1.0.0 release", "std.vec.Vec",
		"tar.gz archive", "qqzx.zzqy template", "https://gohugo.io/about/ hugo", "0.1.0", "motivation -the", "drawbacks -the")
	ctx := context.Background()
	start := time.Now()
	failed := eachParallel(t, len(queries), func(i int) (string, error) {
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
		if d := sameTop(got.Hits, want.Hits, 10); d != "" {
			return fmt.Sprintf("%s: %q: %s", set.Sub, q, d), nil
		}
		// A smaller limit reads less, and its hits are the first of the
		// reference's all the same: a named document below the reading's
		// floor is scored whole, not by the passage that names it. It
		// ranks k documents, and folds the repeats among them (a hit's
		// also), as the reference folds those among its 10.
		for _, k := range []int{1, 2, 3, 5} {
			small, err := ws.Search(ctx, docir.SearchParams{Query: q, Limit: k})
			if err != nil {
				return "", fmt.Errorf("search %q -n %d: %v", q, k, err)
			}
			if n, ranked := documents(small.Hits), min(k, documents(want.Hits)); n != ranked {
				return fmt.Sprintf("%s: %q -n %d: %d documents ranked (hits and also), reference %d", set.Sub, q, k, n, ranked), nil
			}
			if d := sameTop(small.Hits, want.Hits, len(small.Hits)); d != "" {
				return fmt.Sprintf("%s: %q -n %d: %s", set.Sub, q, k, d), nil
			}
		}
		return "", nil
	})
	t.Logf("%s: %d queries, %d differ from the exhaustive reference (%.0fs)", set.Sub, len(queries), failed, time.Since(start).Seconds())
	// A context plan reads the sections that score at least half the
	// best, every one of them: the same plan on an exhaustive reading,
	// however much the rank-safe one passed over.
	start = time.Now()
	rows := readTopics(t, set.Topics)
	plans := eachParallel(t, len(rows), func(i int) (string, error) {
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
			return fmt.Sprintf("%s: context %q: its plan differs from an exhaustive reading's (-want +got):\n%s", set.Sub, p.Query, d), nil
		}
		return "", nil
	})
	t.Logf("%s: context plans of the topic queries, %d differ from the exhaustive reference (%.0fs)", set.Sub, plans, time.Since(start).Seconds())
	m := measureTopics(t, ws, rows)
	t.Logf("%s: %s", set.Topics, m)
	if m.r1 < set.R1 || m.r3 < set.R3 {
		t.Errorf("%s below floor: a relevant page first %.3f (want ≥ %.2f), in the top 3 %.3f (want ≥ %.2f)", set.Topics, m.r1, set.R1, m.r3, set.R3)
	}
}

// corpus is a shared corpus indexed for a test: its service, and its
// current generation's snapshot and full-text index for the exhaustive
// reference.
type corpus struct {
	ws   *workspace.Service
	snap *store.Snapshot
	ft   *fulltext.Index
}

// indexCorpus unpacks a shared corpus and indexes the folder sub of it,
// for searches with stemming.
func indexCorpus(t *testing.T, tarball, sub, stemming string) *corpus {
	t.Helper()
	return indexRoot(t, filepath.Join(corpustest.Unpack(t, tarball), filepath.FromSlash(sub)), stemming)
}

// indexRoot indexes the folder root, for searches with stemming.
func indexRoot(t *testing.T, root, stemming string) *corpus {
	t.Helper()
	ws := workspace.New(workspace.Config{Dir: t.TempDir(), Sources: []store.Source{{Path: root}}, Stemming: stemming})
	t.Cleanup(func() { ws.Close() })
	start := time.Now()
	sum, err := ws.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("indexed %d documents of %s in %.1fs", sum.Documents, root, time.Since(start).Seconds())
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
	if err := ft.SetStemming(stemming); err != nil {
		t.Fatal(err)
	}
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
	return corpustest.ReadJSONL[topicRow](t, filepath.Join(corpustest.ModuleRoot(), "testdata", "eval", name))
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

// sameTop reports how a search's hits differ from the first n of the
// reference's, or "": the same scores place by place, and the same document
// and matched section at each place whose score no other hit of the
// reference shares (documents of equal score may come in either order,
// also across the n-th place).
// documents is the documents hits were ranked from: each hit and the
// repeats it folded (docir.Hit.Also).
func documents(hits []docir.Hit) int {
	n := len(hits)
	for _, h := range hits {
		n += len(h.Also)
	}
	return n
}

func sameTop(got, want []docir.Hit, n int) string {
	if len(got) != min(n, len(want)) {
		return "hits: " + strconv.Itoa(len(got)) + ", reference " + strconv.Itoa(min(n, len(want)))
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
		if !tied && got[i].MatchedSection != want[i].MatchedSection {
			return "place " + strconv.Itoa(i+1) + ": " + got[i].ID + " matched " + got[i].MatchedSection + ", reference " + want[i].MatchedSection
		}
	}
	return ""
}

func ftoa(f float64) string { return strings.TrimRight(strings.TrimRight(jsonNumber(f), "0"), ".") }

func jsonNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// eachParallel runs check(i) for i in [0, n) on GOMAXPROCS goroutines (a
// search and its exhaustive reference are independent of every other
// query's, and the exhaustive reading is most of this package's test time),
// then, in order of i, fails the test on the first error and reports each
// difference check returned; it returns how many there were.
func eachParallel(t *testing.T, n int, check func(i int) (string, error)) (differ int) {
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
			differ++
			t.Error(diffs[i])
		}
	}
	return differ
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
func measureTopics(t *testing.T, ws *workspace.Service, rows []topicRow) topics {
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

// CheckFiles holds search to rank.Reference on a corpus written for a
// test (files by path, under one source): for each query, the same ten
// hits, matched sections and scores (sameTop), and the same count of
// matching passages.
func CheckFiles(t *testing.T, files map[string]string, queries ...string) {
	t.Helper()
	root := t.TempDir()
	if err := corpustest.WriteFiles(root, files); err != nil {
		t.Fatal(err)
	}
	cp := indexRoot(t, root, "")
	ctx := context.Background()
	for _, q := range queries {
		p := docir.SearchParams{Query: q, Limit: 10}
		got, err := cp.ws.Search(ctx, p)
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		want, err := cp.referenceSearch(ctx, p)
		if err != nil {
			t.Fatalf("reference %q: %v", q, err)
		}
		if d := sameTop(got.Hits, want.Hits, 10); d != "" {
			t.Errorf("%q: %s", q, d)
		}
		if got.Total != want.Total || len(got.Hits) > 0 && got.Total == 0 {
			t.Errorf("%q: total %d, reference %d, with %d hits", q, got.Total, want.Total, len(got.Hits))
		}
	}
}
