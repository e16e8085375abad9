package session

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/workspace"
)

// pagedEngine is an engine (refresh granted, read batches of 2 workers)
// over the fixture corpus plus extra, indexed as generation 2, and a
// function that writes a file of its source folder.
func pagedEngine(t *testing.T, extra map[string]string) (*Engine, *workspace.Service, func(name, text string)) {
	t.Helper()
	ws, dir := testStore(t, extra)
	if _, err := ws.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	e := New(Config{Reader: ws, Refresh: ws.Refresh, Version: "test", Hold: holdOf(ws), Bindings: ws.Bindings(),
		Policy: &Policy{Schema: PolicyV2, Grants: []string{GrantRefresh}, ReadBatchWorkers: 2}})
	write := func(name, text string) {
		p := filepath.Join(filepath.Dir(dir), "corpus", name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return e, ws, write
}

// manyLinks is a page of n broken links and n external ones, each
// distinct.
func manyLinks(tag string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Many %s\n\n", tag)
	for i := range n {
		fmt.Fprintf(&b, "[x](missing-%s-%d.md) <https://example.com/%s/%d>\n", tag, i, tag, i)
	}
	return b.String()
}

// pageReply is one reply of a paged read, its line kept.
type pageReply struct {
	line   []byte
	result struct {
		Generation uint64              `json:"generation"`
		Counts     docir.LinkCounts    `json:"counts"`
		Broken     []docir.CheckedLink `json:"broken"`
		External   []docir.CheckedLink `json:"external"`
		Next       string              `json:"next"`
	}
	code docir.Code
}

// handle sends one request of method with params to e.
func handle(t *testing.T, e *Engine, method string, params map[string]any) pageReply {
	t.Helper()
	frame, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	var r pageReply
	r.line = e.Handle(context.Background(), frame)
	var w struct {
		Result json.RawMessage `json:"result"`
		Error  *wire.Error     `json:"error"`
	}
	if err := json.Unmarshal(r.line, &w); err != nil {
		t.Fatalf("%s: %v", r.line, err)
	}
	if w.Error != nil {
		r.code = docir.Code(w.Error.StableCode())
		return r
	}
	if err := json.Unmarshal(w.Result, &r.result); err != nil {
		t.Fatal(err)
	}
	return r
}

// walkPages reads every page of a check from params, following next, and
// returns the links of all pages joined and the first page.
func walkPages(t *testing.T, e *Engine, params map[string]any) (broken, external []docir.CheckedLink, first pageReply, pages int) {
	t.Helper()
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	for pages = 1; ; pages++ {
		r := handle(t, e, wire.MethodCheck, p)
		if r.code != "" {
			t.Fatalf("page %d: %s", pages, r.line)
		}
		if len(r.line) > wire.MaxReplyBytes {
			t.Fatalf("page %d is a reply of %d bytes", pages, len(r.line))
		}
		if pages == 1 {
			first = r
		} else if r.result.Generation != first.result.Generation || r.result.Counts != first.result.Counts {
			t.Fatalf("page %d: generation %d, counts %+v; the first page's: %d, %+v", pages, r.result.Generation, r.result.Counts, first.result.Generation, first.result.Counts)
		}
		broken, external = append(broken, r.result.Broken...), append(external, r.result.External...)
		if r.result.Next == "" {
			return broken, external, first, pages
		}
		if pages > 10_000 {
			t.Fatal("the pages do not end")
		}
		p["cursor"] = r.result.Next
	}
}

// TestCheckPagesOverTheWire: docir/check walked a page at a time (limit
// 7) is the unpaged check, every link once and in order; the next page of
// a cursor reads the generation it was cut from after a refresh published
// another, and once that generation is pruned the cursor is stale; a page
// in a read batch is the reply the frame gets alone.
func TestCheckPagesOverTheWire(t *testing.T) {
	checkLeaks(t)
	e, _, write := pagedEngine(t, map[string]string{"many.md": manyLinks("a", 30)})
	whole := handle(t, e, wire.MethodCheck, map[string]any{"external": true})
	if whole.code != "" || len(whole.result.Broken) != 30 || len(whole.result.External) != 30 || whole.result.Next != "" {
		t.Fatalf("the whole check: %.300s", whole.line)
	}
	broken, external, first, pages := walkPages(t, e, map[string]any{"external": true, "limit": 7})
	if diff := cmp.Diff(whole.result.Broken, broken); diff != "" {
		t.Errorf("broken links of the pages (-whole +pages):\n%s", diff)
	}
	if diff := cmp.Diff(whole.result.External, external); diff != "" {
		t.Errorf("external links of the pages (-whole +pages):\n%s", diff)
	}
	if pages != 9 || first.result.Generation != 2 {
		t.Errorf("%d pages of generation %d; want 9 (60 links, 7 a page) of generation 2", pages, first.result.Generation)
	}

	// A cursor cut from generation 2 reads generation 2 after a refresh.
	page1 := handle(t, e, wire.MethodCheck, map[string]any{"limit": 20})
	write("more.md", manyLinks("b", 5))
	if r := handle(t, e, wire.MethodRefresh, nil); r.code != "" {
		t.Fatalf("refresh: %s", r.line)
	}
	page2 := handle(t, e, wire.MethodCheck, map[string]any{"limit": 20, "cursor": page1.result.Next})
	if page2.code != "" || page2.result.Generation != 2 || len(page2.result.Broken) != 10 || page2.result.Next != "" {
		t.Fatalf("the next page after a refresh: %.400s", page2.line)
	}
	if diff := cmp.Diff(whole.result.Broken, append(page1.result.Broken, page2.result.Broken...)); diff != "" {
		t.Errorf("the pages across a refresh (-generation 2 +pages):\n%s", diff)
	}
	if now := handle(t, e, wire.MethodCheck, map[string]any{"limit": 20}); now.result.Generation != 3 || now.result.Counts.Broken != 35 {
		t.Errorf("a first page after the refresh: generation %d, %d broken; want 3, 35", now.result.Generation, now.result.Counts.Broken)
	}

	// In a read batch, the page a cursor asks for is the reply alone.
	frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":"p","method":"docir/check","params":{"limit":3,"external":true,"cursor":%q}}`, page1.result.Next)
	if b := runBatch(t, e, batchFrame(t, 9, 3, frame)); b.Result == nil || len(b.Result.Responses) != 1 || b.Result.Responses[0] == nil {
		t.Errorf("a batch of one paged check: %+v", b.Error)
	} else if alone := string(e.Handle(context.Background(), []byte(frame))) + "\n"; *b.Result.Responses[0] != alone ||
		!strings.Contains(alone, `"code":"invalid_params"`) {
		t.Errorf("a batch row %q; alone %q (want the cursor's external refused in both)", *b.Result.Responses[0], alone)
	}
	frame = fmt.Sprintf(`{"jsonrpc":"2.0","id":"p","method":"docir/check","params":{"limit":3,"cursor":%q}}`, page1.result.Next)
	if b := runBatch(t, e, batchFrame(t, 9, 3, frame)); b.Result == nil || b.Result.Responses[0] == nil {
		t.Errorf("a batch of one paged check: %+v", b.Error)
	} else if alone := string(e.Handle(context.Background(), []byte(frame))) + "\n"; *b.Result.Responses[0] != alone ||
		!strings.Contains(alone, `"generation":2,`) || !strings.Contains(alone, `"next":"`) {
		t.Errorf("a batch row %q; alone %q (want a page of generation 2 in both)", *b.Result.Responses[0], alone)
	}

	// Once generation 2 is pruned (3 are retained), its cursor is stale.
	for i := range 3 {
		write("more.md", manyLinks(fmt.Sprint("c", i), 5))
		if r := handle(t, e, wire.MethodRefresh, nil); r.code != "" {
			t.Fatalf("refresh: %s", r.line)
		}
	}
	if r := handle(t, e, wire.MethodCheck, map[string]any{"limit": 20, "cursor": page1.result.Next}); r.code != docir.CodeStaleRevision {
		t.Errorf("a cursor of a pruned generation: %s; want stale_revision", r.line)
	}
}

// TestCheckPagesAtTheReplyBound: a check whose list passes the 1 MiB reply
// bound answers the links that fit and next, where it answered
// reply_too_large; its pages, walked, are every link once.
func TestCheckPagesAtTheReplyBound(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 9,000 links")
	}
	checkLeaks(t)
	e, _, _ := pagedEngine(t, map[string]string{"many.md": manyLinks("a-somewhat-longer-tag-to-make-each-link-longer", 4500)})
	broken, external, first, pages := walkPages(t, e, map[string]any{"external": true})
	if pages < 2 || len(broken) != 4500 || len(external) != 4500 {
		t.Fatalf("%d pages, %d broken, %d external; want 4,500 each in several pages", pages, len(broken), len(external))
	}
	if n := len(first.line); n < wire.MaxReplyBytes*9/10 {
		t.Errorf("the first page is %d bytes; want it near the %d-byte bound", n, wire.MaxReplyBytes)
	}
	seen := map[string]bool{}
	for _, l := range append(broken, external...) {
		k := fmt.Sprint(l.Line, l.Target)
		if seen[k] {
			t.Fatalf("%s listed twice", k)
		}
		seen[k] = true
	}
}

// TestChangesPagesOverTheWire: docir/changes walked with limit 1 is the
// unpaged reply, and its cursor keeps reading the generations it was cut
// from after a refresh (until is pinned, not the current generation).
func TestChangesPagesOverTheWire(t *testing.T) {
	checkLeaks(t)
	e, _, write := pagedEngine(t, map[string]string{"a.md": "# A\n", "b.md": "# B\n\n## S\n\nx\n"})
	var whole struct {
		Documents docir.ChangeLists `json:"documents"`
		Sections  docir.ChangeLists `json:"sections"`
		Next      string            `json:"next"`
	}
	call := func(params map[string]any, v any) string {
		t.Helper()
		line := handle(t, e, wire.MethodChanges, params).line
		res := result(t, string(line))
		if err := json.Unmarshal(res, v); err != nil {
			t.Fatal(err)
		}
		return string(line)
	}
	call(map[string]any{"since": 1}, &whole)
	if len(whole.Documents.Added) != 2 || whole.Next != "" {
		t.Fatalf("the whole change: %+v", whole)
	}
	var got []string
	params := map[string]any{"since": 1, "limit": 1}
	for i := 0; ; i++ {
		var page struct {
			Until     uint64            `json:"until"`
			Documents docir.ChangeLists `json:"documents"`
			Next      string            `json:"next"`
		}
		line := call(params, &page)
		if page.Until != 2 {
			t.Fatalf("page %d: %s", i, line)
		}
		got = append(got, page.Documents.Added...)
		if page.Next == "" {
			break
		}
		if i == 0 {
			write("c.md", "# C\n")
			if r := handle(t, e, wire.MethodRefresh, nil); r.code != "" {
				t.Fatalf("refresh: %s", r.line)
			}
		}
		params["cursor"] = page.Next
	}
	if diff := cmp.Diff(whole.Documents.Added, got); diff != "" {
		t.Errorf("the pages (-whole +pages):\n%s", diff)
	}
}
