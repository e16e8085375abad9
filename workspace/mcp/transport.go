package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// lineTransport is an sdk.Transport over newline-delimited JSON, like the
// SDK's StdioTransport, except that a bad line does not end the session
// (upstream go-sdk issue #1209: its stdio reader stops at the first frame
// it cannot decode). Frames are read with session's bounded LineReader, so
// the bounds are those of the NDJSON transport:
//
//   - a line that is not JSON gets a -32700 reply with id null;
//   - a JSON array (a batch) and a JSON value that is not a JSON-RPC
//     message get a -32600 reply;
//   - a line over wire.MaxFrameBytes is skipped unread and gets a
//     frame_too_large reply;
//   - a reply over wire.MaxReplyBytes is replaced by a reply_too_large
//     error to the same id;
//
// and in every case the session goes on with the next line.
//
// At the end of input it waits for the replies to the requests it has
// read before it reports the end: the SDK cancels requests in flight once
// its reader stops, and a host that writes its requests and closes stdin
// (printf ... | docir serve --mcp) must still get every reply.
type lineTransport struct {
	r   io.Reader
	w   io.Writer
	log *slog.Logger
}

func (t *lineTransport) Connect(context.Context) (sdk.Connection, error) {
	log := t.log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	c := &lineConn{w: t.w, log: log, in: make(chan wire.FrameEvent), closed: make(chan struct{}),
		pending: map[jsonrpc.ID]bool{}, answered: make(chan struct{}, 1)}
	if rc, ok := t.r.(io.Closer); ok {
		c.rc = rc
	}
	go wire.ReadFrames(t.r, c.in, c.closed)
	return c, nil
}

type lineConn struct {
	w   io.Writer
	rc  io.Closer // closed by Close, to unblock the read loop; may be nil
	log *slog.Logger

	in        chan wire.FrameEvent
	closed    chan struct{}
	closeOnce sync.Once

	writeMu sync.Mutex

	// pending holds the ids of the calls read and not yet answered;
	// answered is signalled each time one is.
	pendingMu sync.Mutex
	pending   map[jsonrpc.ID]bool
	answered  chan struct{}

	// initialized is set once an initialize request has passed.
	initialized atomic.Bool
}

// Read returns the next message the SDK can handle, answering the lines it
// cannot itself.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var rr wire.FrameEvent
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case rr = <-c.in:
		}
		if errors.Is(rr.Err, io.EOF) {
			return nil, c.drain(ctx)
		}
		if rr.Err != nil {
			return nil, rr.Err
		}
		if rr.Frame.TooLarge {
			if err := c.writeLine(wire.TooLargeFrame(rr.Frame)); err != nil {
				return nil, err
			}
			continue
		}
		line := wire.TrimJSONSpace(rr.Frame.Line)
		if len(line) == 0 {
			continue
		}
		if reply := c.strict(line); reply != nil {
			if err := c.writeLine(reply); err != nil {
				return nil, err
			}
			continue
		}
		msg, err := jsonrpc.DecodeMessage(line)
		if err == nil {
			if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
				c.pendingMu.Lock()
				c.pending[req.ID] = true
				c.pendingMu.Unlock()
			}
			return msg, nil
		}
		// Say what is wrong the way the NDJSON transport does; when our
		// decoder finds the frame fine, report the SDK's complaint.
		_, id, werr := wire.DecodeRequest(line)
		if werr == nil {
			werr = wire.NewError(docir.CodeInvalidRequest, "invalid request: %v", err)
		}
		if err := c.writeLine(wire.ErrorLine(id, werr)); err != nil {
			return nil, err
		}
	}
}

// strict answers, with the error to send, the frames the SDK would take
// too loosely; nil lets the frame through. MCP ids are strings or integers
// and are echoed exactly, so an id that is null, a fraction, an exponent or
// an integer past 2^53-1 (the SDK holds ids as float64) is refused (-32600, id null) rather than
// answered under another id; a message that is neither a request nor a
// response (no method, no result, no error) is refused (-32600); and a
// call other than initialize or ping before initialize is refused with
// -32600 and data.code invalid_request, naming the lifecycle.
func (c *lineConn) strict(line []byte) []byte {
	if line[0] != '{' {
		return nil // the decoder below says what is wrong
	}
	members, err := wire.Members(line)
	if err != nil {
		return nil
	}
	rawID, hasID := members["id"]
	_, hasMethod := members["method"]
	_, hasResult := members["result"]
	_, hasError := members["error"]
	id := json.RawMessage("null")
	if hasID {
		if !exactID(rawID) {
			return wire.ErrorLine(id, wire.NewError(docir.CodeInvalidRequest,
				"invalid request: id %s: an MCP id is a string or an integer from -(2^53-1) to 2^53-1 (not null), and is echoed exactly", clipID(rawID)))
		}
		id = rawID
	}
	if !hasMethod {
		if hasResult || hasError {
			return nil // a response to a request of ours
		}
		return wire.ErrorLine(id, wire.NewError(docir.CodeInvalidRequest, "invalid request: want a method name (a non-empty string)"))
	}
	var method string
	if json.Unmarshal(members["method"], &method) != nil {
		return nil // the SDK's decoder reports it
	}
	switch {
	case method == "initialize":
		c.initialized.Store(true)
	case hasID && method != "ping" && !c.initialized.Load():
		return wire.ErrorLine(id, wire.NewError(docir.CodeInvalidRequest,
			"invalid request: %s before initialize: an MCP session starts with an initialize request", clipID(members["method"])))
	}
	return nil
}

// exactID reports whether raw is an id the SDK echoes byte for byte: a
// JSON string, or an integer literal within ±maxExactID.
func exactID(raw json.RawMessage) bool {
	switch {
	case len(raw) == 0:
		return false
	case raw[0] == '"':
		var s string
		return json.Unmarshal(raw, &s) == nil
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		n, err := strconv.ParseInt(string(raw), 10, 64)
		return err == nil && strconv.FormatInt(n, 10) == string(raw) && n >= -maxExactID && n <= maxExactID
	}
	return false
}

// maxExactID bounds integer ids: the SDK holds them as float64, which is
// exact up to 2^53-1.
const maxExactID = 1<<53 - 1

// clipID shortens an id or method for an error message.
func clipID(raw json.RawMessage) string {
	if len(raw) > 64 {
		return string(raw[:64]) + "…"
	}
	return string(raw)
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
	if resp, ok := msg.(*jsonrpc.Response); ok {
		defer func() {
			c.pendingMu.Lock()
			delete(c.pending, resp.ID)
			c.pendingMu.Unlock()
			select {
			case c.answered <- struct{}{}:
			default:
			}
		}()
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	if len(data) > wire.MaxReplyBytes {
		resp, ok := msg.(*jsonrpc.Response)
		if !ok {
			return errors.New("docir serve --mcp: an outbound request over the reply bound")
		}
		werr := wire.ReplyTooLarge(len(data), wire.MaxReplyBytes)
		data, err = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: resp.ID, Error: sdkError(werr)})
		if err != nil {
			return err
		}
	}
	return c.writeLine(data)
}

func sdkError(werr *wire.Error) *jsonrpc.Error {
	data, _ := json.Marshal(werr.Data)
	return &jsonrpc.Error{Code: int64(werr.Code), Message: werr.Message, Data: data}
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
