package session

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/workspace"
)

// Method names.
const (
	MethodGet       = "docir/get"
	MethodSearch    = "docir/search"
	MethodQuery     = "docir/query"
	MethodContext   = "docir/context"
	MethodStatus    = "workspace/status"
	MethodDiscover  = "workspace/discover"
	MethodRefresh   = "workspace/refresh"    // only when the policy grants "refresh"
	MethodReadBatch = "workspace/read-batch" // only when the policy selects read_batch_workers
)

// Capabilities a session may report in workspace/discover.
const (
	CapabilityRefresh      = "refresh"
	CapabilityParallelRead = "parallel_read"
)

// Config is what an Engine serves.
type Config struct {
	// Reader answers every read; federation may stand behind it.
	Reader workspace.Reader
	// Refresh refreshes the local store. The engine serves it as
	// workspace/refresh only when the policy grants refresh, so a caller
	// may always set it. Later reads through Reader must see the new
	// generation.
	Refresh func(context.Context) (docir.IndexSummary, error)
	// Policy is the host's, loaded at start-up; nil for the default policy.
	Policy *Policy
	// Version is the binary's version, reported by workspace/discover.
	Version string
	// Log receives what a host should see on stderr (a handler that
	// panicked, a reply that could not be written); nil discards.
	Log *slog.Logger
}

// Engine is the one dispatcher behind every transport: NDJSON and HTTP hand
// it frames (Handle), MCP hands it method calls (Call). It is safe for
// concurrent use: reads run side by side, a refresh runs alone.
type Engine struct {
	cfg     Config
	methods map[string]methodFunc
	names   []string // sorted
	caps    []string // sorted
	log     *slog.Logger

	// mu keeps a refresh, which swaps the open generation, from running
	// beside a read of the old one.
	mu sync.RWMutex
	// maxReply is MaxReplyBytes; tests lower it.
	maxReply int
}

type methodFunc struct {
	exclusive bool
	run       func(e *Engine, ctx context.Context, params json.RawMessage) (any, error)
}

