package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestGuardSeesEveryMessage: a message the guard cannot read as one JSON
// object with each member once (an id twice, data after the object) is
// refused, on stdio and Streamable HTTP alike. Before, the guard let it
// through to the SDK, whose decoder takes the last of two members and
// ignores data after the object: {"id":12345678901234567890,…,"id":
// 12345678901234567890} came back as id -9223372036854775808, and "id":1.5
// twice as id 1.
func TestGuardSeesEveryMessage(t *testing.T) {
	checkLeaks(t)
	e := fixture(t, "")
	s := newRawSession(t, e)
	s.initialize("2025-06-18")
	url := httpMCP(t, e, MaxSessions, SessionShed)
	sid := mcpInit(t, url, "2025-06-18")
	tests := []struct {
		name, send string
		code       int
		http       bool // also over HTTP (there data after the object was already a parse error)
	}{
		{"a big id twice", `{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping","id":12345678901234567890}`, -32600, true},
		{"a fraction twice", `{"jsonrpc":"2.0","id":1.5,"method":"ping","id":1.5}`, -32600, true},
		{"two ids", `{"jsonrpc":"2.0","id":"a","method":"ping","id":"b"}`, -32600, true},
		{"two methods", `{"jsonrpc":"2.0","id":6,"method":"tools/list","method":"ping"}`, -32600, true},
		{"an id that is not UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":\"a\xff\",\"method\":\"ping\"}", -32600, true},
		{"an id of a lone surrogate", `{"jsonrpc":"2.0","id":"a\ud800","method":"ping"}`, -32600, true},
		{"data after the object", `{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"} x`, -32700, false},
		{"data after a good object", `{"jsonrpc":"2.0","id":5,"method":"ping"} trailing`, -32700, false},
	}
	check := func(how, send, got string, want int) {
		t.Helper()
		id, code, _ := errorOf(t, got)
		if id != "null" || code != want {
			t.Errorf("%s %s:\n got %s\nwant an error %d to id null", how, send, got, want)
		}
	}
	for _, tt := range tests {
		s.send(tt.send)
		check("stdio", tt.send, s.next(), tt.code)
		if tt.http {
			status, _, msgs := mcpPost(t, url, sid, tt.send)
			if status != 400 || len(msgs) != 1 {
				t.Errorf("http %s: %d %v", tt.send, status, msgs)
				continue
			}
			check("http", tt.send, msgs[0], tt.code)
		}
	}
	s.send(`{"jsonrpc":"2.0","id":99,"method":"ping"}`)
	if got := s.next(); got != `{"jsonrpc":"2.0","id":99,"result":{}}` {
		t.Errorf("the session did not go on: %s", got)
	}
}

// TestBatchWithAnIDTwice: a 2025-03-26 batch that uses one id for two calls
// is refused whole, each call with an error, on stdio and HTTP alike.
// Before, on stdio the SDK dropped the second call and the transport held
// the first one's reply for the batch's array, which never completed: no
// reply at all; over HTTP one of the two was answered.
func TestBatchWithAnIDTwice(t *testing.T) {
	checkLeaks(t)
	e := fixture(t, "")
	s := newRawSession(t, e)
	s.initialize("2025-03-26")
	url := httpMCP(t, e, MaxSessions, SessionShed)
	sid := mcpInit(t, url, "2025-03-26")
	batch := `[{"jsonrpc":"2.0","id":10,"method":"ping"},{"jsonrpc":"2.0","id":11,"method":"ping"},{"jsonrpc":"2.0","id":10,"method":"tools/list"}]`
	check := func(how, got string) {
		t.Helper()
		var replies []json.RawMessage
		if err := json.Unmarshal([]byte(got), &replies); err != nil || len(replies) != 3 {
			t.Fatalf("%s: want 3 errors, got %s", how, got)
		}
		for _, r := range replies {
			if _, code, _ := errorOf(t, string(r)); code != -32600 {
				t.Errorf("%s: %s", how, r)
			}
		}
		if !strings.Contains(got, `id 10 is used twice in the batch`) {
			t.Errorf("%s: %s", how, got)
		}
	}
	s.send(batch)
	check("stdio", s.next())
	status, _, msgs := mcpPost(t, url, sid, batch)
	if status != 400 || len(msgs) != 1 {
		t.Fatalf("http: %d %v", status, msgs)
	}
	check("http", msgs[0])
	s.send(`[{"jsonrpc":"2.0","id":10,"method":"ping"},{"jsonrpc":"2.0","id":"10","method":"ping"}]`)
	if got := s.next(); !strings.Contains(got, `"id":10,"result":{}`) || !strings.Contains(got, `"id":"10","result":{}`) {
		t.Errorf("ids 10 and \"10\" are two ids: %s", got)
	}
}

// TestExactIDStrings: a string id is exact (echoed as the same value) when
// its text is UTF-8 and each escape is a character; the SDK would answer
// invalid UTF-8 and lone surrogate halves as U+FFFD, another id.
func TestExactIDStrings(t *testing.T) {
	for raw, want := range map[string]bool{
		`"abc"`:               true,
		`"req-α"`:             true,
		`"\u0061"`:            true,
		`"\ud83d\ude00"`:      true, // a pair
		`"\\ud800"`:           true, // an escaped backslash, then text
		`"\ufffd"`:            true,
		"\"a\xff\"":           false,
		`"\ud800"`:            false,
		`"x\udc00"`:           false,
		`"\ud83d"`:            false,
		`"\ud83d\u0061"`:      false,
		`"\ude00\ud83d"`:      false,
		`"tail\ud83d\ude00\"`: false, // not a string
	} {
		if got := exactID(json.RawMessage(raw)); got != want {
			t.Errorf("exactID(%s) = %v, want %v", raw, got, want)
		}
	}
}
