package mcp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/docir/docir/workspace/session"
)

// heldSession is a raw stdio session whose tool calls wait until open is
// called (their reads wait at a closed gate): a call sent is in flight
// until then.
func heldSession(t *testing.T, protocol string) (s *rawSession, open func()) {
	t.Helper()
	gate := session.NewGate(fixtureStore(t), time.Minute)
	s = newRawSession(t, session.New(session.Config{Reader: gate, Version: "test"}))
	t.Cleanup(func() { gate.Open(nil) }) // before the session's own cleanup
	s.initialize(protocol)
	return s, func() { gate.Open(nil) }
}

const statusCall = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"status","arguments":{}}}`

const duplicate5 = `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"invalid request: duplicate in-flight request ID 5: a call with this id is not answered yet; use another id","data":{"code":"invalid_request"}}}`

// TestDuplicateInFlightID: on stdio, a call that reuses the id of a call
// still in flight is refused with -32600 to that id, as the SDK's
// Streamable HTTP handler refuses it; the call in flight is answered as
// usual, once, and its id is free again after. Before, the second call got
// no reply at all (the SDK drops a call whose id is in use).
func TestDuplicateInFlightID(t *testing.T) {
	checkLeaks(t)
	s, open := heldSession(t, "2025-06-18")
	s.send(statusCall)
	s.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if got := s.next(); got != duplicate5 {
		t.Fatalf("a call reusing an id in flight:\n got %.300s\nwant %s", got, duplicate5)
	}
	open()
	if got := s.next(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":5,"result":{"content"`) || strings.Contains(got, `"isError":true`) {
		t.Errorf("the call in flight: %.300s", got)
	}
	s.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if got := s.next(); got != `{"jsonrpc":"2.0","id":5,"result":{}}` {
		t.Errorf("id 5 once answered: %s", got)
	}
}

// TestDuplicateInFlightIDInABatch: a 2025-03-26 batch with a call that
// reuses the id of a call in flight does not run: that call gets the
// duplicate error to its id, the others "not run"; the call in flight is
// answered alone. Before, the batch ran and the reply to the call in
// flight was written inside the batch's array.
func TestDuplicateInFlightIDInABatch(t *testing.T) {
	checkLeaks(t)
	s, open := heldSession(t, "2025-03-26")
	s.send(statusCall)
	s.send(`[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"ping"}]`)
	want := `[` + duplicate5 + `,{"jsonrpc":"2.0","id":6,"error":{"code":-32600,"message":"invalid request: not run: another message of the batch was refused","data":{"code":"invalid_request"}}}]`
	if got := s.next(); got != want {
		t.Fatalf("a batch reusing an id in flight:\n got %.400s\nwant %s", got, want)
	}
	open()
	got := s.next()
	var reply map[string]json.RawMessage
	if err := json.Unmarshal([]byte(got), &reply); err != nil || string(reply["id"]) != "5" || reply["result"] == nil {
		t.Errorf("the call in flight, answered alone: %.300s", got)
	}
}
