package store_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/ingest"
)

// storeBytes is the disk space the store in dir takes: every file's
// blocks, counting a hard-linked file once.
func storeBytes(tb testing.TB, dir string) int64 {
	tb.Helper()
	seen := map[uint64]bool{}
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		st := info.Sys().(*syscallStat)
		if seen[st.Ino] {
			return nil
		}
		seen[st.Ino] = true
		n += st.Blocks * 512
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// touchFiles rewrites n markdown files under root with one more line.
func touchFiles(tb testing.TB, root string, n, round int) {
	tb.Helper()
	done := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") || strings.HasPrefix(d.Name(), ".") || done >= n {
			return err
		}
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = fmt.Fprintf(f, "\nRevision %d of this page.\n", round)
		done++
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkRefresh100 measures a refresh that changes 100 of tldr's ~38k
// files, and what retaining its generations costs: bytes added to the
// store per refresh, and the store's size after 20 such refreshes (all
// retained) over one generation's.
func BenchmarkRefresh100(b *testing.B) {
	src := corpustest.Unpack(b, corpustest.TLDRPages)
	dir := filepath.Join(b.TempDir(), ".docir")
	ctx := context.Background()
	opt := ingest.Options{Retain: 21}
	if _, err := ingest.Refresh(ctx, dir, []store.Source{{Path: src}}, opt); err != nil {
		b.Fatal(err)
	}
	one := storeBytes(b, dir)
	round := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		round++
		touchFiles(b, src, 100, round)
		b.StartTimer()
		sum, err := ingest.Refresh(ctx, dir, []store.Source{{Path: src}}, opt)
		if err != nil || sum.Changed != 100 {
			b.Fatalf("refresh: %+v %v", sum, err)
		}
	}
	b.StopTimer()
	total := storeBytes(b, dir)
	b.ReportMetric(float64(one)/1e6, "MB/gen")
	b.ReportMetric(float64(total-one)/float64(round)/1e6, "MB-added/refresh")
	for round < 20 {
		round++
		touchFiles(b, src, 100, round)
		if _, err := ingest.Refresh(ctx, dir, []store.Source{{Path: src}}, opt); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(storeBytes(b, dir))/float64(one), "size-20gens/1gen")
}
