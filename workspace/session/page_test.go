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

	"github.com/docir/docir/address"
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
	pages = follow(t, params, func(page int, p map[string]any) string {
		r := handle(t, e, wire.MethodCheck, p)
		if r.code != "" || len(r.line) > wire.MaxReplyBytes {
			t.Fatalf("page %d: a reply of %d bytes: %.300s", page, len(r.line), r.line)
		}
		if page == 1 {
			first = r
		} else if r.result.Generation != first.result.Generation || r.result.Counts != first.result.Counts {
			t.Fatalf("page %d: generation %d, counts %+v; the first page's: %d, %+v", page, r.result.Generation, r.result.Counts, first.result.Generation, first.result.Counts)
		}
		broken, external = append(broken, r.result.Broken...), append(external, r.result.External...)
		return r.result.Next
	})
	return broken, external, first, pages
}

// follow reads the pages of a paged read from params: read gets each
// page's number and params (with the cursor of the page before) and
// returns its next. It returns the number of pages.
func follow(t *testing.T, params map[string]any, read func(page int, p map[string]any) (next string)) int {
	t.Helper()
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	for page := 1; ; page++ {
		next := read(page, p)
		if next == "" {
			return page
		}
		if page > 10_000 {
			t.Fatal("the pages do not end")
		}
		p["cursor"] = next
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

// hubCorpus is a hub page with outgoing links and a section, and n pages
// that link to it each links times (to the page, and every other link to
// its section), their headings long by pad characters.
func hubCorpus(n, links, pad int) map[string]string {
	files := map[string]string{"hub.md": "# Hub\n\n[a](a.md) [b](b.md) [x](missing.md)\n\n## Term\n\n[self](#term) <https://example.com/hub>\n"}
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "# Page %d %s\n\n", i, strings.Repeat("x", pad))
		for j := range links {
			if j%2 == 0 {
				fmt.Fprintf(&b, "[hub](hub.md) line %d\n", j)
			} else {
				fmt.Fprintf(&b, "[term](hub.md#term) line %d\n", j)
			}
		}
		files[fmt.Sprintf("p%03d.md", i)] = b.String()
	}
	return files
}

// linkPage is one reply of a docir/links doc_id read.
type linkPage struct {
	line []byte
	set  docir.LinkSet
	code docir.Code
	msg  string
}

func linksCall(t *testing.T, e *Engine, params map[string]any) linkPage {
	t.Helper()
	frame, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": wire.MethodLinks, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	var p linkPage
	p.line = e.Handle(context.Background(), frame)
	var w struct {
		Result *docir.LinkResult `json:"result"`
		Error  *wire.Error       `json:"error"`
	}
	if err := json.Unmarshal(p.line, &w); err != nil {
		t.Fatalf("%s: %v", p.line, err)
	}
	if w.Error != nil {
		p.code, p.msg = docir.Code(w.Error.StableCode()), w.Error.Message
		return p
	}
	p.set = w.Result.Links
	return p
}

// walkLinks reads every page of the links of params's doc_id, following
// next, and returns the pages' links joined, the first page and the
// number of pages; every page has the first page's fields.
func walkLinks(t *testing.T, e *Engine, params map[string]any) (out, in []docir.Link, first docir.LinkSet, pages int) {
	t.Helper()
	pages = follow(t, params, func(page int, p map[string]any) string {
		r := linksCall(t, e, p)
		if r.code != "" || len(r.line) > wire.MaxReplyBytes {
			t.Fatalf("page %d: a reply of %d bytes: %.300s", page, len(r.line), r.line)
		}
		head := r.set
		head.Outgoing, head.Incoming, head.Next = nil, nil, ""
		if page == 1 {
			first = head
		} else if diff := cmp.Diff(first, head); diff != "" {
			t.Fatalf("page %d's fields differ from the first page's (-first +page):\n%s", page, diff)
		}
		out, in = append(out, r.set.Outgoing...), append(in, r.set.Incoming...)
		return r.set.Next
	})
	return out, in, first, pages
}

