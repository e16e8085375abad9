package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/workspace/session"
)

// Bounds of MCP over HTTP: at most MaxSessions sessions are open at once.
// A session no request has used for SessionIdle is closed; when
// MaxSessions are open, the one idle longest is closed to admit a new one
// if it has been idle for SessionShed, else the new one is refused (503,
// Retry-After). An open session costs about 16 KB: 40,000 initialize
// requests once held 648 MB.
const (
	MaxSessions = 256
	SessionIdle = 30 * time.Minute
	SessionShed = time.Minute
)

// sessionHeader carries the session id of Streamable HTTP.
const sessionHeader = "Mcp-Session-Id"

// HTTPHandler serves the same tools over the SDK's Streamable HTTP
// transport (`docir serve --mcp --http ADDR`, at session.MCPPath). The
// caller mounts it behind the checks of session.HTTPOptions (token, Host,
// Origin). Every HTTP session shares one server.
//
// In front of the SDK's handler, each POST goes through the session's
// guard, as a stdio line does: the same ids are refused the same way, a
// cancelled call gets no reply, no error has code 0, and batches follow
// the session's protocol. Statuses follow the transport spec: a body that
// is not a message the session takes is 400 (with the JSON-RPC error as
// its body); a call the guard answers with an error to its id, as stdio
// answers it (an unknown method, params missing), is 200 with that error;
// a notification the session ignores is 202; a POST without Mcp-Session-Id
// that is not an initialize is 400; an unknown session is 404; a body
// over MaxFrameBytes is 413.
func HTTPHandler(e *session.Engine, o Options) (http.Handler, error) {
	return newHTTPHandler(e, o, MaxSessions, SessionShed)
}

func newHTTPHandler(e *session.Engine, o Options, max int, shed time.Duration) (*httpHandler, error) {
	s, err := newServer(e, o)
	if err != nil {
		return nil, err
	}
	h := &httpHandler{server: s, max: max, shed: shed, sessions: map[string]*httpSession{}}
	h.sdk = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{
		Logger:              o.Log,
		SessionTimeout:      SessionIdle,
		MaxRequestBodyBytes: MaxFrameBytes,
	})
	return h, nil
}

type httpHandler struct {
	sdk    http.Handler
	server *sdk.Server
	max    int
	shed   time.Duration

	mu       sync.Mutex
	sessions map[string]*httpSession
	admitted int // initialize requests admitted whose session is not yet known
}

