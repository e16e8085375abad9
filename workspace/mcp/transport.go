package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/workspace/session"
)

// lineTransport is an sdk.Transport over newline-delimited JSON, like the
// SDK's StdioTransport, except that a bad line does not end the session
// (upstream go-sdk issue #1209: its stdio reader stops at the first frame
// it cannot decode). Frames are read with wire's bounded LineReader, with
// MCP's bound:
//
//   - a line that is not JSON gets a -32700 reply with id null;
//   - a JSON value that is not a JSON-RPC message gets a -32600 reply, and
//     so does a JSON array (a batch) in a session whose protocol has no
//     batches;
//   - a line over MaxFrameBytes is skipped unread and gets a
//     frame_too_large reply, addressed to its id wherever the line holds it;
//   - a reply over wire.MaxReplyBytes is replaced by a reply_too_large
//     error to the same id;
//   - a call with the id of a call not yet answered gets a -32600 reply to
//     that id (see duplicateCall), and the call in flight goes on;
//
// and in every case the session goes on with the next line. The session's
// guard checks every message before the SDK reads it and every reply before
// it is written (see guard); a JSON-RPC batch is served in a session whose
// protocol has batches (2025-03-26), its replies written as one array.
//
// At the end of input it waits for the replies to the requests it has
// read before it reports the end: the SDK cancels requests in flight once
// its reader stops, and a host that writes its requests and closes stdin
// (printf ... | docir serve --mcp) must still get every reply. When stop
// is closed (SIGTERM, SIGINT) it reads no more, drops the messages it read
// and has not handed to the SDK, and ends the same way: the requests in
// hand are answered first (closing the SDK's session instead would finish
// them and drop their replies: it writes nothing once closing).
type lineTransport struct {
	r    io.Reader
	w    io.Writer
	log  *slog.Logger
	stop <-chan struct{} // may be nil: never
}

func (t *lineTransport) Connect(context.Context) (sdk.Connection, error) {
	log := t.log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	c := &lineConn{w: t.w, log: log, in: make(chan wire.FrameEvent), closed: make(chan struct{}), stop: t.stop,
		pending: map[jsonrpc.ID]*batchReply{}, answered: make(chan struct{}, 1)}
	if rc, ok := t.r.(io.Closer); ok {
		c.rc = rc
	}
	go wire.ReadFramesOf(t.r, MaxFrameBytes, c.in, c.closed)
	return c, nil
}

type lineConn struct {
	w   io.Writer
	rc  io.Closer // closed by Close, to unblock the read loop; may be nil
	log *slog.Logger

	in        chan wire.FrameEvent
	closed    chan struct{}
	closeOnce sync.Once
	stop      <-chan struct{} // see lineTransport

	writeMu sync.Mutex

	// pending holds the ids of the calls read and not yet answered, with
	// the batch each belongs to (nil for none); answered is signalled each
	// time one is.
	pendingMu sync.Mutex
	pending   map[jsonrpc.ID]*batchReply
	answered  chan struct{}
	writing   atomic.Int64 // replies being written (see full)

	g     guard
	held  []heldFrame       // frames read and not yet checked, in order (see take), at most maxHeld
	queue []jsonrpc.Message // messages checked and not yet handed to the SDK
	more  bool              // the reader holds the next line already (wire.Frame.More)
	end   error             // the end of input (or a read error), once queue is handed over
}

// batchReply collects the replies to one batch's calls, written as one
// array line once the last is in.
type batchReply struct {
	waiting int
	replies [][]byte
}

