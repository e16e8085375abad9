package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestInitializeInABatch: an initialize inside a 2025-03-26 batch is
// refused to its id (a valid one), on stdio and HTTP alike (HTTP 200, as
// other calls answered by their id). Before, it went to id null.
func TestInitializeInABatch(t *testing.T) {
	checkLeaks(t)
	e := fixture(t, "")
	batch := `[{"jsonrpc":"2.0","id":14,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}]`
	want := `[{"jsonrpc":"2.0","id":14,"error":{"code":-32600,"message":"invalid request: initialize cannot be part of a batch","data":{"code":"invalid_request"}}}]`
	s := newRawSession(t, e)
	s.initialize("2025-03-26")
	s.send(batch)
	if got := s.next(); got != want {
		t.Errorf("stdio:\n got %s\nwant %s", got, want)
	}
	url := httpMCP(t, e, MaxSessions, SessionShed)
	sid := mcpInit(t, url, "2025-03-26")
	if status, _, msgs := mcpPost(t, url, sid, batch); status != 200 || len(msgs) != 1 || msgs[0] != want {
		t.Errorf("http: %d %v\nwant 200 %s", status, msgs, want)
	}
}

// TestBatchInTheInitializeWrite: on stdio, a 2025-03-26 batch written in
// the same write as initialize, before its reply is read, runs once that
// reply has settled the protocol: the initialize reply comes first, then
// the batch's array. (A lone call so sent was served already; over HTTP a
// batch comes after the reply that gives the session id.) Before, the
// batch was refused as "protocol not settled (no initialize yet)".
func TestBatchInTheInitializeWrite(t *testing.T) {
	checkLeaks(t)
	s := newRawSession(t, fixture(t, ""))
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}` + "\n" +
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status","arguments":{}}}]` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if got := s.next(); !strings.Contains(got, `"id":"init","result"`) || !strings.Contains(got, `"protocolVersion":"2025-03-26"`) {
		t.Fatalf("initialize: %.300s", got)
	}
	var replies []struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	got := s.next()
	if err := json.Unmarshal([]byte(got), &replies); err != nil || len(replies) != 2 {
		t.Fatalf("the batch: %.400s (%v)", got, err)
	}
	for _, r := range replies {
		if r.Result == nil || r.Error != nil || r.ID != 1 && r.ID != 2 || strings.Contains(string(r.Result), `"isError":true`) {
			t.Errorf("the batch: %.400s", got)
		}
	}
	// On 2025-06-18, which has no batches, such a batch is refused for
	// that protocol, after the initialize reply.
	s = newRawSession(t, fixture(t, ""))
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}` + "\n" +
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	if got := s.next(); !strings.Contains(got, `"id":"init","result"`) {
		t.Fatalf("initialize: %.300s", got)
	}
	if got := s.next(); !strings.Contains(got, `"code":"batch_unsupported"`) || !strings.Contains(got, "(protocol 2025-06-18;") {
		t.Errorf("a batch on 2025-06-18: %.300s", got)
	}
}

// TestRefusedInitializeSettlesNothing: an initialize refused as a
// duplicate of a call in flight (a ping of the same id) settles no
// protocol: the ping's reply is not taken for its, so a batch after it is
// not held for it, and a call after it is refused as before initialize,
// not as an internal error.
func TestRefusedInitializeSettlesNothing(t *testing.T) {
	checkLeaks(t)
	s := newRawSession(t, fixture(t, ""))
	s.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}` + "\n" +
		`[{"jsonrpc":"2.0","id":2,"method":"ping"}]` + "\n" +
		`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	var all []string
	for range 4 {
		all = append(all, s.next())
	}
	for _, got := range all {
		if strings.Contains(got, `"id":9`) && !strings.Contains(got, `"code":"invalid_request"`) {
			t.Errorf("tools/list after a refused initialize: %.300s", got)
		}
	}
}
