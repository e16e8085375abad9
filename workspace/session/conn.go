package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// Conn is one client's session with the engine, opened by its transport
// (Serve opens one for an NDJSON connection). It holds what a session
// keeps from one call to the next, the drift a read batch found, and
// nothing else: the methods, the policy and the store are the engine's,
// which every session shares. A drift is one session's: no other session,
// new or old, is refused for it. It is safe for concurrent use.
type Conn struct {
	e *Engine
	// drift is set once a read batch of this session found its held
	// source changed: every read then answers it until it is over (see
	// refusal).
	drift atomic.Pointer[drift]
}

// drift is what a read batch that found its held source changed leaves
// in its session.
type drift struct {
	err  error
	held uint64 // the generation the batch held
}

// NewConn starts a session with the engine.
func (e *Engine) NewConn() *Conn { return &Conn{e: e} }

// Handle runs one frame and returns the reply line (without its line
// ending), or nil for a notification. It never panics on bad input, and the
// reply is never over MaxReplyBytes: a larger one becomes a
// reply_too_large error to the same id.
func (c *Conn) Handle(ctx context.Context, frame []byte) []byte {
	req, id, werr := wire.DecodeRequest(frame)
	if werr != nil {
		return wire.ErrorLine(id, werr)
	}
	result, werr := c.call(ctx, req.Method, req.Params, c.e.maxReply-envelope(req.ID))
	return wire.Reply(req, result, werr, c.e.maxReply)
}

// Call runs one method with its raw params (nil for none) and returns the
// encoded result, or the error to reply with. Results over MaxReplyBytes
// are a reply_too_large error. A panic in the method is an internal error
// reply, logged; the session goes on.
func (c *Conn) Call(ctx context.Context, method string, params json.RawMessage) (result json.RawMessage, werr *wire.Error) {
	return c.call(ctx, method, params, c.e.maxReply-batchEnvelope)
}

// CallWithin is Call for a result that room bytes may hold (at most
// Call's): a paged read (docir/check, docir/changes, a doc_id
// docir/links) ends its page within it. MCP calls it, whose reply carries
// a result twice.
func (c *Conn) CallWithin(ctx context.Context, method string, params json.RawMessage, room int) (json.RawMessage, *wire.Error) {
	return c.call(ctx, method, params, min(room, c.e.maxReply-batchEnvelope))
}

// call is Call for a result that room bytes may hold: the rest of the
// reply bound once the reply around it is counted.
func (c *Conn) call(ctx context.Context, method string, params json.RawMessage, room int) (result json.RawMessage, werr *wire.Error) {
	e := c.e
	m, ok := e.methods[method]
	if !ok {
		return nil, e.noMethod(method)
	}
	select {
	case e.running <- struct{}{}:
		defer func() { <-e.running }()
	case <-ctx.Done():
		return nil, wire.ToWire(cancelCause(ctx, method, ctx.Err()))
	}
	if m.exclusive {
		e.mu.Lock()
		defer e.mu.Unlock()
	} else {
		e.mu.RLock()
		defer e.mu.RUnlock()
	}
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("docir serve: a method panicked", "method", method, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			result, werr = nil, wire.NewError(docir.CodeInternal, "%s: internal error: %v", method, r)
		}
	}()
	if readMethods[method] {
		if err := c.refusal(ctx); err != nil {
			return nil, wire.ToWire(err)
		}
	}
	var v any
	var err error
	if m.bounded != nil {
		v, err = m.bounded(e, ctx, params, room)
	} else {
		v, err = m.run(e, ctx, params)
	}
	c.settle(method, err)
	if err != nil {
		return nil, wire.ToWire(cancelCause(ctx, method, err))
	}
	return encodeBounded(method, v, e.maxReply)
}

// cancelCause is err, or, when err is ctx's cancellation and ctx was
// cancelled with a cause of its own, that cause for method: it says who
// cancelled the call and why (a client that closed its side of an HTTP
// connection: see errClientClosed), where err says only "context
// canceled".
func cancelCause(ctx context.Context, method string, err error) error {
	cause := context.Cause(ctx)
	if ctx.Err() == nil || !errors.Is(err, context.Canceled) || cause == nil || errors.Is(cause, context.Canceled) {
		return err
	}
	return fmt.Errorf("%s: %w", method, cause)
}

// refusal is the drift this session answers a read with, or nil. A drift
// is over once the generation its batch held is no longer the current one
// (--watch, `docir index` or a refresh published another): a read would
// answer from that one, which the drift says nothing about. Only a
// drifted session pays for the check (one hold of the current
// generation).
func (c *Conn) refusal(ctx context.Context) error {
	d := c.drift.Load()
	if d == nil {
		return nil
	}
	if cur, ok := c.e.current(ctx); ok && cur != d.held {
		c.drift.CompareAndSwap(d, nil)
		return nil
	}
	return d.err
}

// settle keeps what a call leaves in its session: the drift a read batch
// found, or the end of one (a granted refresh that succeeded: the store
// is whole again, even when the refresh published nothing new).
func (c *Conn) settle(method string, err error) {
	var de *driftError
	switch {
	case errors.As(err, &de):
		c.drift.Store(&drift{err: de.Err, held: de.held})
	case method == wire.MethodRefresh && err == nil:
		c.drift.Store(nil)
	}
}

// current is the generation of the local store a read would answer from
// now; false when there is none to hold.
func (e *Engine) current(ctx context.Context) (uint64, bool) {
	if e.cfg.Hold == nil {
		return 0, false
	}
	h, err := e.cfg.Hold(ctx, 0)
	if err != nil {
		return 0, false
	}
	defer h.Close()
	return h.Generation(), true
}

// driftError is a read batch's source_drift error and the generation the
// batch held: what its session keeps (Conn.settle).
type driftError struct {
	Err  error
	held uint64
}

func (d *driftError) Error() string { return d.Err.Error() }
func (d *driftError) Unwrap() error { return d.Err }
