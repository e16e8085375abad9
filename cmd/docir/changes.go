package main

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/workspace"
	"github.com/docir/docir/workspace/binding"
)

// ChangesOptions is everything `docir changes` needs.
type ChangesOptions struct {
	IO       *IOStreams
	Reader   func() (docir.Reader, error)
	WantText func() (bool, error)
	// Bindings replays a receipt given as --since.
	Bindings func() (binding.Service, error)
	// Current is the local store's current generation, for a --since
	// left out.
	Current func(context.Context) (uint64, error)

	Since    string // a generation, or a receipt file
	SinceSet bool   // --since was given (an empty one is refused)
	Until    uint64
}

func newCmdChanges(f *Factory, runF func(context.Context, *ChangesOptions) error) *cobra.Command {
	opts := &ChangesOptions{IO: f.IO, Reader: f.Reader, WantText: f.wantText, Bindings: f.bindings, Current: f.currentGeneration}
	cmd := &cobra.Command{
		Use:   "changes [--since REV|RECEIPT] [--until REV]",
		Short: "Documents and sections added, changed and removed between two generations",
		Long: `List what changed in the local store between two retained generations: the
documents added, changed and removed, and for each changed document the
sections added, changed and removed, as addresses get accepts (added and
changed ones on the later generation, removed ones on the earlier). A
section is changed when its own text changed (its heading line to the next
heading), not when a neighbour did.

--since is a generation number or a binding receipt file (docir bind), which
must replay exactly; --until defaults to the current generation. Without
--since, the list is what the later generation changed from the one before
it: what the last docir index changed. The cost is what changed: it reads
the layers the two generations do not share.`,
		Example: `  docir changes                  # what the last docir index changed
  docir bind > task.receipt      # ... later, after docir index:
  docir changes --since task.receipt
  docir changes --since task.receipt --jq '.sections.changed[]' | docir get -
  docir changes --since 1 --until 2    # what generation 2 changed from generation 1`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Until == 0 && cmd.Flags().Changed("until") {
				return docir.Errorf(docir.CodeUsage, "--until 0: generations are numbered from 1")
			}
			opts.SinceSet = cmd.Flags().Changed("since")
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return changesRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Since, "since", "", "the earlier generation: a `REV` number, or a binding RECEIPT file (default: the one before --until)")
	cmd.Flags().Uint64Var(&opts.Until, "until", 0, "the later generation (default: the current one)")
	f.addFlags(cmd, storeFlags|outputFlags|verboseFlag)
	return cmd
}

func changesRun(ctx context.Context, opts *ChangesOptions) error {
	text, err := opts.WantText()
	if err != nil {
		return err
	}
	p := docir.ChangesParams{Until: opts.Until, MaxBytes: -1} // the whole change, in one page
	if opts.Since == "" && opts.SinceSet {
		// A script's empty $REV: not "the last refresh's changes".
		return docir.Errorf(docir.CodeUsage, `--since "": want a generation number or a binding receipt file (leave --since out for the last refresh's changes)`)
	}
	if opts.Since == "" {
		// What the later generation changed from the one before it.
		until := opts.Until
		if until == 0 {
			if until, err = opts.Current(ctx); err != nil {
				return err
			}
		}
		if until < 2 {
			return docir.Errorf(docir.CodeUsage, "generation %d is the store's first: nothing before it to compare with (--since REV|RECEIPT names another)", until)
		}
		p.Since = until - 1
	} else if n, err := strconv.ParseUint(opts.Since, 10, 64); err == nil {
		if n == 0 {
			return docir.Errorf(docir.CodeUsage, "--since 0: generations are numbered from 1")
		}
		p.Since = n
	} else {
		data, err := workspace.ReadFile(opts.Since, binding.MaxReceiptBytes)
		if err != nil {
			return docir.Errorf(docir.CodeUsage, "--since %s: neither a generation number nor a receipt file: %w", opts.Since, err)
		}
		svc, err := opts.Bindings()
		if err != nil {
			return err
		}
		b, err := binding.Replay(ctx, svc, data)
		if err != nil {
			return fmt.Errorf("--since %s: %w", opts.Since, err)
		}
		p.Since = b.Revision()
	}
	r, err := opts.Reader()
	if err != nil {
		return err
	}
	res, err := r.Changes(ctx, p)
	if err != nil {
		return err
	}
	if text {
		return opts.IO.paged(func(w io.Writer) error { return printChangesText(w, res) })
	}
	return opts.IO.printJSON(res)
}

func printChangesText(w io.Writer, r docir.ChangesResult) error {
	fmt.Fprintf(w, "changes from generation %d to %d\n", r.Since, r.Until)
	if len(r.Documents.Added)+len(r.Documents.Changed)+len(r.Documents.Removed) == 0 {
		_, err := fmt.Fprintln(w, "  nothing changed")
		return err
	}
	// Documents, then sections, each under its heading: a changed lead is
	// listed as a section by its document's id (docs/links.md), the same
	// address as the changed document above it.
	for _, group := range []struct {
		name                    string
		added, changed, removed []string
	}{
		{"documents", r.Documents.Added, r.Documents.Changed, r.Documents.Removed},
		{"sections", r.Sections.Added, r.Sections.Changed, r.Sections.Removed},
	} {
		if len(group.added)+len(group.changed)+len(group.removed) == 0 {
			continue
		}
		if _, err := fmt.Fprintf(w, "  %s\n", group.name); err != nil {
			return err
		}
		for _, l := range []struct {
			what  string
			addrs []string
		}{{"added", group.added}, {"changed", group.changed}, {"removed", group.removed}} {
			for _, a := range l.addrs {
				if _, err := fmt.Fprintf(w, "    %-8s %s\n", l.what, forTerminal(a)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// bindings is the local store as execution bindings see it.
func (f *Factory) bindings() (binding.Service, error) {
	ws, err := f.Workspace()
	if err != nil {
		return nil, err
	}
	return ws.Bindings(), nil
}

// currentGeneration is the local store's current generation, read as a
// read does (readWorkspace): nothing to read is no_store, and no store is
// made for it.
func (f *Factory) currentGeneration(ctx context.Context) (uint64, error) {
	ws, err := f.readWorkspace("read")
	if err != nil {
		return 0, err
	}
	v, err := ws.Current(ctx)
	if err != nil {
		return 0, err
	}
	defer v.Close()
	return v.Generation(), nil
}
