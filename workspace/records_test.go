package workspace

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// TestSectionIndexIsFindSection: the index a cached document answers its
// second and later section lookups from finds what docir.Record.FindSection
// finds, for slugs, heading texts, anchors, percent-encoded text, heading
// text copied from the markdown (_emphasis_), repeated keys (the first
// section wins) and misses.
func TestSectionIndexIsFindSection(t *testing.T) {
	rec := docir.Record{Sections: []docir.Section{
		{Slug: "intro", Heading: "Intro"},
		{Slug: "metadata-schema", Heading: "Metadata", Anchors: []string{"meta", "über"}},
		{Slug: "intro-1", Heading: "Intro"},
		{Slug: "über-uns", Heading: "Über uns", Anchors: []string{"meta", "intro-2"}},
		{Slug: "metadata", Heading: "Other", Anchors: []string{"x y"}},
		{Slug: "a-b", Heading: "A  B"},
		{Slug: "event-activate-macos", Heading: "Event: 'activate' macOS"},
		{Slug: "snake_case-readonly", Heading: "snake_case Readonly"},
		{Slug: "ownership", Heading: "Ownership", Anchors: []string{"the-stack-and-the-heap"}},
		{Slug: "context-", Heading: "Context 🤔"},
		{Slug: "serverhost-", Heading: "server.host"},
		{Slug: "get_page", Heading: "get_page"},
		{Slug: "injection-aliasing", Heading: "注入别名 *"},
		{Slug: "ctx", Heading: "Why 🤔"},
	}}
	asks := []string{"注入别名", "注入别名 *", "Why", "why", "injection-aliasing", "intro", "Intro", "intro-1", "metadata", "Metadata", "metadata-schema", "meta",
		"über", "%C3%BCber-uns", "%C3%BCber", "%25C3%25BCber-uns", "über-uns", "Über uns", "intro-2",
		"x y", "x%20y", "A B", "a-b", "A  B", "nope", "%", "%zz", "INTRO", "a%2Db",
		"Event: 'activate' _macOS_", "Event: 'activate' *macOS*", "snake_case _Readonly_", "_snake_case_ Readonly", "__Intro__", "snake case",
		"The Stack and the Heap", "THE-STACK-AND-THE-HEAP", "the-stack-and-the-heap", "Context", "context", "server.host", "-", "get-page", "get_page"}
	idx := newSectionIndex(rec.Sections)
	for _, h := range asks {
		want, wok := rec.FindSection(h)
		var got docir.Section
		i, gok := idx.find(h)
		if gok {
			got = rec.Sections[i]
		}
		if gok != wok || !cmp.Equal(got, want) {
			t.Errorf("%q: index finds %q (%v), FindSection %q (%v)", h, got.Slug, gok, want.Slug, wok)
		}
	}
}

// TestResolveDecodesADocumentOnce: a read of many sections of one
// document (and of misses in it) decodes its record once, and answers as
// reading each address alone does.
func TestResolveDecodesADocumentOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Doc\n\n")
	for i := range 300 {
		fmt.Fprintf(&b, "## H%d\n\n<a id=\"a%d\"></a> text %d\n\n", i, i, i)
	}
	ws := linksService(t, map[string]string{"doc.md": b.String(), "other.md": "# Other\n\n## Sec\n"})
	ctx := context.Background()
	v, release, err := ws.acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	var addrs []string
	for i := range 100 {
		addrs = append(addrs, fmt.Sprintf("doc#h%d", i*3), fmt.Sprintf("doc#a%d", i), fmt.Sprintf("doc#zz%d", i))
	}
	addrs = append(addrs, "other#sec", "doc", "nope#x", "other#nope")
	docs := newDocCache(v.snap, true)
	for _, a := range parseAll(t, addrs...) {
		got, greason, err := resolveOne(v.snap, docs, a)
		if err != nil {
			t.Fatal(err)
		}
		want, wreason, err := resolveOne(v.snap, newDocCache(v.snap, true), a)
		if err != nil {
			t.Fatal(err)
		}
		if greason != wreason || !cmp.Equal(got, want) {
			t.Errorf("%s: cached %+v (%s), alone %+v (%s)", a, got, greason, want, wreason)
		}
	}
	if docs.decoded != 3 {
		t.Errorf("%d documents decoded for %d addresses of 3; want 3", docs.decoded, len(addrs))
	}
	// Links reads its documents through the same cache.
	res, err := ws.Links(ctx, parseAll(t, addrs...), wire.MaxReplyBytes)
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Items[0].Set; s == nil || s.Section == nil || s.Section.Slug != "h0" {
		t.Errorf("links of %s: %+v", addrs[0], res.Items[0])
	}
}
