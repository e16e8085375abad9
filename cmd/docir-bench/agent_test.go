package main

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/address"
)

func TestParseQuestions(t *testing.T) {
	in := `{"question": "How?", "answer": "a#b"}

{"question": "Why?", "answer": "c", "also": ["d#e"]}
`
	got, err := parseQuestions([]byte(in), "q.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []agentQuestion{{Question: "How?", Answer: "a#b"}, {Question: "Why?", Answer: "c", Also: []string{"d#e"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for in, msg := range map[string]string{
		``:                                       "q.jsonl: no questions",
		`{"question": "x"}`:                      "q.jsonl:1: want a question and its answer's address",
		"\n" + `{"question": "x", "answr": "a"}`: `q.jsonl:2: json: unknown field "answr"`,
		`not json`:                               "q.jsonl:1: invalid character",
	} {
		if _, err := parseQuestions([]byte(in), "q.jsonl"); err == nil || !strings.HasPrefix(err.Error(), msg) {
			t.Errorf("%q: error %v, want %q", in, err, msg)
		}
	}
}

// TestQuestionSet: the committed question sets parse, every answer is an
// address (whether it resolves is checked when the bench runs), and no
// question is asked twice, within a set or across them.
func TestQuestionSet(t *testing.T) {
	seen := map[string]bool{}
	for _, set := range []struct {
		path string
		min  int
	}{{"testdata/agent-hugo.jsonl", 40}, {"testdata/agent-hugo-2.jsonl", 14}} {
		data, err := os.ReadFile(set.path)
		if err != nil {
			t.Fatal(err)
		}
		qs, err := parseQuestions(data, set.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			for _, a := range append([]string{q.Answer}, q.Also...) {
				if _, err := address.Parse(a); err != nil {
					t.Errorf("%s: %q: %v", set.path, q.Question, err)
				}
			}
			if seen[q.Question] {
				t.Errorf("%s: %q twice", set.path, q.Question)
			}
			seen[q.Question] = true
		}
		if len(qs) < set.min {
			t.Errorf("%s: %d questions", set.path, len(qs))
		}
	}
}

// FuzzParseQuestions: a question set parses to questions that each have a
// question and an answer, or to an error naming the file.
func FuzzParseQuestions(f *testing.F) {
	f.Add([]byte(`{"question": "How?", "answer": "a#b", "also": ["c"]}` + "\n\n"))
	f.Add([]byte(`{"question": "", "answer": "a"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		qs, err := parseQuestions(data, "f")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f") {
				t.Fatalf("error %v does not name the file", err)
			}
			return
		}
		for _, q := range qs {
			if strings.TrimSpace(q.Question) == "" || strings.TrimSpace(q.Answer) == "" {
				t.Fatalf("question %+v", q)
			}
		}
	})
}

// TestAgentFlows: a flow's calls and bytes are its skeleton reads plus the
// gets of its walk up to the answer, or all of them when the answer was not
// read.
func TestAgentFlows(t *testing.T) {
	found := walk{found: true, position: 2, length: 5, bytes: 700, answer: 300}
	missed := walk{length: 4, bytes: 900}
	type figures struct{ Calls, Bytes, Skeleton int }
	got := map[string]figures{}
	for name, r := range map[string]agentResult{
		"plan found, hits missed": {search: 100, context: 50, plan: found, hits: missed},
		"plan missed, hits found": {search: 100, context: 50, plan: missed, hits: found},
	} {
		for _, f := range agentFlows {
			got[name+": "+f.name] = figures{r.calls(f), r.bytes(f), r.skeleton(f)}
		}
	}
	want := map[string]figures{
		"plan found, hits missed: search → context → get": {Calls: 4, Bytes: 850, Skeleton: 150},
		"plan found, hits missed: context → get":          {Calls: 3, Bytes: 750, Skeleton: 50},
		"plan found, hits missed: search → get":           {Calls: 5, Bytes: 1000, Skeleton: 100},
		"plan missed, hits found: search → context → get": {Calls: 6, Bytes: 1050, Skeleton: 150},
		"plan missed, hits found: context → get":          {Calls: 5, Bytes: 950, Skeleton: 50},
		"plan missed, hits found: search → get":           {Calls: 3, Bytes: 800, Skeleton: 100},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got, want := found.String()+", "+missed.String(), "yes (2 of 5), no (of 4)"; got != want {
		t.Errorf("walks read %q, want %q", got, want)
	}
	// Where a flow's bytes go: its skeleton, the gets before each answer,
	// the gets that held the answers, and the gets of questions not found.
	rs := []agentResult{{search: 100, context: 50, plan: found, hits: missed}, {search: 100, context: 50, plan: missed, hits: found}}
	type split struct{ Bytes, Skeleton, Before, Answers, Missed, Floor int }
	gotSplit := map[string]split{}
	for _, f := range agentFlows {
		tt := totals(rs, f)
		if tt.skeleton+tt.before+tt.answerGets+tt.missed != tt.bytes {
			t.Errorf("%s: the parts do not add up to %d bytes: %+v", f.name, tt.bytes, tt)
		}
		gotSplit[f.name] = split{tt.bytes, tt.skeleton, tt.before, tt.answerGets, tt.missed, tt.floor()}
	}
	wantSplit := map[string]split{
		// The floor: the skeleton, the answers' gets and the misses.
		"search → context → get": {Bytes: 1900, Skeleton: 300, Before: 400, Answers: 300, Missed: 900, Floor: 1500},
		"context → get":          {Bytes: 1700, Skeleton: 100, Before: 400, Answers: 300, Missed: 900, Floor: 1300},
		"search → get":           {Bytes: 1800, Skeleton: 200, Before: 400, Answers: 300, Missed: 900, Floor: 1400},
	}
	if diff := cmp.Diff(wantSplit, gotSplit); diff != "" {
		t.Errorf("totals (-want +got):\n%s", diff)
	}
}
