package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Schema is the part of JSON Schema 2020-12 the published schemas use. The
// loader refuses any other keyword, so that a schema the generator cannot
// type or check is an error, not a silently looser client.
type Schema struct {
	Schema               string             `json:"$schema,omitempty"`
	Title                string             `json:"title,omitempty"`
	Description          string             `json:"description,omitempty"`
	Defs                 map[string]*Schema `json:"$defs,omitempty"`
	Ref                  string             `json:"$ref,omitempty"`
	Type                 json.RawMessage    `json:"type,omitempty"` // a name or a list of names
	Const                json.RawMessage    `json:"const,omitempty"`
	Enum                 []json.RawMessage  `json:"enum,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	AdditionalProperties *Additional        `json:"additionalProperties,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	OneOf                []*Schema          `json:"oneOf,omitempty"`
	Not                  *Schema            `json:"not,omitempty"`
	Minimum              *float64           `json:"minimum,omitempty"`
	Maximum              *float64           `json:"maximum,omitempty"`
	MinLength            *int               `json:"minLength,omitempty"`
	MaxLength            *int               `json:"maxLength,omitempty"`
	Pattern              string             `json:"pattern,omitempty"`
	MinItems             *int               `json:"minItems,omitempty"`
	MaxItems             *int               `json:"maxItems,omitempty"`

	// order is the properties' names in file order.
	order []string
}

// UnmarshalJSON decodes strictly and keeps the order of the properties.
func (s *Schema) UnmarshalJSON(data []byte) error {
	type plain Schema
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode((*plain)(s)); err != nil {
		return err
	}
	var raw struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if raw.Properties != nil {
		keys, err := objectKeys(raw.Properties)
		if err != nil {
			return err
		}
		s.order = keys
	}
	return nil
}

// Additional is additionalProperties: false (a closed object), or the
// schema every member not among the properties matches (a map). true is
// refused: an open object is no shape a client can type.
type Additional struct {
	Values *Schema // nil: closed
}

// Closed reports whether a is additionalProperties: false.
func (a *Additional) Closed() bool { return a != nil && a.Values == nil }

// UnmarshalJSON reads false or a schema.
func (a *Additional) UnmarshalJSON(data []byte) error {
	switch string(bytes.TrimSpace(data)) {
	case "false":
		a.Values = nil
		return nil
	case "true":
		return fmt.Errorf("additionalProperties: true is not supported; give false or a schema")
	}
	a.Values = &Schema{}
	return json.Unmarshal(data, a.Values)
}

// MarshalJSON writes false or the schema.
func (a Additional) MarshalJSON() ([]byte, error) {
	if a.Values == nil {
		return []byte("false"), nil
	}
	return json.Marshal(a.Values)
}

// Names lists the properties in file order.
func (s *Schema) Names() []string { return s.order }

// Types lists the type names, none when there is no type keyword.
func (s *Schema) Types() []string {
	if s.Type == nil {
		return nil
	}
	var one string
	if json.Unmarshal(s.Type, &one) == nil {
		return []string{one}
	}
	var many []string
	json.Unmarshal(s.Type, &many)
	return many
}

// IsRequired reports whether name is a required property.
func (s *Schema) IsRequired(name string) bool {
	for _, r := range s.Required {
		if r == name {
			return true
		}
	}
	return false
}

// RefName is the name of the def a $ref names ("docir.defs.json#/$defs/Hit" -> "Hit").
func RefName(ref string) string {
	_, name, ok := strings.Cut(ref, "#/$defs/")
	if !ok {
		return ""
	}
	return name
}

