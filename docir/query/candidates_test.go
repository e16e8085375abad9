package query

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
)

func TestFoldIsEqualFold(t *testing.T) {
	runes := []rune{'a', 'A', 'k', 'K', '\u212a', 's', 'S', '\u017f', 'i', 'I', '\u0130', '\u0131', 'ß', 'ẞ', 'Σ', 'σ', 'ς', '0', '.', 0}
	for _, a := range runes {
		for _, b := range runes {
			sa, sb := string(a), string(b)
			if got, want := Fold(sa) == Fold(sb), strings.EqualFold(sa, sb); got != want {
				t.Errorf("Fold(%q)==Fold(%q) is %v, EqualFold %v", sa, sb, got, want)
			}
		}
	}
	for r := rune(0); r <= unicode.MaxRune; r += 7 {
		if u := unicode.ToUpper(r); Fold(string(r)) != Fold(string(u)) && strings.EqualFold(string(r), string(u)) {
			t.Fatalf("Fold(%q) != Fold(%q)", r, u)
		}
	}
	if strings.ContainsRune(Fold("a\x00b"), 0) {
		t.Error("Fold kept a NUL")
	}
}

func TestIndexKeys(t *testing.T) {
	show := func(keys [][]byte) []string {
		var out []string
		for _, k := range keys {
			out = append(out, strings.ReplaceAll(string(k), "\x00", "|"))
		}
		return out
	}
	tests := []struct {
		name   string
		fields map[string]any
		want   []string
	}{
		{"none", nil, []string{"bPATH|A.MD|", "bTITLE|T|"}},
		{"scalars and lists", map[string]any{"Kind": "ADR", "tags": []any{"go", 2.0, map[string]any{"x": "y"}, true}},
			[]string{"bPATH|A.MD|", "bTITLE|T|", "vKIND|ADR|", "vTAGS|2|", "vTAGS|GO|", "vTAGS|TRUE|", "vTAGS.X|Y|"}},
		{"a list of objects", map[string]any{"author": []any{map[string]any{"name": "Ada", "role": "editor"}, map[string]any{"name": "Ben"}}},
			[]string{"bPATH|A.MD|", "bTITLE|T|", "pAUTHOR|", "vAUTHOR.NAME|ADA|", "vAUTHOR.NAME|BEN|", "vAUTHOR.ROLE|EDITOR|"}},
		{"nested and null", map[string]any{"author": map[string]any{"name": "Ada"}, "owner": nil},
			[]string{"bPATH|A.MD|", "bTITLE|T|", "pAUTHOR|", "pOWNER|", "vAUTHOR.NAME|ADA|"}},
		{"irregular: keys equal ignoring case", map[string]any{"a": "1", "A": "2"},
			[]string{"bPATH|A.MD|", "bTITLE|T|", "vA|1|", "vA|2|", "x|"}},
		{"irregular: a dotted key", map[string]any{"a.b": "1"},
			[]string{"bPATH|A.MD|", "bTITLE|T|", "vA.B|1|", "x|"}},
		{"long value cut", map[string]any{"n": strings.Repeat("é", 150)},
			[]string{"bPATH|A.MD|", "bTITLE|T|", "vN|" + strings.Repeat("É", 100) + "|"}},
	}
	for _, tt := range tests {
		got := show(IndexKeys("a", "a.md", "t", tt.fields))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestLookups(t *testing.T) {
	type lk struct {
		Term     int
		Prefixes []string
		Exact    bool
	}
	tests := []struct {
		expr  string
		want  []lk
		exact bool
	}{
		{"status:accepted", []lk{{0, []string{"vSTATUS|ACCEPTED|"}, true}}, true},
		{"status:a,B kind:*", []lk{{0, []string{"vSTATUS|A|", "vSTATUS|B|"}, true}, {1, []string{"pKIND|", "vKIND|"}, true}}, true},
		{"path:pages/* title:Tar", []lk{{0, []string{"bPATH|PAGES/"}, false}, {1, []string{"bTITLE|TAR|"}, true}}, false},
		{"Title:tar", []lk{{0, []string{"vTITLE|TAR|"}, true}}, true},
		{"-status:x date:2024 prio:2 size:3 id:* tags:*x title:i*", nil, false},
		{"status:x -kind:y", []lk{{0, []string{"vSTATUS|X|"}, true}}, false},
		{"a.b:c", []lk{{0, []string{"vA.B|C|"}, true}}, true},
	}
	for _, tt := range tests {
		e, err := Parse(tt.expr)
		if err != nil {
			t.Fatal(err)
		}
		var got []lk
		ls := e.Lookups()
		for _, l := range ls {
			g := lk{Term: l.Term, Exact: l.Exact}
			for _, p := range l.Prefixes {
				g.Prefixes = append(g.Prefixes, strings.ReplaceAll(string(p), "\x00", "|"))
			}
			got = append(got, g)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.expr, diff)
		}
		if e.Exact(ls) != tt.exact {
			t.Errorf("%q: Exact %v, want %v", tt.expr, !tt.exact, tt.exact)
		}
	}
}

// checkLookups asserts the index property on one record and expression:
// a record satisfying a term has a key under one of the term's lookup
// prefixes, and, for a regular record and an exact lookup, only then.
func checkLookups(t *testing.T, rec *docir.Record, e *Expr) {
	keys := IndexKeys(rec.ID, rec.Path, rec.Title, rec.Fields)
	irregular := false
	for _, k := range keys {
		irregular = irregular || bytes.Equal(k, IrregularKey)
	}
	for _, l := range e.Lookups() {
		has := false
		for _, k := range keys {
			for _, p := range l.Prefixes {
				has = has || bytes.HasPrefix(k, p)
			}
		}
		term := &e.Terms[l.Term]
		match := term.match(rec) != term.Not
		if match && !has {
			t.Fatalf("%q holds for %v but the index has no key for it", term.Text, rec.Fields)
		}
		if l.Exact && !irregular && has && !match {
			t.Fatalf("%q fails for %v but the exact index says it holds", term.Text, rec.Fields)
		}
	}
}

func FuzzLookups(f *testing.F) {
	f.Add(`{"status":"accepted","Kind":["adr",2]}`, "status:accepted kind:a*", "t")
	f.Add(`{"author":{"name":"Ada"},"a.b":1}`, "author.name:ADA a.b:*", "İstanbul")
	f.Add(`{"kind":"\u212aind","s":"\u017f"}`, "kind:kind s:S* title:i*", "x")
	f.Fuzz(func(t *testing.T, fields, expr, title string) {
		var m map[string]any
		if json.Unmarshal([]byte(fields), &m) != nil {
			return
		}
		e, err := Parse(expr)
		if err != nil {
			return
		}
		checkLookups(t, &docir.Record{ID: "d", Path: "d.md", Title: title, Fields: m}, e)
	})
}