// Read returns the next message the SDK can handle, answering the lines it
// cannot itself. The lines that came in one read (a client's one write of
// several messages) are all checked by the guard before the first is handed
// to the SDK: a call and its cancellation sent together get no reply,
// however fast the call (the SDK answers a ping before the next line would
// otherwise have been read; 65 of 300 such pings were answered).
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if c.stopped() {
			return nil, c.drain(ctx)
		}
		if len(c.held) > 0 && c.releasable(c.held[0]) {
			h := c.held[0]
			c.held = c.held[1:]
			if err := c.frame(h.f); err != nil {
				return nil, err
			}
			if h.call {
				if err := c.takeCancels(); err != nil {
					return nil, err
				}
			}
			continue
		}
		// Lines are read on while frames are held, up to maxHeld of them
		// (see MaxPending), and not past the end of input.
		reading := len(c.held) < maxHeld() && c.end == nil
		if len(c.queue) > 0 && !(c.more && reading) {
			msg := c.queue[0]
			c.queue = c.queue[1:]
			return msg, nil
		}
		if c.end != nil && len(c.held) == 0 {
			err := c.end
			if errors.Is(err, io.EOF) {
				return nil, c.drain(ctx)
			}
			return nil, err
		}
		in, answered := c.in, (<-chan struct{})(nil)
		if len(c.held) > 0 {
			// A held frame waits until a call is answered: a host that
			// writes calls and does not read their replies must not fill
			// the process with them (see MaxPending); a batch waits for
			// its session's initialize reply (awaitsInit).
			answered = c.answered
		}
		if !reading {
			in = nil
		}
		var rr wire.FrameEvent
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case <-c.stop:
			continue
		case <-answered:
			continue
		case rr = <-in:
		}
		c.more = rr.Frame.More
		if rr.Err != nil {
			c.end, c.more = rr.Err, false // after what is queued and held
			continue
		}
		if err := c.take(rr.Frame); err != nil {
			return nil, err
		}
	}
}

// heldFrame is a frame read and not yet checked (see take).
type heldFrame struct {
	f    wire.Frame
	call bool   // it may hold a call (callFrame)
	key  string // the id key of the call it holds, "" for none or a batch
}

// take checks the frame f just read, or holds it: a call read while
// MaxPending calls are in hand, a batch read while the session's
// initialize is unanswered (awaitsInit), and any frame read while frames
// are held, in the order read. What came before a held frame is handed on
// now. A cancellation is the one frame taken past held ones, when it names
// a call in flight (the SDK is to see it now: the call may wait for a turn
// to run) or no call at all (it is dropped); one that names a held call
// (or may: a held batch) is held after it, and settles it when it is
// checked: the call gets no reply.
func (c *lineConn) take(f wire.Frame) error {
	h := heldFrame{f: f, call: callFrame(f)}
	if h.call {
		if id := wire.ScanID(wire.TrimJSONSpace(f.Line), true); exactID(id) {
			h.key = idKey(id)
		}
	}
	switch {
	case len(c.held) == 0 && !(c.full() && h.call) && !c.awaitsInit(f):
		return c.frame(f)
	case len(c.held) > 0 && !h.call:
		if id, ok := cancelled(f); ok && (c.inFlight(id) || !c.mayHold(idKey(id))) {
			return c.frame(f)
		}
	}
	c.held = append(c.held, h)
	return nil
}

// takeCancels takes, past the frames held before them, the held
// cancellations that name a call now in hand: one held after its call
// waits for it, and a call released into the session may be answered
// while another held call, which cannot be released yet, stands between
// them (a review: the cancelled call was answered).
func (c *lineConn) takeCancels() error {
	kept := c.held[:0]
	var take []wire.Frame
	for _, h := range c.held {
		if id, ok := cancelled(h.f); ok && c.inFlight(id) {
			take = append(take, h.f)
			continue
		}
		kept = append(kept, h)
	}
	c.held = kept
	for _, f := range take {
		if err := c.frame(f); err != nil {
			return err
		}
	}
	return nil
}

// releasable says the held frame h may be checked now: a call once fewer
// than MaxPending calls are in hand, a batch once the session's protocol
// is settled, anything else at once.
func (c *lineConn) releasable(h heldFrame) bool {
	return !(h.call && c.full()) && !c.awaitsInit(h.f)
}

// mayHold says a held frame may hold the call with id key: a lone call with
// that id, or a batch.
func (c *lineConn) mayHold(key string) bool {
	for _, h := range c.held {
		line := wire.TrimJSONSpace(h.f.Line)
		if h.call && (h.key == key || len(line) > 0 && line[0] == '[') {
			return true
		}
	}
	return false
}

