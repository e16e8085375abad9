package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/store"
	"github.com/docir/docir/workspace"
	"github.com/docir/docir/workspace/session"
)

// rawSession speaks raw lines to Serve over pipes: send writes a line,
// next reads the next reply line (failing after a while).
type rawSession struct {
	t       *testing.T
	w       io.Writer
	replies chan string
}

func newRawSession(t *testing.T, e *session.Engine) *rawSession {
	t.Helper()
	w, r := serve(t, e)
	return rawOver(t, w, r)
}

// rawOver is a raw session over the client's ends of a Serve.
func rawOver(t *testing.T, w io.Writer, r io.Reader) *rawSession {
	s := &rawSession{t: t, w: w, replies: make(chan string, 64)}
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			s.replies <- sc.Text()
		}
		close(s.replies)
	}()
	return s
}

func (s *rawSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.w, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

func (s *rawSession) next() string {
	s.t.Helper()
	select {
	case r, ok := <-s.replies:
		if !ok {
			s.t.Fatal("the session ended")
		}
		return r
	case <-time.After(10 * time.Second):
		s.t.Fatal("no reply in 10 s")
	}
	return ""
}

// initialize says initialize with protocol and notifications/initialized.
func (s *rawSession) initialize(protocol string) {
	s.t.Helper()
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + protocol + `","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if got := s.next(); !strings.Contains(got, `"protocolVersion":"`+protocol+`"`) {
		s.t.Fatalf("initialize: %s", got)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// errorOf decodes a reply line's id and error.
func errorOf(t *testing.T, line string) (id string, code int, data string) {
	t.Helper()
	var r struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code int             `json:"code"`
			Data json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("reply %q: %v", line, err)
	}
	if r.Error == nil {
		return string(r.ID), 0, ""
	}
	if r.Error.Code == 0 {
		t.Errorf("an error with code 0: %s", line)
	}
	return string(r.ID), r.Error.Code, string(r.Error.Data)
}

// TestEveryErrorHasACode: each of these calls gets an error addressed to
// its id, with a JSON-RPC number that says what went wrong and docir's
// code; before, a missing or malformed resource, a second initialize and a
// bad cursor came back with code 0, and a resource URI with a control
// character ended the session (issue 28.9).
func TestEveryErrorHasACode(t *testing.T) {
	checkLeaks(t)
	s := newRawSession(t, fixture(t, ""))
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":"x"}`)
	if id, code, _ := errorOf(t, s.next()); id != "0" || code != -32602 {
		t.Errorf("initialize with params that are not an object: id %s code %d", id, code)
	}
	s.initialize("2025-06-18")
	tests := []struct {
		send       string
		code       int
		data       string // a substring of data
		wantResult bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"docir:///nope"}}`, -32602, `"code":"not_found"`, false},
		{`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"docir:///a%20b"}}`, -32602, `"code":"malformed_address"`, false},
		{`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"docir:///\u0000"}}`, -32602, `"code":"malformed_address"`, false},
		{`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"docir:///\u0001"}}`, -32602, `"code":"malformed_address"`, false},
		{`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"docir:///\u007f"}}`, -32602, `"code":"malformed_address"`, false},
		{`{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"file:///\u0000etc"}}`, -32602, `"uri":"file:///\u0000etc"`, false},
		{`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"docir:///"}}`, -32602, `"code":"malformed_address"`, false},
		{`{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`, -32600, `"code":"invalid_request"`, false},
		{`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":"!!"}}`, -32602, `"code":"invalid_params"`, false},
		{`{"jsonrpc":"2.0","id":10,"method":"resources/templates/list","params":{"cursor":"AAAA"}}`, -32602, `"code":"invalid_params"`, false},
		{`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, -32602, `"code":"invalid_params"`, false},
		{`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":"x"}`, -32602, `"code":`, false},
		{`{"jsonrpc":"2.0","id":13,"method":"no/such"}`, -32601, `"code":"method_not_found"`, false},
		{`{"jsonrpc":"2.0","id":14,"method":"resources/read","params":{"uri":"docir:///runbooks/disk-full#nope"}}`, -32602, `"code":"not_found"`, false},
	}
	for _, tt := range tests {
		s.send(tt.send)
		got := s.next()
		id, code, data := errorOf(t, got)
		var want struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal([]byte(tt.send), &want)
		if id != string(want.ID) || code != tt.code || !strings.Contains(data, tt.data) || tt.wantResult != strings.Contains(got, `"result"`) {
			t.Errorf("after %s\n got %s\nwant id %s, code %d, data with %s", tt.send, got, want.ID, tt.code, tt.data)
		}
	}
	s.send(`{"jsonrpc":"2.0","id":99,"method":"ping"}`)
	if got := s.next(); got != `{"jsonrpc":"2.0","id":99,"result":{}}` {
		t.Errorf("the session did not go on: %s", got)
	}
}

