package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/query"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/readbatch"
	"github.com/docir/docir/workspace/binding"
	"github.com/docir/docir/workspace/session"
)

// tool is one MCP tool: the engine method it calls and the Go shapes its
// schemas are read from.
type tool struct {
	name, title, description string
	method                   string
	params                   reflect.Type // the method's params struct
	output                   func() (*jsonschema.Schema, error)
	readOnly                 bool
	// describe documents the params' fields in the input schema.
	describe map[string]string
}

// tools lists the session's tools: get, search, query, context and status,
// and refresh when the host policy grants it.
func tools(e *session.Engine, o Options) []tool {
	corpus := corpusName(o)
	ts := []tool{
		{
			name: ToolGet, title: "Read documents or sections", method: wire.MethodGet, readOnly: true,
			description: "Deep read of " + corpus + " by address (<id> or <id>#<heading>). doc_id reads one and returns the document " +
				"(a miss is an error); doc_ids reads several in one call and returns {documents, missing}: " +
				"the documents in request order, and each address that did not resolve with its reason " +
				"(no_document, no_section, unavailable). A malformed address fails the call and nothing is read.",
			params: reflect.TypeFor[docir.GetParams](),
			output: keyedOutput[docir.Document, docir.GetResult]("doc_id: the document; doc_ids: {documents, missing}"),
			describe: map[string]string{
				"doc_id":  "one address; the reply is the document itself",
				"doc_ids": fmt.Sprintf("several addresses (at most %d), as a JSON array of strings; the reply is {documents, missing}", MaxToolAddresses),
			},
		},
		{
			name: ToolSearch, title: "Search the corpus", method: wire.MethodSearch, readOnly: true,
			description: "Ranked free-text search of " + corpus + ". Each hit names the section that matched as an address " +
				"(matched_section) that get accepts as-is; hits never carry a body. To answer a question, call context " +
				"instead: it ranks the same hits and plans which sections to read. Syntax: " + SearchSyntax,
			params: reflect.TypeFor[docir.SearchParams](),
			output: schemaFor[docir.SearchResult],
			describe: map[string]string{
				"query": `words, e.g. retry budget for outbound calls; "a phrase" for words adjacent in order, -word to leave out sections that hold it`,
				"limit": limitDesc("documents to return"),
			},
		},
		{
			name: ToolQuery, title: "Filter documents by fields", method: wire.MethodQuery, readOnly: true,
			description: "Filter the documents of " + corpus + " by front-matter fields and metadata. " +
				"Hits are skeletons, as in search, in id order unless sorted. Syntax: " + QuerySyntax,
			params: reflect.TypeFor[docir.QueryParams](),
			output: schemaFor[docir.SearchResult],
			describe: map[string]string{
				"expr":  "field:value terms, all must hold, e.g. kind:adr status:accepted,proposed date:>=2024 (the fields tool lists the fields that exist)",
				"limit": limitDesc("documents to return"),
				"sort":  "a field to sort by; -field for descending",
			},
		},
		{
			name: ToolContext, title: "What to read next", method: wire.MethodContext, readOnly: true,
			description: "Plan a read of " + corpus + " to answer a question: no need to search first. The text is the plan: " +
				"the addresses to read, best first, within a token budget, and the outlines of the documents they are in. " +
				"Get the first address, then the next, and stop once answered; if the plan runs out, pick a nearby section " +
				"from the outlines. structuredContent also holds the ranked hits, as search gives them. The query is free text, as in search.",
			params: reflect.TypeFor[docir.ContextParams](),
			output: schemaFor[docir.ContextResult],
			describe: map[string]string{
				"query":  "free text, as in search (phrases and -word too)",
				"budget": fmt.Sprintf("tokens the addresses to read next may add up to: %d to %d (default %d)", docir.MinBudget, docir.MaxBudget, docir.DefaultBudget),
				"limit":  limitDesc("documents to rank"),
			},
		},
		{
			name: ToolStatus, title: "Store status", method: wire.MethodStatus, readOnly: true,
			description: "The store of " + corpus + ": current generation, document count, sources and peers " +
				"(of a retained generation, with image_revision or binding).",
			params: reflect.TypeFor[docir.StatusParams](),
			output: schemaFor[docir.Status],
		},
	}
	ts = append(ts, linkTools(corpus)...)
	if e.Has(wire.MethodFields) {
		ts = append(ts, tool{
			name: ToolFields, title: "List the front-matter fields", method: wire.MethodFields, readOnly: true,
			description: fmt.Sprintf("The front-matter fields of %s, from a scan of every document: for each field (nested ones as "+
				"dotted paths, the way query names them) the number of documents that have it, its distinct values and its "+
				"%d most common values with their counts. Call it before writing a query expression. Built-in fields every "+
				"document has: id, path, title, size.", corpus, docir.TopValues),
			params: reflect.TypeFor[struct{}](),
			output: schemaFor[docir.FieldsResult],
		})
	}
	if e.Has(wire.MethodReadBatch) {
		ts = append(ts, tool{
			name: ToolReadBatch, title: "Run several reads at once", method: wire.MethodReadBatch, readOnly: true,
			description: fmt.Sprintf("Run up to %d read requests on one generation of the store, in parallel (selected by the host). "+
				"Each frame is a whole JSON-RPC request line calling one of %s; each answer comes back, in order, as the "+
				"exact reply line that request gets alone (null for a notification). image_revision must be the current "+
				"generation (status gives it).", readbatch.MaxFrames, strings.Join(e.ReadBatchMethods(), ", ")),
			params: reflect.TypeFor[readBatchParams](),
			output: schemaFor[readbatch.Result],
			describe: map[string]string{
				"image_revision": "the generation the batch must read (workspace status: generation)",
				"batch":          fmt.Sprintf("{frames: 1 to %d JSON-RPC request lines of at most %d characters}", readbatch.MaxFrames, MaxToolFrameChars),
			},
		})
	}
	if e.Has(wire.MethodRefresh) {
		ts = append(ts, tool{
			name: ToolRefresh, title: "Refresh the store", method: wire.MethodRefresh,
			description: "Ingest changed source files into a new generation (granted by the host). " +
				"Later reads see the new generation.",
			params: reflect.TypeFor[struct{}](),
			output: schemaFor[docir.IndexSummary],
		})
	}
	return ts
}