// New builds the engine for one session. The methods it serves follow from
// the policy, once: a granted refresh adds workspace/refresh, a selected
// read_batch_workers adds workspace/read-batch.
func New(cfg Config) *Engine {
	e := &Engine{cfg: cfg, log: cfg.Log, maxReply: MaxReplyBytes}
	if e.log == nil {
		e.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	e.methods = map[string]methodFunc{
		MethodGet:      {run: (*Engine).get},
		MethodSearch:   {run: (*Engine).search},
		MethodQuery:    {run: (*Engine).query},
		MethodContext:  {run: (*Engine).context},
		MethodStatus:   {run: (*Engine).status},
		MethodDiscover: {run: (*Engine).discover},
	}
	e.caps = []string{}
	if cfg.Policy.Granted(GrantRefresh) {
		e.methods[MethodRefresh] = methodFunc{exclusive: true, run: (*Engine).refresh}
		e.caps = append(e.caps, CapabilityRefresh)
	}
	if cfg.Policy != nil && cfg.Policy.ReadBatchWorkers > 0 {
		e.methods[MethodReadBatch] = methodFunc{run: (*Engine).readBatch}
		e.caps = append(e.caps, CapabilityParallelRead)
	}
	e.names = slices.Sorted(maps.Keys(e.methods))
	slices.Sort(e.caps)
	return e
}

// Methods lists the methods this session serves, sorted.
func (e *Engine) Methods() []string { return slices.Clone(e.names) }

// Has reports whether the session serves method.
func (e *Engine) Has(method string) bool {
	_, ok := e.methods[method]
	return ok
}

// Handle runs one frame and returns the reply line (without its line
// ending), or nil for a notification. It never panics on bad input, and the
// reply is never over MaxReplyBytes: a larger one becomes a reply_too_large
// error to the same id.
func (e *Engine) Handle(ctx context.Context, frame []byte) []byte {
	req, id, werr := DecodeRequest(frame)
	if werr != nil {
		return ErrorLine(id, werr)
	}
	result, werr := e.Call(ctx, req.Method, req.Params)
	if req.IsNotification() {
		return nil
	}
	if werr != nil {
		return ErrorLine(req.ID, werr)
	}
	line := encodeResponse(&Response{ID: req.ID, Result: result})
	if len(line) > e.maxReply {
		return ErrorLine(req.ID, ReplyTooLarge(len(line), e.maxReply))
	}
	return line
}

// TooLargeFrame is the reply to a frame over MaxFrameBytes, addressed to
// the id read from its first bytes when there is one. A Size under the
// bound means the size is unknown (an HTTP body without Content-Length).
func TooLargeFrame(f Frame) []byte {
	id := PrefixID(f.Prefix)
	if f.Size <= MaxFrameBytes {
		return ErrorLine(id, NewError(docir.CodeFrameTooLarge, "frame of more than %d bytes is over the %d-byte bound; it was not read", MaxFrameBytes, MaxFrameBytes))
	}
	return ErrorLine(id, NewError(docir.CodeFrameTooLarge, "frame of %d bytes is over the %d-byte bound; it was skipped unread", f.Size, MaxFrameBytes))
}

// ReplyTooLarge is the error that replaces a reply of n bytes over the
// bound, in every transport.
func ReplyTooLarge(n, bound int) *WireError {
	return NewError(docir.CodeReplyTooLarge, "reply of %d bytes is over the %d-byte bound; ask for fewer addresses or a lower limit", n, bound)
}

// Call runs one method with its raw params (nil for none) and returns the
// encoded result, or the error to reply with. Results over MaxReplyBytes
// are a reply_too_large error.
func (e *Engine) Call(ctx context.Context, method string, params json.RawMessage) (result json.RawMessage, werr *WireError) {
	m, ok := e.methods[method]
	if !ok {
		return nil, e.noMethod(method)
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
			result, werr = nil, NewError(docir.CodeInternal, "%s: internal error: %v", method, r)
		}
	}()
	v, err := m.run(e, ctx, params)
	if err != nil {
		return nil, ToWire(err)
	}
	out, err := EncodeResult(v)
	if err != nil {
		return nil, NewError(docir.CodeInternal, "%s: encoding the result: %v", method, err)
	}
	if len(out) > e.maxReply {
		return nil, ReplyTooLarge(len(out), e.maxReply)
	}
	return out, nil
}

func (e *Engine) noMethod(method string) *WireError {
	switch method {
	case MethodRefresh:
		return NewError(docir.CodeMethodNotFound, "method %s is not granted by this host's policy (a %s policy with \"grants\": [%q] serves it)", method, PolicyV1, GrantRefresh)
	case MethodReadBatch:
		return NewError(docir.CodeMethodNotFound, "method %s is not selected by this host's policy (a %s policy with \"read_batch_workers\": 1 to 4 serves it)", method, PolicyV2)
	}
	return NewError(docir.CodeMethodNotFound, "no method %q (workspace/discover lists this session's methods)", method)
}

// Discover is this session's workspace/discover reply.
func (e *Engine) Discover() docir.Discovery {
	d := docir.Discovery{
		Schema:       docir.DiscoverySchema,
		Server:       "docir",
		Version:      e.cfg.Version,
		Methods:      e.Methods(),
		Capabilities: slices.Clone(e.caps),
		Limits:       docir.SessionLimits{MaxFrameBytes: MaxFrameBytes, MaxReplyBytes: MaxReplyBytes, MaxDocIDs: docir.MaxBatch},
	}
	if p := e.cfg.Policy; p != nil && p.Schema != "" {
		d.Policy = &p.Schema
		if p.ReadBatchWorkers > 0 {
			d.ReadBatchWorkers = &p.ReadBatchWorkers
		}
	}
	return d
}

