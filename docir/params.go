package docir

import (
	"encoding/json"
	"fmt"
)

// Request shapes. Every transport decodes its input into these (closed:
// unknown fields are refused) and hands them to the same engine.

// GetParams asks for a deep read. Exactly one of DocID and DocIDs is set:
// DocID answers with the document itself, DocIDs with a GetResult.
type GetParams struct {
	DocID  *string  `json:"doc_id,omitempty"`
	DocIDs []string `json:"doc_ids,omitempty"`
	Selector
}

// Selector pins a read to one generation of the local store: at most one
// of its fields is set; neither means the current generation. A pin is
// the local store's: it is never sent on to a peer.
type Selector struct {
	// ImageRevision is a generation number. One the store no longer
	// retains answers stale_revision; 0 names none (invalid_params).
	ImageRevision Revision `json:"image_revision,omitempty"`
	// Binding is a binding receipt file, as workspace/bind and `docir
	// bind` give it: the read runs on the receipt's generation once it
	// replays exactly; an edited, foreign or pruned receipt answers
	// binding_rejected.
	Binding string `json:"binding,omitempty"`
	// RequireCurrent, beside Binding, is run_current: the binding's
	// generation must be the current one, and refreshes are held off from
	// that check to the end of the read (binding_rejected when it is not
	// current; nothing is read). Without Binding it is invalid_params.
	RequireCurrent bool `json:"require_current,omitempty"`
}

// Revision is a generation number as a selector gives it: 1 or more.
// Absent, it is 0, the current generation; written as 0 it is refused
// (the schemas say minimum 1: a host that sends 0 for "no pin" was read
// as asking for the current generation, and told nothing).
type Revision uint64

// UnmarshalJSON reads a generation number, refusing one that is 0 however
// it is written (0, 0.0, 0e0), named as written. null is the member left
// out, as it is for every optional member (limit, until): the current
// generation. (It was refused as "0", a value the host never wrote.)
func (r *Revision) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	var n uint64
	if err := json.Unmarshal(data, &n); err != nil {
		return err // a type error: the decoder names the member
	}
	if n == 0 {
		return fmt.Errorf(`"image_revision": %s names no generation: they count from 1 (leave image_revision out to read the current one)`, Clip(string(data), 32))
	}
	*r = Revision(n)
	return nil
}

// Pinned reports whether the selector names a generation.
func (s Selector) Pinned() bool { return s.ImageRevision != 0 || s.Binding != "" }

// SearchParams asks for ranked skeleton hits.
type SearchParams struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"` // 0: DefaultLimit
	Selector
}

// QueryParams asks for hits filtered by fields.
type QueryParams struct {
	Expr  string `json:"expr"`
	Limit int    `json:"limit,omitempty"` // 0: DefaultLimit
	Sort  string `json:"sort,omitempty"`  // a field, "-field" for descending
	Selector
}

// ContextParams asks for ranked documents with outlines and what to read
// next within a token budget.
type ContextParams struct {
	Query  string `json:"query"`
	Budget int    `json:"budget,omitempty"` // tokens; 0: DefaultBudget
	Limit  int    `json:"limit,omitempty"`  // documents; 0: DefaultLimit
	Selector
}

// StatusParams asks for the status of the store, or of a pinned
// generation of it.
type StatusParams struct {
	Selector
}

// Defaults and bounds of the request shapes and replies, the same on every
// transport (the CLI's flags, the NDJSON and HTTP methods, the MCP tools'
// schemas). An explicit 0 limit or budget is refused where a transport can
// tell it from a left-out key (MinLimit, MinBudget); left out, it is the
// default.
const (
	DefaultLimit  = 10
	MinLimit      = 1
	MaxLimit      = 1000
	DefaultBudget = 4000
	MinBudget     = 1
	MaxBudget     = 1 << 20 // tokens of a context request's budget
	MaxQueryBytes = 4096    // bytes of a free-text query
	SnippetMax    = 240     // bytes of a hit's snippet
	MaxBatch      = 1000    // addresses in one doc_ids read
)

// BindParams asks workspace/bind for a binding: to generation Revision of
// workspace Workspace when both are given (a select, rejected when the
// store is another workspace or no longer retains it), else to the current
// generation.
//
// Every bind holds its generation in the store for TTL (a duration such as
// "24h" or "7d"; absent: a day; "0": no hold), so that prune keeps it.
// Release, given alone, is a receipt file's text instead: it ends one
// bind's hold of that binding and binds nothing.
type BindParams struct {
	Workspace string  `json:"workspace,omitempty"`
	Revision  uint64  `json:"revision,omitempty"`
	TTL       *string `json:"ttl,omitempty"`
	Release   string  `json:"release,omitempty"`
}

// ReplayParams asks workspace/replay to verify a binding receipt file;
// with RequireCurrent its generation must also be the current one.
type ReplayParams struct {
	Receipt        string `json:"receipt"`
	RequireCurrent bool   `json:"require_current,omitempty"`
}

// EvidenceParams asks workspace/evidence to run one read under a binding
// and attest it: Method is a read method (docir/get, docir/search,
// docir/query, docir/context, workspace/status, docir/links,
// docir/check), Params its params (no
// selector: the binding pins the read), Binding the receipt file's text.
type EvidenceParams struct {
	Binding string          `json:"binding"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}