// cancelled returns the id a cancellation frame names (notifications/
// cancelled, no id, an exact requestId); ok is false for any other frame.
func cancelled(f wire.Frame) (id json.RawMessage, ok bool) {
	line := wire.TrimJSONSpace(f.Line)
	if f.TooLarge || len(line) == 0 || line[0] != '{' {
		return nil, false
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil || m.ID != nil || m.Method != "notifications/cancelled" || !exactID(m.Params.RequestID) {
		return nil, false
	}
	return m.Params.RequestID, true
}

// frame checks one frame: a message the SDK can handle is queued for it,
// anything else is answered here.
func (c *lineConn) frame(f wire.Frame) error {
	if f.TooLarge {
		if !exactID(f.ID) {
			f.ID = nil // an id the session would refuse
		}
		return c.writeLine(wire.TooLargeFrame(f))
	}
	line := wire.TrimJSONSpace(f.Line)
	if len(line) == 0 {
		return nil
	}
	var reply []byte
	switch {
	case line[0] == '{':
		if r := c.g.inbound(line); r != nil {
			reply = r.line()
			break
		}
		msg, errLine := c.decode(line)
		switch {
		case errLine != nil:
			c.g.unanswered(wire.ScanID(line, true))
			reply = errLine
		case !c.track(msg, nil):
			// Refused: an initialize so refused settles nothing (the
			// reply of the call in flight with its id is not its).
			c.g.unanswered(wire.ScanID(line, true))
			reply = duplicateCall(wire.ScanID(line, true)).line()
		case c.cancels(msg):
			return nil // it names no call in flight: not the SDK's to see
		default:
			c.queue = append(c.queue, msg)
			return nil
		}
	case line[0] == '[' && json.Valid(line) && c.g.batches():
		reply = c.readBatch(line)
	case line[0] == '[' && json.Valid(line):
		reply = c.g.refuseBatch().line()
	default:
		_, reply = c.decode(line)
	}
	if reply != nil {
		return c.writeLine(reply)
	}
	return nil
}

// decode decodes one message with the SDK's decoder, or returns the error
// line to answer it with: said the way the NDJSON transport says it, or,
// when that finds the frame fine, the SDK's complaint.
func (c *lineConn) decode(msg []byte) (jsonrpc.Message, []byte) {
	m, err := jsonrpc.DecodeMessage(msg)
	if err == nil {
		return m, nil
	}
	_, id, _ := wire.DecodeRequest(msg)
	return nil, wire.ErrorLine(id, decodeError(msg, err))
}

// decodeError is why the SDK's decoder refused msg with err: said the way
// the NDJSON transport says it, or, when that finds the frame fine, the
// SDK's complaint.
func decodeError(msg []byte, err error) *wire.Error {
	if _, _, werr := wire.DecodeRequest(msg); werr != nil {
		return werr
	}
	return wire.NewError(docir.CodeInvalidRequest, "invalid request: %v", err)
}

// readBatch queues a batch's messages for the SDK, or returns the reply
// that refuses it.
func (c *lineConn) readBatch(line []byte) []byte {
	msgs, refused, _ := c.g.batch(line, c.inFlight)
	if refused != nil {
		return refused
	}
	decoded := make([]jsonrpc.Message, len(msgs))
	for i, m := range msgs {
		m = wire.TrimJSONSpace(m)
		msg, err := jsonrpc.DecodeMessage(m)
		if err != nil {
			// The guard let it through and the SDK cannot decode it: the
			// batch does not run, and each of its calls is answered.
			errs := make([]*refusal, len(msgs))
			errs[i] = &refusal{id: json.RawMessage("null"), err: decodeError(m, err)}
			if id := wire.ScanID(m, true); exactID(id) {
				errs[i].id = id
			}
			refused, _ := refusedBatch(msgs, errs)
			return refused
		}
		decoded[i] = msg
	}
	b := &batchReply{}
	for _, msg := range decoded {
		c.track(msg, b)
	}
	for _, msg := range decoded {
		if !c.cancels(msg) {
			c.queue = append(c.queue, msg)
		}
	}
	return nil
}

// MaxPending bounds the calls a stdio session has read and not answered:
// at that many, the next call it reads is held, unchecked, until one is
// answered. Reading ahead of what runs (session.MaxRunning runs at once)
// answers nothing sooner, and a host that writes calls without reading
// their replies (a review: 300,000 pings, 2.3 GB and rising) must not fill
// the process: each call in hand holds at most its frame and its reply,
// MaxFrameBytes and wire.MaxReplyBytes. While a frame is held the session
// reads on, so that a cancellation written after it still reaches the call
// it names (before, it waited behind the held call, and a cancelled call
// was answered); the frames read after a held one are held too, in order,
// up to maxHeld, and then it reads no further until a call is answered. A
// cancellation is taken past the held frames at once when it names a call
// in hand (or no call: it is dropped); one that names a held call is held
// after it, and that call is then answered by no reply. So a cancellation
// is read at once unless maxHeld frames are held before it. A held call is
// taken with the lines that came after it in its read (a call and its
// cancellation sent together are still read together), and a batch whole:
// a read and a batch are bounded by the frame.
func MaxPending() int { return 2 * session.MaxRunning() }

// maxHeld bounds the frames a stdio session holds (see MaxPending): as
// many as the calls it has in hand, each at most MaxFrameBytes.
func maxHeld() int { return MaxPending() }

// awaitsInit says f is a batch read while the session's initialize is
// answered by no reply yet: whether the session has batches is the
// protocol that reply settles, so the batch is held (as a call is while
// the session is full) and checked once the reply is written. A client
// may write its first requests right after initialize, in the same write
// (the guard takes a lone call after it as initialized); before, such a
// batch was refused as "no initialize yet" in a 2025-03-26 session, whose
// batches a server must receive.
func (c *lineConn) awaitsInit(f wire.Frame) bool {
	line := wire.TrimJSONSpace(f.Line)
	return !f.TooLarge && len(line) > 0 && line[0] == '[' && c.g.settling()
}

// callFrame says f may hold a call (or a batch of them, or a reply to a
// request of the session's): a line with an id or an array. A frame over
// the bound is answered as it is read, and holds none.
func callFrame(f wire.Frame) bool {
	line := wire.TrimJSONSpace(f.Line)
	return !f.TooLarge && len(line) > 0 && (line[0] == '[' || line[0] == '{' && wire.ScanID(line, true) != nil)
}

// full reports whether MaxPending calls are in hand: read and not
// answered, or answered and their replies not yet written.
func (c *lineConn) full() bool {
	c.pendingMu.Lock()
	defer c.pendingMu.Unlock()
	return len(c.pending)+int(c.writing.Load()) >= MaxPending()
}

// cancels records msg's cancellation when it is one (notifications/
// cancelled) of a call in flight: read, in this read or before, and not
// yet answered (see guard.cancel). It reports whether msg is a
// cancellation that names no call in flight: one already answered, or
// never sent, or sent after it in the same read. (In a batch, whose order
// JSON-RPC leaves to the server, its calls are taken in flight first: a
// cancellation there names any call of the batch.) Such a one is dropped,
// not handed to the SDK: the SDK handles messages concurrently, and one
// it took before a call it read after (a late cancellation of call 7 and
// a new call 7 in one write) cancelled that call, which then had no reply
// (a review: 11 of 40 such calls). MCP: a cancellation of a request not
// in flight is ignored.
func (c *lineConn) cancels(msg jsonrpc.Message) (stale bool) {
	if req, ok := msg.(*jsonrpc.Request); ok && !req.IsCall() && req.Method == "notifications/cancelled" {
		return c.g.cancel(req.Params, c.inFlight)
	}
	return false
}

// track records a call as pending, in batch b (nil for none). It reports
// false, and records nothing, for a call whose id is pending already: the
// SDK would drop that call unanswered (its id is in use), and the reply to
// the first would be taken for the second's (or written in its batch).
func (c *lineConn) track(msg jsonrpc.Message, b *batchReply) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return true
	}
	c.pendingMu.Lock()
	defer c.pendingMu.Unlock()
	if _, dup := c.pending[req.ID]; dup {
		return false
	}
	c.pending[req.ID] = b
	if b != nil {
		b.waiting++
	}
	return true
}

