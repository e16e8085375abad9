package mcp

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
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

// capturing is a lineTransport that keeps the connection it makes, so a
// test can look at its guard.
type capturing struct {
	lineTransport
	conn *lineConn
}

func (c *capturing) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := c.lineTransport.Connect(ctx)
	c.conn, _ = conn.(*lineConn)
	return conn, err
}

// cancellations is how many cancellations g holds.
func cancellations(g *guard) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.cancelled)
}

// TestLateCancellationsAreNotKept: cancellations of calls already
// answered, or never sent, are not kept, so that any number of them leaves
// the promise whole: a call and its cancellation sent together are never
// answered; and a cancellation is forgotten once its call is settled.
// Before, every cancellation was kept; after 1024 the guard ignored the
// rest, and such calls were answered.
func TestLateCancellationsAreNotKept(t *testing.T) {
	checkLeaks(t)
	s, err := newServer(fixture(t, ""), Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	tr := &capturing{lineTransport: lineTransport{r: inR, w: outW}}
	ss, err := s.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		inW.Close()
		_ = ss.Wait()
		outW.Close()
	})
	c := rawOver(t, inW, outR)
	c.initialize("2025-06-18")
	const late = 1100
	for k := range late {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, k))
		c.next()
	}
	for k := range late {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, k))    // answered
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"n%d"}}`, k)) // never sent
	}
	c.send(`{"jsonrpc":"2.0","id":"sync","method":"ping"}`)
	c.next()
	if n := cancellations(&tr.conn.g); n != 0 {
		t.Errorf("%d cancellations kept of calls not in flight", n)
	}
	for k := 100000; k < 100020; k++ {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n"+
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, k, k))
	}
	c.send(`{"jsonrpc":"2.0","id":"end","method":"ping"}`)
	if got := c.next(); !strings.Contains(got, `"id":"end"`) {
		t.Errorf("after %d late cancellations, a call cancelled in the write that sent it was answered: %s", late, got)
	}
	// The SDK answers calls side by side: a call sent with its
	// cancellation may still be settling when "end" is answered, and its
	// cancellation is forgotten just after. Wait up to 10 s for every
	// call to be settled and forgotten (a synchronization, not a measure
	// of speed: a kept cancellation fails it all the same), then count.
	for deadline := time.Now().Add(10 * time.Second); (pendingCalls(tr.conn) > 0 || cancellations(&tr.conn.g) > 0) && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if n := cancellations(&tr.conn.g); n != 0 {
		t.Errorf("%d cancellations kept after their calls were settled", n)
	}
}

// pendingCalls is how many calls c has read and not yet settled.
func pendingCalls(c *lineConn) int {
	c.pendingMu.Lock()
	defer c.pendingMu.Unlock()
	return len(c.pending)
}
