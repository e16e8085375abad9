package session

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// Paths the HTTP transport serves.
const (
	RPCPath    = "/rpc"    // JSON-RPC, one frame per POST
	MCPPath    = "/mcp"    // MCP's Streamable HTTP, when HTTPOptions.MCP is set
	HealthPath = "/health" // GET: {"status":"ok"}, no token needed
)

// ShutdownGrace bounds how long a shutting-down HTTP server waits for the
// requests in hand; past it, the ones still running are cancelled, and
// answered so (errServerStopping, to their ids), within AnswerGrace.
var (
	ShutdownGrace = 10 * time.Second
	AnswerGrace   = 2 * time.Second
)

// errServerStopping is the cause a request still running at the end of
// ShutdownGrace is cancelled with, and what its reply says. Before, the
// server closed its connection unanswered ("Empty reply from server") and
// serve exited 1 with "context deadline exceeded" (a review: a peer that
// hung for 30 s held a get past SIGTERM).
var errServerStopping = docir.Errorf(docir.CodeUnavailable,
	"cancelled: the server is shutting down; ask again once it is back")

// HTTPOptions configure the HTTP transport.
type HTTPOptions struct {
	// Token, when not empty, must come as "Authorization: Bearer <Token>"
	// on every request. It is required on a non-loopback listener.
	Token string
	// Loopback says the listener is on a loopback address: requests must
	// then name a loopback host (Host header), which keeps a web page that
	// rebinds its DNS name to 127.0.0.1 from reaching the server.
	Loopback bool
	// Instance is this process's instance id (the one its own peer
	// requests carry in wire.HeaderPeer): a request that carries it came
	// from this very server, through a peer entry that names itself.
	Instance string
	// MCP, when set, serves MCP's Streamable HTTP transport at MCPPath
	// behind the same token, Host and Origin checks (package mcp builds
	// it).
	MCP http.Handler
}

// HTTPHandler serves POST /rpc: one JSON-RPC frame per request body (at
// most MaxFrameBytes), the reply as the response body. Each request is a
// session of its own (Engine.Handle): nothing one leaves, such as a read
// batch's drift, reaches the next. A request from a
// peer (wire.HeaderPeer) is answered from the local store only, with the
// default policy. Replies, errors
// included, are 200 application/json; a notification is 204. Transport
// failures have their own statuses: 401 a missing or wrong token, 403 a
// non-loopback Host on a loopback listener, 404 another path, 405 another
// method, 413 a body over the bound (with a frame_too_large reply), 415 a
// body that is not application/json.
func (e *Engine) HTTPHandler(opts HTTPOptions) http.Handler {
	return e.httpHandler(opts, nil)
}

// httpHandler is HTTPHandler told the pool its connections come from
// (nil: none).
func (e *Engine) httpHandler(opts HTTPOptions, pool *connPool) *httpHandler {
	h := &httpHandler{e: e, opts: opts, pool: pool}
	if opts.Token != "" {
		h.want = sha256.Sum256([]byte(opts.Token))
	}
	return h
}

// httpHandler is the engine served over HTTP with its options.
type httpHandler struct {
	e    *Engine
	opts HTTPOptions
	want [sha256.Size]byte // the token's digest
	pool *connPool         // told when a connection waits for a body; nil: none
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == HealthPath:
		h.health(w, r)
	case r.URL.Path == MCPPath && h.opts.MCP != nil:
		if h.guard(w, r) {
			done := h.readingBody(w, r)
			r.Body = &bodyDone{ReadCloser: r.Body, done: done}
			if r.Method == http.MethodPost { // a GET is a stream the client holds open
				ctx, cancel := context.WithTimeout(r.Context(), handleTimeout)
				defer cancel()
				r = r.WithContext(ctx)
			}
			h.opts.MCP.ServeHTTP(w, r)
			done()
		}
	case r.URL.Path != RPCPath:
		endpoints := "POST " + RPCPath + ", GET " + HealthPath
		if h.opts.MCP != nil {
			endpoints += ", " + MCPPath + " (MCP Streamable HTTP)"
		}
		refuse(w)
		http.Error(w, "docir serve: the endpoints are "+endpoints, http.StatusNotFound)
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", http.MethodPost)
		refuse(w)
		http.Error(w, "docir serve: "+RPCPath+" takes POST", http.StatusMethodNotAllowed)
	case h.guard(w, r):
		h.rpc(w, r)
	}
}