// inFlight reports whether a call with the exact id raw is pending.
func (c *lineConn) inFlight(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		return false
	}
	c.pendingMu.Lock()
	defer c.pendingMu.Unlock()
	_, ok := c.pending[id]
	return ok
}

// stopped reports whether stop is closed; when it is, the messages read
// and not handed to the SDK are dropped unanswered (nothing after the
// requests in hand is run), and no more are read.
func (c *lineConn) stopped() bool {
	select {
	case <-c.stop:
	default:
		return false
	}
	for _, msg := range c.queue {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			if line := c.settle(req.ID, nil); line != nil {
				_ = c.writeLine(line) // the rest of a batch partly handed
			}
		}
	}
	c.queue, c.more, c.held = nil, false, nil // a held call was never in hand
	return true
}

// drainPatience bounds how long the end of input waits for a reply once
// none has come: a call the SDK never answers must not keep the process.
const drainPatience = 30 * time.Second

// drain waits until every call read has been answered, then reports the
// end of input.
func (c *lineConn) drain(ctx context.Context) error {
	for {
		c.pendingMu.Lock()
		n := len(c.pending)
		c.pendingMu.Unlock()
		if n == 0 {
			return io.EOF
		}
		select {
		case <-c.answered:
		case <-c.closed:
			return io.EOF
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(drainPatience):
			c.log.Warn("docir serve --mcp: end of input with calls still unanswered; closing", "calls", n)
			return io.EOF
		}
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		data, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			return err
		}
		if len(data) > wire.MaxReplyBytes {
			return errors.New("docir serve --mcp: an outbound request over the reply bound")
		}
		return c.writeLine(data)
	}
	// A reply is in hand until it is written: a host that reads no reply
	// holds every writer here, each with its reply (see full).
	c.writing.Add(1)
	defer func() {
		c.writing.Add(-1)
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}()
	var data []byte
	if !c.g.outbound(resp) {
		data = encodeReply(resp)
	}
	if line := c.settle(resp.ID, data); line != nil {
		return c.writeLine(line)
	}
	return nil
}

