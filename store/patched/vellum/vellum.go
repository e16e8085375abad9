// Package vellum stands in for github.com/blevesearch/vellum v1.2.1, whose
// path docir's go.mod replaces with this folder: every exported name is the
// upstream release's own, which this module imports under the name
// upstream.invalid/github.com/blevesearch/vellum. Only package levenshtein
// behaves differently (store/patched/README.md says how and why).
package vellum

import (
	"io"

	up "upstream.invalid/github.com/blevesearch/vellum"
)

type (
	AlwaysMatch    = up.AlwaysMatch
	Automaton      = up.Automaton
	Builder        = up.Builder
	BuilderOpts    = up.BuilderOpts
	FST            = up.FST
	FSTIterator    = up.FSTIterator
	FuzzyAutomaton = up.FuzzyAutomaton
	FuzzyIterator  = up.FuzzyIterator
	Iterator       = up.Iterator
	MergeFunc      = up.MergeFunc
	MergeIterator  = up.MergeIterator
	Reader         = up.Reader
	Transducer     = up.Transducer
)

var (
	ErrIteratorDone = up.ErrIteratorDone
	ErrOutOfOrder   = up.ErrOutOfOrder
)

func AutomatonContains(a Automaton, k []byte) bool { return up.AutomatonContains(a, k) }

func Load(data []byte) (*FST, error) { return up.Load(data) }

func Merge(w io.Writer, opts *BuilderOpts, itrs []Iterator, f MergeFunc) error {
	return up.Merge(w, opts, itrs, f)
}

func MergeMax(vals []uint64) uint64 { return up.MergeMax(vals) }

func MergeMin(vals []uint64) uint64 { return up.MergeMin(vals) }

func MergeSum(vals []uint64) uint64 { return up.MergeSum(vals) }

func New(w io.Writer, opts *BuilderOpts) (*Builder, error) { return up.New(w, opts) }

func NewMergeIterator(itrs []Iterator, f MergeFunc) (*MergeIterator, error) {
	return up.NewMergeIterator(itrs, f)
}

func Open(path string) (*FST, error) { return up.Open(path) }

func TransducerGet(t Transducer, k []byte) (bool, uint64) { return up.TransducerGet(t, k) }
