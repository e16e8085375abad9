// Package levenshtein stands in for github.com/blevesearch/vellum/levenshtein
// v1.2.1 with one change: a LevenshteinAutomatonBuilder builds its parametric
// DFA on first use instead of in its constructor. bleve's index/scorch
// constructs two builders (edit distance 1 and 2) in its package init, which
// cost every docir process about 2.5 ms and 26k allocations though docir never
// runs a fuzzy query (store/patched/README.md). Every other exported name is
// the upstream release's own.
package levenshtein

import (
	"sync"

	up "upstream.invalid/github.com/blevesearch/vellum/levenshtein"
)

const (
	SinkState  = up.SinkState
	StateLimit = up.StateLimit
)

var ErrTooManyStates = up.ErrTooManyStates

type (
	Alphabet                 = up.Alphabet
	Atleast                  = up.Atleast
	DFA                      = up.DFA
	Distance                 = up.Distance
	Exact                    = up.Exact
	FullCharacteristicVector = up.FullCharacteristicVector
	LevenshteinNFA           = up.LevenshteinNFA
	MultiState               = up.MultiState
	NFAState                 = up.NFAState
	NFAStates                = up.NFAStates
	ParametricDFA            = up.ParametricDFA
	ParametricState          = up.ParametricState
	ParametricStateIndex     = up.ParametricStateIndex
	Transition               = up.Transition
	Utf8DFABuilder           = up.Utf8DFABuilder
	Utf8DFAStateBuilder      = up.Utf8DFAStateBuilder
	Utf8StateId              = up.Utf8StateId
)

// LevenshteinAutomatonBuilder is upstream's builder, constructed on first
// use. It is safe for concurrent use, as upstream's is.
type LevenshteinAutomatonBuilder struct {
	maxDistance uint8
	builder     func() (*up.LevenshteinAutomatonBuilder, error) // constructs it on its first call
}

// NewLevenshteinAutomatonBuilder records its arguments and returns at once;
// the parametric DFA (exponential in maxDistance) is built by the first
// BuildDfa, which also returns the error upstream's constructor would have.
func NewLevenshteinAutomatonBuilder(maxDistance uint8, transposition bool) (*LevenshteinAutomatonBuilder, error) {
	return &LevenshteinAutomatonBuilder{
		maxDistance: maxDistance,
		builder: sync.OnceValues(func() (*up.LevenshteinAutomatonBuilder, error) {
			return up.NewLevenshteinAutomatonBuilder(maxDistance, transposition)
		}),
	}, nil
}

// BuildDfa builds the automaton matching query within fuzziness edits.
func (lab *LevenshteinAutomatonBuilder) BuildDfa(query string, fuzziness uint8) (*DFA, error) {
	b, err := lab.builder()
	if err != nil {
		return nil, err
	}
	return b.BuildDfa(query, fuzziness)
}

// MaxDistance is the maxDistance the builder was constructed with.
func (lab *LevenshteinAutomatonBuilder) MaxDistance() uint8 { return lab.maxDistance }
