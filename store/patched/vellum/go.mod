module github.com/blevesearch/vellum

go 1.24.0

require (
	github.com/bits-and-blooms/bitset v1.24.2
	github.com/blevesearch/mmap-go v1.2.0
	github.com/spf13/cobra v1.10.2
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/sys v0.40.0 // indirect
)
