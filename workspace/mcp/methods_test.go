package mcp

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRefusedMethodsAsStdio: a message the SDK's table of methods refuses
// gets the same reply on stdio and Streamable HTTP: an error to its id
// (over HTTP 200, the reply its request asked for, not the SDK's 400 with
// a plain-text body a host cannot match), and a notification none (HTTP
// 202); a method that is not a string is refused as NDJSON refuses it (HTTP
// 400, with the error as the body). Both sessions settle 2025-03-26, which
// has batches.
func TestRefusedMethodsAsStdio(t *testing.T) {
	checkLeaks(t)
	e := fixture(t, "")
	url := httpMCP(t, e, MaxSessions, SessionShed)
	sid := mcpInit(t, url, "2025-03-26")
	s := newRawSession(t, e)
	s.initialize("2025-03-26")
	notRun := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"invalid request: not run: another message of the batch was refused","data":{"code":"invalid_request"}}}`
	}
	tests := []struct {
		name, send string
		status     int
		want       string // the reply ("" for none)
	}{
		{"an unknown method, a number id", `{"jsonrpc":"2.0","id":13,"method":"no/such"}`, 200,
			`{"jsonrpc":"2.0","id":13,"error":{"code":-32601,"message":"method not found: \"no/such\"","data":{"code":"method_not_found"}}}`},
		{"an unknown method, a string id", `{"jsonrpc":"2.0","id":"x-1","method":"no/such","params":{}}`, 200,
			`{"jsonrpc":"2.0","id":"x-1","error":{"code":-32601,"message":"method not found: \"no/such\"","data":{"code":"method_not_found"}}}`},
		{"a notification method with an id", `{"jsonrpc":"2.0","id":14,"method":"notifications/initialized"}`, 200,
			`{"jsonrpc":"2.0","id":14,"error":{"code":-32600,"message":"invalid request: \"notifications/initialized\" is a notification: it takes no id","data":{"code":"invalid_request"}}}`},
		{"tools/call without params", `{"jsonrpc":"2.0","id":15,"method":"tools/call"}`, 200,
			`{"jsonrpc":"2.0","id":15,"error":{"code":-32602,"message":"invalid params: \"tools/call\" takes params (an object)","data":{"code":"invalid_params"}}}`},
		{"resources/read with params null", `{"jsonrpc":"2.0","id":"r","method":"resources/read","params":null}`, 200,
			`{"jsonrpc":"2.0","id":"r","error":{"code":-32602,"message":"invalid params: \"resources/read\" takes params (an object)","data":{"code":"invalid_params"}}}`},
		{"a batch holding an unknown method", `[{"jsonrpc":"2.0","id":18,"method":"ping"},{"jsonrpc":"2.0","id":"b","method":"no/such"}]`, 200,
			`[` + notRun("18") + `,{"jsonrpc":"2.0","id":"b","error":{"code":-32601,"message":"method not found: \"no/such\"","data":{"code":"method_not_found"}}}]`},
		{"a batch holding one, and a bad id", `[{"jsonrpc":"2.0","id":19,"method":"no/such"},{"jsonrpc":"2.0","id":1.5,"method":"ping"}]`, 400,
			`[{"jsonrpc":"2.0","id":19,"error":{"code":-32601,"message":"method not found: \"no/such\"","data":{"code":"method_not_found"}}},` +
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: id 1.5: an MCP id is a string or an integer from -(2^53-1) to 2^53-1 (not null), and is echoed exactly","data":{"code":"invalid_request"}}}]`},
		{"a batch with an unknown notification runs the rest", `[{"jsonrpc":"2.0","method":"notifications/nope"},{"jsonrpc":"2.0","id":20,"method":"ping"}]`, 200,
			`{"jsonrpc":"2.0","id":20,"result":{}}`},
		{"a method that is not a string", `{"jsonrpc":"2.0","id":21,"method":5}`, 400,
			`{"jsonrpc":"2.0","id":21,"error":{"code":-32600,"message":"invalid request: want a method name (a non-empty string)","data":{"code":"invalid_request"}}}`},
		{"a method null", `{"jsonrpc":"2.0","id":22,"method":null}`, 400,
			`{"jsonrpc":"2.0","id":22,"error":{"code":-32600,"message":"invalid request: want a method name (a non-empty string)","data":{"code":"invalid_request"}}}`},
		{"an unknown notification", `{"jsonrpc":"2.0","method":"notifications/nope"}`, 202, ""},
		{"a call method without an id", `{"jsonrpc":"2.0","method":"tools/list"}`, 202, ""},
		{"a notification without its params", `{"jsonrpc":"2.0","method":"notifications/progress"}`, 202, ""},
		{"a batch of an unknown notification", `[{"jsonrpc":"2.0","method":"notifications/nope"}]`, 202, ""},
	}
	for _, tt := range tests {
		status, _, msgs := mcpPost(t, url, sid, tt.send)
		if got := strings.Join(msgs, "\n"); status != tt.status || got != tt.want {
			t.Errorf("%s: HTTP %d %s\nwant %d %s", tt.name, status, got, tt.status, tt.want)
		}
		s.send(tt.send)
		s.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
		want := tt.want
		if strings.HasPrefix(tt.send, "[") && tt.status == 200 && !strings.HasPrefix(want, "[") {
			want = "[" + want + "]" // stdio writes a batch's replies as one array
		}
		// The SDK may answer the ping after before what it answers of the
		// message (calls that arrive together run concurrently): read until
		// both are in.
		var got []string
		for after := false; !after || want != "" && len(got) == 0; {
			if r := s.next(); r == `{"jsonrpc":"2.0","id":"after","result":{}}` {
				after = true
			} else {
				got = append(got, r)
			}
		}
		if strings.Join(got, "\n") != want {
			t.Errorf("%s: stdio %s\nwant %s", tt.name, got, want)
		}
	}
	// The session goes on, on both.
	if status, _, msgs := mcpPost(t, url, sid, `{"jsonrpc":"2.0","id":99,"method":"ping"}`); status != 200 || len(msgs) != 1 || msgs[0] != `{"jsonrpc":"2.0","id":99,"result":{}}` {
		t.Errorf("ping after: %d %v", status, msgs)
	}
}

