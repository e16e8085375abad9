package fulltext

import (
	"context"
	"fmt"
	"slices"
	"strings"

	index "github.com/blevesearch/bleve_index_api"
	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

// StemEnglish is the stemming that matches a query word in its other
// English forms (SetStemming).
const StemEnglish = "english"

// Stemmings are the stemmings SetStemming takes, "" (none) first.
var Stemmings = []string{"", StemEnglish}

// SetStemming sets the stemming the index's queries use: "" none (the
// default), StemEnglish a word's other English forms. It changes no index:
// a query prepared after it uses it.
func (x *Index) SetStemming(s string) error {
	if !slices.Contains(Stemmings, s) {
		return fmt.Errorf("stemming %q: want one of %q", s, Stemmings)
	}
	x.stemming = s
	return nil
}

// A query word in other forms (with StemEnglish). The index keeps words
// as written, less plural and possessive endings ("configuration",
// "configured"); a question says "configure". A query word that is an
// English word matches a text in any form that shares its English stem
// (Snowball's Porter2), found in the index's dictionary when the query is
// prepared: the word as typed weighs as it does alone where a text writes
// it, and a text that writes only other forms of it counts them, weighed
// as the word in any form, which is commoner (see textWeight). Heads,
// pairs and runs are of the words as typed. Nothing of this is in the
// index: the same store answers with or without it.

// expand sets q.forms and q.formIndex: for each term which says to (all
// with StemEnglish; without, those no passage holds as typed: see weigh)
// that is an English word, the index terms of the text that share its
// stem. The dictionary
// is read from the stem less its last two letters, and at least its first
// three: Porter2 removes suffixes and rewrites at most the last letters of
// what it keeps ("happy", "happiness": "happi"; "hoping": "hope"), so a
// word with the stem starts so. A stem of four letters or fewer is read
// from its first three, which misses a form that rewrites one of them
// ("using" for "use"). A required term (a phrase's) is not expanded: a
// phrase is as written.
//
// A form is in one term's forms: not a term typed in the query (it counts
// as itself), and, of two typed words with one stem, the first's. Each
// prefix's range is read and stemmed once a query (stems): a query of
// 256 words no passage holds, all starting "con", read the range 256
// times (6 s on 20,000 such terms). The read stops when ctx is done.
func (q *Query) expand(ctx context.Context, r index.IndexReader, which func(k int) bool) error {
	taken := map[string]bool{}
	stems := map[string]map[string][]string{} // a prefix read -> stem -> its terms, in dictionary order
	for k, t := range q.terms {
		if q.required != nil && q.required[k] || !which(k) {
			continue
		}
		stem := englishStem(t)
		if len(stem) < 3 {
			continue
		}
		prefix := stem[:max(3, len(stem)-2)]
		if stems[prefix] == nil {
			byStem, err := stemsFrom(ctx, r, prefix)
			if err != nil {
				return err
			}
			stems[prefix] = byStem
		}
		for _, f := range stems[prefix][stem] {
			if _, typed := q.index[f]; !typed && !taken[f] {
				q.forms[k] = append(q.forms[k], f)
				taken[f] = true
			}
		}
	}
	q.indexForms()
	return nil
}

// stemsFrom reads the text field's terms that start with prefix and
// groups them by their English stem (none: not an English word).
func stemsFrom(ctx context.Context, r index.IndexReader, prefix string) (byStem map[string][]string, err error) {
	d, err := r.FieldDictPrefix(FieldText, []byte(prefix))
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := d.Close(); err == nil {
			err = cerr
		}
	}()
	byStem = map[string][]string{}
	for n := 1; ; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		e, err := d.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			return byStem, nil
		}
		if s := englishStem(e.Term); s != "" {
			byStem[s] = append(byStem[s], e.Term)
		}
	}
}

