package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/ingest"
	"github.com/docir/docir/store/passage"
)

// The front-matter fields search reads are configurable: the generation
// records the list it was indexed with, searches use the recorded list,
// and a change of the list re-indexes every document.
func TestFrontMatterFieldsAreConfigurable(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	page := "---\ntitle: Kestrel handbook\ndescription: falconry for beginners\nowner: sparrowhawk\n---\n\nBody text about birds.\n"
	if err := os.WriteFile(filepath.Join(src, "k.md"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	search := func(ws *Service, q string) int {
		t.Helper()
		res, err := ws.Search(ctx, docir.SearchParams{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Hits)
	}
	open := func(fm []string) (*Service, docir.IndexSummary) {
		t.Helper()
		ws := New(Config{Dir: dir, Sources: []store.Source{{Path: src}}, Ingest: ingest.Options{FrontMatter: fm}})
		t.Cleanup(func() { ws.Close() })
		sum, err := ws.Refresh(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ws, sum
	}
	ws, _ := open(nil)
	if search(ws, "falconry") != 1 || search(ws, "sparrowhawk") != 0 {
		t.Fatalf("defaults: description searchable, owner not")
	}
	snap := heldSnapshot(t, ws)
	if fm, ok, err := snap.FrontMatter(); err != nil || !ok || !slices.Equal(fm, passage.DefaultFrontMatter) {
		t.Fatalf("recorded list %v %v %v, want the defaults", fm, ok, err)
	}
	ws.Close()

	ws, sum := open([]string{"title", "owner"})
	if !sum.Published || sum.Unchanged != 1 || sum.Changed != 0 {
		t.Fatalf("a new list re-indexes every document and publishes, each document's content and id the same (unchanged, as changes lists it): %+v", sum)
	}
	if search(ws, "sparrowhawk") != 1 || search(ws, "falconry") != 0 {
		t.Fatalf("with [title owner]: owner searchable, description not")
	}
	ws.Close()
	if _, sum := open([]string{"title", "owner"}); sum.Published {
		t.Fatalf("the same list again publishes nothing: %+v", sum)
	}
}