// httpSession is one Streamable HTTP session as the guard sees it.
type httpSession struct {
	g        *guard
	last     time.Time      // when a request last ended
	inflight int            // POSTs being served
	calls    map[string]int // the id keys of the calls of the POSTs being served
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get(sessionHeader)
	if r.Method != http.MethodPost {
		h.sdk.ServeHTTP(w, r) // GET (a stream of the server's messages), DELETE: the SDK's
		return
	}
	// The SDK's checks of the headers and the session, in its order, come
	// first: a message the guard answers never reaches them.
	if status, msg := headerRefusal(r); status != 0 {
		http.Error(w, msg, status)
		return
	}
	var s *httpSession
	if sid != "" {
		if s = h.use(sid); s == nil {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		defer h.done(s)
	}
	if len(r.Header.Values("Last-Event-ID")) > 0 {
		http.Error(w, "can't send Last-Event-ID for POST request", http.StatusBadRequest)
		return
	}
	f, err := wire.ReadBody(r.Body, MaxFrameBytes)
	if err != nil {
		http.Error(w, "docir serve: reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	if f.TooLarge {
		if !exactID(f.ID) {
			f.ID = nil
		}
		if f.Size < 0 {
			f.Size = r.ContentLength
			w.Header().Set("Connection", "close") // the rest of the body is unread
		}
		writeRPC(w, http.StatusRequestEntityTooLarge, wire.TooLargeFrame(f))
		return
	}
	body := wire.TrimJSONSpace(f.Line)
	g := &guard{} // a new session's, when the request starts one
	if s != nil {
		g = s.g
	}
	status, out := h.check(s, g, body)
	switch {
	case status == http.StatusAccepted:
		w.WriteHeader(status)
		return
	case status != 0:
		writeRPC(w, status, out)
		return
	}
	body = out
	if s == nil {
		// An initialize without a session: a new session, if there is
		// room for one.
		if !h.admit() {
			w.Header().Set("Retry-After", strconv.Itoa(int(h.shed.Seconds())))
			writeRPC(w, http.StatusServiceUnavailable, wire.ErrorLine(wire.ScanID(body, true), wire.NewError(docir.CodeUnavailable,
				"%d MCP sessions are open and none has been idle for %v: try again shortly", h.max, h.shed)))
			return
		}
	}
	if s != nil {
		defer h.end(s, h.begin(s, body))
	}
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	ow := &outboundWriter{ResponseWriter: w, g: g}
	if s == nil {
		ow.onHeader = func(hd http.Header) { h.register(hd.Get(sessionHeader), g) }
		defer h.unadmit()
	}
	h.sdk.ServeHTTP(ow, r)
}

// check is how the handler answers body itself in session s (nil before
// initialize), whose guard is g: a status and the reply (none for 202).
// Status 0 lets the message through to the SDK, out being the body it
// gets (a batch without the notifications the session ignores).
//
// A message the session takes as a call and answers with an error by its
// own id (an unknown method, params missing: see refusal) is answered 200,
// as the session answers any call it serves, so that a host matches the
// error to its request; input the session does not take (not JSON, an id
// it cannot echo, no session, a batch its protocol lacks) is 400 with the
// JSON-RPC error as the body. A notification the session ignores is 202.
func (h *httpHandler) check(s *httpSession, g *guard, body []byte) (status int, out []byte) {
	refuse := func(line []byte) (int, []byte) { return http.StatusBadRequest, line }
	switch {
	case len(body) == 0:
		return refuse(wire.ErrorLine(nil, wire.NewError(docir.CodeInvalidRequest, "empty body: want a JSON-RPC message")))
	case !json.Valid(body):
		_, id, werr := wire.DecodeRequest(body)
		return refuse(wire.ErrorLine(id, werr))
	case body[0] == '[' && s == nil:
		return refuse(wire.ErrorLine(nil, wire.NewError(docir.CodeInvalidRequest,
			"invalid request: a batch without %s: a session starts with an initialize request, alone", sessionHeader)))
	case body[0] == '[' && !g.batches():
		return refuse(g.refuseBatch().line())
	case body[0] == '[':
		msgs, refused, answer := g.batch(body, nil)
		switch {
		case refused != nil && answer:
			return http.StatusOK, refused
		case refused != nil:
			return refuse(refused)
		case len(msgs) == 0:
			return http.StatusAccepted, nil
		}
		return 0, batchBody(msgs)
	case body[0] != '{':
		return refuse(wire.ErrorLine(nil, wire.NewError(docir.CodeInvalidRequest, "invalid request: a message is a JSON object, not %s", wire.Kind(body[0]))))
	case s != nil:
		return settle(g.inbound(body), body)
	}
	// No session: only an initialize request starts one.
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &m)
	if m.Method == "initialize" && m.ID != nil {
		return settle(g.inbound(body), body)
	}
	id := json.RawMessage(nil)
	if exactID(m.ID) {
		id = m.ID
	}
	return refuse(wire.ErrorLine(id, wire.NewError(docir.CodeInvalidRequest,
		"invalid request: no %s header: a session starts with an initialize request, and every later request carries the session id its reply gave", sessionHeader)))
}

// batchBody is the batch of msgs.
func batchBody(msgs []json.RawMessage) []byte {
	b := []byte{'['}
	for i, m := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m...)
	}
	return append(b, ']')
}

// settle is check's answer to one message the guard has seen: r is its
// refusal (nil: body goes to the SDK).
func settle(r *refusal, body []byte) (status int, out []byte) {
	switch {
	case r == nil:
		return 0, body
	case r.err == nil:
		return http.StatusAccepted, nil
	case r.answer:
		return http.StatusOK, r.line()
	}
	return http.StatusBadRequest, r.line()
}

