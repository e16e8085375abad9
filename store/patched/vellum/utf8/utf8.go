// Package utf8 stands in for github.com/blevesearch/vellum/utf8 v1.2.1:
// every exported name is the upstream release's own (see package vellum).
package utf8

import up "upstream.invalid/github.com/blevesearch/vellum/utf8"

type (
	Range      = up.Range
	RangeStack = up.RangeStack
	Sequence   = up.Sequence
	Sequences  = up.Sequences
)

func NewSequences(start, end rune) (Sequences, error) { return up.NewSequences(start, end) }

func NewSequencesPrealloc(start, end rune, preallocSequences Sequences, preallocRangeStack RangeStack,
	preallocStartBytes, preallocEndBytes []byte) (Sequences, RangeStack, error) {
	return up.NewSequencesPrealloc(start, end, preallocSequences, preallocRangeStack, preallocStartBytes, preallocEndBytes)
}

func SequenceFromEncodedRange(start, end []byte) (Sequence, error) {
	return up.SequenceFromEncodedRange(start, end)
}