func (e *Engine) get(ctx context.Context, params json.RawMessage) (any, error) {
	var p docir.GetParams
	if err := DecodeParams(MethodGet, params, &p); err != nil {
		return nil, err
	}
	switch {
	case p.DocID != nil && p.DocIDs != nil:
		return nil, docir.Errorf(docir.CodeInvalidParams, "%s: give doc_id or doc_ids, not both", MethodGet)
	case p.DocID != nil:
		a, err := address.Parse(*p.DocID)
		if err != nil {
			return nil, malformed(err)
		}
		return e.cfg.Reader.GetOne(ctx, a)
	case p.DocIDs != nil:
		if len(p.DocIDs) > docir.MaxBatch {
			return nil, docir.Errorf(docir.CodeInvalidParams, "%s: %d addresses in doc_ids; at most %d in one call", MethodGet, len(p.DocIDs), docir.MaxBatch)
		}
		addrs, err := workspace.ParseAll(p.DocIDs)
		if err != nil {
			return nil, malformed(err)
		}
		return e.cfg.Reader.Get(ctx, addrs)
	}
	return nil, docir.Errorf(docir.CodeInvalidParams, "%s: want doc_id (one address) or doc_ids (a list of addresses)", MethodGet)
}

func (e *Engine) search(ctx context.Context, params json.RawMessage) (any, error) {
	var p docir.SearchParams
	if err := DecodeParams(MethodSearch, params, &p); err != nil {
		return nil, err
	}
	return e.cfg.Reader.Search(ctx, p)
}

func (e *Engine) query(ctx context.Context, params json.RawMessage) (any, error) {
	var p docir.QueryParams
	if err := DecodeParams(MethodQuery, params, &p); err != nil {
		return nil, err
	}
	return e.cfg.Reader.Query(ctx, p)
}

func (e *Engine) context(ctx context.Context, params json.RawMessage) (any, error) {
	var p docir.ContextParams
	if err := DecodeParams(MethodContext, params, &p); err != nil {
		return nil, err
	}
	return e.cfg.Reader.Context(ctx, p)
}

// noParams is the closed shape of a method that takes none.
type noParams struct{}

func (e *Engine) status(ctx context.Context, params json.RawMessage) (any, error) {
	if err := DecodeParams(MethodStatus, params, &noParams{}); err != nil {
		return nil, err
	}
	return e.cfg.Reader.Status(ctx)
}

func (e *Engine) discover(_ context.Context, params json.RawMessage) (any, error) {
	if err := DecodeParams(MethodDiscover, params, &noParams{}); err != nil {
		return nil, err
	}
	return e.Discover(), nil
}

func (e *Engine) refresh(ctx context.Context, params json.RawMessage) (any, error) {
	if err := DecodeParams(MethodRefresh, params, &noParams{}); err != nil {
		return nil, err
	}
	if e.cfg.Refresh == nil {
		return nil, docir.Errorf(docir.CodeNotImplemented, "%s: this session has no local store to refresh", MethodRefresh)
	}
	return e.cfg.Refresh(ctx)
}

// readBatchParams is the closed shape of workspace/read-batch (see
// ../shared/DESIGN.md); the engine that runs it is a later piece of work.
type readBatchParams struct {
	ImageRevision json.RawMessage `json:"image_revision"`
	Batch         json.RawMessage `json:"batch"`
}

type readBatchFrames struct {
	Frames []string `json:"frames"`
}

func (e *Engine) readBatch(_ context.Context, params json.RawMessage) (any, error) {
	var p readBatchParams
	if err := DecodeParams(MethodReadBatch, params, &p); err != nil {
		return nil, err
	}
	if p.ImageRevision == nil || p.Batch == nil {
		return nil, docir.Errorf(docir.CodeInvalidParams, "%s: want {image_revision, batch: {frames: [...]}}", MethodReadBatch)
	}
	var b readBatchFrames
	if err := DecodeParams(MethodReadBatch+" batch", p.Batch, &b); err != nil {
		return nil, err
	}
	if n := len(b.Frames); n < 1 || n > 16 {
		return nil, docir.Errorf(docir.CodeInvalidParams, "%s: batch.frames holds %d frames; want 1 to 16", MethodReadBatch, n)
	}
	return nil, docir.Errorf(docir.CodeNotImplemented,
		"%s: the read-batch engine is not in this build of docir; the host's selection (read_batch_workers %d) is loaded and reported by %s, and no frame was run",
		MethodReadBatch, e.cfg.Policy.ReadBatchWorkers, MethodDiscover)
}

// malformed prefixes an address parse error with the method; it keeps its
// code (malformed_address) and its cause.
func malformed(err error) error {
	return &docir.Error{Code: docir.CodeMalformedAddress, Message: MethodGet + ": " + err.Error(), Err: err}
}
