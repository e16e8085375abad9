package main

import (
	"context"
	"fmt"
	"io"
	"os"

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

	Revision    uint64
	WorkspaceID string
}

func newCmdBind(f *Factory, runF func(context.Context, *BindOptions) error) *cobra.Command {
	opts := &BindOptions{IO: f.IO, Workspace: f.Workspace}
	cmd := &cobra.Command{
		Use:   "bind [--revision N --workspace ID]",
		Short: "Pin a task to one generation: print a binding receipt",
		Long: `Print a binding receipt: a small file that pins a task to one exact,
immutable generation of the store. Reads given --receipt FILE answer from
that generation whatever is indexed later, while the store retains it;
docir replay FILE verifies a receipt against the store.

Without flags the receipt pins the current generation. With --revision and
--workspace it pins that retained generation of that store (a select), or
is refused (exit 4) when the store is another one or no longer retains it.

The receipt is printed on stdout, whatever --format says; see
docs/bindings.md for its format.`,
		Example: `  docir bind > task.receipt
  docir search --receipt task.receipt "retry budget"
  docir get --receipt task.receipt runbooks/retry-budget
  docir replay task.receipt`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (opts.Revision == 0) != (opts.WorkspaceID == "") {
				return docir.Errorf(docir.CodeUsage, "give --revision and --workspace together (a select), or neither (the current generation)")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return bindRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().Uint64Var(&opts.Revision, "revision", 0, "pin generation `N` (with --workspace)")
	cmd.Flags().StringVar(&opts.WorkspaceID, "workspace", "", "the workspace identity `ID` the receipt must be for (with --revision)")
	f.addFlags(cmd, storeFlags)
	return cmd
}

func bindRun(ctx context.Context, opts *BindOptions) error {
	ws, err := opts.Workspace()
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
	fmt.Fprintf(opts.IO.ErrOut, "docir: bound to generation %d of workspace %s\n", b.Revision(), b.Workspace())
	_, err = opts.IO.Out.Write(b.Receipt().Marshal())
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
	data, err := os.ReadFile(opts.File)
	if err != nil {
		return docir.Errorf(docir.CodeUsage, "replay: %v", err)
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
	res := replayResult{BindingResult: docir.BindingResult{Receipt: string(b.Receipt().Marshal()), Digest: b.Receipt().Digest(),
		Workspace: b.Workspace(), Revision: b.Revision(), ManifestDigest: b.ManifestDigest()}}
	if cur, err := svc.Current(ctx); err == nil {
		res.Current = cur.Revision == b.Revision()
	}
	if opts.Pin.evidence != "" {
		file, err := os.ReadFile(opts.Pin.evidence)
		if err != nil {
			return docir.Errorf(docir.CodeUsage, "--evidence: %v", err)
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
	if r.Evidence != nil {
		_, err := fmt.Fprintf(w, "evidence ok: %s answers the same bytes (evidence %s)\n", r.Evidence.Method, r.Evidence.Digest)
		return err
	}
	return nil
}
