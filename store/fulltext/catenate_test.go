package fulltext

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCatenations: an identifier typed in lower case ("baseurl") finds the
// passages that write it with its case ("baseURL"), and a word typed
// whole ("readonly") the passages that hyphenate it, through the index
// and through the text alike; a dot or an underscore still cuts; a query that
// excludes the word excludes its catenation; and the length does not
// count it.
// TestCatenationWords: the words a reader types for a text's catenations,
// each its own string (the terms are views of one reused buffer).
func TestCatenationWords(t *testing.T) {
	x := indexed(t, []Passage{{ID: "a", Text: "x"}})
	got := x.CatenationWords("StatefulSet and ReplicaSet and read-only DaemonSet")
	want := []string{"statefulset", "replicaset", "readonly", "daemonset"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CatenationWords (-want +got):\n%s", diff)
	}
}

func TestCatenations(t *testing.T) {
	ps := []Passage{
		{ID: "a#s", Text: "Set baseURL in the project configuration."},
		{ID: "b#s", Text: "The base of every URL."},
		{ID: "c#s", Text: "Call strings.ContainsAny or about_Classes on PageEntries's pages."},
		{ID: "d#s", Text: "Nothing here.", Head: "BaseURL\nSettings"},
		{ID: "e#s", Text: "A read-only file, a built-in hook, and back-pressure."},
		{ID: "f#s", Text: "Read - only what you need; built--in is no word."},
		{ID: "g#s", Text: "Nothing here either.", Head: "Back-Pressure"},
	}
	x := indexed(t, ps)
	for _, tt := range []struct {
		q    string
		want []string
	}{
		{"baseurl", []string{"a#s", "d#s"}},
		{"containsany", []string{"c#s"}},
		{"pageentries", []string{"c#s"}},
		{"url -baseurl", []string{"b#s", "d#s"}}, // (a head's words exclude nothing)
		// One hyphen joins words as a case change does; a spaced or a
		// doubled one does not.
		{"readonly", []string{"e#s"}},
		{"builtin", []string{"e#s"}},
		{"backpressure", []string{"e#s", "g#s"}},
	} {
		q, rt, cands := retrieved(t, x, tt.q)
		var got []string
		for i := range cands {
			id, err := rt.ID(&cands[i])
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				if p.ID == id && x.ScorePassage(q, p) > 0 {
					got = append(got, id)
				}
			}
		}
		slices.Sort(got)
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%q (-want +got):\n%s", tt.q, d)
		}
	}
	field := &passageField{name: FieldText, value: []byte(ps[0].Text), an: x.fast}
	field.Analyze()
	if field.length != 7 || field.freqs[catTerm("baseurl")] == nil { // set base url in the project configuration; baseurl outside
		t.Errorf("length %d, want 7, and the term %q", field.length, catTerm("baseurl"))
	}
	// A dot or an underscore is typed, and still cuts: no catenation
	// spans one, so typed together such words are read apart (see
	// splitJoined).
	for q, want := range map[string]string{"stringscontainsany": "strings contains any", "aboutclasses": "about classes", "baseurl": "baseurl"} {
		got, err := x.Prepare(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if got.Text() != want {
			t.Errorf("Prepare(%q).Text() = %q, want %q", q, got.Text(), want)
		}
	}
}
