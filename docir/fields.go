package docir

// FieldsResult is the reply of docir/fields: the front-matter fields of
// the local store's documents, with how many documents have each and its
// most common values, so that query expressions are written from facts.
type FieldsResult struct {
	Documents  int         `json:"documents"` // documents scanned
	Fields     []FieldInfo `json:"fields"`    // most documents first, then by name
	Truncated  bool        `json:"truncated"` // more fields than MaxFields
	Generation uint64      `json:"generation"`
}

// FieldInfo is one front-matter field: a top-level key, or a dotted path
// into a nested object (author.name), as query expressions name it.
type FieldInfo struct {
	Name      string       `json:"name"`
	Documents int          `json:"documents"` // documents that have it
	Distinct  int          `json:"distinct"`  // distinct scalar values (counted up to MaxDistinct)
	Values    []ValueCount `json:"values"`    // the most common values, at most TopValues
}

// ValueCount is one value of a field and how many documents have it.
type ValueCount struct {
	Value     string `json:"value"`
	Documents int    `json:"documents"`
}

// Bounds of a fields reply.
const (
	MaxFields   = 200   // fields listed
	TopValues   = 5     // values listed per field
	MaxDistinct = 10000 // distinct values counted per field
	MaxValueLen = 80    // bytes of a listed value; longer ones end in "…"
)
