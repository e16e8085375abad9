package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/store"
)

// benchStores are the stores benchmarks read, built once per process on
// first use (a 39k-document store takes seconds) and removed by TestMain.
var benchStores struct {
	sync.Mutex
	root string
	src  string
	dirs map[string]string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchStores.root != "" {
		os.RemoveAll(benchStores.root)
	}
	os.Exit(code)
}

// benchCorpora are the sizes get and search are measured at.
var benchCorpora = []struct {
	name    string
	sources []string // below the unpacked corpora
}{
	{"rfcs-648", []string{"rfcs"}},
	{"tldr-en-7.4k", []string{"tldr/pages"}},
	{"all-39k", []string{"rfcs", "tldr"}},
}

// benchService returns a service over the named corpus's store and a few
// document ids spread over it.
func benchService(b *testing.B, name string, sources []string) (*Service, []string) {
	b.Helper()
	benchStores.Lock()
	defer benchStores.Unlock()
	if benchStores.root == "" {
		shared := corpustest.Shared(b)
		root, err := os.MkdirTemp("", "docir-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchStores.root, benchStores.src, benchStores.dirs = root, filepath.Join(root, "src"), map[string]string{}
		for _, t := range []string{corpustest.RustRFCs, corpustest.TLDRPages} {
			if err := corpustest.UnpackTo(filepath.Join(shared, "corpora", t), benchStores.src); err != nil {
				b.Fatal(err)
			}
		}
	}
	var srcs []store.Source
	for _, s := range sources {
		srcs = append(srcs, store.Source{Path: filepath.Join(benchStores.src, s)})
	}
	dir, ok := benchStores.dirs[name]
	if !ok {
		dir = filepath.Join(benchStores.root, name)
		ws := New(Config{Dir: dir, Sources: srcs})
		if _, err := ws.Refresh(context.Background()); err != nil {
			b.Fatal(err)
		}
		ws.Close()
		benchStores.dirs[name] = dir
	}
	ws := New(Config{Dir: dir})
	b.Cleanup(func() { ws.Close() })
	snap := heldSnapshot(b, ws)
	var ids []string
	if err := snap.Records(func(r docir.Record) error { ids = append(ids, r.ID); return nil }); err != nil {
		b.Fatal(err)
	}
	step := len(ids) / 6
	return ws, []string{ids[step], ids[2*step], ids[3*step], ids[4*step], ids[5*step]}
}

// BenchmarkGet measures in-process deep reads of 1 and 5 documents on an
// open store, by corpus size: the cost should be flat in corpus size and
// grow with the bytes read, not the number of documents.
func BenchmarkGet(b *testing.B) {
	for _, c := range benchCorpora {
		for _, n := range []int{1, 5} {
			b.Run(fmt.Sprintf("%s/docs-%d", c.name, n), func(b *testing.B) {
				ws, ids := benchService(b, c.name, c.sources)
				addrs := make([]address.Address, n)
				for i := range addrs {
					addrs[i] = address.MustParse(ids[i])
				}
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					res, err := docir.Get(ctx, ws, addrs, 0)
					if err != nil || len(res.Documents) != n {
						b.Fatalf("get: %v %v", err, res.Missing)
					}
				}
			})
		}
	}
}

// BenchmarkSearch measures an in-process ranked search on an open store,
// by corpus size.
func BenchmarkSearch(b *testing.B) {
	queries := []string{"extract files from a tar archive", "object safety dyn trait method receiver"}
	for _, c := range benchCorpora {
		b.Run(c.name, func(b *testing.B) {
			ws, _ := benchService(b, c.name, c.sources)
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				q := queries[i%len(queries)]
				i++
				if _, err := ws.Search(ctx, docir.SearchParams{Query: q}); err != nil && !strings.Contains(err.Error(), "no hits") {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSearchStore searches a store you name, warm, in process:
// DOCIR_BENCH_STORE is its store folder (the .docir folder), and
// DOCIR_BENCH_QUERY the query (default: the scale bench's). It is how to
// measure a small change to the ranking on a store of your own, in
// instructions rather than time (docs/ranking.md, Speed: a test binary
// from `go test -c` under cachegrind, 41 searches less 1); without the
// variable it is skipped.
func BenchmarkSearchStore(b *testing.B) {
	dir := os.Getenv("DOCIR_BENCH_STORE")
	if dir == "" {
		b.Skip("DOCIR_BENCH_STORE names no store folder")
	}
	q := os.Getenv("DOCIR_BENCH_QUERY")
	if q == "" {
		q = "extract files from a tar archive"
	}
	ws := New(Config{Dir: dir})
	defer ws.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ws.Search(ctx, docir.SearchParams{Query: q}); err != nil {
			b.Fatal(err)
		}
	}
}
