package session

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// do sends a request to the HTTP transport and returns the response with
// its body read.
func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

func rpcRequest(t *testing.T, url, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return req
}

const discoverFrame = `{"jsonrpc":"2.0","id":1,"method":"workspace/discover"}`

// TestHTTPToken: with a token, every request needs "Authorization: Bearer
// <token>"; a missing or wrong one is 401 with a JSON-RPC error body.
func TestHTTPToken(t *testing.T) {
	checkLeaks(t)
	e := New(Config{Reader: &gatedReader{}, Version: "test"})
	url := startHTTP(t, e, HTTPOptions{Token: "s3cret", Loopback: true})
	tests := []struct {
		auth   string // "" for no header
		status int
	}{
		{"", 401},
		{"Bearer wrong", 401},
		{"Bearer s3cre", 401},
		{"Bearer s3cret2", 401},
		{"Basic czNjcmV0", 401},
		{"s3cret", 401},
		{"Bearer s3cret", 200},
		{"bearer s3cret", 200},
	}
	for _, tt := range tests {
		req := rpcRequest(t, url, discoverFrame)
		if tt.auth != "" {
			req.Header.Set("Authorization", tt.auth)
		}
		resp, body := do(t, req)
		if resp.StatusCode != tt.status {
			t.Errorf("Authorization %q: status %d, want %d (%s)", tt.auth, resp.StatusCode, tt.status, body)
			continue
		}
		if tt.status == 401 {
			if resp.Header.Get("WWW-Authenticate") != `Bearer realm="docir"` || !strings.Contains(body, `"data":{"code":"unauthorized"}`) || strings.Contains(body, "s3cret") {
				t.Errorf("Authorization %q: header %q body %s", tt.auth, resp.Header.Get("WWW-Authenticate"), body)
			}
		} else if !strings.Contains(body, `"result":{"schema":"docir.discover.v1"`) {
			t.Errorf("Authorization %q: body %s", tt.auth, body)
		}
	}
}

