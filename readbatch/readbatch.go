package readbatch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// Schema names the shape of a read-batch result.
//
// Change log:
//
//	docir.read-batch.v1  first version: schema, responses (one raw reply
//	                     line or null per frame, in input order),
//	                     source_authority (always false).
const Schema = "docir.read-batch.v1"

// Method is the name the batch is served under.
const Method = "workspace/read-batch"

// Bounds of one batch.
const (
	MaxFrames     = 16                 // frames in one batch
	MaxFrameBytes = wire.MaxFrameBytes // one inner frame, decoded, without its line ending: the ordinary path's bound
	MinWorkers    = 1
	MaxWorkers    = 4
)

// ReadMethods returns the read allowlist of the contract: the only methods
// a batch may run, sorted. A server passes these (or the part of them it
// serves) as Config.Allow.
func ReadMethods() []string {
	return []string{wire.MethodCheck, wire.MethodContext, wire.MethodGet, wire.MethodLinks, wire.MethodQuery, wire.MethodSearch, wire.MethodDiscover, wire.MethodStatus}
}

// Reads serves the read methods a batch may run, on the generation the
// batch holds. It is all a worker can reach: nothing that refreshes, binds,
// attests or changes the session's state is reachable from it, so a frame
// that got past the allowlist still could not run such a method. It is
// called from up to Config.Workers goroutines at once.
type Reads interface {
	// Call runs one read method with its params (nil when absent or null)
	// and returns the encoded result or the error to reply with, exactly
	// as the ordinary one-frame path computes them.
	Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, *wire.Error)
}

// Config is what one batch runs with.
type Config struct {
	// Reads serves the allowlisted reads on the held generation.
	Reads Reads
	// Allow is the read allowlist (method names). A frame whose decoded
	// method is any other gets a -32601 method_not_found row and nothing
	// runs. It must not name Method itself.
	Allow []string
	// Workers is how many inner calls may run at once: 1 to 4.
	Workers int
	// Revision is the generation the session holds; params.image_revision
	// must equal it.
	Revision uint64
	// Authenticate checks the held source. It is called before any frame
	// runs and again after every worker has joined and the result is
	// assembled (also when it is too large or a worker panicked), with the
	// ctx Run was given; its error is returned as is and no row is.
	Authenticate func(ctx context.Context) error
	// MaxReply bounds one row's reply line as the ordinary path bounds a
	// reply (wire.MaxReplyBytes): a longer one is a reply_too_large row.
	MaxReply int
	// MaxResult bounds the assembled result in bytes; assembly stops once
	// it is passed and the batch answers batch_too_large.
	MaxResult int
}

// Result is the wire shape of a read-batch result. Run assembles its bytes
// directly, in this member order; the type declares the shape for readers
// and tests.
type Result struct {
	Schema string `json:"schema"`
	// Responses holds one raw reply line (with its "\n") per frame, in
	// input order, or null for a blank frame or a notification.
	Responses       []*string `json:"responses"`
	SourceAuthority bool      `json:"source_authority"`
}

// PanicError is the cause of a batch_worker_failed error: the first panic
// that escaped the dispatcher, with the frame it ran and the stack.
type PanicError struct {
	Frame int // index into batch.frames
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("frame %d: panic: %v", e.Frame, e.Value)
}

// Run decodes params ({image_revision, batch: {frames: [1..16 strings]}},
// closed at both levels) and runs the batch. It returns the encoded result
// ({schema, responses, source_authority: false}) or an error: a
// *docir.Error with code batch_malformed (params not as declared, 0 or more
// than 16 frames, an image_revision that is not cfg.Revision),
// batch_too_large (the result passed cfg.MaxResult), batch_worker_failed (a
// worker panicked; its cause is a *PanicError), internal (a Config out of
// its bounds, or ctx done), or the authenticator's error as it returned it.
// No error carries a row.
func Run(ctx context.Context, cfg Config, params json.RawMessage) (json.RawMessage, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	p, err := decodeParams(params)
	if err != nil {
		return nil, err
	}
	if p.revision != cfg.Revision {
		return nil, docir.Errorf(docir.CodeBatchMalformed, "%s: image_revision %d is not the held generation %d; read workspace/status and send the batch again", Method, p.revision, cfg.Revision)
	}
	if err := cfg.Authenticate(ctx); err != nil {
		return nil, err
	}
	b := &batch{cfg: cfg, allow: map[string]bool{}, frames: p.frames, rows: make([][]byte, len(p.frames))}
	for _, m := range cfg.Allow {
		b.allow[m] = true
	}
	b.allowText = strings.Join(slices.Sorted(maps.Keys(b.allow)), ", ")
	b.run(ctx)
	if err := cfg.Authenticate(ctx); err != nil {
		return nil, err
	}
	switch {
	case b.panicked != nil:
		return nil, &docir.Error{Code: docir.CodeBatchWorkerFailed,
			Message: fmt.Sprintf("%s: a worker failed on frame %d (%v); every worker was joined and no rows are returned", Method, b.panicked.Frame, b.panicked.Value),
			Err:     b.panicked}
	case b.tooLarge:
		return nil, docir.Errorf(docir.CodeBatchTooLarge, "%s: the assembled result passed the %d-byte bound (%d bytes after %d of %d frames); no rows are returned: send fewer frames or ask each for less", Method, cfg.MaxResult, b.size, b.done, len(b.frames))
	case ctx.Err() != nil:
		return nil, &docir.Error{Code: docir.CodeInternal, Message: fmt.Sprintf("%s: %v; no rows are returned", Method, ctx.Err()), Err: ctx.Err()}
	}
	return b.assemble(), nil
}