// noRepeats fails when a link is listed twice in a list (the corpus's
// links are distinct by section, line and target; a page's link to its
// own section is both outgoing and incoming).
func noRepeats(t *testing.T, ls []docir.Link) {
	t.Helper()
	seen := map[string]bool{}
	for _, l := range ls {
		k := fmt.Sprint(l.From, l.Line, l.Target)
		if seen[k] {
			t.Fatalf("%s listed twice", k)
		}
		seen[k] = true
	}
}

// TestLinksPagesOverTheWire: the links of one doc_id walked a page at a
// time (limit 4) are the unpaged set, its outgoing links then its incoming
// ones, each once and in order, for a page and for a section; a cursor
// reads the generation it was cut from after a refresh, and is stale once
// that one is pruned; it is refused for another address, another method
// or another pin; doc_ids takes no paging; a page in a read batch is the
// reply the frame gets alone.
func TestLinksPagesOverTheWire(t *testing.T) {
	checkLeaks(t)
	e, _, write := pagedEngine(t, hubCorpus(12, 3, 0))
	for _, addr := range []string{"hub", "hub#term"} {
		whole := linksCall(t, e, map[string]any{"doc_id": addr})
		if whole.code != "" || whole.set.Next != "" {
			t.Fatalf("the whole set of %s: %.300s", addr, whole.line)
		}
		out, in, first, pages := walkLinks(t, e, map[string]any{"doc_id": addr, "limit": 4})
		if diff := cmp.Diff(whole.set.Outgoing, out); diff != "" {
			t.Errorf("%s: outgoing links of the pages (-whole +pages):\n%s", addr, diff)
		}
		if diff := cmp.Diff(whole.set.Incoming, in); diff != "" {
			t.Errorf("%s: incoming links of the pages (-whole +pages):\n%s", addr, diff)
		}
		noRepeats(t, out)
		noRepeats(t, in)
		n := len(whole.set.Outgoing) + len(whole.set.Incoming)
		if want := (n + 3) / 4; pages != want || first.Generation != 2 || first.Address != addr {
			t.Errorf("%s: %d pages of generation %d (%q); want %d (%d links, 4 a page) of generation 2", addr, pages, first.Generation, first.Address, want, n)
		}
	}
	whole := linksCall(t, e, map[string]any{"doc_id": "hub"})
	if len(whole.set.Outgoing) != 5 || len(whole.set.Incoming) != 37 { // 12 pages × 3, and the hub's own link to #term
		t.Fatalf("the hub: %d outgoing, %d incoming; want 5, 37", len(whole.set.Outgoing), len(whole.set.Incoming))
	}

	// A cursor cut from generation 2 reads generation 2 after a refresh
	// that adds links to the hub.
	page1 := linksCall(t, e, map[string]any{"doc_id": "hub", "limit": 20})
	write("p000.md", "# Page 0\n\n[hub](hub.md) [hub](hub.md) [hub](hub.md)\n")
	write("new.md", "# New\n\n[hub](hub.md)\n")
	if r := handle(t, e, wire.MethodRefresh, nil); r.code != "" {
		t.Fatalf("refresh: %s", r.line)
	}
	page2 := linksCall(t, e, map[string]any{"doc_id": "hub", "limit": 30, "cursor": page1.set.Next})
	if page2.code != "" || page2.set.Generation != 2 || page2.set.Next != "" {
		t.Fatalf("the next page after a refresh: %.400s", page2.line)
	}
	if diff := cmp.Diff(whole.set.Incoming, append(page1.set.Incoming, page2.set.Incoming...)); diff != "" {
		t.Errorf("the pages across a refresh (-generation 2 +pages):\n%s", diff)
	}
	if now := linksCall(t, e, map[string]any{"doc_id": "hub"}); now.set.Generation != 3 || len(now.set.Incoming) != 38 {
		t.Errorf("a first page after the refresh: generation %d, %d incoming; want 3, 38", now.set.Generation, len(now.set.Incoming))
	}

	// Refused: another address, another method, another pin, doc_ids.
	for name, c := range map[string]struct {
		method string
		params map[string]any
		want   string
	}{
		"another address":  {wire.MethodLinks, map[string]any{"doc_id": "hub#term", "cursor": page1.set.Next}, "cut for another address than hub#term"},
		"another document": {wire.MethodLinks, map[string]any{"doc_id": "p001", "cursor": page1.set.Next}, "cut for another address than p001"},
		"another method":   {wire.MethodCheck, map[string]any{"cursor": page1.set.Next}, "it pages docir/links, not docir/check"},
		"a links cursor":   {wire.MethodLinks, map[string]any{"doc_id": "hub", "cursor": handle(t, e, wire.MethodCheck, map[string]any{"limit": 1}).result.Next}, "it pages docir/check, not docir/links"},
		"another pin":      {wire.MethodLinks, map[string]any{"doc_id": "hub", "cursor": page1.set.Next, "image_revision": 3}, "cut from generation 2; this read is pinned to generation 3"},
		"doc_ids limit":    {wire.MethodLinks, map[string]any{"doc_ids": []string{"hub"}, "limit": 2}, "paging takes one doc_id"},
		"doc_ids cursor":   {wire.MethodLinks, map[string]any{"doc_ids": []string{"hub"}, "cursor": page1.set.Next}, "paging takes one doc_id"},
	} {
		r := handle(t, e, c.method, c.params)
		if r.code != docir.CodeInvalidParams || !strings.Contains(string(r.line), c.want) {
			t.Errorf("%s: %s; want invalid_params saying %q", name, r.line, c.want)
		}
	}
	if r := handle(t, e, wire.MethodLinks, map[string]any{"doc_ids": []string{"hub", "nope"}}); r.code != "" || strings.Contains(string(r.line), `"next"`) {
		t.Errorf("doc_ids with no paging: %.300s", r.line)
	}

	// In a read batch, the page a cursor asks for is the reply alone, on
	// the cursor's generation.
	frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":"p","method":"docir/links","params":{"doc_id":"hub","limit":3,"cursor":%q}}`, page1.set.Next)
	if b := runBatch(t, e, batchFrame(t, 9, 3, frame)); b.Result == nil || len(b.Result.Responses) != 1 || b.Result.Responses[0] == nil {
		t.Errorf("a batch of one paged links read: %+v", b.Error)
	} else if alone := string(e.Handle(context.Background(), []byte(frame))) + "\n"; *b.Result.Responses[0] != alone ||
		!strings.Contains(alone, `"generation":2,`) || !strings.Contains(alone, `"next":"`) {
		t.Errorf("a batch row %q; alone %q (want a page of generation 2 in both)", *b.Result.Responses[0], alone)
	}

	// Once generation 2 is pruned (3 are retained), its cursor is stale.
	for i := range 3 {
		write("new.md", fmt.Sprintf("# New %d\n\n[hub](hub.md)\n", i))
		if r := handle(t, e, wire.MethodRefresh, nil); r.code != "" {
			t.Fatalf("refresh: %s", r.line)
		}
	}
	if r := linksCall(t, e, map[string]any{"doc_id": "hub", "cursor": page1.set.Next}); r.code != docir.CodeStaleRevision {
		t.Errorf("a cursor of a pruned generation: %s; want stale_revision", r.line)
	}
}

