package mcp

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/store"
	"github.com/docir/docir/workspace"
	"github.com/docir/docir/workspace/session"
)

// httpMCP serves e's MCP tools over Streamable HTTP on a loopback test
// server, as docir serve --mcp --http does, with at most max sessions and
// the given shed time.
func httpMCP(t *testing.T, e *session.Engine, max int, shed time.Duration) string {
	t.Helper()
	url, _ := httpMCPHandler(t, e, max, shed)
	return url
}

// httpMCPHandler is httpMCP with the handler it serves.
func httpMCPHandler(t *testing.T, e *session.Engine, max int, shed time.Duration) (string, *httpHandler) {
	t.Helper()
	h, err := newHTTPHandler(e, Options{Version: "test"}, max, shed)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e.HTTPHandler(session.HTTPOptions{Loopback: true, MCP: h}))
	t.Cleanup(func() {
		for ss := range h.server.Sessions() {
			ss.Close()
		}
		srv.Close()
	})
	return srv.URL + session.MCPPath, h
}

// mcpPost posts one body to the MCP endpoint with session id sid ("" for
// none) and returns the status, the session id header and the messages of
// the reply (the data of each event, or the JSON body).
func mcpPost(t *testing.T, url, sid, body string) (int, string, []string) {
	t.Helper()
	return mcpPostWith(t, url, sid, body, nil)
}

// mcpPostWith is mcpPost with headers set over its own.
func mcpPostWith(t *testing.T, url, sid, body string, headers map[string]string) (int, string, []string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set(sessionHeader, sid)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var msgs []string
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				msgs = append(msgs, d)
			}
		}
	} else {
		data, _ := io.ReadAll(resp.Body)
		if s := strings.TrimSpace(string(data)); s != "" {
			msgs = append(msgs, s)
		}
	}
	return resp.StatusCode, resp.Header.Get(sessionHeader), msgs
}

