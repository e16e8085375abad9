package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/workspace/wire"
)

// StatusOptions is everything `docir status` needs.
type StatusOptions struct {
	IO       *IOStreams
	Reader   func() (docir.Reader, error)
	WantText func() (bool, error)
	Evidence func(method string, params, result any) error
}

func newCmdStatus(f *Factory, runF func(context.Context, *StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{IO: f.IO, Reader: f.Reader, WantText: f.wantText, Evidence: f.recordEvidence}
	return &cobra.Command{
		Use:   "status",
		Short: "Show the store: generation, sources, document count, peers",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return statusRun(cmd.Context(), opts)
		},
	}
}

func statusRun(ctx context.Context, opts *StatusOptions) error {
	text, err := opts.WantText()
	if err != nil {
		return err
	}
	r, err := opts.Reader()
	if err != nil {
		return err
	}
	st, err := r.Status(ctx)
	if err == nil {
		err = opts.Evidence(wire.MethodStatus, docir.StatusParams{}, st)
	}
	if err != nil {
		return err
	}
	if text {
		return printStatusText(opts.IO.Out, st)
	}
	return opts.IO.printJSON(st)
}

func printStatusText(w io.Writer, st docir.Status) error {
	fmt.Fprintf(w, "store       %s\n", st.Store)
	fmt.Fprintf(w, "generation  %d\n", st.Generation)
	fmt.Fprintf(w, "documents   %d\n", st.Documents)
	for _, s := range st.Sources {
		if s.Prefix != "" {
			fmt.Fprintf(w, "source      %s (prefix %s)\n", s.Path, s.Prefix)
		} else {
			fmt.Fprintf(w, "source      %s\n", s.Path)
		}
	}
	for _, p := range st.Peers {
		if p.Status == "ok" {
			fmt.Fprintf(w, "peer        %s  %s %s  ok: generation %d, %d documents\n", p.Name, p.Kind, p.Location, p.Generation, p.Documents)
		} else {
			fmt.Fprintf(w, "peer        %s  %s %s  %s: %s\n", p.Name, p.Kind, p.Location, p.Status, p.Error)
		}
	}
	return nil
}