// TestLinksPagesAtTheReplyBound: the links of a hub page that pass the 1
// MiB reply bound (reply_too_large before paging) answer the links that
// fit and next; its pages, walked, are every link once, the unpaged set
// of a read with no bound.
func TestLinksPagesAtTheReplyBound(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 8,000 links to one page")
	}
	checkLeaks(t)
	e, ws, _ := pagedEngine(t, hubCorpus(80, 100, 60))
	out, in, _, pages := walkLinks(t, e, map[string]any{"doc_id": "hub"})
	if pages < 2 || len(out) != 5 || len(in) != 8001 {
		t.Fatalf("%d pages, %d outgoing, %d incoming; want 5 and 8,001 in several pages", pages, len(out), len(in))
	}
	first := linksCall(t, e, map[string]any{"doc_id": "hub"})
	if n := len(first.line); n < wire.MaxReplyBytes*9/10 || n > wire.MaxReplyBytes {
		t.Errorf("the first page is %d bytes; want it near the %d-byte bound", n, wire.MaxReplyBytes)
	}
	noRepeats(t, out)
	noRepeats(t, in)
	one, err := docir.GetLinksOne(context.Background(), ws, address.MustParse("hub"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(one.Links.Incoming, in); diff != "" {
		t.Errorf("the pages (-unbounded read +pages):\n%s", diff)
	}
}

// TestLinksPageTooLarge: a link that alone passes the page bound is
// reply_too_large, naming it, on the page that reaches it; the pages
// before it are read.
func TestLinksPageTooLarge(t *testing.T) {
	checkLeaks(t)
	long := strings.Repeat("y", 5000)
	e, _, _ := pagedEngine(t, map[string]string{
		"hub.md":  "# Hub\n\n[a](a.md)\n",
		"long.md": "# Long\n\n[hub](hub.md)\n[hub](hub.md?" + long + ")\n",
	})
	e.maxReply = 4000 // a page of less than 4,000 bytes
	r := linksCall(t, e, map[string]any{"doc_id": "hub"})
	if r.code != "" || len(r.set.Incoming) != 1 || r.set.Next == "" {
		t.Fatalf("the first page: %s", r.line)
	}
	r = linksCall(t, e, map[string]any{"doc_id": "hub", "cursor": r.set.Next})
	if r.code != docir.CodeReplyTooLarge || !strings.Contains(r.msg, "the link at long#long line 4 to \"hub.md?yyy") {
		t.Errorf("a link past the page bound: %s", r.line)
	}
}

// TestNullIsAbsent: a host that fills an optional key with null (models
// often do) leaves it out: limit and cursor null read the first page
// whole, as if absent; 0 stays refused where it is no value (a limit, a
// generation), naming the key.
func TestNullIsAbsent(t *testing.T) {
	checkLeaks(t)
	e, _, _ := pagedEngine(t, map[string]string{"many.md": manyLinks("n", 3)})
	whole := handle(t, e, wire.MethodCheck, map[string]any{})
	nulls := handle(t, e, wire.MethodCheck, map[string]any{"limit": nil, "cursor": nil})
	if nulls.code != "" || string(nulls.line) != string(whole.line) {
		t.Errorf("check with limit and cursor null: %s; want %s", nulls.line, whole.line)
	}
	for _, params := range []map[string]any{{"limit": 0}, {"since": 1, "until": 0}, {"since": 0}} {
		method := wire.MethodChanges
		if _, ok := params["limit"]; ok {
			method = wire.MethodCheck
		}
		r := handle(t, e, method, params)
		if r.code != docir.CodeInvalidParams || !strings.Contains(string(r.line), " 0: ") {
			t.Errorf("%s %v: %s; want invalid_params naming the 0", method, params, r.line)
		}
	}
}

// TestEvidenceOfAFullPage: workspace/evidence of a paged read whose page
// is as large as the reply allows is within the reply bound: the evidence
// carries the response as a string beside its record, so its page is a
// third of the reply (a default page, ~960 KiB, passed the bound there).
// And links of doc_ids with null limit and cursor is a plain read.
func TestEvidenceOfAFullPage(t *testing.T) {
	checkLeaks(t)
	e, _, _ := pagedEngine(t, map[string]string{"many.md": manyLinks("a-somewhat-longer-tag-to-make-each-link-longer", 4500)})
	var b struct {
		Result struct {
			Receipt string `json:"receipt"`
		} `json:"result"`
	}
	bind := handle(t, e, wire.MethodBind, map[string]any{})
	if err := json.Unmarshal(bind.line, &b); err != nil || b.Result.Receipt == "" {
		t.Fatalf("bind: %s", bind.line)
	}
	ev := handle(t, e, wire.MethodEvidence, map[string]any{"binding": b.Result.Receipt, "method": wire.MethodCheck, "params": map[string]any{}})
	if ev.code != "" || len(ev.line) > wire.MaxReplyBytes {
		t.Errorf("evidence of a check page: %d bytes: %.300s", len(ev.line), ev.line)
	}
	r := handle(t, e, wire.MethodLinks, map[string]any{"doc_ids": []string{"runbooks/disk-full"}, "limit": nil, "cursor": nil})
	if r.code != "" {
		t.Errorf("links of doc_ids with null limit and cursor: %.300s", r.line)
	}
}
