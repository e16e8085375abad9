// Package store owns docir's local store: a folder (by default `.docir/`)
// holding immutable generations of a corpus, and the refresh that ingests
// source folders into a new one.
//
// Layout (FormatVersion 2):
//
//	.docir/
//	  CURRENT            {"format":2,"generation":N}: the one mutable file,
//	                     replaced by an atomic rename
//	  lock               flock'd by a refresh; readers never touch it
//	  gen/N/docs.bolt    body file: records, bodies and the source file table
//	  gen/N/fulltext/    bleve index of the generation's passages
//	  gen/N.tmp-*/       a generation being built; never read, removed if stale
//
// A generation is never written once CURRENT names it, so any number of
// readers open it read-only while a refresh builds the next one aside: a
// reader never waits on a writer. A refresh copies the previous body file,
// hard-links the previous index's immutable segment files (copying the rest),
// applies the change to that copy, syncs it, renames it into place and only
// then swaps CURRENT. A crash at any point leaves the previous generation
// current and whole; the next refresh removes the leftovers.
//
// Deep reads open only the body file (a few milliseconds, flat in corpus
// size); bleve is opened only by searches. Subpackage markdown turns files
// into records; subpackage fulltext owns bleve.
package store

// FormatVersion is the version of the store's layout and encodings.
// Readers refuse any other version with a clear error.
//
// Change log:
//
//	1  first format: CURRENT as JSON, gen/N/{docs.bolt,fulltext}.
//	2  fulltext: passages carry the document title; tokenizer docir_unicode
//	   (Thai, Lao, Khmer, Myanmar and Hangul as character bigrams), light
//	   English plural stemming, and adjacent-word pair terms (shingles).
const FormatVersion = 2
