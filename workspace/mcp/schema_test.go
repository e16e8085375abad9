package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/query"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/readbatch"
	"github.com/docir/docir/workspace/binding"
	"github.com/docir/docir/workspace/session"
)

// toolSchema is what TestInputSchemasForForms reads of a tool's input
// schema.
type toolSchema struct {
	Type       any                 `json:"type"`
	Properties map[string]toolProp `json:"properties"`
	OneOf      []any               `json:"oneOf"`
	AnyOf      []any               `json:"anyOf"`
	AllOf      []any               `json:"allOf"`
}

type toolProp struct {
	Type        any             `json:"type"`
	Description string          `json:"description"`
	Minimum     *float64        `json:"minimum"`
	Maximum     *float64        `json:"maximum"`
	MaxItems    *int            `json:"maxItems"`
	Default     json.RawMessage `json:"default"`
}

// checkGetSchema: get takes doc_id or doc_ids, and doc_ids' bound is the
// one the tool enforces.
func checkGetSchema(t *testing.T, cs *sdk.ClientSession, s toolSchema) {
	t.Helper()
	for _, k := range []string{"doc_id", "doc_ids"} {
		if !strings.Contains(s.Properties[k].Description, "give doc_id or doc_ids, not both") {
			t.Errorf("get.%s: description %q does not say to give one of the two", k, s.Properties[k].Description)
		}
	}
	for _, args := range []map[string]any{{}, {"doc_id": "x", "doc_ids": []string{"x"}}} {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "get", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError {
			t.Errorf("get %v: not an error; want one of doc_id and doc_ids refused", args)
		}
	}
	if p := s.Properties["doc_ids"]; p.MaxItems == nil || *p.MaxItems != MaxToolAddresses || p.Type != "array" ||
		!strings.Contains(p.Description, strconv.Itoa(MaxToolAddresses)) {
		t.Errorf("get.doc_ids: %+v", p)
	}
	for _, n := range []int{MaxToolAddresses, MaxToolAddresses + 1} {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = "x"
		}
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "get", Arguments: map[string]any{"doc_ids": ids}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError != (n > MaxToolAddresses) {
			t.Errorf("get with %d doc_ids: isError %v: %v", n, res.IsError, res.Content)
		}
	}
}

