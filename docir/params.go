package docir

// Request shapes. Every transport decodes its input into these (closed:
// unknown fields are refused) and hands them to the same engine.

// GetParams asks for a deep read. Exactly one of DocID and DocIDs is set:
// DocID answers with the document itself, DocIDs with a GetResult.
type GetParams struct {
	DocID  *string  `json:"doc_id,omitempty"`
	DocIDs []string `json:"doc_ids,omitempty"`
}

// SearchParams asks for ranked skeleton hits.
type SearchParams struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"` // 0: DefaultLimit
}

// QueryParams asks for hits filtered by fields.
type QueryParams struct {
	Expr  string `json:"expr"`
	Limit int    `json:"limit,omitempty"` // 0: DefaultLimit
	Sort  string `json:"sort,omitempty"`  // a field, "-field" for descending
}

// ContextParams asks for ranked documents with outlines and what to read
// next within a token budget.
type ContextParams struct {
	Query  string `json:"query"`
	Budget int    `json:"budget,omitempty"` // tokens; 0: DefaultBudget
	Limit  int    `json:"limit,omitempty"`  // documents; 0: DefaultLimit
}

// Defaults and bounds of the request shapes.
const (
	DefaultLimit  = 10
	MaxLimit      = 1000
	DefaultBudget = 4000
	MaxBatch      = 1000 // addresses in one doc_ids read
)
