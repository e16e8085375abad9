package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/docir/docir/docir"
)

// Members splits a JSON object into its members, each value compacted.
// A member named twice is an error: encoding/json would silently keep the
// last one, and a closed shape must not have two readings.
func Members(data []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name := tok.(string) // object keys are always strings
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("member %q appears twice", name)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return nil, err
		}
		out[name] = buf.Bytes()
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the object")
	}
	return out, nil
}

// fieldNames lists the JSON names of a struct type's fields, cached.
var fieldNames sync.Map // reflect.Type -> []string

func jsonFields(t reflect.Type) []string {
	if v, ok := fieldNames.Load(t); ok {
		return v.([]string)
	}
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if inner, ok := embedded(f); ok {
			names = append(names, jsonFields(inner)...) // encoding/json flattens it
			continue
		}
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
	}
	fieldNames.Store(t, names)
	return names
}

// DecodeParams decodes a method's params into v, a pointer to a struct.
// Params are closed: absent or null reads as {}; anything but an object, a
// member v does not declare (names compare exactly, not case-insensitively),
// a member given twice, a string that is not valid UTF-8 or holds a lone
// surrogate, or a value of the wrong type is an invalid_params error naming
// the method and the member.
func DecodeParams(method string, params json.RawMessage, v any) error {
	if params = TrimJSONSpace(params); len(params) == 0 || string(params) == "null" {
		return nil
	}
	if params[0] != '{' {
		return docir.Errorf(docir.CodeInvalidParams, "%s: params must be a JSON object, not %s", method, Kind(params[0]))
	}
	members, err := Members(params)
	if err != nil {
		return docir.Errorf(docir.CodeInvalidParams, "%s: params: %w", method, err)
	}
	if err := CheckText(params); err != nil {
		return docir.Errorf(docir.CodeInvalidParams, "%s: params: %w", method, err)
	}
	known := jsonFields(reflect.TypeOf(v).Elem())
	for name := range members {
		if !slices.Contains(known, name) {
			want := "no params"
			if len(known) > 0 {
				want = "known: " + strings.Join(known, ", ")
			}
			return docir.Errorf(docir.CodeInvalidParams, "%s: unknown field %q in params (%s)", method, name, want)
		}
	}
	if wholeNumbers(reflect.TypeOf(v).Elem(), members) {
		if params, err = json.Marshal(members); err != nil {
			return docir.Errorf(docir.CodeInvalidParams, "%s: params: %w", method, err)
		}
	}
	if err := json.Unmarshal(params, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			name := memberOf(reflect.TypeOf(v).Elem(), te.Field)
			if f, ok := fieldByJSONName(reflect.TypeOf(v).Elem(), name); ok && f.Type != te.Type && f.Type.Kind() == reflect.Slice {
				return docir.Errorf(docir.CodeInvalidParams, "%s: field %q: want %s; an element is a JSON %s", method, name, TypeName(f.Type), te.Value)
			}
			return docir.Errorf(docir.CodeInvalidParams, "%s: field %q: want %s, got a JSON %s", method, name, TypeName(te.Type), te.Value)
		}
		return docir.Errorf(docir.CodeInvalidParams, "%s: params: %w", method, err)
	}
	return nil
}

// wholeNumbers rewrites the members an integer field of t takes that are
// written as a whole number in another form (1.0, 1e3) as that integer,
// and reports whether it rewrote any: JSON Schema's "integer" is any
// number with no fraction, and hosts that hold numbers as floats send
// them so (Go's decoder refused them: "want an integer").
func wholeNumbers(t reflect.Type, members map[string]json.RawMessage) (rewrote bool) {
	for name, raw := range members {
		if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) || !bytes.ContainsAny(raw, ".eE") {
			// Numbers only: a query, an address list is not scanned.
			continue
		}
		f, ok := fieldByJSONName(t, name)
		if !ok {
			continue
		}
		switch f.Type.Kind() {
		case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64, reflect.Uint32:
		default:
			continue
		}
		x, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			continue // a fraction, or past the integers a float holds exactly: refused as it is
		}
		members[name] = json.RawMessage(strconv.FormatInt(int64(x), 10))
		rewrote = true
	}
	return rewrote
}

// memberOf is the params member a decoding error's field path names
// (json.UnmarshalTypeError.Field, such as "Selector.image_revision" or
// "batch.frames"): its first segment that is a member, past the Go names
// of the embedded structs it went through (docir.Selector), which are not
// members: their fields are the params' own.
func memberOf(t reflect.Type, path string) string {
	for {
		seg, rest, more := strings.Cut(path, ".")
		f, ok := t.FieldByName(seg)
		if !more || !ok {
			return seg
		}
		inner, ok := embedded(f)
		if !ok {
			return seg
		}
		t, path = inner, rest
	}
}

// embedded is the struct type of f when f is a struct (or a pointer to
// one) embedded without a JSON name, whose fields encoding/json takes as
// its parent's.
func embedded(f reflect.StructField) (reflect.Type, bool) {
	t := f.Type
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return t, f.Anonymous && tag == "" && t.Kind() == reflect.Struct
}

func fieldByJSONName(t reflect.Type, name string) (reflect.StructField, bool) {
	for f := range t.Fields() {
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if inner, ok := embedded(f); ok {
			if g, ok := fieldByJSONName(inner, name); ok {
				return g, true
			}
			continue
		}
		if tag == name || tag == "" && f.Name == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// TypeName names the JSON value a Go type decodes from, as a type error
// says what it wanted ("a string", "an array of integers").
func TypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Int16, reflect.Int8,
		reflect.Uint, reflect.Uint64, reflect.Uint32, reflect.Uint16, reflect.Uint8:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(TypeName(t.Elem()), "a "), "an ") + "s"
	case reflect.Pointer:
		return TypeName(t.Elem())
	default:
		return "an object"
	}
}

// CheckText reports whether every string in the JSON value data is text a
// caller could have meant: valid UTF-8, with no lone UTF-16 surrogate
// escape (`"\ud800"`). encoding/json turns both into U+FFFD silently, so a
// damaged address would read as a different, well-formed one; the raw
// bytes are checked before decoding instead.
func CheckText(data []byte) error {
	if !utf8.Valid(data) {
		return errors.New("a string is not valid UTF-8")
	}
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(data):
			i++
			if data[i] != 'u' {
				continue
			}
			r, ok := hex4(data, i+1)
			if !ok {
				return errors.New("a bad \\u escape")
			}
			i += 4
			switch {
			case r >= 0xDC00 && r <= 0xDFFF:
				return fmt.Errorf("a lone low surrogate \\u%04x", r)
			case r >= 0xD800 && r <= 0xDBFF:
				lo, ok := hex4(data, i+3)
				if i+2 >= len(data) || data[i+1] != '\\' || data[i+2] != 'u' || !ok || lo < 0xDC00 || lo > 0xDFFF {
					return fmt.Errorf("a lone high surrogate \\u%04x", r)
				}
				i += 6
			}
		}
	}
	return nil
}

// hex4 reads four hex digits at data[i:].
func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		default:
			return 0, false
		}
	}
	return r, true
}