// refuse readies the answer to a request whose body docir will not read
// (a refused request, a health check): the connection is closed once the
// reply is written, and none of the body is read. Left to itself, the
// server reads up to 256 KiB of an unread body after the handler, to keep
// the connection alive, however slowly it comes: a client that trickled
// a body with a wrong token held a slot as long as one with the right
// token. A read deadline in the past makes that read fail at once.
func refuse(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}

// guard runs the checks every path but /health shares: the Host and
// Origin of a loopback listener, then the token. A refused request is
// answered without reading its body, and its connection is closed.
func (h *httpHandler) guard(w http.ResponseWriter, r *http.Request) bool {
	opts := h.opts
	if opts.Loopback && !loopbackHost(r.Host) {
		refuse(w)
		http.Error(w, fmt.Sprintf("docir serve: Host %q is not a loopback name", r.Host), http.StatusForbidden)
		return false
	}
	if origin := r.Header.Get("Origin"); origin != "" && opts.Loopback && !loopbackOrigin(origin) {
		refuse(w)
		http.Error(w, fmt.Sprintf("docir serve: Origin %q is not a loopback origin", origin), http.StatusForbidden)
		return false
	}
	if opts.Token != "" {
		scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		ok = ok && strings.EqualFold(scheme, "Bearer")
		// Hashing first makes the comparison constant in time whatever
		// the lengths.
		sum := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(sum[:], h.want[:]) != 1 || !ok {
			refuse(w)
			w.Header().Set("WWW-Authenticate", `Bearer realm="docir"`)
			writeReply(w, http.StatusUnauthorized, wire.ErrorLine(nil, wire.NewError(docir.CodeUnauthorized, "missing or wrong bearer token")))
			return false
		}
	}
	return true
}

// readingBody bounds how long the body of an admitted request may take to
// come: bodyTimeout from now. Until done is called, the connection counts
// as idle to its pool: when every slot is held, one whose body has taken
// over the shed time may be closed for room, as an idle one is, so slow
// bodies cannot hold every slot. done (once the body is read, or the
// handler is over) lifts the deadline, so that a long read after the body
// is not cut off, and makes the connection busy again. A request without
// a body is left alone.
func (h *httpHandler) readingBody(w http.ResponseWriter, r *http.Request) (done func()) {
	if r.ContentLength == 0 {
		return func() {}
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(bodyTimeout))
	h.pool.waiting(r.RemoteAddr, true)
	var once sync.Once
	return func() {
		once.Do(func() {
			h.pool.waiting(r.RemoteAddr, false)
			_ = rc.SetReadDeadline(time.Time{})
		})
	}
}

// bodyDone is a request body that calls done when it ends, fails or is
// closed: readingBody's done for a handler that reads the body itself.
type bodyDone struct {
	io.ReadCloser
	done func()
}

func (b *bodyDone) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.done()
	}
	return n, err
}

func (b *bodyDone) Close() error {
	b.done()
	return b.ReadCloser.Close()
}

// health answers GET /health: no token, a loopback Host on a loopback
// listener. A health check pins no slot: its connection is closed, and a
// body is not read.
func (h *httpHandler) health(w http.ResponseWriter, r *http.Request) {
	refuse(w)
	if h.opts.Loopback && !loopbackHost(r.Host) {
		http.Error(w, fmt.Sprintf("docir serve: Host %q is not a loopback name", r.Host), http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "docir serve: "+HealthPath+" takes GET", http.StatusMethodNotAllowed)
		return
	}
	writeReply(w, http.StatusOK, []byte(`{"status":"ok"}`))
}

