// Package store owns docir's local store: a folder (by default `.docir/`)
// holding immutable generations of a corpus, and the refresh that ingests
// source folders into a new one.
//
// Layout (FormatVersion 16; see the change log below):
//
//	.docir/
//	  IDENTITY           the workspace identity: 32 random hex digits and a
//	                     newline, written first when docir creates the store;
//	                     it marks the folder as docir's (Claim)
//	  .gitignore         "*": the folder ignores itself
//	  CURRENT            {"format":14,"generation":N}: the one mutable file,
//	                     replaced by an atomic rename
//	  lock               flock'd by a refresh; readers never touch it (but
//	                     for HoldRefresh); removed only by Claimed.Undo,
//	                     while flock'd: a locker checks that the file it
//	                     was granted is still dir/lock
//	  holds              docir.holds.v1: the bindings' holds on generations
//	                     (holds.go), replaced by an atomic rename; prune
//	                     skips a generation a live hold names
//	  holds.lock         flock'd while a bind or a release changes holds.
//	                     Neither file stays in a store before its first
//	                     publish: a bind that finds no CURRENT once it
//	                     holds this lock removes the file (still flock'd)
//	                     and refuses; Undo removes one a bind killed just
//	                     then left, and Claim takes an empty one, as an
//	                     empty lock, for docir's
//	  gen/N/docs.bolt    the generation's own body layer: records, bodies,
//	                     their passages' pair filters (fulltext.Pairs),
//	                     source file entries, the manifest's id index, the
//	                     field index of the records it holds (postings of
//	                     its document numbers, postings.go) and what it
//	                     shadows below, the link index of the links it
//	                     resolved (linkindex.go), and its meta (sources,
//	                     count, manifest digest, layer list, link rules
//	                     and counts, the front-matter list, and the
//	                     version of the markdown rules its records were
//	                     made by: a refresh by another version parses
//	                     every file again, so a change of those rules
//	                     needs no new format)
//	  gen/N/layer-G.bolt the body layers below it, written by generation G
//	                     and hard-linked here: never copied
//	  gen/N/fulltext/    bleve index of the generation's passages
//	  gen/N/hold         empty; a reader flocks it shared while it holds
//	                     the generation, and prune skips a held generation
//	  gen/N.tmp-*/       a generation being built or pruned; never read,
//	                     removed if stale
//
// Every generation has a manifest: for each document id, its source file's
// path (below its root, behind the root's prefix; never a path of the
// machine), content sha256, size and mtime. Publish records the sha256 of
// the manifest's canonical form (RFC 8785, ManifestSchema) in the
// generation, so an execution binding reads it with one lookup. A refresh
// keeps the newest Retain generations (Retained lists them) and those a
// binding holds (holds.go); a reader that holds a pruned one keeps reading
// it.
//
// A generation is never written once CURRENT names it, so any number of
// readers open it read-only while a refresh builds the next one aside: a
// reader never waits on a writer. A refresh hard-links the previous
// generation's body layers and its index's immutable segment files (copying
// the rest of the index), writes the change as a new body layer on top,
// syncs it, renames it into place and only then swaps CURRENT: the commit
// point. A crash at any point leaves the previous generation current and
// whole; the next refresh removes the leftovers. A generation folder past
// CURRENT (renamed into place, never named) never opens, and its number is
// never given to another generation. Nothing outside a folder docir made
// (Claim) is ever written or removed; a first index that publishes nothing
// removes the store it made (Claimed.Undo). Retaining a generation costs the bytes
// that changed, not a copy: past 4 layers above the base the deltas are
// merged into one, and once they outweigh half the base a refresh writes a
// new base (layers.go).
//
// Deep reads open only the body file (a few milliseconds, flat in corpus
// size) and read a document's record and body by pread into a bounded page
// cache rather than through bbolt's memory map (pread.go); bleve is opened
// only by searches. Subpackage markdown turns files
// into records; subpackage fulltext owns bleve; subpackage links reads a
// link's target (linkindex.go resolves it and keeps the link index).
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
//	3  IDENTITY file; per generation, the manifest's id index (bucket
//	   "manifest") and its digest (meta "manifest_digest"); body layers
//	   (meta "layers", gen/N/layer-G.bolt, tombstones) instead of a
//	   copied body file.
//	4  fulltext: no word-pair terms (word order is rescored at query
//	   time); identifiers indexed whole and in parts; a head passage
//	   `<id>#` per document holding its title and front-matter text;
//	   HTML comments and template shortcodes blanked.
//	5  per body layer, the field index (bucket "fields", fields.go):
//	   front-matter paths and values, case-folded, to document ids.
//	6  the field index as packed posting lists (postings.go): per body
//	   layer, its live documents numbered in id order (bucket "numbers"),
//	   a roaring bitmap of numbers per index key and chunk of 2^16
//	   (bucket "postings"), and per layer below, the bitmap of its
//	   numbers this layer or one between shadows (bucket "shadow"); no
//	   bucket "fields".
//	7  the store folder is docir's only when it holds IDENTITY (written
//	   first), and holds a .gitignore; per generation, the file hold
//	   (readers' shared flock, which prune respects) and, in fulltext/,
//	   the count of passages the index holds (checked on every open).
//	8  fulltext: each passage's head (its document's title and path and
//	   the headings above it) indexed as a field of its own, "head"; a
//	   document's names (title, description) as name terms; link and
//	   image destinations, reference labels and definitions blanked.
//	9  the same layout; records made by the rules of documentation sites:
//	   a bundle's index.md or _index.md has its folder's id, and a
//	   heading's {#id} attribute is its slug (an older store holds the
//	   /index ids and the slugs of "Metadata {#metadata-schema}").
//	10 the holds record (holds, holds.lock): a binding holds its
//	   generation, and prune skips it until the hold is released or
//	   expires (an older docir would prune it).
//	11 records list their links as written (docir.LinkRef, per section and
//	   before the first heading); per body layer, the link index (buckets
//	   "links", "linkto", "broken"; linkindex.go); meta "link_rules" and
//	   "link_counts".
//	12 fulltext: each command-line option a passage's text writes ("-Depth",
//	   "tar -x") as a flag term, "\x02" + its key, not counted in the
//	   passage's length; a query's "-word" is that option where one is
//	   indexed, an exclusion where none is (an older store has none).
//	13 the same layout; records made by GitHub's anchor rule as its
//	   published filter states it (a slug from the heading's text content:
//	   references decoded, spaces kept, no image alt text), HTML ids of
//	   real start tags only (none from comments or text), a shortcut
//	   reference before a '(' that opens no link, and at most
//	   markdown.MaxLinks links a document (an older store holds `qampa`
//	   for "Q&amp;A", and ids read from comments).
//	14 the same layout; ids, slugs and the full-text terms in Unicode
//	   normalization form C (address.NFC, fulltext composeTerm): a file
//	   named decomposed ("cafe" + U+0301, as macOS file systems have stored
//	   names) has the composed id a keyboard types (an older store holds
//	   the decomposed id, and terms as written); slugs cut at
//	   address.MaxSlugLen; records made with headings in block quotes and
//	   lists in the slug sequence (their slugs a section's anchors), TOML
//	   front matter read, a lone carriage return a line ending, fences
//	   with trailing blanks, and attribute blocks read as goldmark reads
//	   them.
//	15 fulltext: an identifier's parts that its case changes cut are also
//	   one term, written together and lower-cased, "\x03" + the word
//	   ("baseURL": base, url and "\x03baseurl"; see fulltext's
//	   Catenations), outside the field's length, so that an identifier
//	   typed in lower case finds it (an older store has no such terms).
//	16 fulltext: words joined by one hyphen are catenations too
//	   ("read-only": read, only and "\x03readonly"), so that a word typed
//	   whole finds the passages that hyphenate it (an older store has
//	   none of these terms).
const FormatVersion = 16
