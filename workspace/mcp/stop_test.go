package mcp

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/docir/docir/workspace/session"
)

// TestStopAnswersTheCallInHand: when Serve's context is done (SIGTERM or
// SIGINT in the binary), the call in hand is finished and its reply
// written, a call read after is not run, and Serve ends (its cleanup
// checks that it returned nil). Before, Serve closed the SDK's session,
// which finished the call and wrote no reply (and answered the later
// ping).
func TestStopAnswersTheCallInHand(t *testing.T) {
	checkLeaks(t)
	gate := session.NewGate(fixtureStore(t), time.Minute)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	w, r := serveUntil(t, ctx, session.New(session.Config{Reader: gate, Version: "test"}), Options{Version: "test"})
	t.Cleanup(func() { gate.Open(nil) }) // before Serve's cleanup
	s := rawOver(t, w, r)
	s.initialize("2025-06-18")
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"status","arguments":{}}}`)
	// The ping's reply says the call before it was handed to the SDK: it
	// is in hand, held at the gate.
	s.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if got := s.next(); got != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("ping: %s", got)
	}
	stop()
	go io.WriteString(w, `{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n") // after the stop: not run
	time.Sleep(100 * time.Millisecond)
	gate.Open(nil)
	if got := s.next(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"result":{"content"`) {
		t.Errorf("the call in hand: %.300s", got)
	}
	select {
	case got, ok := <-s.replies:
		if ok {
			t.Errorf("after the call in hand: %.300s", got)
		}
	case <-time.After(10 * time.Second):
		t.Error("the session did not end after Serve's context was done")
	}
}
