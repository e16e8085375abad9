package mcp

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestWireStrictness: ids are echoed exactly or refused with -32600, a
// message with no method gets -32600, and a call before initialize gets
// -32600 with data.code, while ping still answers.
func TestWireStrictness(t *testing.T) {
	checkLeaks(t)
	w, r := serve(t, fixture(t, ""))
	replies := bufio.NewScanner(r)
	replies.Buffer(nil, 2<<20)
	// step sends a line and checks the reply: equal to want, or starting
	// with it when want ends in "…".
	step := func(send, want string) {
		t.Helper()
		if _, err := io.WriteString(w, send+"\n"); err != nil {
			t.Fatal(err)
		}
		if !replies.Scan() {
			t.Fatalf("the session ended: %v", replies.Err())
		}
		got := replies.Text()
		if p, ok := strings.CutSuffix(want, "…"); ok && strings.HasPrefix(got, p) || got == want {
			return
		}
		t.Errorf("after %s\n got %s\nwant %s", send, got, want)
	}
	badID := func(id string) string {
		return `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: id ` + id +
			`: an MCP id is a string or an integer from -(2^53-1) to 2^53-1 (not null), and is echoed exactly","data":{"code":"invalid_request"}}}`
	}
	step(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: \"tools/list\" before initialize: an MCP session starts with an initialize request","data":{"code":"invalid_request"}}}`)
	step(`{"jsonrpc":"2.0","id":"p","method":"ping"}`, `{"jsonrpc":"2.0","id":"p","result":{}}`)
	step(`{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{}}`, badID("1.5"))
	step(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","id":2,"result":{…`)
	if _, err := io.WriteString(w, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"1.5", "12345678901234567890", "null", "1e3", "-0", "1.0", "true", "{}", "9007199254740992"} {
		step(`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list"}`, badID(id))
	}
	step(`{"jsonrpc":"2.0","id":8}`, `{"jsonrpc":"2.0","id":8,"error":{"code":-32600,"message":"invalid request: want a method name (a non-empty string)","data":{"code":"invalid_request"}}}`)
	step(`{"jsonrpc":"2.0"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: want a method name (a non-empty string)","data":{"code":"invalid_request"}}}`)
	// A member of params named twice has two readings (the SDK's decoder
	// takes the last): the call is refused to its id, and a notification
	// so written is dropped unanswered (the guard's own verdict: the SDK
	// would ignore this cancellation of no call anyway).
	step(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"get","name":"status","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"invalid params: tools/call: member \"name\" appears twice","data":{"code":"invalid_params"}}}`)
	step(`{"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"uri":"docir:///runbooks/disk-full","uri":"file:///etc/passwd"}}`,
		`{"jsonrpc":"2.0","id":10,"error":{"code":-32602,"message":"invalid params: resources/read: member \"uri\" appears twice","data":{"code":"invalid_params"}}}`)
	// Params of the wrong shape are refused naming what is wrong (the SDK
	// said only "invalid params").
	step(`{"jsonrpc":"2.0","id":11,"method":"ping","params":5}`,
		`{"jsonrpc":"2.0","id":11,"error":{"code":-32602,"message":"invalid params: ping: params must be an object, not a number","data":{"code":"invalid_params"}}}`)
	step(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":5,"arguments":{}}}`,
		`{"jsonrpc":"2.0","id":12,"error":{"code":-32602,"message":"invalid params: tools/call: name must be a tool's name (a non-empty string); tools/list lists them","data":{"code":"invalid_params"}}}`)
	step(`{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"status","arguments":{},"_meta":5}}`,
		`{"jsonrpc":"2.0","id":21,"error":{"code":-32602,"message":"invalid params: tools/call: _meta must be an object, not a number","data":{"code":"invalid_params"}}}`)
	step(`{"jsonrpc":"2.0","id":22,"method":"ping","params":{"_meta":null}}`, `{"jsonrpc":"2.0","id":22,"result":{}}`)
	step(`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"get","arguments":["x"]}}`,
		`{"jsonrpc":"2.0","id":13,"error":{"code":-32602,"message":"invalid params: tools/call get: arguments must be an object, not an array","data":{"code":"invalid_params"}}}`)
	// A request not marked JSON-RPC 2.0, or that carries a result or an
	// error, is refused to its id (the SDK's decoder would refuse it
	// without one); a response the SDK could not decode is dropped: no
	// reply, and the session goes on.
	version := `{"jsonrpc":"2.0","id":%s,"error":{"code":-32600,"message":"invalid request: want \"jsonrpc\": \"2.0\"","data":{"code":"invalid_request"}}}`
	step(`{"jsonrpc":"1.0","id":14,"method":"ping"}`, fmt.Sprintf(version, "14"))
	step(`{"id":15,"method":"ping"}`, fmt.Sprintf(version, "15"))
	step(`{"jsonrpc":2,"id":16,"method":"ping"}`, fmt.Sprintf(version, "16"))
	step(`{"jsonrpc":"2.0","id":17,"method":"ping","error":5}`,
		`{"jsonrpc":"2.0","id":17,"error":{"code":-32600,"message":"invalid request: a request has no result or error member (a response has no method)","data":{"code":"invalid_request"}}}`)
	for _, resp := range []string{`{"jsonrpc":"2.0","id":18,"error":5}`, `{"jsonrpc":"1.0","id":19,"result":{}}`,
		`{"jsonrpc":"2.0","result":{}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":1.5,"message":"m"}}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`} {
		if _, err := io.WriteString(w, resp+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	step(`{"jsonrpc":"2.0","id":20,"method":"ping"}`, `{"jsonrpc":"2.0","id":20,"result":{}}`)
	var g guard
	if r := g.inbound([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"requestId":2}}`)); r == nil || r.line() != nil {
		t.Errorf("a notification naming a member twice: %+v, want it dropped unanswered", r)
	}
	// Ids at the edges of int64 and strings come back exactly.
	for _, id := range []string{"9007199254740991", "-9007199254740991", `"12345678901234567890"`, `"1.5"`, "0"} {
		step(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)
	}
}
