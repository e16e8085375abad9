package mcp

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestInitializeWithWronglyTypedParams: an initialize whose params have a
// member of the wrong type is invalid_params (-32602) naming the member,
// on stdio and HTTP alike (HTTP 200, answered by its id, and no session);
// the session is not initialized: a call after it gets the error before
// initialize, and an initialize that settles 2025-03-26 after it gets its
// batches run. Before, it was -32603 with the SDK's decoder's message, the
// next call got -32603, and the batch was refused.
func TestInitializeWithWronglyTypedParams(t *testing.T) {
	checkLeaks(t)
	e := fixture(t, "")
	bad := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: initialize: member \"protocolVersion\": want a string, got a JSON number","data":{"code":"invalid_params"}}}`
	s := newRawSession(t, e)
	s.send(bad)
	if got := s.next(); got != want {
		t.Errorf("stdio:\n got %s\nwant %s", got, want)
	}
	afterRefusedInitialize(t, s)

	url := httpMCP(t, e, MaxSessions, SessionShed)
	if status, sid, msgs := mcpPost(t, url, "", bad); status != http.StatusOK || sid != "" || len(msgs) != 1 || msgs[0] != want {
		t.Errorf("http: %d session %q %v\nwant 200, no session, %s", status, sid, msgs, want)
	}
}

// TestInitializeTheSDKRefuses: an initialize the guard lets through and
// the SDK refuses (its decoder takes no value nested deeper than 1000)
// leaves the session uninitialized, as one the guard refuses does.
// Before, the guard counted it initialized from the request on.
func TestInitializeTheSDKRefuses(t *testing.T) {
	checkLeaks(t)
	s := newRawSession(t, fixture(t, ""))
	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{"experimental":{"x":` + deep + `}},"clientInfo":{"name":"c","version":"1"}}}`)
	if id, code, _ := errorOf(t, s.next()); id != "1" || code == 0 {
		t.Fatalf("a too deep initialize: id %s code %d", id, code)
	}
	afterRefusedInitialize(t, s)
}

// afterRefusedInitialize checks a session whose initialize was refused:
// tools/list is refused as before initialize, and an initialize that
// settles 2025-03-26 gets a batch run.
func afterRefusedInitialize(t *testing.T, s *rawSession) {
	t.Helper()
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if got := s.next(); !strings.Contains(got, `"code":-32600,"message":"invalid request: \"tools/list\" before initialize`) {
		t.Errorf("a call after the refused initialize: %s", got)
	}
	s.initialize("2025-03-26")
	s.send(`[{"jsonrpc":"2.0","id":4,"method":"ping"}]`)
	if got := s.next(); got != `[{"jsonrpc":"2.0","id":4,"result":{}}]` {
		t.Errorf("a batch after initializing 2025-03-26: %s", got)
	}
}

// TestInitializeErrorReplyUninitializes: the guard counts a session
// initialized from its initialize on (the calls after it in one read go
// through), until the SDK's reply: an error undoes it, a result settles
// the protocol.
func TestInitializeErrorReplyUninitializes(t *testing.T) {
	var g guard
	init := `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	if r := g.inbound([]byte(init)); r != nil {
		t.Fatalf("initialize: %s", r.line())
	}
	id, _ := jsonrpc.MakeID(float64(7))
	g.outbound(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no"}})
	if r := g.inbound([]byte(`{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)); r == nil || !strings.Contains(string(r.line()), "before initialize") {
		t.Errorf("after the error reply: %v", r)
	}
	if r := g.inbound([]byte(init)); r != nil {
		t.Fatalf("initialize again: %s", r.line())
	}
	g.outbound(&jsonrpc.Response{ID: id, Result: json.RawMessage(`{"protocolVersion":"2025-03-26"}`)})
	if !g.batches() {
		t.Errorf("2025-03-26 settled by the second initialize's reply: no batches")
	}
}