func (cfg *Config) check() error {
	switch {
	case cfg.Reads == nil:
		return docir.Errorf(docir.CodeInternal, "%s: no reads to serve", Method)
	case cfg.MaxReply <= 0:
		return docir.Errorf(docir.CodeInternal, "%s: reply bound %d; want a positive number of bytes", Method, cfg.MaxReply)
	case cfg.Authenticate == nil:
		return docir.Errorf(docir.CodeInternal, "%s: no authenticator", Method)
	case cfg.Workers < MinWorkers || cfg.Workers > MaxWorkers:
		return docir.Errorf(docir.CodeInternal, "%s: %d workers; want %d to %d", Method, cfg.Workers, MinWorkers, MaxWorkers)
	case cfg.MaxResult <= 0:
		return docir.Errorf(docir.CodeInternal, "%s: result bound %d; want a positive number of bytes", Method, cfg.MaxResult)
	case slices.Contains(cfg.Allow, Method):
		return docir.Errorf(docir.CodeInternal, "%s: the allowlist names the batch itself; a batch never nests", Method)
	}
	return nil
}

// The fixed parts of an encoded result.
const (
	resultHead = `{"schema":"` + Schema + `","responses":[`
	resultTail = `],"source_authority":false}`
)

// batch is one run: the frames, and each row as its encoded JSON value.
type batch struct {
	cfg       Config
	allow     map[string]bool
	allowText string // the allowlist, sorted, for messages
	frames    []string
	rows      [][]byte // encoded: a JSON string or null

	mu       sync.Mutex
	size     int // bytes of the result so far
	done     int // rows finished
	tooLarge bool
	panicked *PanicError
}

// run fills rows, at most cfg.Workers frames at once, until every frame is
// done, the result passes its bound, a worker panics, or ctx is done. It
// returns once every worker has joined.
func (b *batch) run(ctx context.Context) {
	b.size = len(resultHead) + len(resultTail) + len(b.frames) - 1 // and the commas
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(b.cfg.Workers)
	for i := range b.frames {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() (err error) {
			if gctx.Err() != nil {
				return nil
			}
			defer func() {
				if r := recover(); r != nil {
					pe := &PanicError{Frame: i, Value: r, Stack: debug.Stack()}
					b.mu.Lock()
					if b.panicked == nil {
						b.panicked = pe
					}
					b.mu.Unlock()
					err = pe // cancels the others
				}
			}()
			row := encodeRow(b.row(gctx, b.frames[i]))
			b.mu.Lock()
			defer b.mu.Unlock()
			b.rows[i] = row
			b.size += len(row)
			b.done++
			if b.size > b.cfg.MaxResult && !b.tooLarge {
				b.tooLarge = true
				cancel()
			}
			return nil
		})
	}
	_ = g.Wait() // a panic is kept in b.panicked
}

// row runs one frame and returns the bytes its row holds, nil for null.
// The frame is decoded once, by the codec every transport dispatches with
// (wire.DecodeRequest), and the allowlist decides on the method that
// decoding found: there is no second reading of the frame that could find
// another method. A frame that is not exactly one JSON-RPC request object
// (after JSON whitespace) is an error row and runs nothing.
func (b *batch) row(ctx context.Context, frame string) []byte {
	line := []byte(frame)
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) > MaxFrameBytes { // checked first, as the ordinary path does
		return append(wire.TooLargeFrame(wire.TooLargeLine(line)), '\n')
	}
	if wire.Blank(line) {
		return nil // the ordinary path skips a blank line
	}
	req, id, werr := wire.DecodeRequest(line)
	if werr != nil {
		return append(wire.ErrorLine(id, werr), '\n')
	}
	var result json.RawMessage
	if b.allow[req.Method] {
		result, werr = b.cfg.Reads.Call(ctx, req.Method, req.Params)
	} else {
		werr = wire.NewError(docir.CodeMethodNotFound, "method %q is not allowed inside %s (allowed: %s); it was not run", req.Method, Method, b.allowText)
	}
	reply := wire.Reply(req, result, werr, b.cfg.MaxReply)
	if reply == nil {
		return nil // a notification: the ordinary path writes nothing
	}
	return append(reply, '\n')
}

// assemble writes the result: the rows in input order.
func (b *batch) assemble() json.RawMessage {
	out := make([]byte, 0, b.size)
	out = append(out, resultHead...)
	for i, row := range b.rows {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, row...)
	}
	return append(out, resultTail...)
}

// encodeRow encodes a row as a JSON string (not escaping <, > and &, as
// every reply of the server), or null.
func encodeRow(line []byte) []byte {
	if line == nil {
		return []byte("null")
	}
	row, err := wire.EncodeResult(string(line))
	if err != nil {
		panic(fmt.Sprintf("readbatch: encoding a row: %v", err)) // a string always encodes
	}
	return row
}