// TestIndexingAndNoStoreAreCoded: a resource read while the store is being
// built answers indexing (-32010), one with no store no_store (-32004): a
// host can tell "try again shortly" from "bad request".
func TestIndexingAndNoStoreAreCoded(t *testing.T) {
	checkLeaks(t)
	ws := workspace.New(workspace.Config{Dir: t.TempDir(), Sources: []store.Source{{Path: t.TempDir()}}})
	t.Cleanup(func() { ws.Close() })
	gate := session.NewGate(ws, 50*time.Millisecond) // never opened: indexing throughout
	s := newRawSession(t, session.New(session.Config{Reader: gate, Version: "test"}))
	s.initialize("2025-06-18")
	s.send(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"docir:///a"}}`)
	if id, code, data := errorOf(t, s.next()); id != "1" || code != -32010 || !strings.Contains(data, `"indexing"`) {
		t.Errorf("while indexing: id %s code %d data %s", id, code, data)
	}

	ws2 := workspace.New(workspace.Config{Dir: t.TempDir() + "/none"})
	t.Cleanup(func() { ws2.Close() })
	s2 := newRawSession(t, session.New(session.Config{Reader: ws2, Version: "test"}))
	s2.initialize("2025-06-18")
	s2.send(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"docir:///a"}}`)
	if id, code, _ := errorOf(t, s2.next()); id != "2" || code != -32004 {
		t.Errorf("no store: id %s code %d", id, code)
	}
}

