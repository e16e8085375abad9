package store

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
)

// TestLeanRecord: a record decoded lean is the record less its links,
// anchors and terms, at both levels, and with its front matter decoded
// when asked (Spans.Fields), every other field kept.
func TestLeanRecord(t *testing.T) {
	full := docir.Record{
		ID: "a/b", Title: "B", Path: "a/b.md", Fields: map[string]any{"title": "B", "n": 1.0}, Size: 10, Digest: "ff",
		BodyStart: 3, MarkdownStart: 7,
		Links:   []docir.LinkRef{{Target: "c"}},
		Anchors: []string{"x"}, Terms: []string{"y"},
		Sections: []docir.Section{{Slug: "s", Heading: "S", Level: 2, Start: 7, OwnEnd: 9, End: 10, Line: 2, EndLine: 3,
			Links: []docir.LinkRef{{Target: "d"}}, Anchors: []string{"z"}, Terms: []string{"w"}}},
	}
	raw, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	var lean leanRecord
	if err := json.Unmarshal(raw, &lean); err != nil {
		t.Fatal(err)
	}
	want := full
	want.Links, want.Anchors, want.Terms = nil, nil, nil
	want.Sections = []docir.Section{full.Sections[0]}
	want.Sections[0].Links, want.Sections[0].Anchors, want.Sections[0].Terms = nil, nil, nil
	doc := &Spans{Record: lean.Record, fields: lean.Fields}
	if doc.Record.Fields != nil {
		t.Errorf("front matter decoded before it was asked for: %v", doc.Record.Fields)
	}
	if _, err := doc.Fields(); err != nil {
		t.Fatal(err)
	}
	got := doc.Record
	got.Sections = nil
	for _, s := range lean.Sections {
		got.Sections = append(got.Sections, s.Section)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("lean record (-want +got):\n%s", d)
	}
}
