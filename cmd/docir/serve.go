package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/federation"
	"github.com/docir/docir/store"
	"github.com/docir/docir/workspace"
	"github.com/docir/docir/workspace/binding"
	"github.com/docir/docir/workspace/mcp"
	"github.com/docir/docir/workspace/session"
)

// DefaultTokenEnv is the environment variable --http reads its bearer
// token from, unless --token-env names another.
const DefaultTokenEnv = "DOCIR_HTTP_TOKEN"

// ServeOptions is everything `docir serve` needs.
type ServeOptions struct {
	IO        *IOStreams
	Reader    func() (docir.Reader, error)
	Workspace func() (*workspace.Service, error)
	Config    func() (*loadedConfig, error)
	Getenv    func(string) string
	Version   string

	MCP        bool
	HTTP       string
	HTTPSet    bool
	PolicyFile string
	TokenEnv   string
	// TokenEnvSet: --token-env was given (its variable must then hold a
	// token, on a loopback address too).
	TokenEnvSet bool
	Watch       bool
}

// serveWait bounds how long a read waits for the background indexing of a
// server's first start before it answers an indexing error.
const serveWait = 2 * time.Second

// watchDebounce is how long `serve --watch` waits for the sources to be
// quiet before it refreshes.
const watchDebounce = 500 * time.Millisecond