// TestHTTPTransport: the statuses around the one endpoint, and the body cap.
func TestHTTPTransport(t *testing.T) {
	checkLeaks(t)
	e := New(Config{Reader: &gatedReader{}, Version: "test"})
	url := startHTTP(t, e, HTTPOptions{Loopback: true})
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), RPCPath)

	pad := func(n int) string { // a discover frame of exactly n bytes
		return discoverFrame[:len(discoverFrame)-1] + strings.Repeat(" ", n-len(discoverFrame)) + "}"
	}
	tests := []struct {
		name   string
		req    func() *http.Request
		status int
		body   string // a fragment of the body
	}{
		{"discover", func() *http.Request { return rpcRequest(t, url, discoverFrame) }, 200, `{"jsonrpc":"2.0","id":1,"result":{"schema":"docir.discover.v1"`},
		{"charset", func() *http.Request {
			r := rpcRequest(t, url, discoverFrame)
			r.Header.Set("Content-Type", "application/json; charset=utf-8")
			return r
		}, 200, `"result"`},
		{"a body of exactly the bound", func() *http.Request { return rpcRequest(t, url, pad(wire.MaxFrameBytes)) }, 200, `"result"`},
		{"one byte over", func() *http.Request { return rpcRequest(t, url, pad(wire.MaxFrameBytes+1)) }, 413,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"frame of 65537 bytes is over the 65536-byte bound; it was skipped unread","data":{"code":"frame_too_large"}}}`},
		{"far over, length unknown, id last", func() *http.Request {
			r := rpcRequest(t, url, "")
			r.Body = io.NopCloser(io.MultiReader(strings.NewReader(`{"params":"`), io.LimitReader(repeatReader('a'), 10<<20), strings.NewReader(`","id":"x"}`)))
			r.ContentLength = -1
			return r
		}, 413, `{"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"frame of 10485782 bytes is over the 65536-byte bound; it was skipped unread"`},
		{"past the scan bound, length unknown", func() *http.Request {
			r := rpcRequest(t, url, "")
			r.Body = io.NopCloser(io.MultiReader(strings.NewReader(`{"id":"x","params":"`), io.LimitReader(repeatReader('a'), wire.MaxScanBytes)))
			r.ContentLength = -1
			return r
		}, 413, `{"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"frame of more than 65536 bytes is over the 65536-byte bound; it was not read"`},
		{"notification", func() *http.Request {
			return rpcRequest(t, url, `{"jsonrpc":"2.0","method":"workspace/discover"}`)
		}, 204, ``},
		{"not json", func() *http.Request { return rpcRequest(t, url, `{oops`) }, 200, `"id":null,"error":{"code":-32700`},
		{"batch", func() *http.Request { return rpcRequest(t, url, `[`+discoverFrame+`]`) }, 200, `"data":{"code":"batch_unsupported"}`},
		{"empty body", func() *http.Request { return rpcRequest(t, url, ``) }, 200, `"message":"empty frame: want a JSON-RPC request object"`},
		{"GET", func() *http.Request { r, _ := http.NewRequest(http.MethodGet, url, nil); return r }, 405, `takes POST`},
		{"other path", func() *http.Request { return rpcRequest(t, strings.TrimSuffix(url, RPCPath)+"/", discoverFrame) }, 404, `POST /rpc`},
		{"text/plain", func() *http.Request {
			r := rpcRequest(t, url, discoverFrame)
			r.Header.Set("Content-Type", "text/plain")
			return r
		}, 415, `application/json`},
		{"no content type", func() *http.Request {
			r := rpcRequest(t, url, discoverFrame)
			r.Header.Del("Content-Type")
			return r
		}, 415, `application/json`},
		{"a foreign Host", func() *http.Request {
			r := rpcRequest(t, url, discoverFrame)
			r.Host = "evil.example:" + strings.Split(host, ":")[1]
			return r
		}, 403, `not a loopback name`},
		{"Host localhost", func() *http.Request {
			r := rpcRequest(t, url, discoverFrame)
			r.Host = "localhost:" + strings.Split(host, ":")[1]
			return r
		}, 200, `"result"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := do(t, tt.req())
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.body) {
				t.Errorf("status %d, body %q; want %d with %q", resp.StatusCode, body, tt.status, tt.body)
			}
			if tt.status == 204 && body != "" {
				t.Errorf("204 with body %q", body)
			}
			if tt.status == 405 && resp.Header.Get("Allow") != "POST" {
				t.Errorf("Allow %q", resp.Header.Get("Allow"))
			}
		})
	}
}

// TestHTTPShutdown: a done ctx (SIGTERM) lets the request in hand finish
// and answer, then ServeHTTP returns nil.
func TestHTTPShutdown(t *testing.T) {
	checkLeaks(t)
	g := &gatedReader{entered: make(chan struct{}), release: make(chan struct{})}
	url, cancel, done := listenHTTP(t, New(Config{Reader: g}), HTTPOptions{Loopback: true})
	got := postInBackground(url, `{"jsonrpc":"2.0","id":1,"method":"workspace/status"}`)
	<-g.entered
	cancel()
	close(g.release)
	if body := <-got; !strings.Contains(body, `"result":{"store":"gated"`) {
		t.Fatalf("the request in hand got %q", body)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := http.Post(url, "application/json", strings.NewReader(discoverFrame)); err == nil {
		t.Fatal("the server still answers after shutdown")
	}
	http.DefaultClient.CloseIdleConnections()
}

// postInBackground posts body to url and sends the reply's body (or the
// error) on the channel it returns.
func postInBackground(url, body string) <-chan string {
	got := make(chan string, 1)
	go func() {
		resp, err := http.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			got <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		got <- string(b)
	}()
	return got
}

// hungReader's status runs until its context ends.
type hungReader struct{ gatedReader }

func (h *hungReader) Status(ctx context.Context) (docir.Status, error) {
	h.entered <- struct{}{}
	<-ctx.Done()
	return docir.Status{}, ctx.Err()
}

// TestHTTPShutdownPastTheGrace: a request still running when the grace
// ends is cancelled and answered, to its id, with unavailable saying the
// server is stopping, and ServeHTTP returns nil (before: the connection
// was closed unanswered, "Empty reply from server", and serve exited 1
// with "context deadline exceeded").
func TestHTTPShutdownPastTheGrace(t *testing.T) {
	checkLeaks(t)
	grace := ShutdownGrace
	ShutdownGrace = 200 * time.Millisecond
	t.Cleanup(func() { ShutdownGrace = grace })
	h := &hungReader{gatedReader{entered: make(chan struct{})}}
	url, cancel, done := listenHTTP(t, New(Config{Reader: h}), HTTPOptions{Loopback: true})
	got := postInBackground(url, `{"jsonrpc":"2.0","id":7,"method":"workspace/status"}`)
	<-h.entered
	cancel()
	body := <-got
	if !strings.Contains(body, `"id":7`) || !strings.Contains(body, `"code":"unavailable"`) || !strings.Contains(body, "shutting down") {
		t.Errorf("the request in hand past the grace got %q; want unavailable to its id, saying the server is stopping", body)
	}
	if err := <-done; err != nil {
		t.Errorf("ServeHTTP: %v; want nil (a shutdown asked for)", err)
	}
	http.DefaultClient.CloseIdleConnections()
}

func TestListenAddr(t *testing.T) {
	tests := []struct {
		addr     string
		hostport string
		loopback bool
		err      bool
	}{
		{"7420", "127.0.0.1:7420", true, false},
		{":7420", "127.0.0.1:7420", true, false},
		{"127.0.0.1:0", "127.0.0.1:0", true, false},
		{"127.3.4.5:80", "127.3.4.5:80", true, false},
		{"localhost:7420", "localhost:7420", true, false},
		{"[::1]:7420", "[::1]:7420", true, false},
		{"0.0.0.0:7420", "0.0.0.0:7420", false, false},
		{"[::]:7420", "[::]:7420", false, false},
		{"192.0.2.1:7420", "192.0.2.1:7420", false, false},
		{"", "", false, true},
		{"127.0.0.1:notaport", "", false, true},
		{"1:2:3", "", false, true},
	}
	for _, tt := range tests {
		hp, lb, err := ListenAddr(tt.addr)
		if (err != nil) != tt.err || hp != tt.hostport || lb != tt.loopback {
			t.Errorf("ListenAddr(%q) = %q, %v, %v", tt.addr, hp, lb, err)
		}
	}
}

// The pool holds at most n connections open at once: while none is idle
// long enough to shed, the next Accept waits until one of them is closed.
func TestConnPool(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	l := newConnPool(ln, 2, time.Hour)
	var conns []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	for range 2 {
		c, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	third := make(chan net.Conn)
	go func() {
		c, _ := l.Accept()
		third <- c
	}()
	select {
	case <-third:
		t.Fatal("a third connection was accepted while two were open")
	case <-time.After(100 * time.Millisecond):
	}
	conns[0].Close()
	conns[0].Close() // a second Close frees nothing more
	select {
	case c := <-third:
		c.Close()
	case <-time.After(5 * time.Second):
		t.Fatal("closing a connection did not free its slot")
	}
	conns[1].Close()
}

// TestIdleConnectionsAreShed: with every slot held — by keep-alive
// connections idle between requests, or by connections that say nothing —
// a new client is served within the shed time, not after the idle or
// header timeouts (two minutes; issue 28.10: 64 idle GET /health took
// every slot and a request waited 118 s). A connection busy with a request
// is not closed for room. A health check closes its connection.
func TestIdleConnectionsAreShed(t *testing.T) {
	const slots, shed = 4, 200 * time.Millisecond
	dial := poolServer(t, HTTPOptions{Loopback: true}, slots, shed)
	request := func(c net.Conn, req string) (*http.Response, error) {
		resp, _, err := roundTrip(c, req)
		return resp, err
	}
	discover := `{"jsonrpc":"2.0","id":1,"method":"workspace/discover"}`
	rpc := rpcHead("", len(discover)) + discover
	for _, hold := range []string{"keep-alive", "silent"} {
		for range slots {
			c := dial()
			if hold == "keep-alive" {
				if resp, err := request(c, rpc); err != nil || resp.StatusCode != 200 || resp.Close {
					t.Fatalf("a keep-alive request: %v %v", resp, err)
				}
			}
		}
		start := time.Now()
		resp, err := request(dial(), rpc)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: a new client with every slot held: %v %v", hold, resp, err)
		}
		if waited := time.Since(start); waited > 2*time.Second {
			t.Errorf("%s: a new client waited %v", hold, waited)
		}
	}
	c := dial()
	resp, err := request(c, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	if err != nil || resp.StatusCode != 200 || !resp.Close {
		t.Fatalf("health: %v %v", resp, err)
	}
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	if n, err := c.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("the health check's connection stayed open: %d %v", n, err)
	}
}

// addrConn is a net.Conn with a remote address and nothing else.
type addrConn struct {
	net.Conn
	remote net.Addr
}

func (c addrConn) RemoteAddr() net.Addr { return c.remote }
func (c addrConn) Close() error         { return nil }

// TestShedTheClientHoldingMost: when every slot is held, the connection
// shed is an idle one of the client holding the most connections, the one
// idle longest; a busy connection never is, and one idle for less than the
// shed time is waited for.
func TestShedTheClientHoldingMost(t *testing.T) {
	p := newConnPool(nil, 4, time.Second)
	now := time.Now()
	conn := func(host string, idle bool, since time.Duration) *poolConn {
		c := &poolConn{Conn: addrConn{remote: &net.TCPAddr{IP: net.ParseIP(host), Port: 4000}}, pool: p, idle: idle, since: now.Add(-since)}
		p.open[c] = struct{}{}
		return c
	}
	conn("10.0.0.1", true, time.Hour) // idle longest, but its client holds one
	busy := conn("10.0.0.2", false, 2*time.Hour)
	conn("10.0.0.2", true, 2*time.Second)
	conn("10.0.0.2", true, time.Minute+time.Second)
	victim, _ := p.room()
	if victim == nil || victim.host() != "10.0.0.2" || !victim.idle {
		t.Fatalf("victim %+v, want an idle connection of 10.0.0.2", victim)
	}
	if victim == busy || victim.since != now.Add(-(time.Minute+time.Second)) {
		t.Errorf("victim idle since %v, want the one idle longest of 10.0.0.2", now.Sub(victim.since))
	}
	// Only a connection idle for less than the shed time: wait for it.
	q := newConnPool(nil, 1, time.Second)
	q.open[&poolConn{Conn: addrConn{remote: &net.TCPAddr{IP: net.ParseIP("10.0.0.3")}}, pool: q, idle: true, since: time.Now()}] = struct{}{}
	if victim, wait := q.room(); victim != nil || wait <= 0 || wait > time.Second {
		t.Errorf("a fresh idle connection: victim %v, wait %v", victim, wait)
	}
}

// slowReader's searches run until their context is done.
type slowReader struct{ *gatedReader }

func (slowReader) Search(ctx context.Context, _ docir.SearchParams) (docir.SearchResult, error) {
	<-ctx.Done()
	return docir.SearchResult{}, ctx.Err()
}

// TestHTTPRequestDeadline: a request whose work runs past handleTimeout
// is answered, to its id, with an unavailable error, before the
// connection's write deadline; before, the work ran on and the client got
// its connection closed with no reply (hostile-input review H1).
func TestHTTPRequestDeadline(t *testing.T) {
	checkLeaks(t)
	defer func(d time.Duration) { handleTimeout = d }(handleTimeout)
	handleTimeout = 50 * time.Millisecond
	e := New(Config{Reader: slowReader{&gatedReader{}}, Version: "test"})
	url := startHTTP(t, e, HTTPOptions{Loopback: true})
	resp, body := do(t, rpcRequest(t, url, `{"jsonrpc":"2.0","id":7,"method":"docir/search","params":{"query":"x"}}`))
	if resp.StatusCode != 200 || !strings.Contains(body, `"id":7`) || !strings.Contains(body, `"code":"unavailable"`) {
		t.Errorf("%d %s; want 200 and an unavailable error to id 7", resp.StatusCode, body)
	}
}
