package docir

import "time"

// StoreLocal is the store name of the local store in every reply.
const StoreLocal = "local"

// Reasons an address is reported in GetResult.Missing.
const (
	ReasonNoDocument  = "no_document" // no document has that id
	ReasonNoSection   = "no_section"  // the document exists, the heading does not
	ReasonUnavailable = "unavailable" // a peer that might have it could not answer
)

// Document is the reply of a deep read: one document, or one section of it
// with its subsections.
type Document struct {
	Address    string      `json:"address"` // as asked
	ID         string      `json:"id"`
	Title      string      `json:"title"`
	Path       string      `json:"path"`
	Store      string      `json:"store"`
	Generation uint64      `json:"generation"`
	Section    *SectionRef `json:"section,omitempty"`
	Body       string      `json:"body"`
	// Definitions are, for a section, the link reference definitions of
	// its document, outside the section, that its text uses
	// (render.Definitions): the URLs of its `[text][label]` links, which
	// markdown writes once, at the document's end. Body stays the
	// section's own bytes.
	Definitions string `json:"definitions,omitempty"`
}

// SectionRef names the section a Document holds.
type SectionRef struct {
	Slug    string `json:"slug"`
	Heading string `json:"heading"`
	Level   int    `json:"level"`
}

// Missing is one address of a batch that did not resolve, and why.
type Missing struct {
	Address     string   `json:"address"`
	Reason      string   `json:"reason"`
	Suggestions []string `json:"suggestions,omitempty"` // nearest ids (no_document) or sections (no_section); never applied silently
}

// GetResult is the reply to a `doc_ids` read: the documents that resolved,
// in request order, and the addresses that did not.
type GetResult struct {
	Documents []Document `json:"documents"`
	Missing   []Missing  `json:"missing"`
	Warnings  []string   `json:"warnings,omitempty"`
}

// Hit is one skeleton result. It has no body field, by construction.
type Hit struct {
	ID             string  `json:"id"`
	Title          string  `json:"title"`
	Path           string  `json:"path"`
	Store          string  `json:"store"`
	Score          float64 `json:"score"`
	MatchedSection string  `json:"matched_section"` // an address `get` accepts as-is
	Snippet        string  `json:"snippet,omitempty"`
	// Also are the matched sections of other documents that say nothing
	// this hit's matched section and those of the hits above it do not
	// (a section a generated reference repeats on every page): left out of
	// the hits, listed here, at most as many as the hits asked for. A
	// search folds them among the documents it ranks; a context fills its
	// hits from further down.
	Also []string `json:"also,omitempty"`
}

// StoreStatus reports how one store answered a skeleton read.
type StoreStatus struct {
	Store  string `json:"store"`
	Status string `json:"status"` // "ok" or "failed"
	Error  string `json:"error,omitempty"`
}

// SearchResult is the reply of `search` and `query`.
type SearchResult struct {
	Query    string        `json:"query"`
	Hits     []Hit         `json:"hits"`
	Total    int           `json:"total"` // matches before the limit
	Stores   []StoreStatus `json:"stores,omitempty"`
	Warnings []string      `json:"warnings,omitempty"`
}

// OutlineEntry is one section of a document's outline in a context reply.
type OutlineEntry struct {
	Address string `json:"address"`
	Heading string `json:"heading"`
	Level   int    `json:"level"`
	Tokens  int    `json:"tokens"`
}

// ContextHit is a Hit with the outline of its document.
type ContextHit struct {
	Hit
	Tokens  int            `json:"tokens"` // estimated tokens of the whole document
	Outline []OutlineEntry `json:"outline"`
}

// ContextResult is the reply of `context`: ranked documents with outlines,
// and the ordered addresses to read next within the budget.
type ContextResult struct {
	Query      string        `json:"query"`
	Budget     int           `json:"budget"`
	Hits       []ContextHit  `json:"hits"`
	Addresses  []string      `json:"addresses"`
	Tokens     int           `json:"tokens"` // estimated tokens of what Addresses name
	Stores     []StoreStatus `json:"stores,omitempty"`
	Warnings   []string      `json:"warnings,omitempty"`
	Generation uint64        `json:"generation"`
}

