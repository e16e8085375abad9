package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// MaxFrameBytes bounds one inbound MCP message (a stdio line, or a
// Streamable HTTP body): 1 MiB, the bound of a reply. Every call whose
// arguments are valid against its tool's input schema fits in it (the
// schemas bound every string and array; TestSchemaValidCallsFit holds
// them to it), so an agent never meets frame_too_large with a call its
// host let it make. NDJSON and /rpc keep wire.MaxFrameBytes.
const MaxFrameBytes = wire.MaxReplyBytes

// batchVersion is the first protocol version without JSON-RPC batches:
// 2025-03-26 had them (a server MUST receive them), 2025-06-18 removed
// them. Dates compare as strings.
const batchVersion = "2025-06-18"

// guard holds what docir checks of one MCP session's messages before the
// SDK reads them, and of the SDK's replies before they are written, on
// stdio and on Streamable HTTP alike:
//
//   - an id is a string or an integer the SDK echoes exactly, else the
//     message is refused to id null (the SDK holds ids as float64);
//   - a message with an id and no method, result or error is refused;
//   - a request whose jsonrpc is not "2.0", or with a result or error, is
//     refused to its id; a response the SDK could not decode is dropped;
//   - a call other than initialize or ping before initialize is refused;
//   - initialize's params are an object whose members have their types
//     (the SDK would answer code 0, or -32603 with its decoder's message);
//   - the session is initialized once the SDK has answered an initialize
//     with a result (an initialize it refuses leaves it uninitialized);
//   - a call the client cancelled (notifications/cancelled) gets no reply;
//   - a reply with error code 0 (an SDK error without a number) goes out
//     as -32603 internal, so that no error has code 0;
//   - a message the SDK's table of methods refuses (sdkMethods: an
//     unknown method, a notification method with an id, a method whose
//     params are missing) is answered here, to its id, or ignored when it
//     has none (the SDK's Streamable HTTP handler would answer 400 with a
//     plain-text body, and stdio an error to its id);
//   - a JSON-RPC batch is served only in a session whose protocol has
//     batches (before 2025-06-18).
type guard struct {
	mu          sync.Mutex
	initialized bool
	initID      string          // the initialize call's id key, until its reply
	protocol    string          // the version the initialize reply settled
	cancelled   map[string]bool // id keys of cancelled calls in flight (see cancel)
}

// refusal is a message the guard answers itself: the error and the id it
// goes to. A refusal without an error is a notification the session
// ignores: it gets no reply (JSON-RPC answers no notification).
type refusal struct {
	id  json.RawMessage
	err *wire.Error
	// answer says the error answers a call by its own id, as the session
	// would answer it (over HTTP: 200, the reply the request asked for);
	// else the message is input the session does not take (HTTP 400).
	answer bool
}

// line is the reply line, or nil for none.
func (r *refusal) line() []byte {
	if r.err == nil {
		return nil
	}
	return wire.ErrorLine(r.id, r.err)
}

