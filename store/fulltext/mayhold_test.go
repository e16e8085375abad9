package fulltext

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// mayHoldOnePerProbe is mayHold as it was: a scan of the paragraph for
// each probe in turn (the reference of TestMayHoldOnePass and
// FuzzMayHold).
func mayHoldOnePerProbe(q *Query, para string) bool {
	for _, p := range q.probes {
		if !p.never && containsFold(para, p.s) {
			return true
		}
		if !p.never && p.hyphens && containsFold(strings.ReplaceAll(para, "-", ""), p.s) {
			return true // "read-only" holds "readonly"'s catenation
		}
	}
	return false
}

// containsFold reports whether s contains the lower-case ASCII probe p,
// ignoring ASCII case.
func containsFold(s, p string) bool {
	if p == "" {
		return true
	}
	first := p[0]
	upper := first
	if 'a' <= first && first <= 'z' {
		upper = first - 'a' + 'A'
	}
	for i := 0; i+len(p) <= len(s); i++ {
		if c := s[i]; c != first && c != upper {
			continue
		}
		j := 1
		for j < len(p) {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != p[j] {
				break
			}
			j++
		}
		if j == len(p) {
			return true
		}
	}
	return false
}

// probed is a query whose probes are those of terms, a term that is a
// catenation's (see Catenations) being a form.
func probed(terms ...string) *Query {
	q := &Query{forms: [][]string{nil}}
	for _, t := range terms {
		if strings.HasPrefix(t, catTerm("")) {
			q.forms[0] = append(q.forms[0], t)
		} else {
			q.terms = append(q.terms, t)
		}
	}
	q.prepareProbes()
	return q
}

// TestMayHoldOnePass: the one-pass scan of a paragraph for every probe
// says what a scan for each probe in turn says, on random paragraphs and
// probes of few letters (so that both answers are common), upper case,
// digits and punctuation included.
func TestMayHoldOnePass(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	const letters = "abcAB1.-_ "
	word := func(n int, from string) string {
		var b strings.Builder
		for range n {
			b.WriteByte(from[rnd.IntN(len(from))])
		}
		return b.String()
	}
	held, missed := 0, 0
	for range 20000 {
		var terms []string
		for range 1 + rnd.IntN(4) {
			terms = append(terms, word(1+rnd.IntN(4), "abc1"))
		}
		if rnd.IntN(10) == 0 {
			terms = append(terms, "é") // never from ASCII
		}
		if rnd.IntN(5) == 0 {
			terms = append(terms, catTerm(word(2+rnd.IntN(4), "abc1"))) // a catenation, hyphens between its letters
		}
		q, para := probed(terms...), word(rnd.IntN(24), letters)
		got, want := q.mayHold(para), mayHoldOnePerProbe(q, para)
		if got != want {
			t.Fatalf("terms %q, paragraph %q: mayHold %v, one scan a probe %v", terms, para, got, want)
		}
		if got {
			held++
		} else {
			missed++
		}
	}
	if held < 1000 || missed < 1000 {
		t.Errorf("%d held, %d missed: the cases are too one-sided to compare", held, missed)
	}
	if q := (&Query{}); q.mayHold("anything") {
		t.Error("a query without probes may hold a paragraph")
	}
}

// FuzzMayHold holds the one-pass scan to a scan for each probe in turn.
func FuzzMayHold(f *testing.F) {
	f.Add("Object safety", "object\x00safety")
	f.Add("POLICIES", "policy")
	f.Add("", "a")
	f.Add("a read-only file", "\x03readonly")
	f.Fuzz(func(t *testing.T, para, terms string) {
		ts := strings.Split(terms, "\x00")
		for i := range ts {
			ts[i] = strings.ToLower(ts[i])
		}
		q := probed(ts...)
		if got, want := q.mayHold(para), mayHoldOnePerProbe(q, para); got != want {
			t.Fatalf("terms %q, paragraph %q: mayHold %v, one scan a probe %v", ts, para, got, want)
		}
	})
}