// AddressTokens maps each address the result's hits and outlines name (a
// whole document by its id, a section by its address) to its estimated
// tokens.
func (r *ContextResult) AddressTokens() map[string]int {
	tokens := map[string]int{}
	for _, h := range r.Hits {
		tokens[h.ID] = h.Tokens
		for _, o := range h.Outline {
			tokens[o.Address] = o.Tokens
		}
	}
	return tokens
}

// IndexSummary is what a refresh of the local store did.
type IndexSummary struct {
	Added      int      `json:"added"`
	Changed    int      `json:"changed"`
	Removed    int      `json:"removed"`
	Unchanged  int      `json:"unchanged"`
	Documents  int      `json:"documents"`
	Generation uint64   `json:"generation"`
	Published  bool     `json:"published"` // false when nothing changed
	Seconds    float64  `json:"seconds"`
	Warnings   []string `json:"warnings"`
	// Ignored counts the markdown files and folders left out by .gitignore
	// files and exclude patterns (an ignored folder counts once).
	Ignored int `json:"ignored,omitempty"`
	// WarningCounts counts Warnings by kind (too_large, binary,
	// outside_roots, parse_budget, ...: see package ingest), so a summary
	// can say "195 files skipped: no_id" and show the first few.
	WarningCounts map[string]int `json:"warning_counts,omitempty"`
}

// SourceInfo is one source root of a store, as its current generation was
// indexed.
type SourceInfo struct {
	Path   string `json:"path"`
	Prefix string `json:"prefix,omitempty"`
	// FrontMatterID is how a front-matter `id:` names the source's
	// documents, with the values of docir.yaml's front_matter_id that
	// `docir sources` shows: "name" (the `id:` replaces the file's name)
	// or "off" (ids from paths only). Left out, it is the default, the
	// `id:` as the whole id, which docir records as "" (not "whole").
	FrontMatterID string `json:"front_matter_id,omitempty"`
}

// Status is the reply of `status` and workspace/status.
type Status struct {
	Store      string       `json:"store"`      // the store folder
	Format     int          `json:"format"`     // the store's format version
	Generation uint64       `json:"generation"` // the current generation
	Documents  int          `json:"documents"`
	Sources    []SourceInfo `json:"sources"`
	Peers      []PeerStatus `json:"peers,omitempty"`
}

// PeerStatus is one declared peer in a status reply, in declaration order.
type PeerStatus struct {
	Name       string `json:"name"`
	Kind       string `json:"kind"` // "path" or "url"
	Location   string `json:"location"`
	Status     string `json:"status"` // "ok" or "failed"
	Error      string `json:"error,omitempty"`
	Generation uint64 `json:"generation,omitempty"`
	Documents  int    `json:"documents,omitempty"`
}

// BindingResult is the reply of workspace/bind and workspace/replay, and
// what `docir replay` prints: the binding, its receipt file, whether its
// generation is the current one, and the hold that keeps the generation
// in the store (null when none does).
type BindingResult struct {
	Receipt        string       `json:"receipt"` // the receipt file, as `docir bind` prints it
	Digest         string       `json:"digest"`
	Workspace      string       `json:"workspace"`
	Revision       uint64       `json:"revision"`
	ManifestDigest string       `json:"manifest_digest"`
	Current        bool         `json:"current"`
	Hold           *BindingHold `json:"hold"`
}

// BindingHold is a binding's hold on its generation: the store keeps the
// generation (past retain) until every bind holding it is released or
// Expires passes. Times are UTC, whole seconds.
type BindingHold struct {
	Binds   int       `json:"binds"`   // binds holding it; each release ends one
	Created time.Time `json:"created"` // when its first bind took it
	Expires time.Time `json:"expires"` // when it ends unless released first
}

// EvidenceResult is the reply of workspace/evidence: the read's exact
// result, as the JSON text the method answers on the binding's generation,
// and the evidence file (docir.read-evidence.v1 with its binding) that
// `docir replay --evidence` checks.
type EvidenceResult struct {
	Response string `json:"response"`
	Evidence string `json:"evidence"`
	Digest   string `json:"digest"`
}
