package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// A long-running reader (docir serve) follows the generations that other
// processes publish, and a read in flight keeps the generation it started
// on until it ends.
func TestServiceFollowsNewGenerations(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	write := func(body string) {
		if err := os.WriteFile(filepath.Join(src, "a.md"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("# A\n\nversion one\n")
	cfg := Config{Dir: dir, Sources: []store.Source{{Path: src}}}
	writer := New(cfg) // stands for `docir index` in another process
	defer writer.Close()
	if _, err := writer.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}

	reader := New(Config{Dir: dir})
	defer reader.Close()
	ctx := context.Background()
	a := address.MustParse("a")
	doc, err := docir.GetOne(ctx, reader, a, 0)
	if err != nil || doc.Generation != 1 || !strings.Contains(doc.Body, "version one") {
		t.Fatalf("first read: %+v %v", doc, err)
	}
	held, release, err := reader.acquire(ctx) // a search in flight on generation 1
	if err != nil {
		t.Fatal(err)
	}
	idx, err := held.fullText()
	if err != nil {
		t.Fatal(err)
	}

	for i, word := range []string{"two", "three", "four", "five"} {
		write("# A\n\nversion " + word + "\n")
		if _, err := writer.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		doc, err := docir.GetOne(ctx, reader, a, 0)
		if err != nil || doc.Generation != uint64(i+2) || !strings.Contains(doc.Body, "version "+word) {
			t.Fatalf("read after refresh %d: %+v %v", i+2, doc, err)
		}
		res, err := reader.Search(ctx, docir.SearchParams{Query: word})
		if err != nil || len(res.Hits) != 1 {
			t.Fatalf("search %q after refresh: %+v %v", word, res, err)
		}
	}
	// Generation 1 is pruned on disk by now, but the held read still reads it.
	if _, body, ok, err := held.snap.Lookup("a"); err != nil || !ok || !strings.Contains(string(body), "version one") {
		t.Fatalf("held view: %q %v %v", body, ok, err)
	}
	if m, _, err := idx.Search(ctx, "one", 5); err != nil || len(m) != 1 {
		t.Fatalf("held view search: %v %v", m, err)
	}
	release()
}

// Reads and refreshes side by side, as a server with the refresh grant
// runs them (run with -race).
func TestConcurrentReadsAndRefreshes(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "a.md"), []byte("# A\n\nzero\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	svc := New(Config{Dir: dir, Sources: []store.Source{{Path: src}}, AutoIndex: true})
	defer svc.Close()
	ctx := context.Background()
	var wg sync.WaitGroup
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 30 {
				if _, err := docir.GetOne(ctx, svc, address.MustParse("a"), 0); err != nil {
					t.Error(err)
					return
				}
				if _, err := svc.Search(ctx, docir.SearchParams{Query: "version"}); err != nil && r == 0 {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := range 5 {
		body := "# A\n\nversion " + strings.Repeat("x", i+1) + "\n"
		if err := os.WriteFile(filepath.Join(src, "a.md"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
}
