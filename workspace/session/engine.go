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
	"github.com/docir/docir/workspace/wire"
)

// Capabilities a session may report in workspace/discover.
const (
	CapabilityRefresh      = "refresh"
	CapabilityParallelRead = "parallel_read"
)

// Config is what an Engine serves.
type Config struct {
	// Reader answers every read; federation may stand behind it.
	Reader docir.Reader
	// Local answers the reads of requests that come from a peer (HTTP
	// requests marked wire.HeaderPeer): the local store alone, so that a
	// peer's request is never federated again. Nil means Reader.
	Local docir.Reader
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
// it frames (Handle), MCP hands it method calls (Call), and a batch engine
// running inside an outer call hands it inner frames (Dispatch). It is safe
// for concurrent use: reads run side by side, a refresh runs alone.
type Engine struct {
	cfg     Config
	methods map[string]methodFunc
	names   []string // sorted
	caps    []string // sorted
	log     *slog.Logger

	// mu keeps a refresh from running beside an outer call: reads share
	// it, a refresh takes it alone. Only outer calls (Handle, Call) take it;
	// inner calls (Dispatch) run under their outer call's hold, so a
	// refresh waiting for the lock cannot deadlock them.
	mu sync.RWMutex
	// maxReply is wire.MaxReplyBytes; tests lower it.
	maxReply int
	// peer is the engine that answers requests from peers: Local's reads,
	// the default policy.
	peer *Engine
}

type methodFunc struct {
	exclusive bool
	run       func(e *Engine, ctx context.Context, params json.RawMessage) (any, error)
}

// New builds the engine for one session. The methods it serves follow from
// the policy, once: a granted refresh adds workspace/refresh, a selected
// read_batch_workers adds workspace/read-batch.
func New(cfg Config) *Engine {
	e := &Engine{cfg: cfg, log: cfg.Log, maxReply: wire.MaxReplyBytes}
	if e.log == nil {
		e.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	e.methods = map[string]methodFunc{
		wire.MethodGet:      {run: (*Engine).get},
		wire.MethodSearch:   {run: (*Engine).search},
		wire.MethodQuery:    {run: (*Engine).query},
		wire.MethodContext:  {run: (*Engine).context},
		wire.MethodStatus:   {run: (*Engine).status},
		wire.MethodDiscover: {run: (*Engine).discover},
	}
	e.caps = []string{}
	if cfg.Policy.Granted(GrantRefresh) {
		e.methods[wire.MethodRefresh] = methodFunc{exclusive: true, run: (*Engine).refresh}
		e.caps = append(e.caps, CapabilityRefresh)
	}
	if cfg.Policy != nil && cfg.Policy.ReadBatchWorkers > 0 {
		e.methods[wire.MethodReadBatch] = methodFunc{run: (*Engine).readBatch}
		e.caps = append(e.caps, CapabilityParallelRead)
	}
	e.names = slices.Sorted(maps.Keys(e.methods))
	e.peer = e
	if cfg.Local != nil || cfg.Policy != nil {
		local := cfg.Local
		if local == nil {
			local = cfg.Reader
		}
		e.peer = New(Config{Reader: local, Version: cfg.Version, Log: cfg.Log})
	}
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

// Handle runs one outer frame and returns the reply line (without its line
// ending), or nil for a notification. It never panics on bad input, and the
// reply is never over MaxReplyBytes: a larger one becomes a
// reply_too_large error to the same id.
func (e *Engine) Handle(ctx context.Context, frame []byte) []byte {
	return e.handle(ctx, frame, true)
}

// Dispatch runs one inner frame for a batch engine that runs inside an
// outer call, and returns exactly the bytes the ordinary NDJSON path writes
// for that frame alone (the reply line and its "\n"), or nil for a
// notification. It does not take the engine lock: the outer call holds it.
func (e *Engine) Dispatch(ctx context.Context, frame []byte) []byte {
	line := e.handle(ctx, frame, false)
	if line == nil {
		return nil
	}
	return append(line, '\n')
}

func (e *Engine) handle(ctx context.Context, frame []byte, outer bool) []byte {
	req, id, werr := wire.DecodeRequest(frame)
	if werr != nil {
		return wire.ErrorLine(id, werr)
	}
	result, werr := e.call(ctx, req.Method, req.Params, outer)
	if req.IsNotification() {
		return nil
	}
	if werr != nil {
		return wire.ErrorLine(req.ID, werr)
	}
	line := wire.EncodeResponse(&wire.Response{ID: req.ID, Result: result})
	if len(line) > e.maxReply {
		return wire.ErrorLine(req.ID, wire.ReplyTooLarge(len(line), e.maxReply))
	}
	return line
}

// Call runs one method with its raw params (nil for none) and returns the
// encoded result, or the error to reply with. Results over MaxReplyBytes
// are a reply_too_large error.
func (e *Engine) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, *wire.Error) {
	return e.call(ctx, method, params, true)
}

func (e *Engine) call(ctx context.Context, method string, params json.RawMessage, outer bool) (result json.RawMessage, werr *wire.Error) {
	m, ok := e.methods[method]
	if !ok {
		return nil, e.noMethod(method)
	}
	switch {
	case !outer:
	case m.exclusive:
		e.mu.Lock()
		defer e.mu.Unlock()
	default:
		e.mu.RLock()
		defer e.mu.RUnlock()
	}
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("docir serve: a method panicked", "method", method, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			result, werr = nil, wire.NewError(docir.CodeInternal, "%s: internal error: %v", method, r)
		}
	}()
	v, err := m.run(e, ctx, params)
	if err != nil {
		return nil, wire.ToWire(err)
	}
	out, err := wire.EncodeResult(v)
	if err != nil {
		return nil, wire.NewError(docir.CodeInternal, "%s: encoding the result: %v", method, err)
	}
	if len(out) > e.maxReply {
		return nil, wire.ReplyTooLarge(len(out), e.maxReply)
	}
	return out, nil
}

func (e *Engine) noMethod(method string) *wire.Error {
	switch method {
	case wire.MethodRefresh:
		return wire.NewError(docir.CodeMethodNotFound, "method %s is not granted by this host's policy (a %s policy with \"grants\": [%q] serves it)", method, PolicyV1, GrantRefresh)
	case wire.MethodReadBatch:
		return wire.NewError(docir.CodeMethodNotFound, "method %s is not selected by this host's policy (a %s policy with \"read_batch_workers\": 1 to 4 serves it)", method, PolicyV2)
	}
	return wire.NewError(docir.CodeMethodNotFound, "no method %q (workspace/discover lists this session's methods)", method)
}

// Discover is this session's workspace/discover reply.
func (e *Engine) Discover() docir.Discovery {
	d := docir.Discovery{
		Schema:       docir.DiscoverySchema,
		Server:       "docir",
		Version:      e.cfg.Version,
		Methods:      e.Methods(),
		Capabilities: slices.Clone(e.caps),
		Limits:       docir.SessionLimits{MaxFrameBytes: wire.MaxFrameBytes, MaxReplyBytes: wire.MaxReplyBytes, MaxDocIDs: docir.MaxBatch},
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
	if err := wire.CheckText(params); err != nil {
		// An address damaged on the way must not read as another one.
		return nil, docir.Errorf(docir.CodeMalformedAddress, "%s: malformed address: %v", wire.MethodGet, err)
	}
	var p docir.GetParams
	if err := wire.DecodeParams(wire.MethodGet, params, &p); err != nil {
		return nil, err
	}
	// Stop gathering bodies once they could not fit in a reply.
	ctx = docir.WithReplyBound(ctx, e.maxReply)
	switch {
	case p.DocID != nil && p.DocIDs != nil:
		return nil, docir.Errorf(docir.CodeInvalidParams, "%s: give doc_id or doc_ids, not both", wire.MethodGet)
	case p.DocID != nil:
		a, err := address.Parse(*p.DocID)
		if err != nil {
			return nil, malformed(err)
		}
		return docir.GetOne(ctx, e.cfg.Reader, a)
	case p.DocIDs != nil:
		if len(p.DocIDs) > docir.MaxBatch {
			return nil, docir.Errorf(docir.CodeInvalidParams, "%s: %d addresses in doc_ids; at most %d in one call", wire.MethodGet, len(p.DocIDs), docir.MaxBatch)
		}
		addrs, err := address.ParseAll(p.DocIDs)
		if err != nil {
			return nil, malformed(err)
		}
		return docir.Get(ctx, e.cfg.Reader, addrs)
	}
	return nil, docir.Errorf(docir.CodeInvalidParams, "%s: want doc_id (one address) or doc_ids (a list of addresses)", wire.MethodGet)
}

func (e *Engine) search(ctx context.Context, params json.RawMessage) (any, error) {
	var p docir.SearchParams
	if err := wire.DecodeParams(wire.MethodSearch, params, &p); err != nil {
		return nil, err
	}
	return e.cfg.Reader.Search(ctx, p)
}

func (e *Engine) query(ctx context.Context, params json.RawMessage) (any, error) {
	var p docir.QueryParams
	if err := wire.DecodeParams(wire.MethodQuery, params, &p); err != nil {
		return nil, err
	}
	return e.cfg.Reader.Query(ctx, p)
}

func (e *Engine) context(ctx context.Context, params json.RawMessage) (any, error) {
	var p docir.ContextParams
	if err := wire.DecodeParams(wire.MethodContext, params, &p); err != nil {
		return nil, err
	}
	return e.cfg.Reader.Context(ctx, p)
}

// noParams is the closed shape of a method that takes none.
type noParams struct{}

func (e *Engine) status(ctx context.Context, params json.RawMessage) (any, error) {
	if err := wire.DecodeParams(wire.MethodStatus, params, &noParams{}); err != nil {
		return nil, err
	}
	return e.cfg.Reader.Status(ctx)
}

func (e *Engine) discover(_ context.Context, params json.RawMessage) (any, error) {
	if err := wire.DecodeParams(wire.MethodDiscover, params, &noParams{}); err != nil {
		return nil, err
	}
	return e.Discover(), nil
}

func (e *Engine) refresh(ctx context.Context, params json.RawMessage) (any, error) {
	if err := wire.DecodeParams(wire.MethodRefresh, params, &noParams{}); err != nil {
		return nil, err
	}
	if e.cfg.Refresh == nil {
		return nil, docir.Errorf(docir.CodeNotImplemented, "%s: this session has no local store to refresh", wire.MethodRefresh)
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
	if err := wire.DecodeParams(wire.MethodReadBatch, params, &p); err != nil {
		return nil, err
	}
	if p.ImageRevision == nil || p.Batch == nil {
		return nil, docir.Errorf(docir.CodeInvalidParams, "%s: want {image_revision, batch: {frames: [...]}}", wire.MethodReadBatch)
	}
	var b readBatchFrames
	if err := wire.DecodeParams(wire.MethodReadBatch+" batch", p.Batch, &b); err != nil {
		return nil, err
	}
	if n := len(b.Frames); n < 1 || n > 16 {
		return nil, docir.Errorf(docir.CodeInvalidParams, "%s: batch.frames holds %d frames; want 1 to 16", wire.MethodReadBatch, n)
	}
	return nil, docir.Errorf(docir.CodeNotImplemented,
		"%s: the read-batch engine is not in this build of docir; the host's selection (read_batch_workers %d) is loaded and reported by %s, and no frame was run",
		wire.MethodReadBatch, e.cfg.Policy.ReadBatchWorkers, wire.MethodDiscover)
}

// malformed prefixes an address parse error with the method; it keeps its
// code (malformed_address) and its cause.
func malformed(err error) error {
	return &docir.Error{Code: docir.CodeMalformedAddress, Message: wire.MethodGet + ": " + err.Error(), Err: err}
}
