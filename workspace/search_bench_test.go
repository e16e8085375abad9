package workspace

import (
	"context"
	"testing"

	"github.com/docir/docir/docir"
)

// BenchmarkSkeletonCold is one skeleton read as a fresh CLI process makes
// it: open the store's current generation (and bleve, for search and
// context), answer, close; by corpus size (see benchCorpora). Add the
// process start (`docir --version`) for the wall time of a command.
func BenchmarkSkeletonCold(b *testing.B) {
	reads := []struct {
		name string
		read func(ws *Service) error
	}{
		{"search-short", func(ws *Service) error {
			_, err := ws.Search(context.Background(), docir.SearchParams{Query: "extract files from an archive"})
			return err
		}},
		{"search-long", func(ws *Service) error {
			_, err := ws.Search(context.Background(), docir.SearchParams{Query: "how to list all the files in a directory with the details"})
			return err
		}},
		{"context", func(ws *Service) error {
			_, err := ws.Context(context.Background(), docir.ContextParams{Query: "extract files from an archive"})
			return err
		}},
		{"query-literal", func(ws *Service) error {
			_, err := ws.Query(context.Background(), docir.QueryParams{Expr: "path:pages.ru/*"})
			return err
		}},
		{"query-all", func(ws *Service) error {
			_, err := ws.Query(context.Background(), docir.QueryParams{Expr: "id:*", Sort: "-title"})
			return err
		}},
	}
	for _, c := range benchCorpora {
		for _, r := range reads {
			b.Run(c.name+"/"+r.name, func(b *testing.B) {
				open, _ := benchService(b, c.name, c.sources)
				dir := open.cfg.Dir
				b.ReportAllocs()
				for b.Loop() {
					ws := New(Config{Dir: dir})
					if err := r.read(ws); err != nil {
						b.Fatal(err)
					}
					ws.Close()
				}
			})
		}
	}
}