// TestInputSchemasForForms: every input schema has plain types (no
// "type" arrays), get says oneOf doc_id | doc_ids, and every bound in a
// schema is the one the engine enforces, described in words: the values
// at the bounds pass, the ones just past them are refused.
func TestInputSchemasForForms(t *testing.T) {
	checkLeaks(t)
	e := fixture(t, "")
	cs := connect(t, e)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	method := map[string]string{}
	for _, tl := range tools(e, Options{}) {
		method[tl.name] = tl.method
	}
	bounds := map[string][3]int{ // min, max, default
		"limit":  {docir.MinLimit, docir.MaxLimit, docir.DefaultLimit},
		"budget": {docir.MinBudget, docir.MaxBudget, docir.DefaultBudget},
	}
	// A page's limit (check, changes, links) has no default: absent, a
	// page holds what fits the reply.
	paged := [3]int{docir.MinLimit, docir.MaxPageLimit, -1}
	base := map[string]string{"search": `"query":"retry"`, "query": `"expr":"kind:adr"`, "context": `"query":"retry"`,
		"check": `"external":true`, "changes": `"since":1`, "links": `"doc_id":"runbooks/disk-full"`}
	checked := 0
	for _, tool := range res.Tools {
		data, _ := json.Marshal(tool.InputSchema)
		var s toolSchema
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		if _, ok := s.Type.(string); !ok {
			t.Errorf("%s: type %v", tool.Name, s.Type)
		}
		// The Anthropic Messages API refuses an input schema with any of
		// these at its top level, failing every request that lists the
		// tool (anthropics/claude-code#5319).
		if len(s.OneOf)+len(s.AnyOf)+len(s.AllOf) > 0 {
			t.Errorf("%s: oneOf, anyOf or allOf at the top level of its input schema", tool.Name)
		}
		for name, p := range s.Properties {
			if _, ok := p.Type.(string); !ok {
				t.Errorf("%s.%s: type %v, want one plain type", tool.Name, name, p.Type)
			}
			if p.Description == "" {
				t.Errorf("%s.%s: no description", tool.Name, name)
			}
			b, ok := bounds[name]
			if !ok {
				continue
			}
			def := strconv.Itoa(b[2])
			if tool.Name == ToolCheck || tool.Name == ToolChanges || tool.Name == ToolLinks {
				b, def = paged, ""
			}
			checked++
			if p.Minimum == nil || p.Maximum == nil || int(*p.Minimum) != b[0] || int(*p.Maximum) != b[1] || string(p.Default) != def {
				t.Errorf("%s.%s: minimum %v maximum %v default %s, want %v", tool.Name, name, p.Minimum, p.Maximum, p.Default, b)
			}
			said := b[:]
			if def == "" {
				said = b[:2] // no default to say
			}
			for _, n := range said {
				if !strings.Contains(p.Description, strconv.Itoa(n)) {
					t.Errorf("%s.%s: description %q does not say %d", tool.Name, name, p.Description, n)
				}
			}
			for _, c := range []struct {
				v  int
				ok bool
			}{{b[0] - 1, false}, {b[0], true}, {b[1], true}, {b[1] + 1, false}} {
				args := fmt.Sprintf(`{%s,%q:%d}`, base[tool.Name], name, c.v)
				_, werr := e.Call(context.Background(), method[tool.Name], json.RawMessage(args))
				if (werr == nil) != c.ok {
					t.Errorf("%s %s: error %v, want accepted %v", tool.Name, args, werr, c.ok)
				}
			}
		}
		if tool.Name == "get" {
			checkGetSchema(t, cs, s)
		}
	}
	if checked != 7 { // limit of search, query, context, check, changes, links; budget of context
		t.Errorf("checked %d bounds, want 7", checked)
	}
}

// TestDescriptionsNameTheCorpus: the instructions and every tool's
// description say which corpus this is, and the instructions spell out
// both syntaxes.
func TestDescriptionsNameTheCorpus(t *testing.T) {
	e := fixture(t, "")
	o := Options{Name: "Team handbook", Description: "runbooks and ADRs of the storage team"}
	ins := instructions(o, true)
	for _, want := range []string{`"Team handbook": runbooks and ADRs of the storage team`, SearchSyntax, QuerySyntax} {
		if !strings.Contains(ins, want) {
			t.Errorf("instructions do not say %q:\n%s", want, ins)
		}
	}
	for _, tl := range tools(e, o) {
		if !strings.Contains(tl.description, `"Team handbook"`) {
			t.Errorf("%s: description does not name the corpus: %s", tl.name, tl.description)
		}
	}
}

// maxCharBytes is the most bytes one character of a JSON string can take
// as written: a character outside the Basic Multilingual Plane as two \u
// escapes (a surrogate pair), which is how an encoder that escapes all
// non-ASCII (Python's json.dumps by default) writes it.
const maxCharBytes = 12

// envelopeBytes is what a tools/call adds around its arguments, allowed
// for: jsonrpc, id, method, the tool's name and a _meta (a progress
// token).
const envelopeBytes = 64 << 10

// TestSchemaValidCallsFit: the largest call any tool's input schema
// accepts — every string at its maxLength, each character at its longest
// escape, every array at its maxItems, every number at its longest — fits
// in MaxFrameBytes with the envelope, so a host that checks calls against
// the schemas never sends one the frame bound refuses. A string or array
// without a bound fails the test.
func TestSchemaValidCallsFit(t *testing.T) {
	checkLeaks(t)
	e := fixture(t, `{"schema":"docir.host-policy.v2","grants":["refresh"],"read_batch_workers":2}`)
	cs := connect(t, e)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 11 {
		t.Fatalf("%d tools, want every one (read_batch and refresh too)", len(res.Tools))
	}
	for _, tool := range res.Tools {
		data, _ := json.Marshal(tool.InputSchema)
		var s map[string]any
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		n, err := maxEncoded(s)
		if err != nil {
			t.Errorf("%s: %v", tool.Name, err)
			continue
		}
		t.Logf("%s: the largest schema-valid arguments are %d bytes", tool.Name, n)
		if n+envelopeBytes > MaxFrameBytes {
			t.Errorf("%s: a schema-valid call can be %d bytes with its envelope, over the %d-byte frame bound", tool.Name, n+envelopeBytes, MaxFrameBytes)
		}
	}
}

