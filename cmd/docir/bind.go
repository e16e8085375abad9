package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/workspace"
	"github.com/docir/docir/workspace/binding"
	"github.com/docir/docir/workspace/session"
)

// BindOptions is everything `docir bind` needs.
type BindOptions struct {
	IO        *IOStreams
	Workspace func() (*workspace.Service, error)
	// Ready is Workspace after the checks a read makes first: something
	// to read, and the first index of a store with none (what bind pins).
	Ready    func() (*workspace.Service, error)
	WantText func() (bool, error)

	Revision    uint64
	WorkspaceID string
	TTL         time.Duration
	Release     string // a receipt file: end one bind's hold of it
}

func newCmdBind(f *Factory, runF func(context.Context, *BindOptions) error) *cobra.Command {
	opts := &BindOptions{IO: f.IO, Workspace: f.Workspace, WantText: f.wantText,
		Ready: func() (*workspace.Service, error) { return f.readWorkspace("bind") }}
	var ttl string
	cmd := &cobra.Command{
		Use:   "bind [--revision N --workspace ID] [--ttl DURATION] | bind --release RECEIPT_FILE",
		Short: "Pin a task to one generation: print a binding receipt",
		Long: `Print a binding receipt: a small file that pins a task to one exact,
immutable generation of the store. Reads given --receipt FILE answer from
that generation whatever is indexed later; docir replay FILE verifies a
receipt against the store.

Without flags the receipt pins the current generation. With --revision and
--workspace it pins that retained generation of that store (a select), or
is refused (exit 4) when the store is another one or no longer retains it.

A bind holds its generation: later refreshes keep it on disk, past the
store's retain, until the hold ends. It ends when --release is given the
receipt file, or when --ttl passes (default 24h; 90m, 7d, at most 30d;
--ttl 0 holds nothing). Binds of one generation share one receipt and
one hold; each release ends one bind's share. docir status lists the
holds and the bytes each keeps.

The receipt is printed on stdout, whatever --format says; see
docs/bindings.md for its format.`,
		Example: `  docir bind > task.receipt
  docir search --receipt task.receipt "retry budget"
  docir get --receipt task.receipt runbooks/retry-budget
  docir replay task.receipt
  docir bind --release task.receipt
  docir bind --ttl 7d > audit.receipt`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if (opts.Revision == 0) != (opts.WorkspaceID == "") {
				return docir.Errorf(docir.CodeUsage, "give --revision and --workspace together (a select), or neither (the current generation)")
			}
			if opts.Release != "" && (opts.Revision != 0 || cmd.Flags().Changed("ttl")) {
				return docir.Errorf(docir.CodeUsage, "--release goes alone: it ends a hold and binds nothing")
			}
			var err error
			if opts.TTL, err = binding.ParseTTL(ttl); err != nil {
				return docir.Errorf(docir.CodeUsage, "--%w", err)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return bindRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().Uint64Var(&opts.Revision, "revision", 0, "pin generation `N` (with --workspace)")
	cmd.Flags().StringVar(&opts.WorkspaceID, "workspace", "", "the workspace identity `ID` the receipt must be for (with --revision)")
	cmd.Flags().StringVar(&ttl, "ttl", "24h", "hold the generation for `DURATION` (90m, 24h, 7d; at most 30d; 0: no hold)")
	cmd.Flags().StringVar(&opts.Release, "release", "", "end one bind's hold of the binding in `RECEIPT_FILE` (binds nothing)")
	f.addFlags(cmd, storeFlags|outputFlags)
	return cmd
}

func bindRun(ctx context.Context, opts *BindOptions) error {
	if opts.Release != "" {
		return releaseRun(ctx, opts)
	}
	ws, err := opts.Ready()
	if err != nil {
		return err
	}
	svc := ws.Bindings()
	var b *binding.Binding
	if opts.Revision == 0 {
		b, err = binding.Bind(ctx, svc)
	} else {
		b, err = binding.Select(ctx, svc, opts.WorkspaceID, opts.Revision)
	}
	if err != nil {
		return err
	}
	h, err := b.Hold(ctx, opts.TTL)
	if err != nil {
		return err
	}
	receipt := b.Receipt().Marshal()
	write := func() error { _, err := opts.IO.Out.Write(receipt); return err }
	if opts.IO.jq != nil {
		// --jq filters the receipt as any JSON output (the receipt file
		// itself is the unfiltered bytes).
		write = func() error { return opts.IO.printJSON(json.RawMessage(receipt)) }
	}
	if err := write(); err != nil {
		// No one has the receipt that would release the hold: release it
		// here, so a failed bind holds nothing.
		if h != nil {
			if _, _, rerr := binding.Release(ctx, ws.Bindings(), receipt); rerr != nil {
				return fmt.Errorf("writing the receipt: %w (and releasing its hold: %v)", err, rerr)
			}
		}
		return fmt.Errorf("writing the receipt: %w (nothing is held)", err)
	}
	held := "not held (--ttl 0): the store keeps it only while it retains it"
	if h != nil {
		held = fmt.Sprintf("held until %s (docir bind --release FILE ends it sooner)", h.Expires.UTC().Format(time.RFC3339))
	}
	fmt.Fprintf(opts.IO.ErrOut, "docir: bound to generation %d of workspace %s; %s\n", b.Revision(), b.Workspace(), held)
	return nil
}

// releaseRun is `docir bind --release FILE`: the end of one bind's hold of
// the binding FILE names. It prints the binding and what remains of its
// hold.
func releaseRun(ctx context.Context, opts *BindOptions) error {
	text, err := opts.WantText()
	if err != nil {
		return err
	}
	data, err := workspace.ReadFile(opts.Release, binding.MaxReceiptBytes)
	if err != nil {
		return docir.Errorf(docir.CodeUsage, "--release: %w", err)
	}
	ws, err := opts.Workspace()
	if err != nil {
		return err
	}
	res, released, err := binding.Release(ctx, ws.Bindings(), data)
	if err != nil {
		return fmt.Errorf("%s: %w", opts.Release, err)
	}
	if !released {
		fmt.Fprintf(opts.IO.ErrOut, "docir: %s: no hold of generation %d to release (it expired, was released, or was never taken)\n", forTerminal(opts.Release), res.Revision)
	}
	if !text {
		return opts.IO.printJSON(res)
	}
	switch {
	case res.Hold != nil:
		_, err = fmt.Fprintf(opts.IO.Out, "released one bind of generation %d; %d more hold it until %s\n", res.Revision, res.Hold.Binds, res.Hold.Expires.Format(time.RFC3339))
	case released:
		_, err = fmt.Fprintf(opts.IO.Out, "released generation %d: nothing holds it now; a refresh past the store's retain prunes it\n", res.Revision)
	}
	return err
}

// ReplayOptions is everything `docir replay` needs.
type ReplayOptions struct {
	IO        *IOStreams
	Workspace func() (*workspace.Service, error)
	WantText  func() (bool, error)
	Pin       *pinFlags

	File string
}

func newCmdReplay(f *Factory, runF func(context.Context, *ReplayOptions) error) *cobra.Command {
	opts := &ReplayOptions{IO: f.IO, Workspace: f.Workspace, WantText: f.wantText, Pin: &f.pin}
	cmd := &cobra.Command{
		Use:   "replay RECEIPT_FILE [--require-current] [--evidence FILE]",
		Short: "Verify a binding receipt (and an evidence receipt) against the store",
		Long: `Verify a binding receipt: the store reselects the generation it names,
rebuilds the receipt from its own state and compares bytes and digest
exactly. An edited field, reordered keys, a receipt reminted over edited
content, another store's receipt, or a generation no longer retained is
refused with exit 4 (binding_rejected).

--require-current also demands that the generation is the current one.
--evidence FILE re-runs the read an evidence receipt records on the pinned
generation and confirms that the response is byte for byte the one it
attests.`,
		Example: `  docir bind > task.receipt
  docir replay task.receipt
  docir replay task.receipt --require-current
  docir get --receipt task.receipt --evidence read.evidence runbooks/retry-budget
  docir replay task.receipt --evidence read.evidence`,
		Args: usageArgs(cobra.MaximumNArgs(1), needArgs(1, "a RECEIPT_FILE (docir bind prints one)")),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return replayRun(cmd.Context(), opts)
		},
	}
	f.addFlags(cmd, storeFlags|outputFlags)
	cmd.Flags().BoolVar(&f.pin.requireCurrent, "require-current", false, "also demand that the receipt's generation is the current one (exit 4 otherwise)")
	cmd.Flags().StringVar(&f.pin.evidence, "evidence", "", "re-run the read an evidence receipt `FILE` records and check its response bytes")
	return cmd
}

func replayRun(ctx context.Context, opts *ReplayOptions) error {
	text, err := opts.WantText()
	if err != nil {
		return err
	}
	data, err := workspace.ReadFile(opts.File, binding.MaxReceiptBytes)
	if err != nil {
		return docir.Errorf(docir.CodeUsage, "replay: %w", err)
	}
	ws, err := opts.Workspace()
	if err != nil {
		return err
	}
	svc := ws.Bindings()
	b, err := binding.Replay(ctx, svc, data)
	if err != nil {
		return fmt.Errorf("%s: %w", opts.File, err)
	}
	if opts.Pin.requireCurrent {
		if err := b.RequireCurrent(ctx); err != nil {
			return fmt.Errorf("%s: %w", opts.File, err)
		}
	}
	held, err := b.Held(ctx)
	if err != nil {
		return err
	}
	br, err := b.Result(ctx, held)
	if err != nil {
		return err
	}
	res := replayResult{BindingResult: br}
	if opts.Pin.evidence != "" {
		file, err := workspace.ReadFile(opts.Pin.evidence, binding.MaxEvidenceFileBytes)
		if err != nil {
			return docir.Errorf(docir.CodeUsage, "--evidence: %w", err)
		}
		v, err := binding.VerifyEvidence(ctx, svc, file, rerun(ws))
		if err != nil {
			return fmt.Errorf("%s: %w", opts.Pin.evidence, err)
		}
		if v.Binding.Receipt().Digest() != b.Receipt().Digest() {
			return docir.Errorf(docir.CodeBindingRejected, "%s: the evidence was made under another binding (%s), not %s", opts.Pin.evidence, v.Binding.Receipt().Digest(), opts.File)
		}
		res.Evidence = &replayEvidence{Method: v.Evidence.Method(), Digest: v.Evidence.Digest()}
	}
	if text {
		return printReplayText(opts.IO.Out, res)
	}
	return opts.IO.printJSON(res)
}

// replayResult is what `docir replay` prints.
type replayResult struct {
	docir.BindingResult
	Evidence *replayEvidence `json:"evidence,omitempty"`
}

type replayEvidence struct {
	Method string `json:"method"`
	Digest string `json:"digest"`
}

// rerun re-runs a read on a binding's generation through the server's
// engine: the exact result bytes the method answers for the request.
func rerun(ws *workspace.Service) binding.Runner {
	return func(ctx context.Context, b *binding.Binding, method string, request []byte) ([]byte, error) {
		v, err := ws.Pin(ctx, b.Revision())
		if err != nil {
			return nil, err
		}
		defer v.Close()
		out, werr := session.New(session.Config{Reader: v}).Call(ctx, method, request)
		if werr != nil {
			return nil, werr
		}
		return out, nil
	}
}

func printReplayText(w io.Writer, r replayResult) error {
	state := "no longer current"
	if r.Current {
		state = "current"
	}
	if _, err := fmt.Fprintf(w, "receipt ok: generation %d (%s) of workspace %s, manifest %s\n", r.Revision, state, r.Workspace, r.ManifestDigest); err != nil {
		return err
	}
	if h := r.Hold; h != nil {
		if _, err := fmt.Fprintf(w, "held: by %d bind(s) until %s\n", h.Binds, h.Expires.Format(time.RFC3339)); err != nil {
			return err
		}
	}
	if r.Evidence != nil {
		_, err := fmt.Fprintf(w, "evidence ok: %s answers the same bytes (evidence %s)\n", r.Evidence.Method, r.Evidence.Digest)
		return err
	}
	return nil
}
