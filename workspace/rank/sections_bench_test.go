package rank_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/workspace"
)

// BenchmarkManySections runs search and context for a word of every
// section of a document of n headings ("# Hi\n\nx\n", n times; 9,999 is
// within the parse limits), all of level 1 or all of level 2: a context
// scores each of its sections and may plan any. The work must grow as n,
// not n²: ns/section, reported, stays about the same from 1,000 sections
// to 10,000 (it grew sixfold when each passage's section was found by a
// scan of the sections, and sevenfold for level 2 when the headings above
// a section were found by a scan back).
func BenchmarkManySections(b *testing.B) {
	for _, n := range []int{1000, 9999} {
		for _, level := range []string{"#", "##"} {
			ws := manySections(b, level, n)
			for _, method := range []string{"search", "context"} {
				b.Run(fmt.Sprintf("%s/h%d/%d", method, len(level), n), func(b *testing.B) {
					ctx := context.Background()
					for b.Loop() {
						var err error
						if method == "search" {
							_, err = ws.Search(ctx, docir.SearchParams{Query: "x"})
						} else {
							_, err = ws.Context(ctx, docir.ContextParams{Query: "x", Budget: docir.MaxBudget})
						}
						if err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/section")
				})
			}
		}
	}
}

// manySections is a workspace of one document of n sections, indexed,
// each headed by a heading of level.
func manySections(b *testing.B, level string, n int) *workspace.Service {
	root := b.TempDir()
	var doc strings.Builder
	for i := range n {
		fmt.Fprintf(&doc, "%s H%d\n\nx\n", level, i)
	}
	if err := os.WriteFile(filepath.Join(root, "d.md"), []byte(doc.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	ws := workspace.New(workspace.Config{Dir: b.TempDir(), Sources: []store.Source{{Path: root}}})
	b.Cleanup(func() { ws.Close() })
	if _, err := ws.Refresh(context.Background()); err != nil {
		b.Fatal(err)
	}
	return ws
}