// readBatchParams is the read_batch tool's input, the method's params.
type readBatchParams struct {
	ImageRevision uint64 `json:"image_revision"`
	Batch         struct {
		Frames []string `json:"frames"`
	} `json:"batch"`
}

// keyedOutput is the output schema of a read keyed by its request: One
// for doc_id, Many for doc_ids.
func keyedOutput[One, Many any](description string) func() (*jsonschema.Schema, error) {
	return func() (*jsonschema.Schema, error) {
		one, err := schemaFor[One]()
		if err != nil {
			return nil, err
		}
		many, err := schemaFor[Many]()
		if err != nil {
			return nil, err
		}
		return &jsonschema.Schema{Type: "object", OneOf: []*jsonschema.Schema{one, many}, Description: description}, nil
	}
}

// schemaFor derives the JSON schema of a wire shape.
func schemaFor[T any]() (*jsonschema.Schema, error) {
	return jsonschema.ForType(reflect.TypeFor[T](), &jsonschema.ForOptions{})
}

// inputSchema derives a tool's input schema from its method's params and
// documents its fields. Like the params, it is closed.
func inputSchema(t tool) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t.params, &jsonschema.ForOptions{})
	if err != nil {
		return nil, err
	}
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	for name, p := range s.Properties {
		p.Description = t.describe[name]
		if d, ok := selectorDesc[name]; ok && p.Description == "" {
			p.Description = d
		}
	}
	plainTypes(s)
	boundStrings(s)
	for _, k := range []string{"image_revision", "since", "until"} { // generations, numbered from 1
		if p, ok := s.Properties[k]; ok {
			p.Minimum, p.Maximum = new(float64(1)), new(float64(MaxGeneration))
		}
	}
	if p, ok := s.Properties["batch"]; ok {
		frames := p.Properties["frames"]
		frames.MinItems, frames.MaxItems = new(1), new(readbatch.MaxFrames)
	}
	if t.method == wire.MethodGet || t.method == wire.MethodLinks {
		s.Properties["doc_ids"].MaxItems = new(MaxToolAddresses)
		// Exactly one of the two keys, which the engine enforces: said in
		// their descriptions, not as a oneOf at the schema's top level,
		// which the Anthropic Messages API refuses for every request that
		// lists the tool (hosts pass input schemas through to it).
		for _, k := range []string{"doc_id", "doc_ids"} {
			s.Properties[k].Description += " (give doc_id or doc_ids, not both)"
		}
	}
	if p, ok := s.Properties["limit"]; ok && (t.method == wire.MethodCheck || t.method == wire.MethodChanges || t.method == wire.MethodLinks) {
		// A page: no default (absent, as many as fit the reply).
		p.Minimum, p.Maximum = new(float64(docir.MinLimit)), new(float64(docir.MaxPageLimit))
	} else if ok {
		p.Minimum, p.Maximum = new(float64(docir.MinLimit)), new(float64(docir.MaxLimit))
		p.Default = json.RawMessage(strconv.Itoa(docir.DefaultLimit))
	}
	if p, ok := s.Properties["budget"]; ok {
		p.Minimum, p.Maximum = new(float64(docir.MinBudget)), new(float64(docir.MaxBudget))
		p.Default = json.RawMessage(strconv.Itoa(docir.DefaultBudget))
	}
	// Length bounds are stringBounds (boundStrings).
	if p, ok := s.Properties["batch"]; ok && t.method == wire.MethodReadBatch {
		if f, ok := p.Properties["frames"]; ok {
			f.MinItems, f.MaxItems = new(1), new(readbatch.MaxFrames)
		}
	}
	return s, nil
}

