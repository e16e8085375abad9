package mcp

import (
	"fmt"
	"strings"
	"testing"
)

// TestCancelInTheSameWrite: a call and its cancellation that arrive in one
// write (a client that cancels at once, or a host that buffers) get no
// reply, however fast the call: the session reads every line the write
// brought before it hands the first to the SDK.
func TestCancelInTheSameWrite(t *testing.T) {
	checkLeaks(t)
	s := newRawSession(t, fixture(t, ""))
	s.initialize("2025-06-18")
	const calls = 300
	for k := range calls {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n"+
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, k, k))
	}
	s.send(`{"jsonrpc":"2.0","id":"end","method":"ping"}`)
	answered := 0
	for {
		got := s.next()
		if strings.Contains(got, `"id":"end"`) {
			break
		}
		answered++
		if answered <= 3 {
			t.Errorf("a cancelled call was answered: %s", got)
		}
	}
	if answered > 0 {
		t.Errorf("%d of %d calls cancelled in the write that sent them were answered", answered, calls)
	}
}