// rpc answers a guarded POST /rpc: one frame, its reply.
func (h *httpHandler) rpc(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		refuse(w)
		http.Error(w, "docir serve: the body must be application/json (one JSON-RPC request)", http.StatusUnsupportedMediaType)
		return
	}
	// The bound counts every byte, as a line's does in NDJSON.
	done := h.readingBody(w, r)
	f, err := wire.ReadBody(r.Body, wire.MaxFrameBytes)
	done()
	if err != nil || f.TooLarge && f.Size < 0 {
		refuse(w) // what is left of the body is never read
	}
	if err != nil {
		http.Error(w, "docir serve: reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	if f.TooLarge {
		writeTooLarge(w, r, f)
		return
	}
	body := f.Line
	handler := h.e
	if from := r.Header.Get(wire.HeaderPeer); from != "" {
		if h.opts.Instance != "" && from == h.opts.Instance {
			writeReply(w, http.StatusOK, wire.ErrorLine(wire.ScanID(body, true), wire.NewError(docir.CodeUnavailable,
				"this server is the peer itself: a peers entry of its config names its own url; remove it")))
			return
		}
		handler = h.e.peer // a peer's request is answered locally, never federated again
	}
	ctx, cancel := requestContext(r, handleTimeout)
	defer cancel()
	reply := handler.Handle(ctx, body)
	if reply == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeReply(w, http.StatusOK, reply)
}

// errClientClosed is why a POST /rpc request is cancelled when Go's
// server cancels its context: a read of its connection ended (EOF, or an
// error) while it was served. A client that half-closes after its request
// (shutdown(SHUT_WR), net.TCPConn.CloseWrite) sends the same FIN as one
// that closes, and net/http, which reads on in the background, cancels
// the request for either; one that half-closed still reads the reply,
// which then says so (a reset or another read error cancels it too, so the
// message names no more than that the connection ended), with the code of
// a request cancelled before its answer (unavailable), not "context
// canceled" (once internal, -32603).
var errClientClosed = docir.Errorf(docir.CodeUnavailable,
	"cancelled: the client's connection ended (closed or half-closed) before the answer; keep it open until the reply is read")

// requestContext is the context a POST /rpc request's work runs in: done
// at the deadline d, or, with errClientClosed as its cause, when r's
// context is (the client's connection ended: see errClientClosed).
func requestContext(r *http.Request, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancelCause := context.WithCancelCause(context.WithoutCancel(r.Context()))
	stop := context.AfterFunc(r.Context(), func() {
		if c := context.Cause(r.Context()); errors.Is(c, errServerStopping) {
			cancelCause(c) // the server's grace ended, not the client's connection
			return
		}
		cancelCause(errClientClosed)
	})
	ctx, cancel := context.WithTimeout(ctx, d)
	return ctx, func() {
		stop()
		cancel()
		cancelCause(nil)
	}
}

// writeTooLarge answers a body over the frame bound: 413 with a
// frame_too_large reply to its id. A body that did not end within
// wire.MaxScanBytes was left unread: its size is the one the request
// declared, if any, and its connection is closed.
func writeTooLarge(w http.ResponseWriter, r *http.Request, f wire.Frame) {
	if f.Size < 0 {
		f.Size = r.ContentLength // and the connection is closed (refuse)
	}
	writeReply(w, http.StatusRequestEntityTooLarge, wire.TooLargeFrame(f))
}

func writeReply(w http.ResponseWriter, status int, line []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(line, '\n'))
}

// loopbackHost reports whether a Host header names this machine by a
// loopback name: localhost or a loopback IP, with any port.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if isLocalhost(host) {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// isLocalhost reports whether host is "localhost" in any ASCII case: not
// by Unicode folding, under which "localhoſt" (a long s) is it too.
func isLocalhost(host string) bool {
	return len(host) == len("localhost") && strings.EqualFold(host, "localhost")
}

// loopbackOrigin reports whether a browser's Origin header names this
// machine by a loopback name.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && loopbackHost(u.Host)
}