// maxEncoded is the most bytes a JSON value valid against schema s can be
// written in (all of an object's properties present).
func maxEncoded(s map[string]any) (int, error) {
	num := func(key string) (int, bool) {
		v, ok := s[key].(float64)
		return int(v), ok
	}
	switch s["type"] {
	case "object":
		n := 2
		props, _ := s["properties"].(map[string]any)
		for name, p := range props {
			m, err := maxEncoded(p.(map[string]any))
			if err != nil {
				return 0, fmt.Errorf("%s: %w", name, err)
			}
			n += len(name)*maxCharBytes + 2 + 1 + m + 1 // "name": value,
		}
		if ap, ok := s["additionalProperties"]; ok && ap != false {
			return 0, fmt.Errorf("open object (additionalProperties %v)", ap)
		}
		return n, nil
	case "array":
		items, ok := s["items"].(map[string]any)
		max, bounded := num("maxItems")
		if !ok || !bounded {
			return 0, fmt.Errorf("array without items or maxItems: %v", s)
		}
		m, err := maxEncoded(items)
		if err != nil {
			return 0, fmt.Errorf("items: %w", err)
		}
		return 2 + max*(m+1), nil
	case "string":
		max, ok := num("maxLength")
		if !ok {
			return 0, fmt.Errorf("string without maxLength: %v", s)
		}
		return 2 + max*maxCharBytes, nil
	case "integer":
		return len("-9223372036854775808"), nil
	case "number":
		return len("-1.7976931348623157e+308"), nil
	case "boolean":
		return len("false"), nil
	}
	return 0, fmt.Errorf("type %v", s["type"])
}

// TestInputSchemaLengthBounds: every length and count bound the engine
// enforces is in the tools' input schemas (issue 23.6), equal to the
// engine's constant and said in words: a query or an expression at its
// bound is taken, one byte past it refused; read_batch's frames are 1 to
// readbatch.MaxFrames.
func TestInputSchemaLengthBounds(t *testing.T) {
	checkLeaks(t)
	e, _, res := everyTool(t)
	type prop struct {
		Description string `json:"description"`
		MaxLength   *int   `json:"maxLength"`
		MinItems    *int   `json:"minItems"`
		MaxItems    *int   `json:"maxItems"`
		Items       *prop  `json:"items"`
		Properties  map[string]prop
	}
	schemas := map[string]map[string]prop{}
	for _, tool := range res.Tools {
		data, _ := json.Marshal(tool.InputSchema)
		var s struct{ Properties map[string]prop }
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		schemas[tool.Name] = s.Properties
	}
	lengths := []struct {
		tool, prop, method, arg string
		max                     int
		said                    bool // the description names the bound
	}{
		{"search", "query", wire.MethodSearch, `"query":%q`, docir.MaxQueryBytes, true},
		{"context", "query", wire.MethodContext, `"query":%q`, docir.MaxQueryBytes, true},
		{"query", "expr", wire.MethodQuery, `"expr":%q`, query.MaxExprBytes, true},
		{"get", "doc_id", wire.MethodGet, `"doc_id":%q`, address.MaxLen, false},
		{"search", "binding", wire.MethodSearch, `"query":"x","binding":%q`, binding.MaxReceiptBytes, false},
	}
	for _, c := range lengths {
		p := schemas[c.tool][c.prop]
		if p.MaxLength == nil || *p.MaxLength != c.max {
			t.Errorf("%s.%s: maxLength %v, want %d", c.tool, c.prop, p.MaxLength, c.max)
		}
		if c.said && !strings.Contains(p.Description, strconv.Itoa(c.max)) {
			t.Errorf("%s.%s: description %q does not say %d", c.tool, c.prop, p.Description, c.max)
		}
	}
	for _, c := range lengths[:3] {
		at := "kind:" + strings.Repeat("a", c.max-len("kind:"))
		if _, werr := e.Call(context.Background(), c.method, json.RawMessage("{"+fmt.Sprintf(c.arg, at)+"}")); werr != nil {
			t.Errorf("%s with %s of %d bytes: %v", c.method, c.prop, len(at), werr)
		}
		if _, werr := e.Call(context.Background(), c.method, json.RawMessage("{"+fmt.Sprintf(c.arg, at+"a")+"}")); werr == nil || werr.StableCode() == docir.CodeInternal {
			t.Errorf("%s with %s of %d bytes: %v, want refused", c.method, c.prop, len(at)+1, werr)
		}
	}
	if p := schemas["get"]["doc_ids"]; p.Items == nil || p.Items.MaxLength == nil || *p.Items.MaxLength != address.MaxLen {
		t.Errorf("get.doc_ids items: %+v", p.Items)
	}
	frames := schemas["read_batch"]["batch"].Properties["frames"]
	if frames.MinItems == nil || *frames.MinItems != 1 || frames.MaxItems == nil || *frames.MaxItems != readbatch.MaxFrames {
		t.Errorf("read_batch.batch.frames: minItems %v maxItems %v, want 1 and %d", frames.MinItems, frames.MaxItems, readbatch.MaxFrames)
	}
}

