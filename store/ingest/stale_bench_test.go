package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/docir/docir/store"
)

// BenchmarkStaleManyFolders: the check every read makes, on a tree shaped
// like the 192k bench corpus (5 roots × 40 languages × 8 platforms, 1,600
// folders of pages).
func BenchmarkStaleManyFolders(b *testing.B) {
	root := b.TempDir()
	var sources []store.Source
	for r := range 5 {
		src := filepath.Join(root, fmt.Sprintf("set-with-a-long-name-%d", r))
		for l := range 40 {
			for p := range 8 {
				d := filepath.Join(src, fmt.Sprintf("pages.lang%02d", l), fmt.Sprintf("platform%d", p))
				if err := os.MkdirAll(d, 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(d, "page.md"), []byte("# Page\n\ntext\n"), 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
		sources = append(sources, store.Source{Path: src, Prefix: fmt.Sprintf("t%d", r)})
	}
	dir := filepath.Join(root, ".docir")
	if _, err := Refresh(context.Background(), dir, sources, Options{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		stale, err := staleSources(dir, sources)
		if err != nil || stale {
			b.Fatalf("stale %v, %v", stale, err)
		}
	}
}
