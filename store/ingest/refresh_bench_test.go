package ingest

import (
	"context"
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
