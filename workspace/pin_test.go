package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/ingest"
)

// A View reads one generation and never moves: refreshes publish newer
// generations beside it, deep and skeleton reads on it still answer from
// the pinned one, byte for byte, and it survives its generation being
// pruned from the store while it is open. A pin on a generation the store
// no longer retains is stale_revision.
func TestPinnedViewNeverMoves(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	write := func(body string) {
		if err := os.WriteFile(filepath.Join(src, "a.md"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("# A\n\nversion one, about kestrels\n")
	ctx := context.Background()
	ws := New(Config{Dir: dir, Sources: []store.Source{{Path: src}}, Ingest: ingest.Options{Retain: 2}})
	defer ws.Close()
	if _, err := ws.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	cur, err := ws.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cur.Generation() != 1 {
		t.Fatalf("current generation %d, want 1", cur.Generation())
	}
	pinned, err := ws.Pin(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	a := address.MustParse("a")
	before, err := docir.GetOne(ctx, pinned, a, 0)
	if err != nil {
		t.Fatal(err)
	}
	beforeHits, err := pinned.Search(ctx, docir.SearchParams{Query: "kestrels"})
	if err != nil {
		t.Fatal(err)
	}

	for _, word := range []string{"two", "three", "four"} {
		write("# A\n\nversion " + word + ", about herons\n")
		if _, err := ws.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Generations 3 and 4 are retained, and 1, which both views hold.
	for _, v := range []*View{pinned, cur} {
		doc, err := docir.GetOne(ctx, v, a, 0)
		if err != nil || doc.Body != before.Body || doc.Generation != 1 {
			t.Fatalf("read on the view after refreshes: %+v %v", doc, err)
		}
		hits, err := v.Search(ctx, docir.SearchParams{Query: "kestrels"})
		if err != nil || len(hits.Hits) != 1 || hits.Hits[0].Snippet != beforeHits.Hits[0].Snippet {
			t.Fatalf("search on the view after refreshes: %+v %v", hits, err)
		}
		st, err := v.Status(ctx)
		if err != nil || st.Generation != 1 {
			t.Fatalf("status on the view: %+v %v", st, err)
		}
	}
	doc, err := docir.GetOne(ctx, ws, a, 0)
	if err != nil || doc.Generation != 4 || !strings.Contains(doc.Body, "four") {
		t.Fatalf("the service reads the newest generation: %+v %v", doc, err)
	}
	for _, v := range []*View{pinned, cur} {
		if err := v.Close(); err != nil {
			t.Fatal(err)
		}
		if err := v.Close(); err != nil {
			t.Fatalf("a second Close: %v", err)
		}
	}
	// Held, generation 1 was kept; let go, the next refresh (one that
	// changes nothing too) prunes it.
	if _, err := ws.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Pin(ctx, 1); docir.CodeOf(err) != docir.CodeStaleRevision {
		t.Fatalf("pin on a pruned generation: %v, want stale_revision", err)
	}
	if _, err := ws.Pin(ctx, 99); docir.CodeOf(err) != docir.CodeStaleRevision {
		t.Fatalf("pin on a generation never published: %v, want stale_revision", err)
	}
	three, err := ws.Pin(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer three.Close()
	doc, err = docir.GetOne(ctx, three, a, 0)
	if err != nil || doc.Generation != 3 || !strings.Contains(doc.Body, "three") {
		t.Fatalf("pin on a retained older generation: %+v %v", doc, err)
	}
	if n := len(ws.st.open); n != 2 {
		t.Errorf("%d generations open, want 2 (the current one and the pin on 3)", n)
	}
}