// MaxToolAddresses bounds the addresses of one get or links call over MCP (the
// JSON-RPC methods take docir.MaxBatch): with it, and the bounds of every
// string (see stringBounds), every call valid against a tool's input schema
// fits in MaxFrameBytes however its strings are escaped (64 addresses of
// address.MaxLen, 768 bytes, each character a 12-byte escape, with a
// binding receipt and the envelope). A reply of more sections than this
// would mostly pass the 1 MiB reply bound anyway.
const MaxToolAddresses = 64

// MaxGeneration is the maximum of the generation inputs (image_revision,
// since, until): 2^53, the largest integer the engine takes however it is
// written. JSON Schema's integer is any number without a fraction, so 1e300
// is one; the engine decodes a generation into a uint64 and takes one
// written with an exponent or a fraction part (3e0, 3.0) only up to 2^53,
// where a float64 stops holding every integer (wire.DecodeParams); beyond
// it only plain digits up to 2^64-1 (and read_batch's image_revision only
// plain digits). No store has such a generation: one past the largest
// retained is stale_revision.
const MaxGeneration = 1 << 53

// MaxToolFrameChars bounds one frame of a read_batch call over MCP.
const MaxToolFrameChars = 4096

// stringBounds are the maxLength of the tools' string inputs, by name: the
// bounds the engine enforces, in bytes of UTF-8 but for a read_batch frame,
// in characters. JSON Schema's maxLength counts characters, so for the
// others it is exact for ASCII only: a string of non-ASCII characters can
// be within maxLength and over the engine's bound (up to 4 bytes a
// character); boundStrings says so in each one's description. (A
// maxLength of a quarter would make every schema-valid string fit, and
// refuse ASCII strings the engine takes.)
var stringBounds = map[string]int{
	"doc_id":        address.MaxLen,
	"doc_ids":       address.MaxLen, // each item
	"query":         docir.MaxQueryBytes,
	"expr":          query.MaxExprBytes,
	"sort":          address.MaxLen,
	"binding":       binding.MaxReceiptBytes,
	"since_receipt": binding.MaxReceiptBytes,
	"cursor":        docir.MaxCursorBytes,
	"frames":        MaxToolFrameChars, // each item
}

// boundStrings sets the maxLength of every string property (and of the
// items of every array of strings) that stringBounds names, at every depth.
func boundStrings(s *jsonschema.Schema) {
	for name, p := range s.Properties {
		n, ok := stringBounds[name]
		switch {
		case ok && p.Type == "string":
			p.MaxLength = new(n)
		case ok && p.Type == "array" && p.Items != nil && p.Items.Type == "string":
			p.Items.MaxLength = new(n)
		}
		if ok && name != "frames" {
			p.Description = strings.TrimPrefix(p.Description+"; "+byteBound(n), "; ")
		}
		boundStrings(p)
	}
}

// byteBound says how a string's bound of n bytes and its maxLength of n
// characters differ.
func byteBound(n int) string {
	return fmt.Sprintf("at most %d bytes of UTF-8 (maxLength counts characters: %d ASCII ones, fewer where a character takes 2 to 4 bytes)", n, n)
}

// selectorDesc documents the selectors every read takes (docir.Selector):
// the read answers from one pinned generation of the store.
var selectorDesc = map[string]string{
	"image_revision":  "optional: answer from this generation of the store (a number the store still retains); give it or binding, not both",
	"binding":         "optional: answer from the generation a binding receipt names (the receipt file's text, as docir bind prints it); give it or image_revision, not both",
	"require_current": "optional, with binding: true to read only if the binding's generation is still the current one (checked and read while refreshes wait); binding_rejected otherwise",
}

// plainTypes turns the nullable unions the schema package derives from Go
// pointers and slices ("type": ["null", "array"]) into plain types: hosts
// build forms from them, and a key left out already means "none".
func plainTypes(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && slices.Contains(s.Types, "null") {
		s.Type = s.Types[0]
		if s.Type == "null" {
			s.Type = s.Types[1]
		}
		s.Types = nil
	}
	for _, p := range s.Properties {
		plainTypes(p)
	}
	plainTypes(s.Items)
}

// limitDesc describes a limit parameter from the bounds docir enforces.
func limitDesc(what string) string {
	return fmt.Sprintf("%s: %d to %d (default %d)", what, docir.MinLimit, docir.MaxLimit, docir.DefaultLimit)
}
