package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
)

// TestWireShapes pins the JSON field names of every shape the session puts
// on the wire.
func TestWireShapes(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"result", &Response{JSONRPC: "2.0", ID: json.RawMessage(`1`), Result: json.RawMessage(`{}`)},
			`{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"error", &Response{JSONRPC: "2.0", ID: json.RawMessage(`"a"`), Error: NewError(docir.CodeNotFound, "gone")},
			`{"jsonrpc":"2.0","id":"a","error":{"code":-32001,"message":"gone","data":{"code":"not_found"}}}`},
		{"error line to null", json.RawMessage(ErrorLine(nil, NewError(docir.CodeParseError, "bad"))),
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad","data":{"code":"parse_error"}}}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

func TestDecodeRequest(t *testing.T) {
	tests := []struct {
		frame  string
		want   *Request
		id     string
		code   docir.Code
		number int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}`, &Request{ID: json.RawMessage(`1`), Method: "m", Params: json.RawMessage(`{"a":1}`)}, "", "", 0},
		{`{"jsonrpc":"2.0","method":"m"}`, &Request{Method: "m"}, "", "", 0},
		{`{"jsonrpc":"2.0","id":null,"method":"m","params":null}`, &Request{ID: json.RawMessage(`null`), Method: "m"}, "", "", 0},
		{` {"jsonrpc" : "2.0", "id" : "x y", "method":"m", "params" : { "a" : [ 1 , 2 ] } } `, &Request{ID: json.RawMessage(`"x y"`), Method: "m", Params: json.RawMessage(`{"a":[1,2]}`)}, "", "", 0},
		{`{`, nil, "null", docir.CodeParseError, -32700},
		{`[1]`, nil, "null", docir.CodeBatchUnsupported, -32600},
		{`"x"`, nil, "null", docir.CodeInvalidRequest, -32600},
		{`{"jsonrpc":"2.0","id":3}`, nil, "3", docir.CodeInvalidRequest, -32600},
		{`{"jsonrpc":"2.0","id":3,"method":"m","Params":{}}`, nil, "3", docir.CodeInvalidRequest, -32600},
		{`{"jsonrpc":"2.0","id":false,"method":"m"}`, nil, "null", docir.CodeInvalidRequest, -32600},
		{``, nil, "null", docir.CodeInvalidRequest, -32600},
	}
	for _, tt := range tests {
		got, id, werr := DecodeRequest([]byte(tt.frame))
		if tt.code != "" {
			if werr == nil || werr.StableCode() != tt.code || werr.Code != tt.number || string(id) != tt.id {
				t.Errorf("DecodeRequest(%s) = id %s, %v; want id %s, %s %d", tt.frame, id, werr, tt.id, tt.code, tt.number)
			}
			continue
		}
		if werr != nil {
			t.Errorf("DecodeRequest(%s): %v", tt.frame, werr)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("DecodeRequest(%s) (-want +got):\n%s", tt.frame, diff)
		}
	}
}

func TestErrorIs(t *testing.T) {
	a := NewError(docir.CodeNotFound, "one message")
	b := NewError(docir.CodeNotFound, "another")
	c := NewError(docir.CodeMalformedAddress, "x")
	if !errors.Is(fmt.Errorf("wrapped: %w", a), b) {
		t.Error("same code: not Is")
	}
	if errors.Is(a, c) {
		t.Error("different codes: Is")
	}
}

