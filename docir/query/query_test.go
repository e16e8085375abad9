package query

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want []Term
	}{
		{"status:accepted", []Term{{Text: "status:accepted", Field: "status", Values: []string{"accepted"}}}},
		{"  status:accepted   kind:adr ", []Term{
			{Text: "status:accepted", Offset: 2, Field: "status", Values: []string{"accepted"}},
			{Text: "kind:adr", Offset: 20, Field: "kind", Values: []string{"adr"}},
		}},
		{"-status:draft,superseded", []Term{{Text: "-status:draft,superseded", Not: true, Field: "status", Values: []string{"draft", "superseded"}}}},
		{"path:text/*", []Term{{Text: "path:text/*", Field: "path", Values: []string{"text/*"}}}},
		{"date:>=2024-01-01", []Term{{Text: "date:>=2024-01-01", Field: "date", Op: OpGE, Values: []string{"2024-01-01"}}}},
		{"size:<4096", []Term{{Text: "size:<4096", Field: "size", Op: OpLT, Values: []string{"4096"}}}},
		{"date:2024-01..2024-06", []Term{{Text: "date:2024-01..2024-06", Field: "date", Op: OpRange, Lo: "2024-01", Hi: "2024-06"}}},
		{"date:2024..", []Term{{Text: "date:2024..", Field: "date", Op: OpRange, Lo: "2024"}}},
		{"date:..2024-06-30", []Term{{Text: "date:..2024-06-30", Field: "date", Op: OpRange, Hi: "2024-06-30"}}},
		{`title:"retry budget, v2"`, []Term{{Text: `title:"retry budget, v2"`, Field: "title", Values: []string{"retry budget, v2"}}}},
		{`title:"say \"hi\""`, []Term{{Text: `title:"say \"hi\""`, Field: "title", Values: []string{`say "hi"`}}}},
		{"author.name:ada", []Term{{Text: "author.name:ada", Field: "author.name", Values: []string{"ada"}}}},
		{"last-updated:2024", []Term{{Text: "last-updated:2024", Field: "last-updated", Values: []string{"2024"}}}},
		{"язык:русский", []Term{{Text: "язык:русский", Field: "язык", Values: []string{"русский"}}}},
		{"url:https://x.org/a", []Term{{Text: "url:https://x.org/a", Field: "url", Values: []string{"https://x.org/a"}}}},
		// Any front-matter key, quoted.
		{`"my key":v1`, []Term{{Text: `"my key":v1`, Field: "my key", Values: []string{"v1"}}}},
		{`-"a:b":>c`, []Term{{Text: `-"a:b":>c`, Not: true, Field: "a:b", Op: OpGT, Values: []string{"c"}}}},
	}
	for _, tt := range tests {
		e, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, e.Terms); diff != "" {
			t.Errorf("Parse(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, part, msg string }{
		{"", "", "empty expression"},
		{"   ", "", "empty expression"},
		{"hello", "hello", "a term is field:value"},
		{"kind:adr hello", "hello", "a term is field:value"},
		{"status:", "status:", "missing value"},
		{":x", ":x", "missing field name"},
		{"a..b:x", "a..b:x", "empty segment"},
		{"st@tus:x", "st@tus:x", "'@' is not allowed"},
		{"a:b,", "a:b,", "empty value at the end"},
		{"a:b,,c", "a:b,,c", "empty value in a list"},
		{`a:"open`, `a:"open`, "unterminated quote"},
		{`a:"x"y`, `a:"x"y`, "text after a closing quote"},
		{`a:x"y"`, `a:x"y"`, "a quote may only open a value"},
		{`a:"\n"`, `a:"\n"`, `only \" and \\ are escapes`},
		{"date:>=2024-13-01", "date:>=2024-13-01", "month 13"},
		{"date:2024-02-32", "date:2024-02-32", "day 32"},
		{"date:2024-1-01", "date:2024-1-01", "a date is YYYY-MM"},
		{"date:2024-06..2024-01", "date:2024-06..2024-01", "is empty"},
		{"date:..", "date:..", "at least one end"},
		{"date:1..2..3", "date:1..2..3", "one '..'"},
		{"date:>2024..2025", "date:>2024..2025", "without >"},
		{"size:>1,2", "size:>1,2", "one value"},
		// size is a number: "40k" would compare with "7350" as text.
		{"size:>40k", "size:>40k", `"40k" is not one`},
		{"size:10..2k", "size:10..2k", `"2k" is not one`},
		{"size:big", "size:big", `"big" is not one`},
		{"size:* size:>4096 size:1,2 size:..5", "", ""}, // fine
		{"path:>a*", "path:>a*", "no glob"},
		{"a:x* ", "", ""}, // fine
		{"kind:adr date:<=2024-00", "date:<=2024-00", "month 00"},
		{"a:\x01", "a:\x01", "control character"},
		{`"":x`, `"":x`, "empty field name"},
		{`"my key"`, `"my key"`, "followed by ':'"},
		{`"my key:x`, `"my key:x`, "unterminated quote"},
		{"a:\xff", "", "not valid UTF-8"},
		{strings.Repeat("a:b ", 2000), "", "over the 4096-byte bound"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if tt.msg == "" {
			if err != nil {
				t.Errorf("Parse(%q): %v", tt.in, err)
			}
			continue
		}
		var qe *Error
		if !errors.As(err, &qe) {
			t.Errorf("Parse(%q) = %v, want an *Error", tt.in, err)
			continue
		}
		if qe.Part != tt.part || !strings.Contains(qe.Msg, tt.msg) {
			t.Errorf("Parse(%q): part %q msg %q, want part %q and %q", tt.in, qe.Part, qe.Msg, tt.part, tt.msg)
		}
		if qe.Part != "" && !strings.HasPrefix(tt.in[qe.Offset:], qe.Part) {
			t.Errorf("Parse(%q): offset %d does not point at %q", tt.in, qe.Offset, qe.Part)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	_, err := Parse("kind:adr date:>=2024-13-01")
	want := `invalid query "kind:adr date:>=2024-13-01": term "date:>=2024-13-01" at byte 9: "2024-13-01": month 13 is not 01 to 12`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	_, err = Parse("hello")
	if want := `invalid query "hello": a term is field:value (free text belongs to ` + "`docir search`)"; err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

func TestParseSort(t *testing.T) {
	tests := []struct {
		in    string
		field string
		desc  bool
		bad   bool
	}{
		{"date", "date", false, false},
		{"-date", "date", true, false},
		{"author.name", "author.name", false, false},
		{"", "", false, true},
		{"-", "", false, true},
		{"a b", "", false, true},
		{"--date", "", false, true},
		{"a..b", "", false, true},
	}
	for _, tt := range tests {
		f, d, err := ParseSort(tt.in)
		if (err != nil) != tt.bad || f != tt.field || d != tt.desc {
			t.Errorf("ParseSort(%q) = %q, %v, %v", tt.in, f, d, err)
		}
	}
}

var testRecs = []*docir.Record{
	{ID: "adr/0001", Title: "Record decisions", Path: "adr/0001.md", Size: 900, Fields: map[string]any{
		"status": "accepted", "kind": "adr", "date": "2024-01-10", "tags": []any{"process", "Docs"}, "draft": false, "priority": 2,
	}},
	{ID: "adr/0002", Title: "Store bodies", Path: "adr/0002.md", Size: 4000, Fields: map[string]any{
		"Status": "Accepted", "kind": "adr", "date": "2024-03-02T10:00:00Z", "author": map[string]any{"name": "Ada"}, "priority": 10,
	}},
	{ID: "runbooks/retry", Title: "Retry budget", Path: "runbooks/retry.md", Size: 1200, Fields: map[string]any{
		"status": "proposed", "kind": "adr", "date": time.Date(2024, 5, 17, 0, 0, 0, 0, time.UTC), "priority": 2.5,
	}},
	{ID: "guides/x", Title: "Guide", Path: "guides/x.md", Size: 10, Fields: map[string]any{"my key": "v1", "a:b": "colon",
		"editors": []any{map[string]any{"name": "Richard Hartmann", "role": "editor"}, map[string]any{"name": "Ben"}, "plain"}}},
}

func matchIDs(t *testing.T, expr string) []string {
	t.Helper()
	e, err := Parse(expr)
	if err != nil {
		t.Fatalf("Parse(%q): %v", expr, err)
	}
	out := []string{}
	for _, r := range testRecs {
		if e.Match(r) {
			out = append(out, r.ID)
		}
	}
	return out
}

func TestMatch(t *testing.T) {
	tests := []struct {
		expr string
		want []string
	}{
		{"status:accepted", []string{"adr/0001", "adr/0002"}}, // key and value case ignored
		{"status:accepted kind:adr", []string{"adr/0001", "adr/0002"}},
		{"status:accepted,proposed", []string{"adr/0001", "adr/0002", "runbooks/retry"}},
		{"-status:accepted", []string{"runbooks/retry", "guides/x"}},
		{"path:adr/*", []string{"adr/0001", "adr/0002"}},
		{"path:*.md", []string{"adr/0001", "adr/0002", "runbooks/retry", "guides/x"}},
		{"id:adr/000?", []string{"adr/0001", "adr/0002"}},
		{"title:*budget*", []string{"runbooks/retry"}},
		{"title:retry", []string{}}, // equality, not containment
		{`title:"retry budget"`, []string{"runbooks/retry"}},
		{"tags:docs", []string{"adr/0001"}},
		{"tags:*", []string{"adr/0001"}},
		{"-tags:*", []string{"adr/0002", "runbooks/retry", "guides/x"}},
		{"author.name:ada", []string{"adr/0002"}},
		// A path through a list of objects reads each one (the OpenMetrics
		// specs' `author:` list of editors).
		{"editors.name:*hartmann*", []string{"guides/x"}},
		{"editors.name:ben", []string{"guides/x"}},
		{"editors.role:*", []string{"guides/x"}},
		{"editors.nope:*", []string{}},
		{"author:*", []string{"adr/0002"}},
		{"draft:false", []string{"adr/0001"}},
		{"date:>=2024-03-01", []string{"adr/0002", "runbooks/retry"}},
		{"date:<2024-03", []string{"adr/0001"}},
		{"date:<=2024-03", []string{"adr/0001", "adr/0002"}},
		{"date:>2024-03", []string{"runbooks/retry"}},
		{"date:2024-01..2024-03", []string{"adr/0001", "adr/0002"}},
		{"date:2024-03..", []string{"adr/0002", "runbooks/retry"}},
		{"date:..2024-01-10", []string{"adr/0001"}},
		{"date:2024-05", []string{"runbooks/retry"}},
		{"date:2024", []string{"adr/0001", "adr/0002", "runbooks/retry"}},
		{"date:2024-05-17", []string{"runbooks/retry"}},
		{"date:2023..2023", []string{}},
		{"priority:>2", []string{"adr/0002", "runbooks/retry"}}, // numbers, not text ("10" < "2")
		{`"my key":v1`, []string{"guides/x"}},                   // a key the bare syntax cannot spell
		{`"a:b":colon`, []string{"guides/x"}},
		{"priority:2", []string{"adr/0001"}},
		{"priority:2.0", []string{"adr/0001"}},
		{"priority:2..3", []string{"adr/0001", "runbooks/retry"}},
		{"size:<1000", []string{"adr/0001", "guides/x"}},
		{"nope:*", []string{}},
		{"-nope:x", []string{"adr/0001", "adr/0002", "runbooks/retry", "guides/x"}},
		{"kind:adr -date:2024-01", []string{"adr/0002", "runbooks/retry"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, matchIDs(t, tt.expr)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.expr, diff)
		}
	}
}

func TestSort(t *testing.T) {
	ids := func(field string, desc bool) []string {
		recs := append([]*docir.Record(nil), testRecs...)
		Sort(recs, field, desc)
		var out []string
		for _, r := range recs {
			out = append(out, r.ID)
		}
		return out
	}
	tests := []struct {
		field string
		desc  bool
		want  []string
	}{
		{"date", false, []string{"adr/0001", "adr/0002", "runbooks/retry", "guides/x"}},
		{"date", true, []string{"runbooks/retry", "adr/0002", "adr/0001", "guides/x"}}, // missing last either way
		{"priority", false, []string{"adr/0001", "runbooks/retry", "adr/0002", "guides/x"}},
		{"size", true, []string{"adr/0002", "runbooks/retry", "adr/0001", "guides/x"}},
		{"title", false, []string{"guides/x", "adr/0001", "runbooks/retry", "adr/0002"}},
		{"nope", false, []string{"adr/0001", "adr/0002", "guides/x", "runbooks/retry"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ids(tt.field, tt.desc)); diff != "" {
			t.Errorf("sort %s desc=%v (-want +got):\n%s", tt.field, tt.desc, diff)
		}
	}
}

func TestGlob(t *testing.T) {
	tests := []struct {
		p, s string
		want bool
	}{
		{"*", "", true}, {"*", "abc", true}, {"a*c", "abc", true}, {"a*c", "abd", false},
		{"a?c", "abc", true}, {"a?c", "ac", false}, {"*/*", "a/b/c", true}, {"text/*", "text/a/b.md", true},
		{"*ä*", "bär", true}, {"b?r", "bär", true}, {"**a", "xxa", true}, {"a*b*c", "axxbyyc", true}, {"a*b*c", "axxbyy", false},
	}
	for _, tt := range tests {
		if got := glob(tt.p, tt.s); got != tt.want {
			t.Errorf("glob(%q, %q) = %v", tt.p, tt.s, got)
		}
	}
}

func TestSummary(t *testing.T) {
	e, _ := Parse("kind:adr tags:*")
	if got, want := e.Summary(testRecs[0], 240, "date"), "kind: adr · tags: process, Docs · date: 2024-01-10"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	if got := e.Summary(testRecs[0], 10); len(got) > 10 || !strings.HasSuffix(got, "…") {
		t.Errorf("Summary cut = %q", got)
	}
}

// FuzzParse: any input either fails with an *Error whose part sits at its
// offset, or parses into terms whose normal form parses back to the same
// terms; evaluation never panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"status:accepted kind:adr", "-a:b,c", `t:"x y"`, "d:2024-01..2024-06", "d:>=2024-01-01", "p:a/*", "x", "a:\"\\\"\"", "a.b.c:1", "d:..5", "a:b,,", "date:2024-13"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			var qe *Error
			if !errors.As(err, &qe) {
				t.Fatalf("Parse(%q): error %v is not an *Error", s, err)
			}
			if qe.Part != "" && (qe.Offset < 0 || qe.Offset > len(s) || !strings.HasPrefix(s[qe.Offset:], qe.Part)) {
				t.Fatalf("Parse(%q): part %q not at offset %d", s, qe.Part, qe.Offset)
			}
			return
		}
		again, err := Parse(e.String())
		if err != nil {
			t.Fatalf("Parse(%q) ok, but its normal form %q fails: %v", s, e.String(), err)
		}
		strip := func(ts []Term) []Term {
			out := make([]Term, len(ts))
			for i, t := range ts {
				t.Offset = 0
				out[i] = t
			}
			return out
		}
		if diff := cmp.Diff(strip(e.Terms), strip(again.Terms)); diff != "" {
			t.Fatalf("normal form of %q parses differently:\n%s", s, diff)
		}
		for _, r := range testRecs {
			back, raw := roundTrip(t, r)
			if e.Match(back) && !e.MayMatchJSON(raw) {
				t.Fatalf("%q: %s matches but the prefilter rules it out", s, r.ID)
			}
		}
		Sort(append([]*docir.Record(nil), testRecs...), e.Terms[0].Field, true)
	})
}

// roundTrip is a record as the store gives it back: through JSON.
func roundTrip(t testing.TB, r *docir.Record) (*docir.Record, []byte) {
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back docir.Record
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	return &back, raw
}

// TestMayMatchJSON: the prefilter never rules out a record that matches,
// and does rule out records a plain value cannot be in.
func TestMayMatchJSON(t *testing.T) {
	exprs := []string{
		"status:accepted", "status:ACCEPTED,nope", "kind:adr status:proposed", "path:adr/*", "title:*budget*",
		"date:2024-03", "date:2024", "priority:2.0", "-status:accepted", "tags:docs", "author.name:ada", "id:*",
		"title:\"retry budget\"", "path:*.md", "date:>=2024-03", "k:kelvin",
	}
	for _, s := range exprs {
		e, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range testRecs {
			back, raw := roundTrip(t, r)
			if e.Match(back) && !e.MayMatchJSON(raw) {
				t.Errorf("%s: %s matches but the prefilter rules it out", s, r.ID)
			}
		}
	}
	for _, tt := range []struct{ expr, id string }{{"status:proposed", "adr/0001"}, {"path:runbooks/*", "adr/0002"}, {"author.name:bob", "adr/0002"}} {
		e, _ := Parse(tt.expr)
		for _, r := range testRecs {
			if r.ID == tt.id {
				if _, raw := roundTrip(t, r); e.MayMatchJSON(raw) {
					t.Errorf("%s: the prefilter keeps %s", tt.expr, tt.id)
				}
			}
		}
	}
	// A Kelvin sign folds to k: the prefilter must not rule it out.
	e, _ := Parse("unit:k")
	r := &docir.Record{ID: "x", Fields: map[string]any{"unit": "\u212a"}}
	if back, raw := roundTrip(t, r); !e.Match(back) || !e.MayMatchJSON(raw) {
		t.Errorf("Kelvin sign: match %v, prefilter %v", e.Match(back), e.MayMatchJSON(raw))
	}
}