// TestIntegerInputsHaveAMaximum: every integer input has a maximum the
// engine takes however the value is written, so that no schema-valid
// integer (1e300 is one) is refused as invalid_params: the generations'
// is MaxGeneration (2^53), and a generation at it, written with an
// exponent or not, is decoded (here: no store to pin; in a session with
// one, stale_revision). Before, image_revision, since and until had none. The byte-counted strings say
// in their descriptions that maxLength counts characters.
func TestIntegerInputsHaveAMaximum(t *testing.T) {
	checkLeaks(t)
	_, cs, res := everyTool(t)
	for _, tl := range res.Tools {
		var s toolSchema
		b, _ := json.Marshal(tl.InputSchema)
		_ = json.Unmarshal(b, &s)
		for name, p := range s.Properties {
			if p.Type == "integer" && p.Maximum == nil {
				t.Errorf("%s.%s: an integer without a maximum", tl.Name, name)
			}
			if k := name; (k == "image_revision" || k == "since" || k == "until") && (p.Maximum == nil || *p.Maximum != MaxGeneration) {
				t.Errorf("%s.%s: maximum %v, want %d", tl.Name, name, p.Maximum, MaxGeneration)
			}
			if _, ok := stringBounds[name]; ok && name != "batch" && !strings.Contains(p.Description, "maxLength counts characters") {
				t.Errorf("%s.%s: the description does not say the bound is in bytes: %q", tl.Name, name, p.Description)
			}
		}
	}
	for _, args := range []string{`{"query":"retry","image_revision":9.007199254740992e15}`, `{"query":"retry","image_revision":9007199254740992}`} {
		r, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolSearch, Arguments: json.RawMessage(args)})
		if err != nil || strings.Contains(r.Content[0].(*sdk.TextContent).Text, "(invalid_params, ") {
			t.Errorf("search %s: refused as it is written: %v %+v", args, err, r.Content[0])
		}
	}
}

// everyTool is an engine whose policy selects read_batch, a client of it,
// and the tools it lists.
func everyTool(t *testing.T) (*session.Engine, *sdk.ClientSession, *sdk.ListToolsResult) {
	t.Helper()
	e := fixture(t, `{"schema":"docir.host-policy.v2","grants":[],"read_batch_workers":2}`)
	cs := connect(t, e)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return e, cs, res
}
