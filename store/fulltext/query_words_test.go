package fulltext

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestWords: a text's terms are numbered by the word they were cut from
// (an identifier's parts share one, the words around it do not), the
// query's terms are grouped so, and a heading says a query only as whole
// words: fs.Stats is said by "Class: fs.Stats" and not by "Class:
// fs.StatWatcher"; "8.0.0" by "8.0.0 November 28" and not by "8.0.01".
func TestWords(t *testing.T) {
	x := indexed(t, []Passage{{ID: "a", Text: "fs stats watcher"}})
	terms, words := x.Words("Class: `fs.readFile(path[, options])` 8.0.0")
	if want := []string{"class", "fs", "read", "file", "path", "option", "8", "0", "0"}; !slices.Equal(terms, want) {
		t.Fatalf("terms %q, want %q", terms, want)
	}
	same := func(i, j int) bool { return words[i] == words[j] }
	if !same(1, 2) || !same(2, 3) || same(0, 1) || same(3, 4) || same(4, 5) || !same(6, 8) || same(5, 6) {
		t.Errorf("words %v: want class | fs read file | path | options | 8 0 0", words)
	}
	for _, c := range []struct {
		query, heading string
		says           bool
	}{
		{"fs.Stats", "Class: fs.Stats", true},
		{"fs.Stats", "Class: fs.StatWatcher", false},
		{"fs.mkdir", "fs.mkdirSync(path)", false},
		{"fs.mkdir", "fs.mkdir(path, callback)", true},
		{"read file", "fs.readFile(path)", false},
		{"8.0.0", "8.0.0 November 28, 2021", true},
		{"8.0.0", "8.0.01", false},
		{"tooltips", "Adding tooltips", true},
	} {
		q, err := x.Prepare(context.Background(), c.query)
		if err != nil {
			t.Fatal(err)
		}
		ts, ws := x.Words(c.heading)
		if got := q.SaidBy(ts, func() []int { return ws }); got != c.says {
			t.Errorf("%q said by the heading %q: %v, want %v", c.query, c.heading, got, c.says)
		}
	}
	q, err := x.Prepare(context.Background(), "fs.readFile in a file")
	if err != nil {
		t.Fatal(err)
	}
	if got := q.Words(); len(got) != 4 || !slices.Equal(got[0], []string{"fs", "read", "file"}) || !slices.Equal(got[3], []string{"file"}) {
		t.Errorf("query words %q", got)
	}
	if got := q.Without(map[string]bool{"in": true, "a": true}).Words(); len(got) != 2 || !slices.Equal(got[0], []string{"fs", "read", "file"}) {
		t.Errorf("the words beyond in and a: %q", got)
	}
}

// TestWithoutBounds: a query Without some of its words (the words beyond a
// title) bounds each passage the index holds for it at its score or above,
// as a query does (its words keep their positions: a run of the others is
// adjacent only where they were in the query), so that a ranking may leave
// a passage whose bound is below the best score unread (rank's
// beyondRead).
func TestWithoutBounds(t *testing.T) {
	ps := retrievalCorpus(rand.New(rand.NewPCG(5, 6)), 300)
	x := indexed(t, ps)
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	byID := map[string]Passage{}
	for _, p := range ps {
		byID[p.ID] = p
	}
	checked := 0
	for _, c := range []struct {
		query string
		known []string
	}{
		{"front matter dates template", []string{"matter"}},
		{"the taxonomy of page menu archives", []string{"of", "page"}},
		{"retry budget front matter", []string{"budget", "front"}},
		{"a template taxonomy bundle the menu", []string{"template", "the"}},
	} {
		q, err := x.Prepare(context.Background(), c.query)
		if err != nil {
			t.Fatal(err)
		}
		known := map[string]bool{}
		for _, k := range c.known {
			known[k] = true
		}
		rest := q.Without(known)
		rt, err := x.Retrieve(context.Background(), rest)
		if err != nil {
			t.Fatal(err)
		}
		cands, err := rt.Passages(ids)
		if err != nil {
			t.Fatal(err)
		}
		for i := range cands {
			id, err := rt.ID(&cands[i])
			if err != nil {
				t.Fatal(err)
			}
			score := x.ScorePassage(rest, byID[id])
			if b := cands[i].Bound; score > b && !near(score, b) {
				t.Errorf("%q without %q: passage %s scores %v over its bound %v", c.query, c.known, id, score, b)
			}
			checked++
		}
		rt.Close()
	}
	if checked < 300 {
		t.Errorf("%d passages checked", checked)
	}
}
