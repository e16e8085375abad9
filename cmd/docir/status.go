package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/store/ingest"
)

// StatusOptions is everything `docir status` needs.
type StatusOptions struct {
	IO       *IOStreams
	Reader   func() (docir.Reader, error)
	WantText func() (bool, error)
	Evidence func(method string, params, result any) error
	// Changes, when set, tells what changed in the sources since the
	// current generation (nil for a pinned status: a pin is not about now).
	Changes func(context.Context) (*ingest.Changes, error)
}

func newCmdStatus(f *Factory, runF func(context.Context, *StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{IO: f.IO, Reader: f.Reader, WantText: f.wantText, Evidence: f.recordEvidence, Changes: f.changes}
	cmd := &cobra.Command{
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
	f.addFlags(cmd, readFlags)
	return cmd
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
	out := statusOutput{Status: st}
	if opts.Changes != nil {
		// What a refresh would find: a stat walk, no file read.
		if out.Changes, err = opts.Changes(ctx); err != nil {
			return err
		}
	}
	if text {
		return printStatusText(opts.IO.Out, out)
	}
	return opts.IO.printJSON(out)
}

// statusOutput is what `docir status` prints: the store's status, and
// what changed in the sources since the current generation.
type statusOutput struct {
	docir.Status
	Changes *ingest.Changes `json:"changes,omitempty"`
}

func printStatusText(w io.Writer, out statusOutput) error {
	st := out.Status
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
	if c := out.Changes; c != nil {
		switch {
		case len(c.Added)+len(c.Changed)+len(c.Removed) == 0 && !c.SourcesChanged:
			fmt.Fprintf(w, "changes     none since generation %d (%d files unchanged, %d ignored)\n", st.Generation, c.Unchanged, c.Ignored)
		default:
			fmt.Fprintf(w, "changes     since generation %d: %d added, %d changed, %d removed (%d ignored); run docir index\n",
				st.Generation, len(c.Added), len(c.Changed), len(c.Removed), c.Ignored)
			for _, list := range []struct {
				what  string
				paths []string
			}{{"added", c.Added}, {"changed", c.Changed}, {"removed", c.Removed}} {
				for i, p := range list.paths {
					if i == 5 {
						fmt.Fprintf(w, "            … and %d more %s\n", len(list.paths)-5, list.what)
						break
					}
					fmt.Fprintf(w, "  %-9s %s\n", list.what, p)
				}
			}
		}
	}
	return nil
}