// mcpInit starts a session on protocol and returns its id.
func mcpInit(t *testing.T, url, protocol string) string {
	t.Helper()
	status, sid, msgs := mcpPost(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+protocol+`","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if status != http.StatusOK || sid == "" || len(msgs) != 1 || !strings.Contains(msgs[0], `"protocolVersion":"`+protocol+`"`) {
		t.Fatalf("initialize: %d %q %v", status, sid, msgs)
	}
	if status, _, _ := mcpPost(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d", status)
	}
	return sid
}

// TestHTTPAsStdio: over Streamable HTTP, ids are echoed or refused as on
// stdio (never 12345678901234567890 turned into another number), a POST
// without Mcp-Session-Id that is not an initialize is 400, errors carry
// codes, a control character in a resource URI leaves the session alive,
// and a body over the bound is 413 addressed to its id, when the id ends
// within wire.MaxScanBytes of the body (else to id null).
func TestHTTPAsStdio(t *testing.T) {
	checkLeaks(t)
	url := httpMCP(t, fixture(t, ""), MaxSessions, SessionShed)
	sid := mcpInit(t, url, "2025-06-18")
	badID := func(id string) string {
		return `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: id ` + id +
			`: an MCP id is a string or an integer from -(2^53-1) to 2^53-1 (not null), and is echoed exactly","data":{"code":"invalid_request"}}}`
	}
	big := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"search","arguments":{"query":"` + strings.Repeat("q", MaxFrameBytes) + `"}},"id":"big"}`
	// Past wire.MaxScanBytes the rest of a body is not read, for its id or
	// its end: its id, last, is not known.
	huge := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"search","arguments":{"query":"` + strings.Repeat("q", wire.MaxScanBytes) + `"}},"id":"huge"}`
	tests := []struct {
		name, sid, body string
		status          int
		want            string // the one message, or its start when it ends in "…"
	}{
		{"no session", "", `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, 400,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"invalid request: no Mcp-Session-Id header: a session starts with an initialize request, and every later request carries the session id its reply gave","data":{"code":"invalid_request"}}}`},
		{"a big id", sid, `{"jsonrpc":"2.0","id":12345678901234567890,"method":"tools/list"}`, 400, badID("12345678901234567890")},
		{"a fraction", sid, `{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`, 400, badID("1.5")},
		{"the largest exact id", sid, `{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}`, 200, `{"jsonrpc":"2.0","id":9007199254740991,"result":{}}`},
		{"not JSON", sid, `{oops`, 400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,…`},
		{"a control character", sid, `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"docir:///\u0000"}}`, 200,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"resource \"docir:///\\x00\": malformed address…`},
		{"the session goes on", sid, `{"jsonrpc":"2.0","id":4,"method":"ping"}`, 200, `{"jsonrpc":"2.0","id":4,"result":{}}`},
		{"a missing resource", sid, `{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"docir:///nope"}}`, 200,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Resource not found","data":{"uri":"docir:///nope","code":"not_found"}}}`},
		{"a second initialize", sid, `{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, 200,
			`{"jsonrpc":"2.0","id":6,"error":{"code":-32600,"message":"invalid request: a second initialize…`},
		{"a batch on 2025-06-18", sid, `[{"jsonrpc":"2.0","id":8,"method":"ping"}]`, 400,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch requests (JSON arrays) are not supported in this session (protocol 2025-06-18…`},
		{"not JSON-RPC 2.0", sid, `{"id":10,"method":"ping"}`, 400,
			`{"jsonrpc":"2.0","id":10,"error":{"code":-32600,"message":"invalid request: want \"jsonrpc\": \"2.0\"","data":{"code":"invalid_request"}}}`},
		{"a request with an error member", sid, `{"jsonrpc":"2.0","id":11,"method":"ping","error":5}`, 400,
			`{"jsonrpc":"2.0","id":11,"error":{"code":-32600,"message":"invalid request: a request has no result or error member…`},
		{"_meta not an object", sid, `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"status","arguments":{},"_meta":5}}`, 200,
			`{"jsonrpc":"2.0","id":12,"error":{"code":-32602,"message":"invalid params: tools/call: _meta must be an object, not a number","data":{"code":"invalid_params"}}}`},
		{"an unknown session", "nope", `{"jsonrpc":"2.0","id":9,"method":"ping"}`, 404, `session not found`},
		{"over the bound, id last", sid, big, 413,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":"big","error":{"code":-32600,"message":"frame of %d bytes is over the %d-byte bound; it was skipped unread","data":{"code":"frame_too_large"}}}`, len(big), MaxFrameBytes)},
		{"over the scan bound, id last", sid, huge, 413,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"frame of %d bytes is over the %d-byte bound; it was skipped unread","data":{"code":"frame_too_large"}}}`, len(huge), MaxFrameBytes)},
	}
	for _, tt := range tests {
		status, _, msgs := mcpPost(t, url, tt.sid, tt.body)
		got := strings.Join(msgs, "\n")
		want, prefix := strings.CutSuffix(tt.want, "…")
		if status != tt.status || len(msgs) != 1 || !prefix && got != want || prefix && !strings.HasPrefix(got, want) {
			t.Errorf("%s: %d %s\nwant %d %s", tt.name, status, got, tt.status, tt.want)
		}
	}
}

// TestHTTPChecksBeforeTheGuard: a message the guard answers itself (an
// unknown notification, 202; an unknown method, 200 with its error; a
// refused id, 400) meets the SDK's checks of the headers and the session
// first, as a ping does: an MCP-Protocol-Version the server does not
// negotiate, a wrong Accept or Last-Event-ID is 400, a wrong Content-Type
// 415, a deleted session 404 (the spec: any request on a terminated
// session). Before, the guard answered first: 202, 200 and 400 on a
// deleted session, 200 with a bad version, Accept or Content-Type.
func TestHTTPChecksBeforeTheGuard(t *testing.T) {
	checkLeaks(t)
	url := httpMCP(t, fixture(t, ""), MaxSessions, SessionShed)
	sid := mcpInit(t, url, "2025-06-18")
	gone := mcpInit(t, url, "2025-06-18")
	req, err := http.NewRequest(http.MethodDelete, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(sessionHeader, gone)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	resp.Body.Close()
	bodies := map[string]string{
		"a ping":                  `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		"an unknown notification": `{"jsonrpc":"2.0","method":"no/such"}`,
		"an unknown method":       `{"jsonrpc":"2.0","id":2,"method":"tools/call"}`,
		"a refused id":            `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		"not JSON":                `{oops`,
	}
	tests := []struct {
		name, sid string
		headers   map[string]string
		status    int
		want      string
	}{
		{"a deleted session", gone, nil, 404, "session not found"},
		{"an unknown session", "nope", nil, 404, "session not found"},
		{"an unsupported protocol version", sid, map[string]string{"MCP-Protocol-Version": "1999-01-01"}, 400, "Bad Request: Unsupported protocol version"},
		{"Accept: text/html", sid, map[string]string{"Accept": "text/html"}, 400, "Accept must contain both"},
		{"Content-Type: text/plain", sid, map[string]string{"Content-Type": "text/plain"}, 415, "Content-Type must be 'application/json'"},
		{"Last-Event-ID", sid, map[string]string{"Last-Event-ID": "0_0"}, 400, "can't send Last-Event-ID for POST request"},
		{"a bad version without a session", "", map[string]string{"MCP-Protocol-Version": "1999-01-01"}, 400, "Bad Request: Unsupported protocol version"},
	}
	for _, tt := range tests {
		for kind, body := range bodies {
			status, _, msgs := mcpPostWith(t, url, tt.sid, body, tt.headers)
			if status != tt.status || len(msgs) != 1 || !strings.HasPrefix(msgs[0], tt.want) {
				t.Errorf("%s, %s: %d %q\nwant %d %s", tt.name, kind, status, msgs, tt.status, tt.want)
			}
		}
	}
	if status, _, _ := mcpPost(t, url, sid, bodies["an unknown notification"]); status != http.StatusAccepted {
		t.Errorf("an unknown notification in a live session: %d", status)
	}
}

// TestHTTPBatches: a 2025-03-26 session runs a batch (that protocol has
// them), as stdio does.
func TestHTTPBatches(t *testing.T) {
	checkLeaks(t)
	url := httpMCP(t, fixture(t, ""), MaxSessions, SessionShed)
	sid := mcpInit(t, url, "2025-03-26")
	status, _, msgs := mcpPost(t, url, sid, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`)
	got := strings.Join(msgs, "\n")
	if status != 200 || !strings.Contains(got, `"id":1,"result":{}`) || !strings.Contains(got, `"id":2,"result":{`) {
		t.Errorf("batch: %d %.300s", status, got)
	}
	status, _, msgs = mcpPost(t, url, sid, `[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":1e3,"method":"ping"}]`)
	if status != 400 || len(msgs) != 1 || !strings.Contains(msgs[0], `"id":3,"error":{"code":-32600,"message":"invalid request: not run`) {
		t.Errorf("a batch with a bad id: %d %v", status, msgs)
	}
}

// TestHTTPCancelled: a call the client cancels gets no reply: its stream
// ends without one. The session keeps no cancellation of a call already
// answered or never sent, nor one whose call has ended (before, it kept
// them all, up to 1024, and then ignored every cancellation).
func TestHTTPCancelled(t *testing.T) {
	checkLeaks(t)
	ws := workspace.New(workspace.Config{Dir: t.TempDir(), Sources: []store.Source{{Path: t.TempDir()}}})
	t.Cleanup(func() { ws.Close() })
	gate := session.NewGate(ws, 400*time.Millisecond) // each read waits, then answers indexing
	url, h := httpMCPHandler(t, session.New(session.Config{Reader: gate, Version: "test"}), MaxSessions, SessionShed)
	sid := mcpInit(t, url, "2025-06-18")
	hs := h.use(sid)
	g := hs.g
	h.done(hs)
	for k := range 20 {
		mcpPost(t, url, sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, k))
		for _, id := range []string{strconv.Itoa(k), `"n` + strconv.Itoa(k) + `"`} {
			mcpPost(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`}}`)
		}
	}
	if n := cancellations(g); n != 0 {
		t.Errorf("%d cancellations kept of calls not in flight", n)
	}
	var wg sync.WaitGroup
	var msgs []string
	wg.Go(func() {
		_, _, msgs = mcpPost(t, url, sid, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"status","arguments":{}}}`)
	})
	time.Sleep(100 * time.Millisecond)
	if status, _, _ := mcpPost(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`); status != http.StatusAccepted {
		t.Errorf("notifications/cancelled: %d", status)
	}
	wg.Wait()
	if len(msgs) != 0 {
		t.Errorf("the cancelled call was answered: %v", msgs)
	}
	if n := cancellations(g); n != 0 {
		t.Errorf("%d cancellations kept after their calls ended", n)
	}
	if status, _, msgs := mcpPost(t, url, sid, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"status","arguments":{}}}`); status != 200 || len(msgs) != 1 {
		t.Errorf("a call after: %d %v", status, msgs)
	}
}

// TestHTTPSessionCap: at most max sessions are open; the next initialize
// is refused (503, Retry-After) until one has been idle for the shed time,
// which is then closed to admit it. Before, 40,000 initialize requests
// held 648 MB (issue 28.10).
func TestHTTPSessionCap(t *testing.T) {
	checkLeaks(t)
	const shed = 300 * time.Millisecond
	url := httpMCP(t, fixture(t, ""), 3, shed)
	var sids []string
	for range 3 {
		sids = append(sids, mcpInit(t, url, "2025-06-18"))
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	status, _, msgs := mcpPost(t, url, "", init)
	if status != http.StatusServiceUnavailable || len(msgs) != 1 || !strings.Contains(msgs[0], `"id":1,"error":{"code":-32002,"message":"3 MCP sessions are open`) {
		t.Errorf("a fourth session: %d %v", status, msgs)
	}
	// Keep the first session busy; the second has been idle longest.
	time.Sleep(shed)
	if status, _, _ := mcpPost(t, url, sids[0], `{"jsonrpc":"2.0","id":2,"method":"ping"}`); status != 200 {
		t.Fatalf("ping: %d", status)
	}
	if status, sid, _ := mcpPost(t, url, "", init); status != 200 || sid == "" {
		t.Errorf("a fourth session after the shed time: %d", status)
	}
	if status, _, _ := mcpPost(t, url, sids[1], `{"jsonrpc":"2.0","id":3,"method":"ping"}`); status != http.StatusNotFound {
		t.Errorf("the session idle longest is still open: %d", status)
	}
	if status, _, _ := mcpPost(t, url, sids[0], `{"jsonrpc":"2.0","id":4,"method":"ping"}`); status != 200 {
		t.Errorf("the busy session was closed: %d", status)
	}
}
