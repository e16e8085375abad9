package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/docir/docir/docir"
)

// Version is the only JSON-RPC version spoken.
const Version = "2.0"

// Request is one decoded inbound frame. ID is the id exactly as sent
// (compacted), or nil for a notification.
type Request struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage // nil when absent or null
}

// IsNotification reports whether the request had no id member.
func (r *Request) IsNotification() bool { return r.ID == nil }

// Response is one outbound frame. Exactly one of Result and Error is set.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Error is the error member of a reply: the JSON-RPC number, a message
// for people, and docir's stable string code in data.code.
type Error struct {
	Code    int        `json:"code"`
	Message string     `json:"message"`
	Data    *ErrorData `json:"data,omitempty"`
}

// ErrorData carries the stable code of a Error.
type ErrorData struct {
	Code docir.Code `json:"code"`
}

func (e *Error) Error() string { return e.Message }

// StableCode is the docir code the error carries.
func (e *Error) StableCode() docir.Code {
	if e.Data == nil {
		return ""
	}
	return e.Data.Code
}

// Is reports whether target is a *Error with the same number and
// stable code, so errors.Is compares codes, not messages.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.StableCode() == e.StableCode()
}

// NewError builds a Error for a code, with the number RPCNumber picks.
func NewError(code docir.Code, format string, args ...any) *Error {
	return &Error{Code: docir.RPCNumber(code), Message: fmt.Sprintf(format, args...), Data: &ErrorData{Code: code}}
}

// ToWire turns any error into a Error: a Error stays as it is; any
// other error takes its number from its docir code (internal when it has
// none) and keeps its message.
func ToWire(err error) *Error {
	var we *Error
	if errors.As(err, &we) {
		return we
	}
	code := docir.CodeOf(err)
	return &Error{Code: docir.RPCNumber(code), Message: err.Error(), Data: &ErrorData{Code: code}}
}

var nullID = json.RawMessage("null")

// DecodeRequest reads one frame (a line without its line ending, or an HTTP
// body). It returns the request, or the error to reply with and the id to
// reply to (null when the id could not be read). The envelope is closed:
// only jsonrpc, id, method and params, each once, spelled exactly.
//
// Only the whitespace JSON allows between tokens (space, tab, line feed,
// carriage return) may surround the object: any other byte before it
// (U+00A0, U+2028, a vertical tab, a form feed, a byte-order mark) makes
// the frame not JSON, a parse error that runs nothing. Every transport and
// the read batch decode a frame here and decide on what this returns.
func DecodeRequest(frame []byte) (*Request, json.RawMessage, *Error) {
	frame = TrimJSONSpace(frame)
	if len(frame) == 0 {
		return nil, nullID, NewError(docir.CodeInvalidRequest, "empty frame: want a JSON-RPC request object")
	}
	if !json.Valid(frame) {
		return nil, nullID, NewError(docir.CodeParseError, "parse error: %s", syntaxError(frame))
	}
	switch frame[0] {
	case '{':
	case '[':
		return nil, nullID, NewError(docir.CodeBatchUnsupported, "batch requests (JSON arrays) are not supported: send one request object per frame")
	default:
		return nil, nullID, NewError(docir.CodeInvalidRequest, "invalid request: a frame must be a JSON-RPC request object, not %s", Kind(frame[0]))
	}
	members, err := Members(frame)
	if err != nil {
		return nil, nullID, NewError(docir.CodeInvalidRequest, "invalid request: %v", err)
	}
	// The id first, so that every later complaint can be addressed to it.
	req := &Request{}
	replyID := nullID
	if raw, ok := members["id"]; ok {
		switch raw[0] {
		case '"':
			// Echoed as sent, so it must be text: raw bytes that are not
			// UTF-8 would make the reply not JSON (RFC 8259, 8.1).
			if !utf8.Valid(raw) {
				return nil, nullID, NewError(docir.CodeInvalidRequest, "invalid request: the id is a string that is not valid UTF-8")
			}
			req.ID, replyID = raw, raw
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			req.ID, replyID = raw, raw
		case 'n':
			req.ID = nullID
		default:
			return nil, nullID, NewError(docir.CodeInvalidRequest, "invalid request: id must be a string, a number or null, not %s", Kind(raw[0]))
		}
	}
	for name := range members {
		switch name {
		case "jsonrpc", "id", "method", "params":
		default:
			return nil, replyID, NewError(docir.CodeInvalidRequest, "invalid request: unknown member %q (a request has jsonrpc, id, method, params)", name)
		}
	}
	var version string
	if raw, ok := members["jsonrpc"]; !ok || json.Unmarshal(raw, &version) != nil || version != Version {
		return nil, replyID, NewError(docir.CodeInvalidRequest, `invalid request: want "jsonrpc": "2.0"`)
	}
	raw, ok := members["method"]
	if !ok || json.Unmarshal(raw, &req.Method) != nil || req.Method == "" {
		return nil, replyID, NewError(docir.CodeInvalidRequest, "invalid request: want a method name (a non-empty string)")
	}
	if raw, ok := members["params"]; ok && string(raw) != "null" {
		req.Params = raw
	}
	return req, replyID, nil
}

