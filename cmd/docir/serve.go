package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"

	"github.com/spf13/cobra"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/federation"
	"github.com/docir/docir/workspace"
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
	Getenv    func(string) string
	Version   string

	MCP        bool
	HTTP       string
	HTTPSet    bool
	PolicyFile string
	TokenEnv   string
}

func newCmdServe(f *Factory, runF func(context.Context, *ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{IO: f.IO, Reader: f.Reader, Workspace: f.Workspace, Getenv: os.Getenv, Version: buildVersion()}
	cmd := &cobra.Command{
		Use:   "serve [--mcp | --http ADDR] [--policy FILE]",
		Short: "Answer reads over JSON-RPC: NDJSON on stdio, MCP, or HTTP for peers",
		Long: `Serve the store's reads to a host until stdin ends (or SIGTERM).

Default: JSON-RPC 2.0, one frame per line (NDJSON) on stdin and stdout.
Methods: docir/get, docir/search, docir/query, docir/context,
workspace/status, workspace/discover; workspace/refresh when the host
policy grants it, workspace/read-batch when it selects read_batch_workers.
One request at a time, replies in order.

--mcp speaks MCP over stdio instead (tools get, search, query, context,
status). --http ADDR serves POST /rpc, one frame per request, to peers;
an ADDR without a host listens on 127.0.0.1. A non-loopback ADDR needs a
bearer token in $` + DefaultTokenEnv + ` (or the variable --token-env names).

--policy FILE is the host policy (docir.host-policy.v1 or .v2), read once
at start-up. Logs go to stderr; stdout carries only replies.
See docs/protocol.md.`,
		Example: `  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_ids":["a","b#x"]}}' | docir serve
  docir serve --mcp
  DOCIR_HTTP_TOKEN=s3cret docir serve --http 0.0.0.0:7420 --policy host.json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.HTTPSet = cmd.Flags().Changed("http")
			if opts.MCP && opts.HTTPSet {
				return docir.Errorf(docir.CodeUsage, "--mcp and --http are two different transports; give one\nusage: %s", cmd.UseLine())
			}
			if cmd.Flags().Changed("token-env") && !opts.HTTPSet {
				return docir.Errorf(docir.CodeUsage, "--token-env applies to --http only")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return serveRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.MCP, "mcp", false, "speak MCP over stdio (for agents)")
	cmd.Flags().StringVar(&opts.HTTP, "http", "", "serve POST /rpc on `ADDR` (HOST:PORT, :PORT or PORT; no host: 127.0.0.1)")
	cmd.Flags().StringVar(&opts.PolicyFile, "policy", "", "host policy `FILE` (docir.host-policy.v1 or v2); default: no grants")
	cmd.Flags().StringVar(&opts.TokenEnv, "token-env", DefaultTokenEnv, "environment `VARIABLE` holding the bearer token for --http")
	return cmd
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
	var (
		hostport string
		loopback bool
		token    string
	)
	if opts.HTTPSet {
		var err error
		hostport, loopback, err = session.ListenAddr(opts.HTTP)
		if err != nil {
			return docir.Errorf(docir.CodeUsage, "--http %q: %v", opts.HTTP, err)
		}
		token = opts.Getenv(opts.TokenEnv)
		if !loopback && token == "" {
			return docir.Errorf(docir.CodeUsage, "--http %s is not a loopback address: set a bearer token in $%s (or name another variable with --token-env)", hostport, opts.TokenEnv)
		}
	}
	r, err := opts.Reader()
	if err != nil {
		return err
	}
	ws, err := opts.Workspace()
	if err != nil {
		return err
	}
	// Open the local store now (indexing first, with a note, when nothing
	// is indexed yet), so that the first request does not pay for it; peers
	// are not asked. A store that cannot be read is reported here and on
	// every request.
	if _, err := ws.Status(ctx); err != nil {
		fmt.Fprintf(opts.IO.ErrOut, "docir serve: warning: %v\n", err)
	}
	e := session.New(session.Config{Reader: r, Local: ws, Refresh: ws.Refresh, Policy: policy, Version: opts.Version, Log: log,
		Hold: holdFunc(ws, r), Bindings: ws.Bindings()})

	switch {
	case opts.MCP:
		return mcp.Serve(ctx, e, opts.Version, opts.IO.In, opts.IO.Out, log)
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
		fmt.Fprintf(opts.IO.ErrOut, "docir serve: listening on http://%s%s (%s)\n", ln.Addr(), session.RPCPath, auth)
		return session.ServeHTTP(ctx, e, ln, session.HTTPOptions{Token: token, Loopback: loopback, Instance: federation.Instance()})
	default:
		return session.Serve(ctx, e, opts.IO.In, opts.IO.Out)
	}
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

// heldFederation reads a held view and the peers.
type heldFederation struct {
	docir.Reader
	view *workspace.View
}

func (h heldFederation) Generation() uint64                     { return h.view.Generation() }
func (h heldFederation) Authenticate(ctx context.Context) error { return h.view.Authenticate(ctx) }
func (h heldFederation) Close() error                           { return h.view.Close() }