// ListenAddr resolves the ADDR of --http: "HOST:PORT", ":PORT" or "PORT".
// No host means 127.0.0.1: a server is on loopback unless asked otherwise.
// loopback reports whether every address HOST names is a loopback one.
func ListenAddr(addr string) (hostport string, loopback bool, err error) {
	if addr == "" {
		return "", false, errors.New("empty address; want HOST:PORT, :PORT or PORT")
	}
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", false, err
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return "", false, fmt.Errorf("port %q: %w", port, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	hostport = net.JoinHostPort(host, port)
	if isLocalhost(host) {
		return hostport, true, nil
	}
	if ip := net.ParseIP(host); ip != nil {
		return hostport, ip.IsLoopback(), nil
	}
	ips, err := net.LookupIP(host)
	if err != nil {
		return "", false, err
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return hostport, false, nil
		}
	}
	return hostport, len(ips) > 0, nil
}

// Bounds of the HTTP server: a client that is slow to send or to read
// cannot hold a connection forever, and no more than MaxConns connections
// are open at once. When all are open, the connection idle longest (kept
// alive between requests, accepted and silent, or waiting for the body of
// its request) is closed once it has been idle for ShedAfter, to make
// room; a connection busy with a request whose body has come is never
// closed for room. A health check, and a request refused before it is
// served (no token, a foreign Host, another path), close their connection
// without reading a body: they pin no slot. The connection shed is one of
// the client that holds the most.
//
// bodyTimeout bounds how long an admitted request's body may take once
// its headers are in. A body docir answers is at most 64 KiB
// (wire.MaxFrameBytes), 6.4 KB/s over 10 s; a larger one is read for its
// id up to 16 MiB (wire.MaxScanBytes), which takes 1.6 MB/s. A body
// slower than that gets 400 and its connection closed.
const (
	MaxConns          = 64
	ShedAfter         = time.Second
	readHeaderTimeout = 10 * time.Second
	bodyTimeout       = 10 * time.Second
	readTimeout       = time.Minute
	writeTimeout      = 2 * time.Minute
	idleTimeout       = 2 * time.Minute
)

// handleTimeout is how long a request's work may run (its context's
// deadline): short enough of writeTimeout that its reply, an unavailable
// error when the work ran past it, is written before the connection's
// write deadline; past that, the reply would be lost with the connection
// and the work would run on for no one.
var handleTimeout = writeTimeout - 15*time.Second

// ServeHTTP serves the engine on ln until ctx is done, then shuts down:
// no new connections, requests in hand finish (up to ShutdownGrace).
func ServeHTTP(ctx context.Context, e *Engine, ln net.Listener, opts HTTPOptions) error {
	return serveHTTP(ctx, e, newConnPool(ln, MaxConns, ShedAfter), opts)
}