func objectKeys(data []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// Index is docs/schemas/index.json.
type Index struct {
	Schema      string        `json:"schema"`
	Description string        `json:"description"`
	Defs        string        `json:"defs"`
	Methods     []IndexMethod `json:"methods"`
}

// IndexMethod names one method's schema files.
type IndexMethod struct {
	Method string `json:"method"`
	Params string `json:"params"`
	Result string `json:"result"`
	Policy string `json:"policy,omitempty"` // the grant or selection that serves it
}

// IndexSchema names the shape of index.json.
const IndexSchema = "docir.schema-index.v1"

// Method is one method with its schemas loaded.
type Method struct {
	IndexMethod
	ParamsSchema, ResultSchema *Schema
	ParamsRaw, ResultRaw       json.RawMessage
}

// ParamsOptional reports whether the method may be called without params:
// its params schema admits null (params absent, null or {}).
func (m Method) ParamsOptional() bool {
	for _, t := range m.ParamsSchema.Types() {
		if t == "null" {
			return true
		}
	}
	return false
}

// Set is every published schema.
type Set struct {
	Defs     *Schema
	DefsRaw  json.RawMessage
	DefNames []string // sorted
	Methods  []Method
}

// Load reads dir/index.json and every file it names, strictly.
func Load(dir string) (*Set, error) {
	var idx Index
	if err := readStrict(filepath.Join(dir, "index.json"), &idx); err != nil {
		return nil, err
	}
	if idx.Schema != IndexSchema {
		return nil, fmt.Errorf("%s: schema %q; want %q", filepath.Join(dir, "index.json"), idx.Schema, IndexSchema)
	}
	set := &Set{Defs: &Schema{}}
	var err error
	if set.DefsRaw, err = readSchema(filepath.Join(dir, idx.Defs), set.Defs); err != nil {
		return nil, err
	}
	for name := range set.Defs.Defs {
		set.DefNames = append(set.DefNames, name)
	}
	sort.Strings(set.DefNames)
	for _, m := range idx.Methods {
		lm := Method{IndexMethod: m, ParamsSchema: &Schema{}, ResultSchema: &Schema{}}
		if lm.ParamsRaw, err = readSchema(filepath.Join(dir, m.Params), lm.ParamsSchema); err != nil {
			return nil, err
		}
		if lm.ResultRaw, err = readSchema(filepath.Join(dir, m.Result), lm.ResultSchema); err != nil {
			return nil, err
		}
		set.Methods = append(set.Methods, lm)
	}
	if err := set.checkRefs(); err != nil {
		return nil, err
	}
	return set, nil
}

func readStrict(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func readSchema(path string, s *Schema) (json.RawMessage, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.Schema != "https://json-schema.org/draft/2020-12/schema" {
		return nil, fmt.Errorf("%s: $schema %q; want draft 2020-12", path, s.Schema)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// checkRefs makes sure every $ref names a def.
func (set *Set) checkRefs() error {
	var walk func(where string, s *Schema) error
	walk = func(where string, s *Schema) error {
		if s == nil {
			return nil
		}
		if s.Ref != "" {
			if _, ok := set.Defs.Defs[RefName(s.Ref)]; !ok || !strings.HasPrefix(s.Ref, "docir.defs.json#/$defs/") {
				return fmt.Errorf("%s: $ref %q names no def of docir.defs.json", where, s.Ref)
			}
		}
		for _, name := range s.order {
			if err := walk(where+"."+name, s.Properties[name]); err != nil {
				return err
			}
		}
		for _, o := range s.OneOf {
			if err := walk(where, o); err != nil {
				return err
			}
		}
		if err := walk(where+".not", s.Not); err != nil {
			return err
		}
		if s.AdditionalProperties != nil {
			if err := walk(where+".*", s.AdditionalProperties.Values); err != nil {
				return err
			}
		}
		return walk(where+"[]", s.Items)
	}
	for _, name := range set.DefNames {
		if err := walk(name, set.Defs.Defs[name]); err != nil {
			return err
		}
	}
	for _, m := range set.Methods {
		if err := walk(m.Params, m.ParamsSchema); err != nil {
			return err
		}
		if err := walk(m.Result, m.ResultSchema); err != nil {
			return err
		}
	}
	return nil
}

// Pascal turns a method or def name into a type name: "workspace/read-batch" -> "WorkspaceReadBatch".
func Pascal(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		switch {
		case r == '/' || r == '-' || r == '_' || r == '.':
			up = true
		case up:
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Camel is Pascal with a lower-case first letter: "docir/get" -> "docirGet".
func Camel(s string) string {
	p := Pascal(s)
	return strings.ToLower(p[:1]) + p[1:]
}

// Snake turns a method name into a Python name: "workspace/read-batch" -> "workspace_read_batch".
func Snake(s string) string {
	return strings.NewReplacer("/", "_", "-", "_", ".", "_").Replace(s)
}
