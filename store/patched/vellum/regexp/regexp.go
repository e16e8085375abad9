// Package regexp stands in for github.com/blevesearch/vellum/regexp v1.2.1:
// every exported name is the upstream release's own (see package vellum).
package regexp

import (
	"regexp/syntax"

	up "upstream.invalid/github.com/blevesearch/vellum/regexp"
)

const (
	OpMatch    = up.OpMatch
	OpJmp      = up.OpJmp
	OpSplit    = up.OpSplit
	OpRange    = up.OpRange
	StateLimit = up.StateLimit
)

var (
	ErrNoEmpty        = up.ErrNoEmpty
	ErrNoWordBoundary = up.ErrNoWordBoundary
	ErrNoBytes        = up.ErrNoBytes
	ErrNoLazy         = up.ErrNoLazy
	ErrCompiledTooBig = up.ErrCompiledTooBig
	ErrTooManyStates  = up.ErrTooManyStates
	DefaultLimit      = up.DefaultLimit
)

type Regexp = up.Regexp

// New compiles expr with this package's DefaultLimit, as upstream's New does
// with its own.
func New(expr string) (*Regexp, error) { return up.NewWithLimit(expr, DefaultLimit) }

func NewWithLimit(expr string, size uint) (*Regexp, error) { return up.NewWithLimit(expr, size) }

func NewParsedWithLimit(expr string, parsed *syntax.Regexp, size uint) (*Regexp, error) {
	return up.NewParsedWithLimit(expr, parsed, size)
}