// TestToWire: every code maps to its number; a parse error of an address is
// malformed_address; an uncoded error is internal.
func TestToWire(t *testing.T) {
	_, perr := address.Parse("a b")
	tests := []struct {
		err    error
		number int
		code   docir.Code
	}{
		{perr, -32602, docir.CodeMalformedAddress},
		{docir.Errorf(docir.CodeNotFound, "x"), -32001, docir.CodeNotFound},
		{docir.Errorf(docir.CodeInvalidQuery, "x"), -32602, docir.CodeInvalidQuery},
		{docir.Errorf(docir.CodeUnavailable, "x"), -32002, docir.CodeUnavailable},
		{docir.Errorf(docir.CodeNoStore, "x"), -32004, docir.CodeNoStore},
		{docir.Errorf(docir.CodeNotImplemented, "x"), -32005, docir.CodeNotImplemented},
		{errors.New("disk on fire"), -32603, docir.CodeInternal},
		{NewError(docir.CodeMethodNotFound, "m"), -32601, docir.CodeMethodNotFound},
	}
	for _, tt := range tests {
		w := ToWire(tt.err)
		if w.Code != tt.number || w.StableCode() != tt.code || w.Message != tt.err.Error() {
			t.Errorf("ToWire(%v) = %d %q %q", tt.err, w.Code, w.StableCode(), w.Message)
		}
	}
}

func TestDecodeParams(t *testing.T) {
	type shape struct {
		Query string `json:"query"`
		Limit int    `json:"limit,omitempty"`
		IDs   []int  `json:"ids,omitempty"`
	}
	tests := []struct {
		params string
		want   shape
		err    string
	}{
		{``, shape{}, ""},
		{`null`, shape{}, ""}, // as left out (MCP's "arguments": null)
		{` null `, shape{}, ""},
		{`{"query":"q","limit":3}`, shape{Query: "q", Limit: 3}, ""},
		{`{"query":"q","Limit":3}`, shape{}, `m: unknown field "Limit" in params (known: query, limit, ids)`},
		{`{"query":"q","query":"r"}`, shape{}, `m: params: member "query" appears twice`},
		{`{"limit":"3"}`, shape{}, `m: field "limit": want an integer, got a JSON string`},
		{`{"ids":["a"]}`, shape{}, `m: field "ids": want an array of integers; an element is a JSON string`},
		{`{"ids":{}}`, shape{}, `m: field "ids": want an array of integers, got a JSON object`},
		{`[]`, shape{}, `m: params must be a JSON object, not an array`},
		{`3`, shape{}, `m: params must be a JSON object, not a number`},
		// JSON Schema's integer is any number with no fraction: hosts
		// that hold numbers as floats send 3.0 or 3e0.
		{`{"query":"q","limit":3.0}`, shape{Query: "q", Limit: 3}, ""},
		{`{"query":"1.5e2","limit":1e2}`, shape{Query: "1.5e2", Limit: 100}, ""},
		{`{"limit":2.5}`, shape{}, `m: field "limit": want an integer, got a JSON number 2.5`},
		{`{"limit":1e300}`, shape{}, `m: field "limit": want an integer, got a JSON number 1e300`},
	}
	for _, tt := range tests {
		var got shape
		err := DecodeParams("m", json.RawMessage(tt.params), &got)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err || docir.CodeOf(err) != docir.CodeInvalidParams {
				t.Errorf("DecodeParams(%s) = %v, want %q", tt.params, err, tt.err)
			}
			continue
		}
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("DecodeParams(%s) = %+v, %v", tt.params, got, err)
		}
	}
}

