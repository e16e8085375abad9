package ingest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// TestWikilinks: a wikilink names a note as Obsidian reads it: by its name
// in any case, or by a path (the note whose path is it, else the shortest
// that ends with it), with "#Heading" read as any anchor, "#^block" the
// section whose text ends a block with that id (one no block has is
// broken), "|text" left out; an embed of a file docir does not track
// is unchecked; a name no note has is broken, and a note of that name
// added later resolves it (the refresh resolves its linkers again).
// LinksInto lists wikilinks as any link. With links.wikilinks off, each
// is unchecked (ReasonWikilink).
func TestWikilinks(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "Projects/Three laws.md", "# Three laws\n\n"+
		"[[My Note]] [[my note#Some Heading|see]] [[Deep/My Note]] [[My Note#^block1]] [[My Note#^nope]] [[My Note#Nope]] ![[diagram.png]] [[Missing note]] [[#Local]]\n\n## Local\n")
	writeFile(t, src, "My Note.md", "# My Note\n\n## Some Heading\n\ntext ^block1\n")
	writeFile(t, src, "Archive/Deep/My Note.md", "# Old note\n")
	refresh := func() *store.Snapshot {
		t.Helper()
		if _, err := Refresh(t.Context(), dir, []store.Source{{Path: src}}, Options{Links: store.LinkConfig{Wikilinks: true}}); err != nil {
			t.Fatal(err)
		}
		s, err := store.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	s := refresh()
	got := linksByTarget(t, s, "Projects/Three-laws")
	for target, want := range map[string]struct{ status, addr, reason string }{
		"My Note":              {docir.LinkResolved, "My-Note", ""},
		"my note#Some Heading": {docir.LinkResolved, "My-Note#some-heading", ""},
		"Deep/My Note":         {docir.LinkResolved, "Archive/Deep/My-Note", ""},
		"My Note#^block1":      {docir.LinkResolved, "My-Note#some-heading", ""},
		"My Note#^nope":        {docir.LinkBroken, "My-Note#^nope", docir.ReasonNoSection},
		"My Note#Nope":         {docir.LinkBroken, "My-Note#Nope", docir.ReasonNoSection},
		"diagram.png":          {docir.LinkUnchecked, "", docir.ReasonNotMarkdown},
		"Missing note":         {docir.LinkBroken, "", docir.ReasonNoDocument},
		"#Local":               {docir.LinkResolved, "Projects/Three-laws#local", ""},
	} {
		l := got[target]
		switch {
		case l == nil:
			t.Errorf("no link %q in %v", target, got)
		case l.Kind != docir.LinkWiki || l.Status != want.status || l.Address != want.addr || l.Reason != want.reason:
			t.Errorf("%q: %s %s %q %s, want wikilink %s %q %s", target, l.Kind, l.Status, l.Address, l.Reason, want.status, want.addr, want.reason)
		}
	}
	in, err := s.LinksInto("My-Note")
	if err != nil || len(in) != 3 { // the three that resolve there (#Nope is broken)
		t.Errorf("links into My-Note: %d, %v; want 3", len(in), err)
	}

	// A note named as the broken link asks, added: the link resolves.
	if err := os.MkdirAll(filepath.Join(src, "Inbox"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, src, "Inbox/missing NOTE.md", "# Found\n")
	s = refresh()
	if l := linksByTarget(t, s, "Projects/Three-laws")["Missing note"]; l == nil || l.Status != docir.LinkResolved || l.Address != "Inbox/missing-NOTE" {
		t.Errorf("after the note was added: %+v, want resolved to Inbox/missing-NOTE", l)
	}

	// links.wikilinks off (not a vault): every wikilink is unchecked.
	// The refresh says so: these files hold more wikilinks than other links.
	off := t.TempDir()
	sum, err := Refresh(t.Context(), off, []store.Source{{Path: src}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.WarningCounts[KindWikilinks] != 1 {
		t.Errorf("wikilinks off: warnings %q, want one of kind %s", sum.Warnings, KindWikilinks)
	}
	so, err := store.Open(off)
	if err != nil {
		t.Fatal(err)
	}
	defer so.Close()
	for target, l := range linksByTarget(t, so, "Projects/Three-laws") {
		if l.Kind == docir.LinkWiki && (l.Status != docir.LinkUnchecked || l.Reason != docir.ReasonWikilink) {
			t.Errorf("wikilinks off: %q is %s %s, want unchecked wikilink", target, l.Status, l.Reason)
		}
	}
}