// TestCancelledCallGetsNoReply: a call the client cancels before it is
// answered gets no reply (MCP: a receiver should not answer a cancelled
// request); the session goes on and answers the next one.
func TestCancelledCallGetsNoReply(t *testing.T) {
	checkLeaks(t)
	ws := workspace.New(workspace.Config{Dir: t.TempDir(), Sources: []store.Source{{Path: t.TempDir()}}})
	t.Cleanup(func() { ws.Close() })
	gate := session.NewGate(ws, 300*time.Millisecond) // each read waits 300 ms, then answers indexing
	s := newRawSession(t, session.New(session.Config{Reader: gate, Version: "test"}))
	s.initialize("2025-06-18")
	s.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"status","arguments":{}}}`)
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"the user moved on"}}`)
	time.Sleep(600 * time.Millisecond) // past the read's wait: its reply would have come
	s.send(`{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	if got := s.next(); got != `{"jsonrpc":"2.0","id":6,"result":{}}` {
		t.Errorf("the cancelled call was answered: %s", got)
	}
	// An uncancelled call is answered.
	s.send(`{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"status","arguments":{}}}`)
	if got := s.next(); !strings.Contains(got, `"id":"s","result"`) {
		t.Errorf("status: %s", got)
	}
}

// TestBatches: a session on protocol 2025-03-26 (which has JSON-RPC
// batches) gets a batch's replies as one array, notifications unanswered;
// one on 2025-06-18 (which has none) gets batch_unsupported, as Streamable
// HTTP answers them; a batch with a message the guard refuses does not run.
func TestBatches(t *testing.T) {
	checkLeaks(t)
	e := fixture(t, "")
	old := newRawSession(t, e)
	old.initialize("2025-03-26")
	old.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"t","method":"tools/call","params":{"name":"status","arguments":{}}}]`)
	var replies []json.RawMessage
	got := old.next()
	if err := json.Unmarshal([]byte(got), &replies); err != nil || len(replies) != 2 ||
		!strings.Contains(got, `{"jsonrpc":"2.0","id":1,"result":{}}`) || !strings.Contains(got, `"id":"t","result":{"content"`) {
		t.Errorf("2025-03-26 batch: %s", got)
	}
	old.send(`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":1.5,"method":"ping"}]`)
	want := `[{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"invalid request: not run: another message of the batch was refused","data":{"code":"invalid_request"}}},` +
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: id 1.5: an MCP id is a string or an integer from -(2^53-1) to 2^53-1 (not null), and is echoed exactly","data":{"code":"invalid_request"}}}]`
	if got := old.next(); got != want {
		t.Errorf("a batch with a bad id:\n got %s\nwant %s", got, want)
	}
	// A member the SDK's decoder would refuse without its id (not
	// JSON-RPC 2.0): the batch does not run, and every call is answered.
	old.send(`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"1.0","id":4,"method":"ping"},{"id":5,"method":"ping"}]`)
	notRun := `{"jsonrpc":"2.0","id":%d,"error":{"code":-32600,"message":"invalid request: not run: another message of the batch was refused","data":{"code":"invalid_request"}}}`
	version := `{"jsonrpc":"2.0","id":%d,"error":{"code":-32600,"message":"invalid request: want \"jsonrpc\": \"2.0\"","data":{"code":"invalid_request"}}}`
	if got, want := old.next(), "["+fmt.Sprintf(notRun, 3)+","+fmt.Sprintf(version, 4)+","+fmt.Sprintf(version, 5)+"]"; got != want {
		t.Errorf("a batch with a member not JSON-RPC 2.0:\n got %s\nwant %s", got, want)
	}
	old.send(`[]`)
	if id, code, _ := errorOf(t, old.next()); id != "null" || code != -32600 {
		t.Errorf("an empty batch: %s %d", id, code)
	}

	now := newRawSession(t, e)
	now.initialize("2025-06-18")
	now.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	if got := now.next(); !strings.Contains(got, `"id":null,"error":{"code":-32600,"message":"batch requests (JSON arrays) are not supported in this session (protocol 2025-06-18`) ||
		!strings.Contains(got, `"data":{"code":"batch_unsupported"}`) {
		t.Errorf("2025-06-18 batch: %s", got)
	}
}

