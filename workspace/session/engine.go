package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/readbatch"
	"github.com/docir/docir/workspace/binding"
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
	// Hold returns a reader held on one generation of the local store
	// (revision 0: the current one) for work that must not move to a newer
	// generation: a read batch. The binary wraps the view in the federation
	// when peers are declared. Nil: such work answers no_store.
	Hold func(ctx context.Context, revision uint64) (Held, error)
	// Bindings is the local store as execution bindings see it
	// (workspace/bind, workspace/replay, reads with a binding). Nil: those
	// answer no_store.
	Bindings binding.Service
	// Refresh refreshes the local store. The engine serves it as
	// workspace/refresh only when the policy grants refresh, so a caller
	// may always set it. Later reads through Reader must see the new
	// generation.
	Refresh func(context.Context) (docir.IndexSummary, error)
	// Fields lists the local store's front-matter fields (docir/fields);
	// nil: the session does not serve docir/fields.
	Fields func(context.Context) (docir.FieldsResult, error)
	// Policy is the host's, loaded at start-up; nil for the default policy.
	Policy *Policy
	// Version is the binary's version, reported by workspace/discover.
	Version string
	// Log receives what a host should see on stderr (a handler that
	// panicked, a reply that could not be written); nil discards.
	Log *slog.Logger
}

// Held is a reader that answers from one generation of the local store
// until it is closed (workspace.View is one).
type Held interface {
	docir.Reader
	// Generation is the generation it reads.
	Generation() uint64
	// Recording is the held reader with every local document its reads
	// read recorded in log (workspace.View.Recording).
	Recording(log *docir.ReadLog) docir.Reader
	// Authenticate checks that the store still holds that generation as
	// current and that the sources of the documents recorded in log did
	// not change: a source_drift error otherwise.
	Authenticate(ctx context.Context, log *docir.ReadLog) error
	// Pinned is the held reader as a read pinned to it (image_revision,
	// binding) answers, recording what it reads in log when log is not
	// nil: a federation's names, in a warning, each peer it read, since a
	// pin covers the local store only and a peer answers from its current
	// generation.
	Pinned(log *docir.ReadLog) docir.Reader
	// Local is the held generation of the local store alone, without
	// the peers: what workspace/evidence reads. Evidence covers the local
	// store only, on every surface, so that `docir replay --evidence`,
	// which re-runs the read on the local store, gets the same bytes.
	Local() docir.Reader
	Close() error
}

// Engine is the one dispatcher behind every transport: NDJSON and HTTP hand
// it frames (Handle), MCP hands it method calls (Call). One Engine serves
// every client of a process; what a session keeps from one call to the
// next is a Conn's (NewConn), never the Engine's. A read batch's workers
// never see it: they get reads on the held generation, which serve the
// read allowlist and nothing else. It is safe for concurrent use: reads
// run side by side, a refresh runs alone.
type Engine struct {
	cfg     Config
	methods map[string]methodFunc
	names   []string // sorted
	caps    []string // sorted
	log     *slog.Logger

	// mu keeps a refresh from running beside a call: reads share it, a
	// refresh takes it alone. A read batch's inner calls never take it:
	// they run on the batch's reads (see reads), under the batch's hold.
	mu sync.RWMutex
	// maxReply is wire.MaxReplyBytes; tests lower it.
	maxReply int
	// peer is the engine that answers requests from peers: Local's reads,
	// the default policy.
	peer *Engine
	// allow is the read batch's allowlist: the read methods this session
	// serves.
	allow []string
	// reads serves the session's own read methods, on its reader.
	reads *reads
	// running holds a token for each call that runs (see MaxRunning).
	// The engine that answers peers has its own: its reads are the local
	// store's and never wait on a peer, so two servers that are each
	// other's peers cannot each hold the turns the other waits for.
	running chan struct{}
}

// MaxRunning is how many calls a serve process runs at once: twice its
// CPUs (GOMAXPROCS), at least 4. A read is CPU work on a mapped store, so
// more at once than that adds no answers a second, only the memory each
// holds while it runs; a call past it waits its turn (or its
// cancellation) before it starts. Connections are bounded apart
// (MaxConns).
func MaxRunning() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// readMethods are the methods that read the store: the ones a drifted
// session refuses (Conn).
var readMethods = map[string]bool{
	wire.MethodGet: true, wire.MethodSearch: true, wire.MethodQuery: true, wire.MethodContext: true,
	wire.MethodStatus: true, wire.MethodReadBatch: true, wire.MethodFields: true, wire.MethodEvidence: true,
	wire.MethodLinks: true, wire.MethodCheck: true, wire.MethodChanges: true,
}

