module github.com/blevesearch/vellum

go 1.24.0

require upstream.invalid/github.com/blevesearch/vellum v1.2.1

require (
	github.com/bits-and-blooms/bitset v1.24.2 // indirect
	github.com/blevesearch/mmap-go v1.2.0 // indirect
	golang.org/x/sys v0.40.0 // indirect
)

// The upstream release under a name of its own, so that this module, which
// takes its path, can import it (../README.md). docir's go.mod has the same
// line; a replace here counts only when this folder is built on its own.
replace upstream.invalid/github.com/blevesearch/vellum => github.com/blevesearch/vellum v1.2.1
