package mcp

import (
	"fmt"
	"testing"
)

// TestBadCursorNamed: a list method given a cursor this server did not
// give, or one that is not a string, is -32602 invalid_params, as MCP's
// pagination says, with a message that names the cursor and says why, on
// stdio and Streamable HTTP alike. Before, each was the SDK's bare
// "invalid params" (its decoder's reason dropped).
func TestBadCursorNamed(t *testing.T) {
	checkLeaks(t)
	e := fixture(t, "")
	s := newRawSession(t, e)
	s.initialize("2025-06-18")
	url := httpMCP(t, e, MaxSessions, SessionShed)
	sid := mcpInit(t, url, "2025-06-18")
	for _, method := range []string{"resources/list", "tools/list", "prompts/list", "resources/templates/list"} {
		for _, tt := range []struct{ cursor, message string }{
			{`"zzz"`, `invalid params: ` + method + `: cursor \"zzz\" is not a cursor this server gave: a cursor is the nextCursor of an earlier page of the same list, passed back exactly (leave cursor out for the first page)`},
			{`"eyJwYWdlIjogM30="`, `invalid params: ` + method + `: cursor \"eyJwYWdlIjogM30=\" is not a cursor this server gave: a cursor is the nextCursor of an earlier page of the same list, passed back exactly (leave cursor out for the first page)`},
			{`5`, `invalid params: ` + method + `: cursor must be a string (the nextCursor of an earlier page, passed back exactly), not a number`},
		} {
			call := fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":%q,"params":{"cursor":%s}}`, method, tt.cursor)
			want := `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"` + tt.message + `","data":{"code":"invalid_params"}}}`
			s.send(call)
			if got := s.next(); got != want {
				t.Errorf("stdio %s:\n got %s\nwant %s", call, got, want)
			}
			if status, _, msgs := mcpPost(t, url, sid, call); status != 200 || len(msgs) != 1 || msgs[0] != want {
				t.Errorf("http %s: %d %v\nwant 200 %s", call, status, msgs, want)
			}
		}
	}
}