// isJSONSpace reports whether c is whitespace as JSON has it (RFC 8259,
// section 2): space, horizontal tab, line feed, carriage return.
func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// TrimJSONSpace returns b without the JSON whitespace at its ends, and
// nothing else trimmed.
func TrimJSONSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isJSONSpace(b[i]) {
		i++
	}
	for j > i && isJSONSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

// Blank reports whether a frame holds nothing but JSON whitespace: a line
// the NDJSON path skips (and a read batch answers with null). A line of
// other spaces (U+00A0, a form feed) is not blank: it is not JSON.
func Blank(frame []byte) bool { return len(TrimJSONSpace(frame)) == 0 }

// Reply is the reply line to a decoded request, without its line ending:
// the error when werr is set, else the result; nil for a notification,
// which gets no reply. A line over maxReply bytes becomes a reply_too_large
// error to the same id. It is the one last step of every frame-based path
// (the NDJSON and HTTP sessions and the read batch's rows), so that a row
// is byte-identical to the reply the ordinary path writes.
func Reply(req *Request, result json.RawMessage, werr *Error, maxReply int) []byte {
	if req.IsNotification() {
		return nil
	}
	if werr != nil {
		return ErrorLine(req.ID, werr)
	}
	line := EncodeResponse(&Response{ID: req.ID, Result: result})
	if len(line) > maxReply {
		return ErrorLine(req.ID, ReplyTooLarge(len(line), maxReply))
	}
	return line
}

// EncodeResult marshals a result without escaping <, > and & (bodies are
// markdown and must read as themselves).
func EncodeResult(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// EncodeResponse marshals a reply as one line without its line ending.
func EncodeResponse(r *Response) []byte {
	r.JSONRPC = Version
	if r.ID == nil {
		r.ID = nullID
	}
	b, err := EncodeResult(r)
	if err != nil {
		// Every member is raw JSON we produced or a plain struct.
		panic(fmt.Sprintf("wire: encoding a reply: %v", err))
	}
	return b
}

// ErrorLine is the reply line for an error to id (null when nil).
func ErrorLine(id json.RawMessage, e *Error) []byte {
	return EncodeResponse(&Response{ID: id, Error: e})
}

// Kind names the kind of JSON value that starts with c, for messages:
// "an object", "an array", "a string", "a boolean", "null", "a number".
func Kind(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// syntaxError describes why frame is not JSON, with the byte offset.
func syntaxError(frame []byte) string {
	var v any
	err := json.Unmarshal(frame, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// encoding/json names the offending byte as if it were a character
		// ('ï' for a byte-order mark): past ASCII, name the character the
		// bytes there spell, or say they are not UTF-8.
		if at := int(se.Offset) - 1; at >= 0 && at < len(frame) && frame[at] >= utf8.RuneSelf {
			what := "a byte that is not UTF-8"
			switch r, _ := utf8.DecodeRune(frame[at:]); {
			case r == '\ufeff':
				what = "U+FEFF, a byte-order mark (send the JSON without one)"
			case r != utf8.RuneError:
				what = fmt.Sprintf("%U %q", r, r)
			}
			return fmt.Sprintf("invalid character: %s (at byte %d)", what, se.Offset)
		}
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	}
	if err != nil {
		return err.Error()
	}
	return "not JSON"
}