func newCmdServe(f *Factory, runF func(context.Context, *ServeOptions) error) *cobra.Command {
	// A server says at start whether the sources changed, not at exit.
	reader := func() (docir.Reader, error) {
		r, err := f.serveReader()
		f.reportStale()
		return r, err
	}
	opts := &ServeOptions{IO: f.IO, Reader: reader, Workspace: f.serveWorkspace, Config: f.Config, Getenv: os.Getenv, Version: buildVersion()}
	cmd := &cobra.Command{
		Annotations: map[string]string{longRunning: "true"},
		Use:         "serve [--mcp] [--http ADDR] [--policy FILE] [--watch]",
		Short:       "Answer reads over JSON-RPC: NDJSON on stdio, MCP, or HTTP for peers",
		Long: `Serve the store's reads to a host: over stdio until stdin ends, over
--http until SIGTERM (either stops at SIGTERM or SIGINT).

Default: JSON-RPC 2.0, one frame per line (NDJSON) on stdin and stdout.
Methods: docir/get, docir/search, docir/query, docir/context,
docir/fields, docir/links, docir/check, docir/changes, workspace/status,
workspace/discover, workspace/bind, workspace/evidence, workspace/replay;
workspace/refresh when the host policy grants it, workspace/read-batch
when it selects read_batch_workers. One request at a time, replies in
order.

--mcp speaks MCP over stdio instead (tools get, search, query, context,
fields, links, check, changes, status; refresh and read_batch as the
policy grants the methods). --http ADDR serves POST /rpc,
one frame per request, to peers, and GET /health; with --mcp too it
also serves MCP's Streamable HTTP transport at /mcp. An ADDR without a host listens on 127.0.0.1; on
loopback, requests must name a loopback Host (and Origin, if any). A
non-loopback ADDR needs a bearer token in $` + DefaultTokenEnv + ` (or the
variable --token-env names).

serve answers at once wherever it starts. With a store it serves it;
with sources but no store it indexes them in the background, and reads
wait for that (at most 2 s, then an "indexing" error). With no docir.yaml
it never indexes $HOME, / or a folder without markdown: reads answer an
error that says to run docir index DIR; once a store is published there
(docir index in a shell), reads answer from it. --watch refreshes the
store when a source file or docir.yaml changes; each refresh reads
docir.yaml again, and a failed one is tried again.

--policy FILE is the host policy (docir.host-policy.v1 or .v2), read once
at start-up. Logs go to stderr; stdout carries only replies.
See docs/protocol.md.`,
		Example: `  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_ids":["runbooks/retry-budget","runbooks/disk-full#mitigate"]}}' | docir serve
  docir serve --mcp
  docir serve --mcp --http 7420        # MCP at http://127.0.0.1:7420/mcp
  DOCIR_HTTP_TOKEN=s3cret docir serve --http 0.0.0.0:7420   # any address: a token is needed`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.HTTPSet = cmd.Flags().Changed("http")
			opts.TokenEnvSet = cmd.Flags().Changed("token-env")
			if opts.TokenEnvSet && !opts.HTTPSet {
				return docir.Errorf(docir.CodeUsage, "--token-env applies to --http only")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return serveRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.MCP, "mcp", false, "speak MCP (for agents): over stdio, or at /mcp with --http")
	cmd.Flags().StringVar(&opts.HTTP, "http", "", "serve POST /rpc on `ADDR` (HOST:PORT, :PORT or PORT; no host: 127.0.0.1)")
	cmd.Flags().StringVar(&opts.PolicyFile, "policy", "", "host policy `FILE` (docir.host-policy.v1 or v2); default: no grants")
	cmd.Flags().BoolVar(&opts.Watch, "watch", false, "refresh the store when source files change")
	cmd.Flags().StringVar(&opts.TokenEnv, "token-env", DefaultTokenEnv, "environment `VARIABLE` holding the bearer token for --http")
	f.addFlags(cmd, storeFlags)
	return cmd
}

// httpListen checks --http's address and its bearer token, before
// anything is opened: where to listen, whether it is a loopback address,
// and the token ("" for none). Without --http, all zero.
func httpListen(opts *ServeOptions) (hostport string, loopback bool, token string, err error) {
	if !opts.HTTPSet {
		return "", false, "", nil
	}
	hostport, loopback, err = session.ListenAddr(opts.HTTP)
	if err != nil {
		return "", false, "", docir.Errorf(docir.CodeUsage, "--http %q: %w", opts.HTTP, err)
	}
	token = opts.Getenv(opts.TokenEnv)
	switch {
	case opts.TokenEnvSet && token == "":
		// A token was asked for by name: serving without one, as a
		// loopback address allows, is not what was asked.
		return "", false, "", docir.Errorf(docir.CodeUsage, "--token-env %s: $%s is unset or empty", opts.TokenEnv, opts.TokenEnv)
	case federation.BadHeaderValue(token):
		// No client could send it in a header (a carriage return kept
		// from a file with CRLF line ends): every request would get 401.
		return "", false, "", docir.Errorf(docir.CodeUsage, "$%s holds a control character (a carriage return?), which no Authorization header can carry: set it without one", opts.TokenEnv)
	case strings.TrimSpace(token) != token:
		// A header's value arrives trimmed: "abc " never matches.
		return "", false, "", docir.Errorf(docir.CodeUsage, "$%s begins or ends with white space, which an Authorization header drops: set it without", opts.TokenEnv)
	case !loopback && token == "":
		return "", false, "", docir.Errorf(docir.CodeUsage, "--http %s is not a loopback address: set a bearer token in $%s (or name another variable with --token-env)", hostport, opts.TokenEnv)
	}
	return hostport, loopback, token, nil
}

func serveRun(ctx context.Context, opts *ServeOptions) error {
	log := slog.New(slog.NewTextHandler(opts.IO.ErrOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var policy *session.Policy
	if opts.PolicyFile != "" {
		p, err := session.LoadPolicy(opts.PolicyFile)
		if err != nil {
			return err
		}
		policy = p
	}
	hostport, loopback, token, err := httpListen(opts)
	if err != nil {
		return err
	}
	ws, err := opts.Workspace()
	if err != nil {
		return err
	}
	lc, err := opts.Config()
	if err != nil {
		return err
	}
	// Answer the handshake at once: never index before serving. Reads go
	// through the gate, which opens when the store is ready.
	prog := &session.Progress{}
	bg := newServeBackground(ctx, opts, ws, lc.configFileToWrite())
	defer bg.stop() // a refresh under way ends, its files cleaned up, before serve exits
	gate, r, err := serveReader(bg, lc, prog)
	if err != nil {
		return err
	}
	refresh := func(ctx context.Context) (docir.IndexSummary, error) {
		if err := gate.Wait(ctx); err != nil {
			return docir.IndexSummary{}, err
		}
		return ws.Refresh(ctx)
	}
	hold := holdFunc(ws, r)
	fields := func(ctx context.Context) (docir.FieldsResult, error) {
		if err := gate.Wait(ctx); err != nil {
			return docir.FieldsResult{}, err
		}
		return ws.Fields(ctx)
	}
	e := session.New(session.Config{Reader: gate, Local: gate.Over(ws), Refresh: refresh, Fields: fields, Policy: policy,
		Version: opts.Version, Log: log,
		Hold: func(ctx context.Context, rev uint64) (session.Held, error) {
			if err := gate.Wait(ctx); err != nil {
				return nil, err
			}
			return hold(ctx, rev)
		},
		Bindings: gatedBindings{gate: gate, svc: ws.Bindings()}})

	switch {
	case opts.MCP && !opts.HTTPSet:
		return mcp.Serve(ctx, e, mcpOptions(opts, lc, log, prog), opts.IO.In, opts.IO.Out)
	case opts.HTTPSet:
		ln, err := net.Listen("tcp", hostport)
		if err != nil {
			return fmt.Errorf("--http %s: %w", hostport, err)
		}
		if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() && token == "" {
			ln.Close()
			return docir.Errorf(docir.CodeUsage, "--http %s listens on %s, not a loopback address: set a bearer token in $%s", hostport, tcp, opts.TokenEnv)
		}
		auth := "no token"
		if token != "" {
			auth = "bearer token from $" + opts.TokenEnv
		}
		hopts := session.HTTPOptions{Token: token, Loopback: loopback, Instance: federation.Instance()}
		path := session.RPCPath
		if opts.MCP {
			h, err := mcp.HTTPHandler(e, mcpOptions(opts, lc, log, prog))
			if err != nil {
				ln.Close()
				return err
			}
			hopts.MCP, path = h, session.MCPPath
		}
		fmt.Fprintf(opts.IO.ErrOut, "docir serve: listening on http://%s%s (%s)\n", ln.Addr(), path, auth)
		return session.ServeHTTP(ctx, e, ln, hopts)
	default:
		return session.Serve(ctx, e, opts.IO.In, opts.IO.Out)
	}
}

// serveReader is what serve reads through: the configured reader behind a
// gate. The gate is open at once when a store exists; opened by a
// background index when there are sources with markdown but no store; and
// opened with a no_store error, indexing nothing, when there is nothing to
// serve or the folder is $HOME or / with no config file. A gate opened
// with an error lets reads through once a store is there (another process
// published one, or --watch's retry did).
//
// prog follows the background index; it is finished at once when there is
// none.
func serveReader(bg *serveBackground, lc *loadedConfig, prog *session.Progress) (*session.Gate, docir.Reader, error) {
	opts, ws, dir := bg.opts, bg.ws, lc.StoreDir()
	_, err := store.CurrentGeneration(dir)
	hasStore := docir.CodeOf(err) != docir.CodeNoStore
	stored := func() bool { _, err := store.CurrentGeneration(dir); return err == nil }
	if !hasStore && lc.File == "" && len(lc.peers) == 0 && isHomeOrRoot(lc.BaseDir, opts.Getenv("HOME")) {
		prog.Finish()
		g := session.NewGate(ws, serveWait)
		g.Open(&docir.Error{Code: docir.CodeNoStore, Err: store.ErrNoStore, Message: fmt.Sprintf(
			"nothing to serve: no store in %s, and docir does not index %s without a docir.yaml; run `docir index DIR` with a folder of markdown, then start serve there", dir, lc.BaseDir)})
		g.Recheck(stored, nil) // no watch: it would watch all of $HOME
		return g, ws, nil
	}
	r, err := opts.Reader()
	if err == nil && !hasStore {
		err = zeroSetupRefusal(lc) // a folder that holds another project's store
	}
	if err != nil {
		if docir.CodeOf(err) != docir.CodeNoStore {
			return nil, nil, err
		}
		// No store and no markdown: nothing to index until another
		// process publishes a store; then --watch starts.
		prog.Finish()
		if r == nil {
			r = ws
		}
		g := session.NewGate(r, serveWait)
		g.Open(err)
		g.Recheck(stored, func() { bg.watch(true) })
		return g, r, nil
	}
	g := session.NewGate(r, serveWait)
	if hasStore || len(lc.StoreSources()) == 0 {
		// A store, or nothing of its own to index: a project of peers
		// alone answers from them, and writes nothing (as its reads do;
		// before, serve made an empty store "indexing 0 source folders"),
		// so it does not watch either: a refresh would publish an empty
		// store at the first edit of docir.yaml. Sources added later are
		// served from serve's next start.
		prog.Finish()
		g.Open(nil)
		if hasStore {
			bg.watch(false)
		}
		return g, r, nil
	}
	fmt.Fprintf(opts.IO.ErrOut, "docir serve: nothing indexed yet in %s; indexing %d source folder(s) in the background\n", forTerminal(dir), len(lc.StoreSources()))
	bg.run(func(ctx context.Context) {
		_, err := session.FirstIndex(ctx, ws, prog)
		if err != nil && ctx.Err() == nil {
			fmt.Fprintf(opts.IO.ErrOut, "docir serve: indexing failed: %s\n", forTerminal(err.Error()))
		}
		g.Open(err)
		g.Recheck(stored, nil)
		bg.watch(err != nil) // a first index that failed is tried again
	})
	return g, r, nil
}

// serveBackground runs serve's work beside the session: the first index,
// --watch. stop ends it and waits for it, so that a refresh interrupted
// has removed its files before serve exits.
type serveBackground struct {
	opts   *ServeOptions
	ws     *workspace.Service
	config string // the config file --watch follows
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	wg       sync.WaitGroup
	stopped  bool
	watching bool
}

func newServeBackground(ctx context.Context, opts *ServeOptions, ws *workspace.Service, config string) *serveBackground {
	ctx, cancel := context.WithCancel(ctx)
	return &serveBackground{opts: opts, ws: ws, config: config, ctx: ctx, cancel: cancel}
}

// run runs f on a goroutine of its own, unless serve is stopping.
func (b *serveBackground) run(f func(ctx context.Context)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		f(b.ctx)
	}()
}

// watch starts --watch, once (nothing without --watch); pending runs a
// refresh at once.
func (b *serveBackground) watch(pending bool) {
	if !b.opts.Watch {
		return
	}
	b.mu.Lock()
	start := !b.watching
	b.watching = true
	b.mu.Unlock()
	if !start {
		return
	}
	errOut, failed := b.opts.IO.ErrOut, false
	done, err := session.Watch(b.ctx, b.ws, session.WatchOptions{Debounce: watchDebounce, Config: b.config, Pending: pending,
		OnRefresh: func(sum docir.IndexSummary, err error) {
			switch {
			case err != nil:
				failed = true
				fmt.Fprintf(errOut, "docir serve: warning: refresh failed (tried again in a while, and at the next change): %v\n", err)
			case sum.Published || failed:
				failed = false
				fmt.Fprintf(errOut, "docir serve: sources changed; now serving generation %d\n", sum.Generation)
			}
		}})
	if err != nil {
		fmt.Fprintf(errOut, "docir serve: warning: --watch: %v\n", err)
		return
	}
	b.run(func(context.Context) { <-done })
}

// stop ends the background work and waits for it.
func (b *serveBackground) stop() {
	b.mu.Lock()
	b.stopped = true
	b.mu.Unlock()
	b.cancel()
	b.wg.Wait()
}

// isHomeOrRoot reports whether dir is the file-system root or home.
func isHomeOrRoot(dir, home string) bool {
	dir = filepath.Clean(dir)
	if dir == filepath.Dir(dir) {
		return true
	}
	if home == "" {
		return false
	}
	same := func(a, b string) bool {
		fa, err1 := os.Stat(a)
		fb, err2 := os.Stat(b)
		return err1 == nil && err2 == nil && os.SameFile(fa, fb)
	}
	return filepath.Clean(home) == dir || same(home, dir)
}

// mcpOptions describe the corpus to MCP hosts.
func mcpOptions(opts *ServeOptions, lc *loadedConfig, log *slog.Logger, prog *session.Progress) mcp.Options {
	return mcp.Options{Version: opts.Version, Name: lc.CorpusName(), Description: lc.CorpusDescription(), Log: log, Indexing: prog.Now}
}

// holdFunc holds one generation of the local store for the session's
// pinned work (a read batch), federated with the same peers as every other
// read when peers are declared.
func holdFunc(ws *workspace.Service, r docir.Reader) func(context.Context, uint64) (session.Held, error) {
	return func(ctx context.Context, rev uint64) (session.Held, error) {
		v, err := ws.Hold(ctx, rev)
		if err != nil {
			return nil, err
		}
		if fed, ok := r.(*federation.Reader); ok {
			return heldFederation{Reader: fed.WithLocal(v), view: v}, nil
		}
		return v, nil
	}
}

// heldFederation reads a held view and the peers. Its Close releases the
// view only: the peers belong to the session's federation.
type heldFederation struct {
	*federation.Reader
	view *workspace.View
}

func (h heldFederation) Generation() uint64 { return h.view.Generation() }
func (h heldFederation) Close() error       { return h.view.Close() }

// Recording federates the view recording in log with the same peers: only
// the local store's documents are recorded (a peer's sources are not this
// store's to authenticate).
func (h heldFederation) Recording(log *docir.ReadLog) docir.Reader {
	return h.Reader.WithLocal(h.view.Recording(log))
}

// Pinned federates the held view (recording in log, with a log) with the
// same peers for a read pinned to it: each peer that answers is named in
// a warning, since the pin is the local store's.
func (h heldFederation) Pinned(log *docir.ReadLog) docir.Reader {
	return h.Reader.Pinned(h.view.Pinned(log))
}

// Local is the held view without the peers (evidence reads it).
func (h heldFederation) Local() docir.Reader { return h.view }

func (h heldFederation) Authenticate(ctx context.Context, log *docir.ReadLog) error {
	return h.view.Authenticate(ctx, log)
}

// gatedBindings waits for the store to be ready (a background index) before
// it answers what a binding asks.
type gatedBindings struct {
	gate *session.Gate
	svc  binding.Service
}

func (g gatedBindings) Workspace(ctx context.Context) (string, error) {
	if err := g.gate.Wait(ctx); err != nil {
		return "", err
	}
	return g.svc.Workspace(ctx)
}

func (g gatedBindings) Generation(ctx context.Context, rev uint64) (binding.Generation, error) {
	if err := g.gate.Wait(ctx); err != nil {
		return binding.Generation{}, err
	}
	return g.svc.Generation(ctx, rev)
}

func (g gatedBindings) Current(ctx context.Context) (binding.Generation, error) {
	if err := g.gate.Wait(ctx); err != nil {
		return binding.Generation{}, err
	}
	return g.svc.Current(ctx)
}

func (g gatedBindings) HoldRefresh(ctx context.Context) (func(), error) {
	if err := g.gate.Wait(ctx); err != nil {
		return nil, err
	}
	return g.svc.HoldRefresh(ctx)
}

func (g gatedBindings) Hold(ctx context.Context, rev uint64, digest string, ttl time.Duration) (binding.Hold, error) {
	if err := g.gate.Wait(ctx); err != nil {
		return binding.Hold{}, err
	}
	return g.svc.Hold(ctx, rev, digest, ttl)
}

func (g gatedBindings) Release(ctx context.Context, digest string) (*binding.Hold, bool, error) {
	if err := g.gate.Wait(ctx); err != nil {
		return nil, false, err
	}
	return g.svc.Release(ctx, digest)
}

func (g gatedBindings) Holds(ctx context.Context) ([]binding.Hold, error) {
	if err := g.gate.Wait(ctx); err != nil {
		return nil, err
	}
	return g.svc.Holds(ctx)
}