// TestDecodeParamsEmbedded pins the member a type error names when the
// field is an embedded struct's (docir.Selector's, by value or pointer,
// at any depth): the member as sent, never the Go name of the struct
// that carries it.
func TestDecodeParamsEmbedded(t *testing.T) {
	type Inner struct {
		Deep bool `json:"deep"`
	}
	type Sel struct {
		Rev  uint64   `json:"rev,omitempty"`
		Tags []string `json:"tags,omitempty"`
		Inner
	}
	type nested struct {
		N int `json:"n"`
	}
	type byValue struct {
		Limit int    `json:"limit,omitempty"`
		Batch nested `json:"batch"`
		Sel
	}
	type byPointer struct {
		*Sel
	}
	tests := []struct {
		params string
		err    string
	}{
		{`{"rev":"4"}`, `m: field "rev": want an integer, got a JSON string`},
		{`{"tags":[1]}`, `m: field "tags": want an array of strings; an element is a JSON number`},
		{`{"deep":"yes"}`, `m: field "deep": want a boolean, got a JSON string`},
		{`{"batch":{"n":"1"}}`, `m: field "batch": want an integer, got a JSON string`},
		{`{"limit":"3"}`, `m: field "limit": want an integer, got a JSON string`},
	}
	for _, tt := range tests {
		err := DecodeParams("m", json.RawMessage(tt.params), &byValue{})
		if err == nil || err.Error() != tt.err {
			t.Errorf("DecodeParams(%s) = %v, want %q", tt.params, err, tt.err)
		}
	}
	for _, tt := range tests[:3] {
		err := DecodeParams("m", json.RawMessage(tt.params), &byPointer{})
		if err == nil || err.Error() != tt.err {
			t.Errorf("DecodeParams(%s) into a pointer = %v, want %q", tt.params, err, tt.err)
		}
	}
}

func TestCheckText(t *testing.T) {
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{`{"doc_id":"a"}`, true},
		{`{"doc_id":"\u00e9t\u00e9 \ud83d\ude00"}`, true},
		{`{"doc_id":"\\ud800"}`, true}, // an escaped backslash, then text
		{`{"doc_id":"\ud800"}`, false},
		{`{"doc_id":"\udc00x"}`, false},
		{`{"doc_id":"\ud800\u0041"}`, false},
		{"{\"doc_id\":\"\xff\"}", false},
		{`{"doc_id":"\u12"}`, false},
	} {
		if err := CheckText([]byte(tt.in)); (err == nil) != tt.ok {
			t.Errorf("CheckText(%s) = %v, want ok=%v", tt.in, err, tt.ok)
		}
	}
}

// FuzzCheckText: CheckText accepts exactly the JSON strings that decode to
// themselves without U+FFFD substitution.
func FuzzCheckText(f *testing.F) {
	for _, s := range []string{`"a"`, `"\ud800"`, `"\ud83d\ude00"`, "\"\xff\"", `"\\u"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s string
		if json.Unmarshal(data, &s) != nil {
			return
		}
		err := CheckText(data)
		if err == nil && strings.ContainsRune(s, utf8.RuneError) && !strings.Contains(string(data), "\ufffd") && !strings.Contains(strings.ToLower(string(data)), `\ufffd`) {
			t.Fatalf("CheckText passed %q, which decodes with a replacement character", data)
		}
	})
}

// TestDecodeRequestOnlyJSONWhitespace: JSON's four whitespace bytes may
// surround a frame; any other space before or after it makes the frame
// not JSON, a parse error to id null, whatever method it names.
func TestDecodeRequestOnlyJSONWhitespace(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":9,"method":"workspace/refresh"}`
	req, _, werr := DecodeRequest([]byte(" \t\r\n" + body + "\r\n\t "))
	if werr != nil || req.Method != "workspace/refresh" || string(req.ID) != "9" {
		t.Fatalf("JSON whitespace around a frame: %+v %v", req, werr)
	}
	for _, space := range []string{"\u00a0", "\u2028", "\u2029", "\u0085", "\u3000", "\ufeff", "\v", "\f", "\x00"} {
		for _, frame := range []string{space + body, body + space} {
			req, id, werr := DecodeRequest([]byte(frame))
			if req != nil || werr == nil || werr.StableCode() != docir.CodeParseError || string(id) != "null" {
				t.Errorf("%q: %+v, id %s, %v; want a parse error to null", frame, req, id, werr)
			}
		}
		if Blank([]byte(space)) {
			t.Errorf("%q is blank; only JSON whitespace is", space)
		}
	}
	if !Blank([]byte(" \t\r\n")) || !Blank(nil) {
		t.Error("JSON whitespace is not blank")
	}
}
