package store

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
)

// TestLeanRecord: a record decoded lean is the record less its links,
// anchors and terms, at both levels, and with its front matter decoded
// when asked (Spans.Fields), every other field kept; the scanner reads a
// record as json.Marshal writes it, escapes (json.Marshal writes <, >
// and & as \u003c, \u003e, \u0026) and invalid UTF-8 (which json.Marshal
// writes as \ufffd) included.
func TestLeanRecord(t *testing.T) {
	for _, title := range []string{"B", `B "quoted" <b> & é \ / ` + "\t\x01\u2028 😀 \xff"} {
		full := docir.Record{
			ID: "a/b", Title: title, Path: "a/b.md", Fields: map[string]any{"title": "B", "n": 1.0}, Size: 10, Digest: "ff",
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
		if _, _, scanned := scanLean(raw); !scanned {
			t.Errorf("title %q: not scanned, %s", title, raw)
		}
		want := full
		want.Title = strings.ToValidUTF8(title, "\ufffd")
		want.Links, want.Anchors, want.Terms = nil, nil, nil
		want.Sections = []docir.Section{full.Sections[0]}
		want.Sections[0].Links, want.Sections[0].Anchors, want.Sections[0].Terms = nil, nil, nil
		doc := &Spans{id: full.ID, raw: raw}
		rec, err := doc.Record()
		if err != nil {
			t.Fatal(err)
		}
		if rec.Fields != nil {
			t.Errorf("front matter decoded before it was asked for: %v", rec.Fields)
		}
		if _, err := doc.Fields(); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, *rec); d != "" {
			t.Errorf("title %q: lean record (-want +got):\n%s", title, d)
		}
	}
}

// TestLeanStrings: the scanner decodes a string value as encoding/json
// does, escapes, surrogates and invalid UTF-8 included, and leaves what
// JSON's grammar refuses to encoding/json (which refuses it too).
func TestLeanStrings(t *testing.T) {
	for _, c := range []struct {
		json    string
		scanned bool
	}{
		{`"plain é"`, true},
		{`"\u003c-\u003e \u0026 \"q\" \\ \/ \b\f\n\r\t"`, true},
		{`"\ud83d\ude00"`, true},                // a pair: one rune
		{`"\ud800\u0041 \udc00x \ud83d"`, true}, // unpaired: U+FFFD each
		{"\"a\xffb\xc3\"", true},                // invalid UTF-8: U+FFFD a byte
		{`"\u12"`, false},
		{`"\'"`, false},
		{`"\x41"`, false},
		{"\"a\x01\"", false},
		{`"\`, false},
	} {
		raw := []byte(`{"id":"x","title":` + c.json + `}`)
		rec, _, ok := scanLean(raw)
		if ok != c.scanned {
			t.Errorf("%s: scanned %v, want %v", c.json, ok, c.scanned)
			continue
		}
		want, _, err := unmarshalLean(raw)
		if ok && (err != nil || want.Title != rec.Title) {
			t.Errorf("%s: scanned %q, encoding/json %q (%v)", c.json, rec.Title, want.Title, err)
		}
		if !ok && err == nil {
			t.Errorf("%s: encoding/json reads it (%q); the scanner should too", c.json, want.Title)
		}
	}
}

// FuzzDecodeLean: whatever the bytes, the scanner never panics, and when
// it reads them, encoding/json reads them too, to the same record.
func FuzzDecodeLean(f *testing.F) {
	full, err := json.Marshal(docir.Record{
		ID: "a/b", Title: "B", Path: "a/b.md", Fields: map[string]any{"t": []any{"x", 1.5, nil, true}}, Size: 10, Digest: "ff",
		BodyStart: 3, MarkdownStart: 7, Links: []docir.LinkRef{{Target: "c"}}, Anchors: []string{"x"},
		Sections: []docir.Section{{Slug: "s", Heading: "S", Level: 2, Start: 7, OwnEnd: 9, End: 10, Line: 2, EndLine: 3, Terms: []string{"w"}}},
	})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{string(full), `{}`, `null`, `{"id":"a","sections":null}`, `{"id":"a","ID":"b"}`,
		`{"id":"a","id":"b"}`, `{"size":1e3}`, `{"size":-0}`, `{"fields":{"a":"\u00e9\n"}}`, `{"links":[[[]]]} x`,
		`{"title":"\xff"}`, `{"title":"\ud83d\ude00\ud800\u0041\udc00x\"\\\/\b\f\n\r\t"}`, `{"title":"\u12"}`, `{"title":"a\'"}`,
		`{"sections":[{"heading":"\u003c-\u003e \xc3"}]}`, "{\"title\":\"a\xffb\xc3\"}", `{"sections":[{"level":01}]}`, `{"sections":[{}],"fields":null}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		rec, fields, ok := scanLean(v)
		if !ok {
			return
		}
		want, wantFields, err := unmarshalLean(v)
		if err != nil {
			t.Fatalf("scanned %q, which encoding/json refuses: %v", v, err)
		}
		if d := cmp.Diff(want, rec); d != "" {
			t.Errorf("%q: scanned record (-json +scan):\n%s", v, d)
		}
		if !bytes.Equal(wantFields, fields) {
			t.Errorf("%q: fields %q, encoding/json %q", v, fields, wantFields)
		}
	})
}