// inbound checks one message (a JSON object, outside or inside a batch)
// and records what it says of the session; nil lets it through to the SDK,
// whose decoder reports what else is wrong.
func (g *guard) inbound(msg []byte) *refusal {
	members, err := wire.Members(msg)
	if err != nil {
		// Not one JSON object with each member once: refused, as NDJSON
		// refuses it. The SDK's decoder would take it (the last of two
		// members, the object before data after it) under an id no check
		// here has seen.
		_, _, werr := wire.DecodeRequest(msg)
		if werr == nil {
			werr = wire.NewError(docir.CodeInvalidRequest, "invalid request: %v", err)
		}
		return &refusal{id: json.RawMessage("null"), err: werr}
	}
	rawID, hasID := members["id"]
	_, hasMethod := members["method"]
	_, hasResult := members["result"]
	_, hasError := members["error"]
	if !hasMethod && (hasResult || hasError) {
		return response(msg, rawID)
	}
	id := json.RawMessage("null")
	if hasID {
		if !exactID(rawID) {
			return &refusal{id: id, err: wire.NewError(docir.CodeInvalidRequest,
				"invalid request: id %s: an MCP id is a string or an integer from -(2^53-1) to 2^53-1 (not null), and is echoed exactly", docir.Clip(string(rawID), 64))}
		}
		id = rawID
	}
	if r := envelope(members, id, hasMethod, hasResult, hasError); r != nil {
		return r
	}
	var method string
	if !isString(members["method"]) || json.Unmarshal(members["method"], &method) != nil {
		// Not a string: refused as NDJSON refuses it (the SDK's HTTP
		// handler would answer 400 with a plain-text body).
		_, _, werr := wire.DecodeRequest(msg)
		if werr == nil {
			werr = wire.NewError(docir.CodeInvalidRequest, "invalid request: want a method name (a non-empty string)")
		}
		return &refusal{id: id, err: werr}
	}
	if params := members["params"]; len(params) > 0 && params[0] == '{' {
		if _, err := wire.Members(params); err != nil {
			// A member named twice has two readings: the SDK's decoder
			// takes the last ("name": "get", "name": "status" ran status),
			// where a proxy that checks the first would see another call.
			// A call is refused to its id; a notification is dropped.
			if !hasID {
				return &refusal{}
			}
			return &refusal{id: id, err: wire.NewError(docir.CodeInvalidParams, "invalid params: %s: %v", docir.Clip(method, 64), err), answer: true}
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case method == "initialize" && hasID:
		if werr := initializeParams(members["params"]); werr != nil {
			return &refusal{id: id, err: werr, answer: true}
		}
		if !g.initialized {
			// Taken as initialized from here, so that the calls after
			// it in the same read go through; undone by outbound if the
			// SDK refuses it.
			g.initialized, g.initID = true, idKey(rawID)
		}
		return nil
	case hasID && method != "ping" && !g.initialized:
		return &refusal{id: id, err: wire.NewError(docir.CodeInvalidRequest,
			"invalid request: %s before initialize: an MCP session starts with an initialize request", docir.Clip(string(members["method"]), 64))}
	}
	if r := methodRefusal(method, members["method"], id, hasID, members["params"]); r != nil {
		return r
	}
	if method == "resources/read" && hasID {
		if werr := readParams(members["params"]); werr != nil {
			return &refusal{id: id, err: werr, answer: true}
		}
	}
	if hasID {
		if werr := paramsShape(method, members["params"]); werr != nil {
			return &refusal{id: id, err: werr, answer: true}
		}
	}
	return nil
}

// response lets through a response (no method; a result or an error)
// that the SDK decodes, with an id it holds exactly, to a request of the
// session's; any other is dropped: JSON-RPC answers no response, and one
// the SDK cannot decode would be refused with no id (HTTP: 400 in plain
// text; in a batch the other calls went unanswered).
func response(msg, rawID json.RawMessage) *refusal {
	if _, err := jsonrpc.DecodeMessage(msg); err != nil || !exactID(rawID) {
		return &refusal{}
	}
	return nil
}

// envelope checks a request's JSON-RPC members that the SDK's decoder
// would refuse without its id (HTTP: 400 in plain text; in a batch the
// other calls went unanswered): one with no method (nor a result or an
// error), one whose jsonrpc is not "2.0", or one that carries a result or
// an error is refused to its id, as NDJSON refuses it.
func envelope(members map[string]json.RawMessage, id json.RawMessage, hasMethod, hasResult, hasError bool) *refusal {
	switch {
	case !hasMethod:
		return &refusal{id: id, err: wire.NewError(docir.CodeInvalidRequest, "invalid request: want a method name (a non-empty string)")}
	case !isVersion(members["jsonrpc"]):
		return &refusal{id: id, err: wire.NewError(docir.CodeInvalidRequest, `invalid request: want "jsonrpc": "2.0"`)}
	case hasResult || hasError:
		return &refusal{id: id, err: wire.NewError(docir.CodeInvalidRequest, "invalid request: a request has no result or error member (a response has no method)")}
	}
	return nil
}

// paramsShape checks what the SDK refuses with a bare "invalid params",
// naming what is wrong: params that are not an object (MCP's are objects),
// a list method's cursor that is not a string, and tools/call's name (a
// non-empty string) and arguments (an object).
func paramsShape(method string, params json.RawMessage) *wire.Error {
	if len(params) == 0 || string(params) == "null" {
		return nil
	}
	name := docir.Clip(method, 64)
	if params[0] != '{' {
		return wire.NewError(docir.CodeInvalidParams, "invalid params: %s: params must be an object, not %s", name, wire.Kind(params[0]))
	}
	if members, err := wire.Members(params); err == nil {
		// MCP's _meta is an object; the SDK refused another with its
		// decoder's reason, which names Go types (over HTTP), or a bare
		// "invalid params" (stdio).
		if m, ok := members["_meta"]; ok && string(m) != "null" && m[0] != '{' {
			return wire.NewError(docir.CodeInvalidParams, "invalid params: %s: _meta must be an object, not %s", name, wire.Kind(m[0]))
		}
	}
	if strings.HasSuffix(method, "/list") {
		return listParams(name, params)
	}
	if method != "tools/call" {
		return nil
	}
	var p struct {
		Name      json.RawMessage `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	var tool string
	switch {
	case json.Unmarshal(params, &p) != nil:
		return nil // the SDK's to say
	case !isString(p.Name) || json.Unmarshal(p.Name, &tool) != nil || tool == "":
		return wire.NewError(docir.CodeInvalidParams, "invalid params: tools/call: name must be a tool's name (a non-empty string); tools/list lists them")
	case len(p.Arguments) > 0 && string(p.Arguments) != "null" && p.Arguments[0] != '{':
		return wire.NewError(docir.CodeInvalidParams, "invalid params: tools/call %s: arguments must be an object, not %s", docir.Clip(tool, 64), wire.Kind(p.Arguments[0]))
	}
	return nil
}

// listParams checks a list method's cursor, which MCP says is a string:
// the SDK refuses another with a bare "invalid params" (its decoder's
// reason, which names Go types, dropped on the way out). null is the
// cursor left out.
func listParams(method string, params json.RawMessage) *wire.Error {
	members, err := wire.Members(params)
	if c, ok := members["cursor"]; err == nil && ok && string(c) != "null" && !isString(c) {
		return wire.NewError(docir.CodeInvalidParams, "invalid params: %s: cursor must be a string (the nextCursor of an earlier page, passed back exactly), not %s", method, wire.Kind(c[0]))
	}
	return nil
}

// readParams checks resources/read's params: an object whose uri is a
// non-empty string. The SDK answers a missing, null or empty uri as a
// resource it did not find (not_found), which tells a host the URI was
// read and named nothing, where the call named no URI.
func readParams(params json.RawMessage) *wire.Error {
	var p struct {
		URI json.RawMessage `json:"uri"`
	}
	var uri string
	if json.Unmarshal(params, &p) != nil || !isString(p.URI) || json.Unmarshal(p.URI, &uri) != nil || uri == "" {
		return wire.NewError(docir.CodeInvalidParams, "invalid params: resources/read takes {uri}, a %s<id> URI", ResourcePrefix)
	}
	return nil
}

// cancel records the cancellation whose params are given (those of a
// notifications/cancelled the session takes) when the call it names is in
// flight, as inFlight says: read and not yet answered. A cancellation of a
// call already answered, or never sent, is not recorded: it could never be
// forgotten (no reply comes to clear it). The transport calls cancel after
// it has taken every call read before the cancellation (in the same read
// too) as in flight, and forget after each call is settled, so that the
// calls recorded are at most the calls in flight.
//
// inFlight is called with g.mu held: the transport removes a call from
// its calls in flight before it calls forget (which takes g.mu), so a
// cancellation recorded as its call is answered is forgotten after.
//
// It reports whether the params name an exact id of no call in flight (a
// stale cancellation, which the stdio transport drops); params it cannot
// read are not stale: they are the SDK's to refuse or ignore.
func (g *guard) cancel(params json.RawMessage, inFlight func(id json.RawMessage) bool) (stale bool) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || !exactID(p.RequestID) {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !inFlight(p.RequestID) {
		return true
	}
	if g.cancelled == nil {
		g.cancelled = map[string]bool{}
	}
	g.cancelled[idKey(p.RequestID)] = true
	return false
}

// forget drops the cancellation of the call whose id key is given (see
// idKey), once the call is settled: answered, its reply dropped, or not
// run.
func (g *guard) forget(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.cancelled, key)
}

// initializeParams checks initialize's params as the SDK decodes them
// (into its InitializeParams): an object whose members have their types.
// The SDK answers a wrongly typed member ("protocolVersion": 5) with
// -32603 and its decoder's message; it is invalid_params, naming the
// member. (encoding/json matches member names regardless of case, the
// SDK's decoder does not: a member that differs from one of the
// protocol's by case alone is checked here and ignored there.)
func initializeParams(params json.RawMessage) *wire.Error {
	if len(params) == 0 || params[0] != '{' {
		return wire.NewError(docir.CodeInvalidParams, "invalid params: initialize takes an object {protocolVersion, capabilities, clientInfo}")
	}
	var p sdk.InitializeParams
	err := json.Unmarshal(params, &p)
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te) && te.Field != "":
		return wire.NewError(docir.CodeInvalidParams, "invalid params: initialize: member %q: want %s, got a JSON %s", te.Field, wire.TypeName(te.Type), te.Value)
	case err != nil:
		return wire.NewError(docir.CodeInvalidParams, "invalid params: initialize: %v", err)
	}
	return nil
}

// sdkMethod is how the SDK's server takes one method: as a notification
// (no id) or a call, and whether its params may be missing.
type sdkMethod struct {
	notification   bool
	paramsOptional bool
}

// sdkMethods is the table of methods the SDK's server receives (go-sdk
// v1.8.0: serverMethodInfos, which it does not export). Its Streamable HTTP
// handler checks each message against it before the session sees it, and
// answers one it refuses with 400 and a plain-text body a host cannot
// match to its id; over stdio its session answers the same message with an
// error to its id. The guard decides on this table instead, on both
// transports alike. TestMethodTableIsTheSDKs holds it to the SDK's own
// handler, method by method.
var sdkMethods = map[string]sdkMethod{
	"initialize":                       {},
	"ping":                             {paramsOptional: true},
	"completion/complete":              {},
	"server/discover":                  {paramsOptional: true},
	"prompts/list":                     {paramsOptional: true},
	"prompts/get":                      {},
	"tools/list":                       {paramsOptional: true},
	"tools/call":                       {},
	"resources/list":                   {paramsOptional: true},
	"resources/templates/list":         {paramsOptional: true},
	"resources/read":                   {},
	"resources/subscribe":              {},
	"resources/unsubscribe":            {},
	"subscriptions/listen":             {},
	"logging/setLevel":                 {},
	"notifications/cancelled":          {notification: true, paramsOptional: true},
	"notifications/initialized":        {notification: true, paramsOptional: true},
	"notifications/roots/list_changed": {notification: true, paramsOptional: true},
	"notifications/progress":           {notification: true},
}

// methodRefusal is how the guard answers a message sdkMethods refuses, or
// nil when the SDK takes it: a call gets its error to its id (-32601 for a
// method the SDK does not serve, -32600 for a notification method sent
// with an id, -32602 for params missing or null); a notification gets no
// reply, as JSON-RPC has it. rawMethod is the method as written.
func methodRefusal(method string, rawMethod, id json.RawMessage, hasID bool, params json.RawMessage) *refusal {
	m, known := sdkMethods[method]
	noParams := len(params) == 0 || string(params) == "null"
	if known && m.notification != hasID && (m.paramsOptional || !noParams) {
		return nil
	}
	if !hasID {
		return &refusal{} // a notification the session ignores
	}
	name := docir.Clip(string(rawMethod), 64)
	var err *wire.Error
	switch {
	case !known:
		err = wire.NewError(docir.CodeMethodNotFound, "method not found: %s", name)
	case m.notification:
		err = wire.NewError(docir.CodeInvalidRequest, "invalid request: %s is a notification: it takes no id", name)
	default:
		err = wire.NewError(docir.CodeInvalidParams, "invalid params: %s takes params (an object)", name)
	}
	return &refusal{id: id, err: err, answer: true}
}

// outbound settles a reply the SDK is about to write: drop says the call
// was cancelled and gets no reply (the guard recorded its cancellation, or
// it was cancelled while it ran: a tool's unanswered result, or the SDK's
// own error of a cancelled context); an error with code 0 gets a number.
func (g *guard) outbound(resp *jsonrpc.Response) (drop bool) {
	key := sdkIDKey(resp.ID)
	g.mu.Lock()
	defer g.mu.Unlock()
	if key != "" && key == g.initID {
		// The reply to the initialize that started the session: a
		// result settles its protocol; an error (the SDK refused it)
		// leaves the session uninitialized, and the next initialize
		// starts it.
		g.initID = ""
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if resp.Error == nil && json.Unmarshal(resp.Result, &r) == nil {
			g.protocol = r.ProtocolVersion
		} else if resp.Error != nil {
			g.initialized = false
		}
	}
	if g.cancelled[key] || isUnanswered(resp.Result) || errors.Is(resp.Error, context.Canceled) {
		delete(g.cancelled, key)
		return true
	}
	resp.Error = coded(resp.Error)
	return false
}

// unansweredMeta is the _meta member of the result a tool handler returns
// for a call cancelled while it ran (unanswered): the guard drops that
// reply, so the member never goes out.
const unansweredMeta = "docir/unanswered"

// unanswered is the result of a call that gets no reply.
func unanswered() *sdk.CallToolResult {
	return &sdk.CallToolResult{Meta: sdk.Meta{unansweredMeta: true}}
}

// isUnanswered says whether result is unanswered's, as the SDK encodes it:
// _meta is the first member of a CallToolResult, so only the result's
// start is looked at (a reply may be megabytes long).
func isUnanswered(result json.RawMessage) bool {
	head := result[:min(len(result), 64)]
	if !bytes.Contains(head, []byte(unansweredMeta)) {
		return false
	}
	var r struct {
		Meta map[string]any `json:"_meta"`
	}
	return json.Unmarshal(result, &r) == nil && r.Meta[unansweredMeta] == true
}

// unanswered records that the message the guard let through with the id
// raw was answered without reaching the SDK (its decoder refused it): an
// initialize so answered leaves the session uninitialized, as one the SDK
// refuses does (see outbound).
func (g *guard) unanswered(raw json.RawMessage) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if raw != nil && g.initID != "" && idKey(raw) == g.initID {
		g.initialized, g.initID = false, ""
	}
}

// coded is err as a JSON-RPC error with a number and docir's code in
// data.code: an error without a number (the SDK's own, for which it writes
// code 0) is internal; one without data.code gets the code its number
// means, beside the members its data has (an SDK error's data, such as
// {"uri"}, is kept; data that is not an object is replaced).
func coded(err error) error {
	if err == nil {
		return nil
	}
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code == 0 {
		return sdkError(wire.NewError(docir.CodeInternal, "%s", err.Error()))
	}
	if hasDataCode(je.Data) {
		return je
	}
	code := docir.CodeInternal
	switch je.Code {
	case jsonrpc.CodeParseError:
		code = docir.CodeParseError
	case jsonrpc.CodeInvalidRequest:
		code = docir.CodeInvalidRequest
	case jsonrpc.CodeMethodNotFound:
		code = docir.CodeMethodNotFound
	case jsonrpc.CodeInvalidParams:
		code = docir.CodeInvalidParams
	}
	members := map[string]json.RawMessage{}
	if json.Unmarshal(je.Data, &members) != nil || members == nil {
		members = map[string]json.RawMessage{}
	}
	members["code"], _ = json.Marshal(code)
	data, _ := json.Marshal(members)
	return &jsonrpc.Error{Code: je.Code, Message: je.Message, Data: data}
}

// hasDataCode reports whether data is a JSON object with a string member
// "code" (docir's code).
func hasDataCode(data json.RawMessage) bool {
	var d struct {
		Code *string `json:"code"`
	}
	return json.Unmarshal(data, &d) == nil && d.Code != nil
}

// duplicateCall is the refusal of a call whose id is that of a call still
// in flight in the session, to that id, as the SDK's Streamable HTTP
// handler refuses one (there with 400); the call in flight is not
// affected.
func duplicateCall(id json.RawMessage) *refusal {
	return &refusal{id: id, err: wire.NewError(docir.CodeInvalidRequest,
		"invalid request: duplicate in-flight request ID %s: a call with this id is not answered yet; use another id", docir.Clip(string(id), 64)), answer: true}
}

// settling reports whether an initialize has been let through to the SDK
// and its reply, which settles the protocol, is not written yet.
func (g *guard) settling() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.initID != ""
}

// batches reports whether the session's protocol has JSON-RPC batches.
func (g *guard) batches() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.protocol != "" && g.protocol < batchVersion
}

// refuseBatch is the refusal of a batch in a session whose protocol has
// none.
func (g *guard) refuseBatch() *refusal {
	g.mu.Lock()
	defer g.mu.Unlock()
	protocol := g.protocol
	if protocol == "" {
		protocol = "not settled (no initialize yet)"
	}
	return &refusal{id: json.RawMessage("null"), err: wire.NewError(docir.CodeBatchUnsupported,
		"batch requests (JSON arrays) are not supported in this session (protocol %s; MCP has batches only before %s): send one message per frame", protocol, batchVersion)}
}

// batch checks a JSON-RPC batch's messages. A batch runs whole or not at
// all: when the guard refuses any message, every message gets an error
// (the refused ones their reason, the others "not run") and nothing runs;
// refused is then the reply, and answer says that each of its errors
// answers a call by its own id (see refusal). A notification the session
// ignores is left out of msgs, and of the reply. An empty batch is one
// invalid_request.
//
// inFlight, when not nil, reports whether a call with an id is still in
// flight in the session (stdio; over HTTP the SDK's handler refuses such a
// batch): a call of the batch that reuses one is refused as duplicateCall.
func (g *guard) batch(line []byte, inFlight func(id json.RawMessage) bool) (msgs []json.RawMessage, refused []byte, answer bool) {
	if err := json.Unmarshal(line, &msgs); err != nil {
		return nil, wire.ErrorLine(nil, wire.NewError(docir.CodeParseError, "parse error: %v", err)), false
	}
	if len(msgs) == 0 {
		return nil, wire.ErrorLine(nil, wire.NewError(docir.CodeInvalidRequest, "invalid request: an empty batch")), false
	}
	errs := make([]*refusal, len(msgs))
	bad := false
	calls := map[string]bool{} // the id keys of the batch's calls
	for i, m := range msgs {
		m = wire.TrimJSONSpace(m)
		members, err := wire.Members(m)
		switch {
		case len(m) == 0 || m[0] != '{':
			errs[i] = &refusal{id: json.RawMessage("null"), err: wire.NewError(docir.CodeInvalidRequest, "invalid request: a batch holds message objects")}
		case err == nil && isString(members["method"]) && unquote(members["method"]) == "initialize":
			errs[i] = &refusal{id: json.RawMessage("null"), err: wire.NewError(docir.CodeInvalidRequest, "invalid request: initialize cannot be part of a batch")}
			if id := members["id"]; exactID(id) {
				errs[i].id, errs[i].answer = id, true // a call, answered by its id
			}
		default:
			errs[i] = g.inbound(m)
		}
		// Two calls with one id: the SDK would drop the second, and its
		// reply would never come (on stdio, nor the batch's array).
		if id, ok := members["id"]; errs[i] == nil && ok && len(members["method"]) > 0 {
			switch {
			case calls[idKey(id)]:
				errs[i] = &refusal{id: json.RawMessage("null"), err: wire.NewError(docir.CodeInvalidRequest, "invalid request: id %s is used twice in the batch", docir.Clip(string(id), 64))}
			case inFlight != nil && inFlight(id):
				errs[i] = duplicateCall(id)
			}
			calls[idKey(id)] = true
		}
		bad = bad || errs[i] != nil && errs[i].err != nil
	}
	if !bad {
		kept := msgs[:0]
		for i, m := range msgs {
			if errs[i] == nil {
				kept = append(kept, m)
			}
		}
		return kept, nil, false
	}
	refused, answer = refusedBatch(msgs, errs)
	return nil, refused, answer
}

// refusedBatch is the reply to a batch of msgs that does not run, errs[i]
// the refusal of msgs[i] or nil: every call gets an error, a refused one
// its own and the others "not run", and answer says each error answers a
// call by its own id (see refusal).
func refusedBatch(msgs []json.RawMessage, errs []*refusal) (refused []byte, answer bool) {
	var b bytes.Buffer
	b.WriteByte('[')
	n := 0
	answer = true
	for i, m := range msgs {
		r := errs[i]
		if r == nil {
			id := wire.ScanID(m, true)
			if id == nil {
				continue // a notification that was not run gets no reply
			}
			r = &refusal{id: id, err: wire.NewError(docir.CodeInvalidRequest, "invalid request: not run: another message of the batch was refused"), answer: true}
		}
		if r.err == nil {
			continue // a notification the session ignores
		}
		answer = answer && r.answer
		if n > 0 {
			b.WriteByte(',')
		}
		b.Write(r.line())
		n++
	}
	b.WriteByte(']')
	return b.Bytes(), answer
}

// exactID reports whether raw is an id the SDK echoes as the same value: a
// JSON string whose text is UTF-8 and whose escapes are characters (the
// SDK decodes invalid UTF-8 and a lone surrogate such as "\ud800" to
// U+FFFD and would answer under that other id), or an integer literal
// within ±maxExactID.
func exactID(raw json.RawMessage) bool {
	switch {
	case len(raw) == 0:
		return false
	case raw[0] == '"':
		var s string
		return json.Unmarshal(raw, &s) == nil && wire.CheckText(raw) == nil
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		n, err := strconv.ParseInt(string(raw), 10, 64)
		return err == nil && strconv.FormatInt(n, 10) == string(raw) && n >= -maxExactID && n <= maxExactID
	}
	return false
}

// maxExactID bounds integer ids: the SDK holds them as float64, which is
// exact up to 2^53-1.
const maxExactID = 1<<53 - 1

// idKey names an exact id the way sdkIDKey names the SDK's form of it.
func idKey(raw json.RawMessage) string {
	if len(raw) > 0 && raw[0] == '"' {
		return "s" + unquote(raw)
	}
	return "n" + string(raw)
}

// sdkIDKey names an id as the SDK holds it ("" for none).
func sdkIDKey(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case string:
		return "s" + v
	case int64:
		return "n" + strconv.FormatInt(v, 10)
	}
	return ""
}

func isString(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '"' }

// isVersion says raw is the string "2.0", as JSON-RPC 2.0 wants the
// jsonrpc member of every message.
func isVersion(raw json.RawMessage) bool { return isString(raw) && unquote(raw) == wire.Version }

func unquote(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// sdkError is a docir wire error as the SDK carries it.
func sdkError(werr *wire.Error) *jsonrpc.Error {
	data, _ := json.Marshal(werr.Data)
	return &jsonrpc.Error{Code: int64(werr.Code), Message: werr.Message, Data: data}
}