// settle records the call id as answered with the reply data (nil for
// none: cancelled, or not run) and returns the line to write: the reply,
// the array of its batch's replies once they are all in, or nil. Its
// cancellation, if any, is forgotten once it is no longer pending.
func (c *lineConn) settle(id jsonrpc.ID, data []byte) []byte {
	line := c.unpend(id, data)
	c.g.forget(sdkIDKey(id))
	return line
}

// unpend removes the call id from the calls pending, with settle's result.
func (c *lineConn) unpend(id jsonrpc.ID, data []byte) []byte {
	c.pendingMu.Lock()
	defer c.pendingMu.Unlock()
	b := c.pending[id]
	delete(c.pending, id)
	switch {
	case b == nil:
		return data
	case data != nil:
		b.replies = append(b.replies, data)
	}
	if b.waiting--; b.waiting == 0 && len(b.replies) > 0 {
		return batchLine(b.replies)
	}
	return nil
}

// encodeReply encodes a reply within wire.MaxReplyBytes: one over it is
// replaced by a reply_too_large error to the same id, and one that cannot
// be encoded by an internal error to it.
func encodeReply(resp *jsonrpc.Response) []byte {
	data, err := jsonrpc.EncodeMessage(resp)
	switch {
	case err != nil:
		data, _ = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: resp.ID, Error: sdkError(wire.NewError(docir.CodeInternal, "encoding the reply: %v", err))})
	case len(data) > wire.MaxReplyBytes:
		data, _ = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: resp.ID, Error: sdkError(wire.ReplyTooLarge(len(data), wire.MaxReplyBytes))})
	}
	return data
}

// batchLine is the array line of a batch's replies, within
// wire.MaxReplyBytes: while it is over, its largest reply is replaced by a
// reply_too_large error to the same id, which states that reply's size
// (each is within the bound alone: see encodeReply) and the array's.
func batchLine(replies [][]byte) []byte {
	for {
		n := len(replies) + 1
		big := 0
		for i, r := range replies {
			n += len(r)
			if len(r) > len(replies[big]) {
				big = i
			}
		}
		if n <= wire.MaxReplyBytes || len(replies[big]) < 512 {
			break
		}
		id := wire.ScanID(replies[big], true)
		replies[big] = wire.ErrorLine(id, wire.NewError(docir.CodeReplyTooLarge,
			"reply of %d bytes does not fit in its batch's reply (%d bytes with it, over the %d-byte bound); send the call alone, or ask for fewer addresses or a lower limit",
			len(replies[big]), n, wire.MaxReplyBytes))
	}
	return append(append([]byte{'['}, bytes.Join(replies, []byte{','})...), ']')
}

func (c *lineConn) writeLine(line []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.w.Write(append(line, '\n'))
	return err
}

func (c *lineConn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.closed)
		if c.rc != nil {
			err = c.rc.Close()
		}
	})
	return err
}

func (c *lineConn) SessionID() string { return "" }
