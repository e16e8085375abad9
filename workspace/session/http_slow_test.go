package session

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// poolServer serves a test engine on a pool of slots connections that
// sheds after shed, and returns a dial to it. What dial opened is closed
// when the test ends, before the server shuts down (which waits for it).
func poolServer(t *testing.T, opts HTTPOptions, slots int, shed time.Duration) func() net.Conn {
	e, _ := newTestEngine(t, nil, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveHTTP(ctx, e, newConnPool(ln, slots, shed), opts) }()
	var conns []net.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serveHTTP: %v", err)
		}
	})
	return func() net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		return c
	}
}

// rpcHead is the head of a POST /rpc whose body has size bytes.
func rpcHead(auth string, size int) string {
	h := "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(size) + "\r\n"
	if auth != "" {
		h += "Authorization: " + auth + "\r\n"
	}
	return h + "\r\n"
}

// roundTrip writes req on c and reads the response, within 3 s.
func roundTrip(c net.Conn, req string) (*http.Response, string, error) {
	c.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		return nil, "", err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, string(body), err
}

// TestSlowBodiesHoldNoSlot (hostile review, finding 3): clients that send
// a request's head and then trickle or stall its body held every slot for
// a minute, with or without the token: a refused request's body was read
// (up to 256 KiB) before its connection closed. Now a refused request is
// answered at once and its connection closed unread, and an admitted body
// that is slow may be shed for room: a well-formed client is served while
// every slot is held by a stalled body. A body that is large but comes at
// once is served as before.
func TestSlowBodiesHoldNoSlot(t *testing.T) {
	const slots, shed = 4, 200 * time.Millisecond
	discover := `{"jsonrpc":"2.0","id":1,"method":"workspace/discover"}`
	stall := func(c net.Conn, auth string) {
		t.Helper()
		if _, err := io.WriteString(c, rpcHead(auth, 60000)+"{"); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("wrong token", func(t *testing.T) {
		// Nothing is shed: a refused connection must free its slot itself.
		dial := poolServer(t, HTTPOptions{Token: "s3cret", Loopback: true}, slots, time.Hour)
		var stalled []net.Conn
		for range slots {
			c := dial()
			stall(c, "Bearer wrong")
			stalled = append(stalled, c)
		}
		resp, body, err := roundTrip(dial(), rpcHead("Bearer s3cret", len(discover))+discover)
		if err != nil || resp.StatusCode != 200 || !strings.Contains(body, "docir.discover.v1") {
			t.Fatalf("a client with the token while %d stalled bodies are open: %v %q %v", slots, resp, body, err)
		}
		for i, c := range stalled {
			c.SetReadDeadline(time.Now().Add(3 * time.Second))
			r := bufio.NewReader(c)
			resp, err := http.ReadResponse(r, nil)
			if err != nil || resp.StatusCode != 401 || !resp.Close {
				t.Errorf("stalled body %d with a wrong token: %v %v; want 401 and Connection: close", i, resp, err)
				continue
			}
			io.Copy(io.Discard, resp.Body)
			if n, err := r.Read(make([]byte, 1)); n != 0 || err == nil {
				t.Errorf("stalled body %d: its connection stayed open (%d, %v)", i, n, err)
			}
		}
	})
	t.Run("no token", func(t *testing.T) {
		dial := poolServer(t, HTTPOptions{Loopback: true}, slots, shed)
		for range slots {
			stall(dial(), "")
		}
		resp, body, err := roundTrip(dial(), rpcHead("", len(discover))+discover)
		if err != nil || resp.StatusCode != 200 || !strings.Contains(body, "docir.discover.v1") {
			t.Fatalf("a client while %d stalled bodies are open: %v %q %v", slots, resp, body, err)
		}
	})
	t.Run("large and fast", func(t *testing.T) {
		dial := poolServer(t, HTTPOptions{Loopback: true}, slots, shed)
		big := discover + strings.Repeat(" ", 60000) // under the 64 KiB frame bound
		resp, body, err := roundTrip(dial(), rpcHead("", len(big))+big)
		if err != nil || resp.StatusCode != 200 || !strings.Contains(body, "docir.discover.v1") {
			t.Errorf("a 60 KB body sent at once: %v %q %v", resp, body, err)
		}
		// A body slower than the shed time is served while there is room.
		c := dial()
		if _, err := io.WriteString(c, rpcHead("", len(discover))+discover[:10]); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * shed)
		resp, body, err = roundTrip(c, discover[10:])
		if err != nil || resp.StatusCode != 200 || !strings.Contains(body, "docir.discover.v1") {
			t.Errorf("a slow body with room to spare: %v %q %v", resp, body, err)
		}
	})
}
