package mcp

import (
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