type methodFunc struct {
	exclusive bool
	run       func(e *Engine, ctx context.Context, params json.RawMessage) (any, error)
	// bounded, when set, runs instead of run, told room: the bytes the
	// result may take for its reply to fit the session's bound around it
	// (a read batch stops assembling past it).
	bounded func(e *Engine, ctx context.Context, params json.RawMessage, room int) (any, error)
}

// New builds the engine for one session. The methods it serves follow from
// the policy, once: a granted refresh adds workspace/refresh, a selected
// read_batch_workers adds workspace/read-batch.
func New(cfg Config) *Engine {
	e := &Engine{cfg: cfg, log: cfg.Log, maxReply: wire.MaxReplyBytes, running: make(chan struct{}, MaxRunning())}
	if e.log == nil {
		e.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	e.reads = e.readsOn(cfg.Reader, nil)
	e.methods = map[string]methodFunc{}
	for _, m := range readbatch.ReadMethods() {
		e.methods[m] = methodFunc{run: func(e *Engine, ctx context.Context, params json.RawMessage) (any, error) {
			return e.reads.run(ctx, m, params)
		}}
	}
	if cfg.Fields != nil {
		e.methods[wire.MethodFields] = methodFunc{run: (*Engine).fields}
	}
	// The paged reads are told the room their result has (CallWithin).
	e.methods[wire.MethodCheck] = methodFunc{bounded: func(e *Engine, ctx context.Context, params json.RawMessage, room int) (any, error) {
		return e.reads.check(ctx, params, room)
	}}
	e.methods[wire.MethodLinks] = methodFunc{bounded: func(e *Engine, ctx context.Context, params json.RawMessage, room int) (any, error) {
		return e.reads.links(ctx, params, room)
	}}
	e.methods[wire.MethodChanges] = methodFunc{bounded: (*Engine).changes}
	e.caps = []string{}
	if cfg.Bindings != nil {
		e.methods[wire.MethodBind] = methodFunc{run: (*Engine).bind}
		e.methods[wire.MethodEvidence] = methodFunc{run: (*Engine).evidence}
		e.methods[wire.MethodReplay] = methodFunc{run: (*Engine).replayMethod}
	}
	if cfg.Policy.Granted(GrantRefresh) {
		e.methods[wire.MethodRefresh] = methodFunc{exclusive: true, run: (*Engine).refresh}
		e.caps = append(e.caps, CapabilityRefresh)
	}
	if cfg.Policy != nil && cfg.Policy.ReadBatchWorkers > 0 {
		e.methods[wire.MethodReadBatch] = methodFunc{bounded: (*Engine).readBatch}
		e.caps = append(e.caps, CapabilityParallelRead)
	}
	for _, m := range readbatch.ReadMethods() {
		if _, ok := e.methods[m]; ok {
			e.allow = append(e.allow, m)
		}
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

// Handle is Conn.Handle in a session of its own that ends with the frame:
// nothing it leaves (a read batch's drift) reaches another call. POST
// /rpc, one request to a session, calls it.
func (e *Engine) Handle(ctx context.Context, frame []byte) []byte {
	return e.NewConn().Handle(ctx, frame)
}

// envelope is the bytes of a reply line to id around its result.
func envelope(id json.RawMessage) int {
	return len(wire.EncodeResponse(&wire.Response{ID: id, Result: json.RawMessage("0")})) - 1
}

// Call is Conn.Call in a session of its own that ends with the call:
// nothing it leaves (a read batch's drift) reaches another call.
func (e *Engine) Call(ctx context.Context, method string, params json.RawMessage) (result json.RawMessage, werr *wire.Error) {
	return e.NewConn().Call(ctx, method, params)
}

// CallWithin is Conn.CallWithin in a session of its own that ends with
// the call.
func (e *Engine) CallWithin(ctx context.Context, method string, params json.RawMessage, room int) (json.RawMessage, *wire.Error) {
	return e.NewConn().CallWithin(ctx, method, params, room)
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

// ReadBatchMethods lists the methods a read batch of this session may run
// (the read allowlist this session serves), sorted; none when the host did
// not select the read batch.
func (e *Engine) ReadBatchMethods() []string {
	if !e.Has(wire.MethodReadBatch) {
		return nil
	}
	return slices.Clone(e.allow)
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

// noZero refuses an explicit 0 for a bound that leaving the key out
// defaults (limit, budget): 0 is out of range, as in the CLI, not a
// silent default.
func noZero(method string, params json.RawMessage, keys ...string) error {
	if len(keys) == 0 {
		return nil
	}
	for _, k := range keys {
		if zeroIn(params, k) {
			def := docir.DefaultLimit
			if k == "budget" {
				def = docir.DefaultBudget
			}
			return docir.Errorf(docir.CodeInvalidParams, "%s: %s 0: want 1 or more (leave %s out for %d)", method, k, k, def)
		}
	}
	return nil
}

// noParams is the closed shape of a method that takes none.
type noParams struct{}

func (e *Engine) fields(ctx context.Context, params json.RawMessage) (any, error) {
	if err := wire.DecodeParams(wire.MethodFields, params, &noParams{}); err != nil {
		return nil, err
	}
	return e.cfg.Fields(ctx)
}

func (e *Engine) refresh(ctx context.Context, params json.RawMessage) (any, error) {
	if err := wire.DecodeParams(wire.MethodRefresh, params, &noParams{}); err != nil {
		return nil, err
	}
	if e.cfg.Refresh == nil {
		return nil, docir.Errorf(docir.CodeNotImplemented, "%s: this session has no local store to refresh", wire.MethodRefresh)
	}
	return e.cfg.Refresh(ctx) // one that succeeds ends its session's drift (Conn.settle)
}

// readBatch runs workspace/read-batch (package readbatch): every inner
// frame on one held generation, at most the policy's workers at once, the
// held source authenticated before and after. A drift found is a
// driftError, which its session keeps (Conn.settle).
func (e *Engine) readBatch(ctx context.Context, params json.RawMessage, room int) (any, error) {
	if e.cfg.Hold == nil {
		return nil, docir.Errorf(docir.CodeNoStore, "%s: this session has no local store to hold", wire.MethodReadBatch)
	}
	h, err := e.cfg.Hold(ctx, 0)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	// What the workers read, on the held generation or on one a frame
	// pins, is recorded in log; the authentication checks what log holds.
	log := &docir.ReadLog{}
	out, err := readbatch.Run(ctx, readbatch.Config{
		Reads:        e.readsOn(h.Recording(log), log),
		Allow:        e.allow,
		Workers:      e.cfg.Policy.ReadBatchWorkers,
		Revision:     h.Generation(),
		Authenticate: func(ctx context.Context) error { return h.Authenticate(ctx, log) },
		MaxReply:     e.maxReply,
		MaxResult:    room,
	}, params)
	if docir.CodeOf(err) == docir.CodeSourceDrift {
		err = &driftError{Err: err, held: h.Generation()}
	}
	var pe *readbatch.PanicError
	if errors.As(err, &pe) {
		e.log.Error("docir serve: a read-batch worker panicked", "frame", pe.Frame, "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
	}
	if err != nil {
		return nil, err
	}
	return json.RawMessage(out), nil
}

// batchEnvelope is room for the reply around a result when the caller
// (MCP) frames the reply itself: Handle counts the reply's own envelope
// and id instead, so that a read batch within its bound is a reply within
// the session's whatever the id (a 7 KB id is batch_too_large, not
// reply_too_large).
const batchEnvelope = 256

// bind runs workspace/bind: a binding to a retained generation (or the
// current one), its receipt, and its hold on the generation in the store
// (ttl: a day unless said; "0": none); or, with release, the end of one
// bind's hold. It does not end a drifted session's refusals (Conn): the
// source still differs from every generation a bind could name.
func (e *Engine) bind(ctx context.Context, params json.RawMessage) (any, error) {
	var p docir.BindParams
	if err := wire.DecodeParams(wire.MethodBind, params, &p); err != nil {
		return nil, err
	}
	if err := revisionGiven(params, p.Revision); err != nil {
		return nil, err
	}
	if e.cfg.Bindings == nil {
		return nil, docir.Errorf(docir.CodeNoStore, "%s: this session has no local store to bind to", wire.MethodBind)
	}
	if p.Release != "" {
		if p.Workspace != "" || p.Revision != 0 || p.TTL != nil {
			return nil, docir.Errorf(docir.CodeInvalidParams, "%s: release goes alone: it ends a hold and binds nothing", wire.MethodBind)
		}
		res, _, err := binding.Release(ctx, e.cfg.Bindings, []byte(p.Release))
		return res, err
	}
	ttl := binding.DefaultHoldTTL
	if p.TTL != nil {
		var err error
		if ttl, err = binding.ParseTTL(*p.TTL); err != nil {
			return nil, docir.Errorf(docir.CodeInvalidParams, "%s: %w", wire.MethodBind, err)
		}
	}
	var b *binding.Binding
	var err error
	switch {
	case p.Workspace == "" && p.Revision == 0:
		b, err = binding.Bind(ctx, e.cfg.Bindings)
	case p.Workspace == "" || p.Revision == 0:
		return nil, docir.Errorf(docir.CodeInvalidParams, "%s: give workspace and revision together (a select), or neither (the current generation)", wire.MethodBind)
	default:
		b, err = binding.Select(ctx, e.cfg.Bindings, p.Workspace, p.Revision)
	}
	if err != nil {
		return nil, err
	}
	h, err := b.Hold(ctx, ttl)
	if err != nil {
		return nil, err
	}
	if h == nil && ttl != 0 {
		return nil, docir.Errorf(docir.CodeInternal, "%s: no hold recorded", wire.MethodBind)
	}
	return b.Result(ctx, h)
}

// revisionGiven refuses a bind whose params write revision as a number
// that decodes to 0 (0, 0.0): generations count from 1, as the schema's
// minimum says. A BindParams.Revision of 0 is also what an absent member
// (or null, as for every optional member) decodes to, the current
// generation, so the member is read from the params themselves; before,
// "revision": 0 alone bound the current generation and told the host
// nothing.
func revisionGiven(params json.RawMessage, rev uint64) error {
	if rev != 0 || len(params) == 0 || params[0] != '{' {
		return nil
	}
	members, err := wire.Members(params)
	if raw, ok := members["revision"]; err == nil && ok && string(raw) != "null" {
		return docir.Errorf(docir.CodeInvalidParams, "%s: revision %s names no generation: they count from 1 (leave revision and workspace out to bind the current generation)",
			wire.MethodBind, docir.Clip(string(raw), 64))
	}
	return nil
}

// evidence runs workspace/evidence: one read on the binding's generation,
// its exact result bytes, and the evidence receipt the binding makes of
// the exact params and result bytes. The receipt is made here, by the
// engine, from bytes it produced; no caller supplies a digest.
func (e *Engine) evidence(ctx context.Context, params json.RawMessage) (any, error) {
	var p docir.EvidenceParams
	if err := wire.DecodeParams(wire.MethodEvidence, params, &p); err != nil {
		return nil, err
	}
	if !slices.Contains(binding.EvidenceMethods(), p.Method) {
		return nil, docir.Errorf(docir.CodeInvalidParams, "%s: method %q: want one of %s", wire.MethodEvidence, p.Method, strings.Join(binding.EvidenceMethods(), ", "))
	}
	if len(p.Params) == 0 || string(p.Params) == "null" {
		p.Params = json.RawMessage("{}")
	}
	var sel docir.Selector
	if err := json.Unmarshal(p.Params, &sel); err == nil && sel.Pinned() {
		return nil, docir.Errorf(docir.CodeInvalidParams, "%s: params must not pin a generation: the binding does", wire.MethodEvidence)
	}
	b, err := e.replay(ctx, []byte(p.Binding))
	if err != nil {
		return nil, err
	}
	if e.cfg.Hold == nil {
		return nil, docir.Errorf(docir.CodeNoStore, "%s: this session has no local store to pin", wire.MethodEvidence)
	}
	h, err := e.cfg.Hold(ctx, b.Revision())
	if err != nil {
		return nil, err
	}
	defer h.Close()
	rd := e.readsOn(h.Local(), nil)
	rd.held = true
	// The reply carries the response as a JSON string (its quotes
	// escaped) beside the evidence record: a page gets a third of the
	// reply, as over MCP, so that a paged read is never reply_too_large.
	rd.room = e.maxReply / 3
	v, err := rd.run(ctx, p.Method, p.Params)
	if err != nil {
		return nil, err
	}
	resp, err := wire.EncodeResult(v)
	if err != nil {
		return nil, err
	}
	ev := b.Evidence(p.Method, p.Params, resp)
	return docir.EvidenceResult{Response: string(resp), Evidence: string(ev.Marshal()), Digest: ev.Digest()}, nil
}

// replayMethod runs workspace/replay: the receipt verified against the
// store's own state, byte for byte.
func (e *Engine) replayMethod(ctx context.Context, params json.RawMessage) (any, error) {
	var p docir.ReplayParams
	if err := wire.DecodeParams(wire.MethodReplay, params, &p); err != nil {
		return nil, err
	}
	b, err := e.replay(ctx, []byte(p.Receipt))
	if err != nil {
		return nil, err
	}
	if p.RequireCurrent {
		if err := b.RequireCurrent(ctx); err != nil {
			return nil, err
		}
	}
	h, err := b.Held(ctx)
	if err != nil {
		return nil, err
	}
	return b.Result(ctx, h)
}

// replay checks a binding receipt against the local store.
func (e *Engine) replay(ctx context.Context, receipt []byte) (*binding.Binding, error) {
	return replay(ctx, e.cfg.Bindings, receipt)
}

// readsOn is the read methods on r: the session's reader for its own
// calls, a held generation for a read batch's workers and for evidence.
// With a log (a read batch's), the reads of a generation a frame pins are
// recorded in it too.
func (e *Engine) readsOn(r docir.Reader, log *docir.ReadLog) *reads {
	return &reads{r: r, pins: pins{hold: e.cfg.Hold, bindings: e.cfg.Bindings, log: log}, maxReply: e.maxReply, discover: e.Discover}
}

// malformedIn prefixes an address parse error with the method; it keeps
// its code (malformed_address) and its cause.
func malformedIn(method string, err error) error {
	return &docir.Error{Code: docir.CodeMalformedAddress, Message: method + ": " + err.Error(), Err: err}
}
