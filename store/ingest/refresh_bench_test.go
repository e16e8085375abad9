package ingest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/store"
)

// BenchmarkNoopRefresh measures a refresh of the Rust RFCs when nothing
// changed: the stat walk (with its link and ignore checks) and the plan,
// which is most of the time of `docir index` run twice.
func BenchmarkNoopRefresh(b *testing.B) {
	src := corpustest.Unpack(b, corpustest.RustRFCs)
	dir := b.TempDir()
	srcs := []store.Source{{Path: src}}
	if _, err := Refresh(context.Background(), dir, srcs, Options{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		sum, err := Refresh(context.Background(), dir, srcs, Options{})
		if err != nil || sum.Published {
			b.Fatalf("%+v %v", sum, err)
		}
	}
}

// BenchmarkStale measures the check a read makes: one stat per folder.
func BenchmarkStale(b *testing.B) {
	src := corpustest.Unpack(b, corpustest.RustRFCs)
	dir := b.TempDir()
	srcs := []store.Source{{Path: src}}
	if _, err := Refresh(context.Background(), dir, srcs, Options{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if stale, err := staleSources(dir, srcs); err != nil || stale {
			b.Fatalf("%v %v", stale, err)
		}
	}
}

// BenchmarkNoopRefreshTLDR is the no-op refresh of the 38k tldr pages
// (issue 16's target: ≤ 1 s at 192k, five times this corpus).
func BenchmarkNoopRefreshTLDR(b *testing.B) {
	src := corpustest.Unpack(b, corpustest.TLDRPages)
	dir := b.TempDir()
	srcs := []store.Source{{Path: src}}
	if _, err := Refresh(context.Background(), dir, srcs, Options{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		sum, err := Refresh(context.Background(), dir, srcs, Options{})
		if err != nil || sum.Published {
			b.Fatalf("%+v %v", sum, err)
		}
	}
}

// BenchmarkLinkHeavyIndex indexes from scratch 2,000 pages of 50 links
// each to other pages (100,000 links, a site's "see also" blocks): the
// link index's linkto keys lead with the target, so one page's keys fall
// all over the bucket. Written as they came, a batch's keys went into one
// growing bbolt node, quadratic: 6.0 s an index here, against 0.76 s
// written in key order (store's linkToWrites; a review's 2,000 bundle
// pages, whose links each look two keys up, took 50 s, now 1.2 s).
func BenchmarkLinkHeavyIndex(b *testing.B) {
	const pages, perPage = 2000, 50
	src := b.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range pages {
		var sb strings.Builder
		fmt.Fprintf(&sb, "# Page %d\n\n## Section\n\n", i)
		for _, j := range r.Perm(pages)[:perPage] {
			fmt.Fprintf(&sb, "See [p%d](p%d.md#section).\n", j, j)
		}
		writeFile(b, src, fmt.Sprintf("p%d.md", i), sb.String())
	}
	srcs := []store.Source{{Path: src}}
	for b.Loop() {
		dir := b.TempDir()
		sum, err := Refresh(context.Background(), dir, srcs, Options{})
		if err != nil || sum.Documents != pages {
			b.Fatalf("%+v %v", sum, err)
		}
	}
}