// TestLargeCalls: a 100 KB call valid against the get tool's schema (64
// addresses of 765 bytes, written as \u escapes), its id written last as
// the TypeScript SDK writes it, is served; a call over MaxFrameBytes gets
// frame_too_large addressed to its id; the session goes on.
func TestLargeCalls(t *testing.T) {
	checkLeaks(t)
	s := newRawSession(t, fixture(t, ""))
	s.initialize("2025-06-18")
	addrs := make([]string, MaxToolAddresses)
	for i := range addrs {
		x := `\ud835\udcb3`                                                         // 𝒳, 4 bytes, a surrogate pair as JSON escapes it
		addrs[i] = `"` + strings.Repeat(x, 128) + "#" + strings.Repeat(x, 63) + `"` // 765 bytes an address
	}
	call := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"get","arguments":{"doc_ids":[` + strings.Join(addrs, ",") + `]}},"id":77}`
	if len(call) < 100_000 {
		t.Fatalf("the call is %d bytes", len(call))
	}
	s.send(call)
	if got := s.next(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":77,"result":{"content"`) || !strings.Contains(got, `"reason":"no_document"`) {
		t.Errorf("a %d-byte call: %.300s", len(call), got)
	}
	big := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"search","arguments":{"query":"` + strings.Repeat("q ", MaxFrameBytes/2) + `"}},"id":"big"}`
	s.send(big)
	want := fmt.Sprintf(`{"jsonrpc":"2.0","id":"big","error":{"code":-32600,"message":"frame of %d bytes is over the %d-byte bound; it was skipped unread","data":{"code":"frame_too_large"}}}`, len(big), MaxFrameBytes)
	if got := s.next(); got != want {
		t.Errorf("a call over the bound:\n got %s\nwant %s", got, want)
	}
	s.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if got := s.next(); got != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Errorf("ping: %s", got)
	}
}

// TestCancelledWhileRunning: a tool call whose context is cancelled while
// it runs (the SDK acts on a notifications/cancelled the guard did not
// record: over HTTP the call and its cancellation come in two POSTs, and
// may pass the guard in either order) returns the unanswered result, and
// the guard drops that reply, as the SDK encodes it; a call whose context
// ran out (the request deadline) is answered, and a result that only
// mentions the marker goes out.
func TestCancelledWhileRunning(t *testing.T) {
	checkLeaks(t)
	call := handler(newConns(fixture(t, "")), wire.MethodStatus, nil)
	req := &sdk.CallToolRequest{Params: &sdk.CallToolParamsRaw{Name: "status", Arguments: json.RawMessage(`{}`)}}
	encoded := func(ctx context.Context) json.RawMessage {
		res, err := call(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	g := &guard{}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if r := encoded(cancelled); !g.outbound(&jsonrpc.Response{ID: mustID(t, 3), Result: r}) {
		t.Errorf("the reply to a call cancelled while it ran goes out: %s", r)
	}
	timedOut, stop := context.WithTimeout(context.Background(), -time.Second)
	defer stop()
	if r := encoded(timedOut); g.outbound(&jsonrpc.Response{ID: mustID(t, 4), Result: r}) {
		t.Errorf("the reply to a call whose deadline passed is dropped: %s", r)
	}
	if r := encoded(context.Background()); g.outbound(&jsonrpc.Response{ID: mustID(t, 5), Result: r}) {
		t.Errorf("the reply to a call that ran is dropped: %s", r)
	}
	if !g.outbound(&jsonrpc.Response{ID: mustID(t, 7), Error: fmt.Errorf("handling: %w", context.Canceled)}) {
		t.Errorf("the SDK's error of a cancelled context goes out")
	}
	mention := json.RawMessage(`{"content":[{"type":"text","text":"docir/unanswered"}],"_meta":{"x":1}}`)
	if g.outbound(&jsonrpc.Response{ID: mustID(t, 6), Result: mention}) {
		t.Errorf("a result that mentions the marker is dropped")
	}
}

func mustID(t *testing.T, n int64) jsonrpc.ID {
	id, err := jsonrpc.MakeID(float64(n))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestReadWithoutURI: resources/read without a URI (missing, null, empty,
// not a string) is invalid_params, not a resource not found: the call
// named nothing to look for.
func TestReadWithoutURI(t *testing.T) {
	checkLeaks(t)
	s := newRawSession(t, fixture(t, ""))
	s.initialize("2025-06-18")
	for i, params := range []string{`{}`, `{"uri":null}`, `{"uri":""}`, `{"uri":5}`} {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":%s}`, i+1, params))
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32602,"message":"invalid params: resources/read takes {uri}, a docir:///<id> URI","data":{"code":"invalid_params"}}}`, i+1)
		if got := s.next(); got != want {
			t.Errorf("params %s:\n got %s\nwant %s", params, got, want)
		}
	}
	s.send(`{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"docir:///nothing-here"}}`)
	if _, code, _ := errorOf(t, s.next()); code != -32602 {
		t.Errorf("a URI that names nothing: code %d", code)
	}
}