// headerRefusal is how the SDK's Streamable HTTP handler refuses a POST by
// its headers (go-sdk v1.8.0, streamable.go: ServeHTTP, then
// serveStatefulPOST), in its order: an MCP-Protocol-Version it does not
// negotiate (400: a version from its newest draft on passes there, and so
// here), a Content-Type other than application/json (415), an Accept
// without both application/json and text/event-stream (400). Status 0: none.
func headerRefusal(r *http.Request) (status int, msg string) {
	versions := sdk.SupportedProtocolVersions()
	if v := r.Header.Get("MCP-Protocol-Version"); v != "" && !slices.Contains(versions, v) && v < sdkDraftVersion {
		return http.StatusBadRequest, "Bad Request: Unsupported protocol version (supported versions: " + strings.Join(versions, ",") + ")"
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return http.StatusUnsupportedMediaType, "Content-Type must be 'application/json'"
	}
	var jsonOK, streamOK bool
	for _, value := range r.Header.Values("Accept") {
		for token := range strings.SplitSeq(value, ",") {
			base, _, _ := strings.Cut(strings.TrimSpace(token), ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	if !jsonOK || !streamOK {
		return http.StatusBadRequest, "Accept must contain both 'application/json' and 'text/event-stream'"
	}
	return 0, ""
}

// sdkDraftVersion is the SDK's newest protocol version (a draft), from
// which on its handler does not refuse an MCP-Protocol-Version header.
const sdkDraftVersion = "2026-07-28"

// use marks the session sid busy, or returns nil when it is not open: not
// registered, or closed by the SDK (DELETE, the idle timeout, or shed).
// The SDK's session is gone from its server's sessions once it is closed
// (ServerSession.Close returns after), so a POST after a DELETE's 204 is
// 404 whatever its body, as the SDK answers it.
func (h *httpHandler) use(sid string) *httpSession {
	open := false
	for ss := range h.server.Sessions() {
		if ss.ID() == sid {
			open = true
			break
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sessions[sid]
	switch {
	case s == nil:
	case !open:
		delete(h.sessions, sid)
		return nil
	default:
		s.inflight++
	}
	return s
}

func (h *httpHandler) done(s *httpSession) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s.inflight--
	s.last = time.Now()
}

// begin takes the calls of body, a message or a batch that goes to the
// SDK, as in flight in session s until end, and records its cancellations
// of calls in flight, of this POST or of one still being served (see
// guard.cancel: a call's reply goes in the stream of the POST that sent
// it, so a call whose POST has ended is answered). It returns the calls'
// id keys.
func (h *httpHandler) begin(s *httpSession, body []byte) []string {
	var msgs []json.RawMessage // not body's bytes: unmarshalled into, they would be overwritten
	if body[0] != '[' || json.Unmarshal(body, &msgs) != nil {
		msgs = []json.RawMessage{body}
	}
	var keys []string
	var cancels []json.RawMessage
	for _, m := range msgs {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		switch _ = json.Unmarshal(m, &msg); {
		case msg.Method != "" && exactID(msg.ID):
			keys = append(keys, idKey(msg.ID))
		case msg.Method == "notifications/cancelled" && msg.ID == nil:
			cancels = append(cancels, msg.Params)
		}
	}
	h.mu.Lock()
	if s.calls == nil {
		s.calls = map[string]int{}
	}
	for _, k := range keys {
		s.calls[k]++
	}
	h.mu.Unlock()
	for _, p := range cancels {
		s.g.cancel(p, func(id json.RawMessage) bool {
			h.mu.Lock()
			defer h.mu.Unlock()
			return s.calls[idKey(id)] > 0
		})
	}
	return keys
}

// end settles the calls begin took: once no POST being served has a call
// with its id, a call's cancellation is forgotten.
func (h *httpHandler) end(s *httpSession, keys []string) {
	var settled []string
	h.mu.Lock()
	for _, k := range keys {
		if s.calls[k]--; s.calls[k] <= 0 {
			delete(s.calls, k)
			settled = append(settled, k)
		}
	}
	h.mu.Unlock()
	for _, k := range settled {
		s.g.forget(k)
	}
}

// admit makes room for a new session: true when fewer than max are open
// (counting the ones being initialized), or once the session idle longest
// has been closed, if it has been idle for shed.
func (h *httpHandler) admit() bool {
	h.mu.Lock()
	live := map[string]*sdk.ServerSession{}
	for ss := range h.server.Sessions() {
		live[ss.ID()] = ss
	}
	for id := range h.sessions {
		if live[id] == nil {
			delete(h.sessions, id) // closed by the SDK: idle timeout, DELETE
		}
	}
	if len(h.sessions)+h.admitted < h.max {
		h.admitted++
		h.mu.Unlock()
		return true
	}
	oldest := ""
	for id, s := range h.sessions {
		if s.inflight == 0 && time.Since(s.last) >= h.shed && (oldest == "" || s.last.Before(h.sessions[oldest].last)) {
			oldest = id
		}
	}
	if oldest == "" {
		h.mu.Unlock()
		return false
	}
	delete(h.sessions, oldest)
	h.admitted++
	h.mu.Unlock()
	if ss := live[oldest]; ss != nil {
		_ = ss.Close()
	}
	return true
}

// register records a new session when its initialize reply starts.
func (h *httpHandler) register(sid string, g *guard) {
	if sid == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sessions[sid] = &httpSession{g: g, last: time.Now()}
}

// unadmit releases an admission once its initialize has been served.
func (h *httpHandler) unadmit() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.admitted--
}

// outboundWriter passes the SDK's replies through the session's guard:
// each server-sent event (or JSON body) that carries a reply is dropped
// when the call was cancelled, else written with its error coded and
// within the reply bound.
type outboundWriter struct {
	http.ResponseWriter
	g           *guard
	onHeader    func(http.Header)
	wroteHeader bool
}

func (o *outboundWriter) WriteHeader(status int) {
	if !o.wroteHeader {
		o.wroteHeader = true
		if o.onHeader != nil {
			o.onHeader(o.Header())
		}
	}
	o.ResponseWriter.WriteHeader(status)
}

func (o *outboundWriter) Write(p []byte) (int, error) {
	if !o.wroteHeader {
		o.WriteHeader(http.StatusOK)
	}
	out := p
	switch ct := o.Header().Get("Content-Type"); {
	case strings.HasPrefix(ct, "text/event-stream"):
		out = o.event(p)
	case strings.HasPrefix(ct, "application/json"):
		out = o.message(p)
	}
	if len(out) == 0 {
		return len(p), nil
	}
	if _, err := o.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// event settles one server-sent event (the SDK writes one a Write): its
// data line is a message.
func (o *outboundWriter) event(p []byte) []byte {
	head, rest, ok := bytes.Cut(p, []byte("data: "))
	if !ok || bytes.Contains(head, []byte("\n\n")) {
		return p
	}
	data, tail, _ := bytes.Cut(rest, []byte("\n"))
	msg := o.message(data)
	if msg == nil {
		return nil
	}
	return append(append(append(head, "data: "...), msg...), append([]byte("\n"), tail...)...)
}

// message settles one message the SDK writes: a reply to a cancelled call
// is dropped (nil); a reply goes out coded and bounded.
func (o *outboundWriter) message(data []byte) []byte {
	msg, err := jsonrpc.DecodeMessage(data)
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok {
		return data
	}
	if o.g.outbound(resp) {
		return nil
	}
	return encodeReply(resp)
}

func (o *outboundWriter) Flush() { _ = http.NewResponseController(o.ResponseWriter).Flush() }

func (o *outboundWriter) Unwrap() http.ResponseWriter { return o.ResponseWriter }

// writeRPC writes a JSON-RPC reply line as a response body.
func writeRPC(w http.ResponseWriter, status int, line []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, "%s\n", line)
}