// TestMethodTableIsTheSDKs: sdkMethods says of every method what the
// SDK's own Streamable HTTP handler says (a 400 before the session sees
// the message, or not): for each name the SDK knows and a few it does not,
// a call without params, a call with params and a notification without
// params. When the SDK's table changes, this fails.
func TestMethodTableIsTheSDKs(t *testing.T) {
	checkLeaks(t)
	h, err := newHTTPHandler(fixture(t, ""), Options{Version: "test"}, MaxSessions, SessionShed)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.sdk) // the SDK's handler alone, without the guard
	t.Cleanup(func() {
		for ss := range h.server.Sessions() {
			ss.Close()
		}
		srv.Close()
	})
	sid := mcpInit(t, srv.URL, "2025-06-18")
	client := &http.Client{Timeout: 2 * time.Second}
	// sdkRefuses posts body to the SDK's handler: whether it refused it
	// before the session saw it. A call that runs on past the timeout
	// (subscriptions/listen streams) was taken.
	sdkRefuses := func(body string) bool {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(sessionHeader, sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		resp, err := client.Do(req)
		if err != nil {
			var ne interface{ Timeout() bool }
			if errors.As(err, &ne) && ne.Timeout() {
				return false
			}
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode == http.StatusBadRequest
	}
	// Every method name go-sdk v1.8.0 has (protocol.go), whichever way it
	// goes, and a few it does not; then the table's own, should it hold
	// another.
	names := []string{"completion/complete", "elicitation/create", "initialize", "logging/setLevel", "ping",
		"prompts/get", "prompts/list", "resources/list", "resources/read", "resources/subscribe",
		"resources/templates/list", "resources/unsubscribe", "roots/list", "sampling/createMessage",
		"server/discover", "subscriptions/listen", "tools/call", "tools/list",
		"notifications/cancelled", "notifications/elicitation/complete", "notifications/initialized",
		"notifications/message", "notifications/progress", "notifications/prompts/list_changed",
		"notifications/resources/list_changed", "notifications/resources/updated",
		"notifications/roots/list_changed", "notifications/subscriptions/acknowledged",
		"notifications/tools/list_changed",
		"no/such", "", "notifications/nope", "Ping"}
	for name := range sdkMethods {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	g := &guard{initialized: true}
	id := 1000
	for _, name := range names {
		for _, form := range []string{`"id":ID,`, `"id":ID,"params":{},`, ``} {
			id++
			body := `{"jsonrpc":"2.0",` + strings.ReplaceAll(form, "ID", strconv.Itoa(id)) + `"method":"` + name + `"}`
			if name == "resources/read" && strings.Contains(form, "params") {
				continue // taken by the SDK, answered as a resource not found; the guard asks for a uri (TestReadWithoutURI)
			}
			if name == "tools/call" && strings.Contains(form, "params") {
				continue // taken by the SDK, answered as an unknown tool; the guard asks for a name (TestWireStrictness)
			}
			if sdk, guard := sdkRefuses(body), g.inbound([]byte(body)) != nil; sdk != guard {
				t.Errorf("%s: the SDK refuses it: %v; the guard: %v", body, sdk, guard)
			}
		}
	}
}