// indexForms sets q.formIndex from q.forms (nil when there is none).
func (q *Query) indexForms() {
	q.formIndex, q.tokenForms = nil, false
	for k, fs := range q.forms {
		for _, f := range fs {
			if q.formIndex == nil {
				q.formIndex = map[string]int{}
			}
			q.formIndex[f] = k
			q.tokenForms = q.tokenForms || !strings.HasPrefix(f, catTerm(""))
		}
	}
}

// englishStem is the Porter2 stem of t when t is an English word (lower-case
// ASCII letters, three or more), else "".
func englishStem(t string) string {
	if len(t) < 3 {
		return ""
	}
	for i := 0; i < len(t); i++ {
		if t[i] < 'a' || t[i] > 'z' {
			return ""
		}
	}
	env := snowballstem.NewEnv(t)
	english.Stem(env)
	return env.Current()
}

// formsOf is term k's other forms.
func (q *Query) formsOf(k int) []string {
	if k < len(q.forms) {
		return q.forms[k]
	}
	return nil
}

// textTerms are the query's terms and their other forms: what a passage's
// text may hold of the query.
func (q *Query) textTerms() []string {
	out := q.terms
	if q.formIndex != nil {
		out = slices.Clone(q.terms)
		for _, fs := range q.forms {
			out = append(out, fs...)
		}
	}
	return out
}

// groupReader reads one query word's postings in the text, in all its
// forms, as one term's: a passage's Freq is the sum of its forms' (typed,
// the typed form's), its Norm the field's (the same in every form's
// posting of a passage). Its Count is the forms' sum, at least the
// passages it holds. Each form is read by a cursor of its own.
type groupReader struct {
	subs  []*cursor // subs[0]: the typed form
	id    [8]byte
	typed uint64
}

// newGroupReader reads tfrs (the typed form's first) as one.
func newGroupReader(tfrs []index.TermFieldReader) *groupReader {
	g := &groupReader{subs: make([]*cursor, len(tfrs))}
	for i, t := range tfrs {
		g.subs[i] = &cursor{tfr: t}
		g.subs[i].pr, _ = t.(*postingsReader)
	}
	return g
}

func (g *groupReader) Next(pre *index.TermFieldDoc) (*index.TermFieldDoc, error) {
	for _, s := range g.subs {
		if !s.on {
			if err := s.next(); err != nil {
				return nil, err
			}
		}
	}
	return g.merge(pre)
}

func (g *groupReader) Advance(id index.IndexInternalID, pre *index.TermFieldDoc) (*index.TermFieldDoc, error) {
	num := id.Value()
	for _, s := range g.subs {
		if err := s.seek(num); err != nil {
			return nil, err
		}
	}
	return g.merge(pre)
}

// merge returns the first passage a form is on, with the forms' counts of
// it, and moves those forms past it, so that the next Advance to a later
// passage does not count it again.
func (g *groupReader) merge(pre *index.TermFieldDoc) (*index.TermFieldDoc, error) {
	num, any := leading(g.subs)
	if !any {
		return nil, nil
	}
	if pre == nil {
		pre = &index.TermFieldDoc{}
	}
	pre.Freq, pre.Norm, g.typed = 0, 0, 0
	for i, s := range g.subs {
		if s.done || s.at != num {
			continue
		}
		pre.Freq += s.doc.Freq
		pre.Norm = s.doc.Norm
		if i == 0 {
			g.typed = s.doc.Freq
		}
	}
	pre.ID = index.NewIndexInternalID(g.id[:0], num)
	for _, s := range g.subs {
		if !s.done && s.at == num {
			if err := s.next(); err != nil {
				return nil, err
			}
		}
	}
	return pre, nil
}

func (g *groupReader) Count() uint64 {
	var n uint64
	for _, s := range g.subs {
		n += s.tfr.Count()
	}
	return n
}

func (g *groupReader) Close() error {
	var first error
	for _, s := range g.subs {
		if err := s.tfr.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (g *groupReader) Size() int {
	n := 0
	for _, s := range g.subs {
		n += s.tfr.Size()
	}
	return n
}