func serveHTTP(ctx context.Context, e *Engine, pool *connPool, opts HTTPOptions) error {
	// Every request's context is below work, which the end of the grace
	// cancels (errServerStopping): a request in hand then, however long
	// its work would run, is answered.
	work, stopWork := context.WithCancelCause(context.WithoutCancel(ctx))
	defer stopWork(nil)
	srv := &http.Server{
		BaseContext:       func(net.Listener) context.Context { return work },
		Handler:           e.httpHandler(opts, pool),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    16 << 10,
		ConnState:         pool.track,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(pool) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	err := shutdown(srv, ShutdownGrace)
	if errors.Is(err, context.DeadlineExceeded) {
		stopWork(errServerStopping)
		if err = shutdown(srv, AnswerGrace); errors.Is(err, context.DeadlineExceeded) {
			err = srv.Close() // work that ignores its context: cut, as asked
		}
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// shutdown is srv.Shutdown within d.
func shutdown(srv *http.Server, d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return srv.Shutdown(ctx)
}

// connPool is a listener that holds at most max connections open at once.
// When all are open, Accept closes the connection idle longest once it has
// been idle for shedAfter, and takes the next one in its place; while none
// is idle, Accept waits for one to close. The server reports each
// connection's state through track (its ConnState hook).
type connPool struct {
	net.Listener
	max       int
	shedAfter time.Duration

	mu    sync.Mutex
	open  map[*poolConn]struct{}
	freed chan struct{} // a token when a connection closes
}

func newConnPool(ln net.Listener, max int, shedAfter time.Duration) *connPool {
	return &connPool{Listener: ln, max: max, shedAfter: shedAfter, open: map[*poolConn]struct{}{}, freed: make(chan struct{}, 1)}
}

// poolConn is an open connection of a pool.
type poolConn struct {
	net.Conn
	pool *connPool
	once sync.Once
	// idle: no request in hand, or one whose body has not all come
	// (guarded by pool.mu).
	idle  bool
	since time.Time // when it became idle (guarded by pool.mu)
}

// waiting marks the open connection whose remote address is remote (a
// request's RemoteAddr: net/http gives a handler no other way to its
// connection) as waiting for its request's body (on: it may be shed for
// room, as an idle one may) or as busy with the request. A nil pool (a
// handler served without one) does nothing.
func (p *connPool) waiting(remote string, on bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var c *poolConn
	for pc := range p.open {
		if pc.RemoteAddr().String() == remote {
			c = pc
			break
		}
	}
	if c == nil {
		return
	}
	c.idle = on
	if on {
		c.since = time.Now()
		select { // an Accept waiting for room looks again
		case p.freed <- struct{}{}:
		default:
		}
	}
}

func (p *connPool) Accept() (net.Conn, error) {
	for {
		victim, wait := p.room()
		if victim != nil {
			victim.Close()
			continue
		}
		if wait == 0 {
			break
		}
		t := time.NewTimer(wait)
		select {
		case <-p.freed:
		case <-t.C:
		}
		t.Stop()
	}
	c, err := p.Listener.Accept()
	if err != nil {
		return nil, err
	}
	pc := &poolConn{Conn: c, pool: p, idle: true, since: time.Now()}
	p.mu.Lock()
	p.open[pc] = struct{}{}
	p.mu.Unlock()
	return pc, nil
}

// room says what Accept must do first: nothing (wait 0) when a slot is
// free; close victim when it has been idle for shedAfter; else wait that
// long (or for a close) and look again. The victim is an idle connection
// of the client (remote host) that holds the most connections, the one
// idle longest: a client that holds many sockets gives them up first.
func (p *connPool) room() (victim *poolConn, wait time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.open) < p.max {
		return nil, 0
	}
	held := map[string]int{}
	for c := range p.open {
		held[c.host()]++
	}
	var oldest *poolConn
	for c := range p.open {
		if !c.idle {
			continue
		}
		if oldest == nil || held[c.host()] > held[oldest.host()] ||
			held[c.host()] == held[oldest.host()] && c.since.Before(oldest.since) {
			oldest = c
		}
	}
	if oldest == nil {
		return nil, time.Minute // every connection is busy: a close or an idle one wakes Accept
	}
	if idle := time.Since(oldest.since); idle < p.shedAfter {
		return nil, p.shedAfter - idle
	}
	return oldest, 0
}

// track records a connection's state as the server reports it.
func (p *connPool) track(c net.Conn, state http.ConnState) {
	pc, ok := c.(*poolConn)
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch state {
	case http.StateNew, http.StateIdle:
		pc.idle, pc.since = true, time.Now()
		select { // an Accept waiting for room looks again
		case p.freed <- struct{}{}:
		default:
		}
	case http.StateActive, http.StateHijacked:
		pc.idle = false
	}
}

// host is the connection's remote host, without the port.
func (c *poolConn) host() string {
	addr := c.RemoteAddr().String()
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}

func (c *poolConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.pool.mu.Lock()
		delete(c.pool.open, c)
		c.pool.mu.Unlock()
		select {
		case c.pool.freed <- struct{}{}:
		default:
		}
	})
	return err
}
