package workspace

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/store"
)

// frontMatterStore builds (once per process) a store of the tldr pages,
// copies times over under prefixes t1…, each page given the front matter
// cmd/docir-bench -scale gives it: kind (the platform), lang and tags.
func frontMatterStore(b *testing.B, copies int) string {
	b.Helper()
	name := fmt.Sprintf("fm-tldr-x%d", copies)
	benchStores.Lock()
	defer benchStores.Unlock()
	if benchStores.root == "" {
		root, err := os.MkdirTemp("", "docir-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchStores.root, benchStores.dirs = root, map[string]string{}
	}
	if dir, ok := benchStores.dirs[name]; ok {
		return dir
	}
	src := filepath.Join(benchStores.root, "fm-src")
	if _, err := os.Stat(src); err != nil {
		if err := corpustest.UnpackTo(filepath.Join(corpustest.Shared(b), "corpora", corpustest.TLDRPages), src); err != nil {
			b.Fatal(err)
		}
	}
	var srcs []store.Source
	for k := 1; k <= copies; k++ {
		set := fmt.Sprintf("set%d", k)
		dst := filepath.Join(benchStores.root, "fm-"+set)
		if _, err := os.Stat(dst); err != nil {
			tldr := filepath.Join(src, "tldr")
			err := filepath.WalkDir(tldr, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
					return err
				}
				rel, _ := filepath.Rel(tldr, p)
				parts := strings.Split(filepath.ToSlash(rel), "/")
				lang, platform := "en", "common"
				if len(parts) >= 3 {
					if l, ok := strings.CutPrefix(parts[0], "pages."); ok {
						lang = l
					}
					platform = parts[1]
				}
				body, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				fm := fmt.Sprintf("---\nkind: %s\nlang: %s\ntags: [tldr, %s, %s]\n---\n", platform, lang, platform, set)
				out := filepath.Join(dst, rel)
				if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
					return err
				}
				return os.WriteFile(out, append([]byte(fm), body...), 0o644)
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		s := store.Source{Path: dst}
		if copies > 1 {
			s.Prefix = fmt.Sprintf("t%d", k)
		}
		srcs = append(srcs, s)
	}
	dir := filepath.Join(benchStores.root, name)
	ws := New(Config{Dir: dir, Sources: srcs})
	if _, err := ws.Refresh(context.Background()); err != nil {
		b.Fatal(err)
	}
	ws.Close()
	benchStores.dirs[name] = dir
	return dir
}

// BenchmarkQueryFrontMatter is `docir query` on front matter as a fresh
// CLI process makes it (open, answer, close), from the field index and by
// the scan it replaced, beside a search on the same store: the tldr pages
// with front matter at 38k documents (x1) and five copies, 192k (x5).
func BenchmarkQueryFrontMatter(b *testing.B) {
	reads := []struct {
		name string
		read func(ws *Service) (int, error)
	}{
		{"query-index", func(ws *Service) (int, error) {
			r, err := ws.Query(context.Background(), docir.QueryParams{Expr: "kind:linux lang:en"})
			return r.Total, err
		}},
		{"query-scan", func(ws *Service) (int, error) {
			r, err := queryByScan(context.Background(), ws, docir.QueryParams{Expr: "kind:linux lang:en"})
			return r.Total, err
		}},
		{"query-index-sorted", func(ws *Service) (int, error) {
			r, err := ws.Query(context.Background(), docir.QueryParams{Expr: "kind:linux lang:en tags:set1", Sort: "-title"})
			return r.Total, err
		}},
		{"search", func(ws *Service) (int, error) {
			r, err := ws.Search(context.Background(), docir.SearchParams{Query: "extract files from a tar archive"})
			return r.Total, err
		}},
	}
	for _, copies := range []int{1, 5} {
		for _, r := range reads {
			b.Run(fmt.Sprintf("x%d/%s", copies, r.name), func(b *testing.B) {
				dir := frontMatterStore(b, copies)
				b.ReportAllocs()
				total := 0
				for b.Loop() {
					ws := New(Config{Dir: dir})
					n, err := r.read(ws)
					if err != nil {
						b.Fatal(err)
					}
					total = n
					ws.Close()
				}
				b.ReportMetric(float64(total), "hits")
			})
		}
	}
}
