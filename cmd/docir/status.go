package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/render"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/store/ingest"
	"github.com/docir/docir/workspace"
)

// StatusOptions is everything `docir status` needs.
type StatusOptions struct {
	IO       *IOStreams
	Reader   func() (docir.Reader, error)
	WantText func() (bool, error)
	Evidence func(method string, params, result any) error
	// Changes, when set, tells what changed in the sources since the
	// current generation (nil for a pinned status: a pin is not about now).
	Changes func(context.Context) (*statusChanges, error)
	// Holds lists the bindings' holds on generations and what each keeps
	// on disk (a nil list for a pinned status).
	Holds func(context.Context) ([]workspace.HeldGeneration, error)
}

func newCmdStatus(f *Factory, runF func(context.Context, *StatusOptions) error) *cobra.Command {
	reader := func() (docir.Reader, error) {
		f.noStaleCheck = true // status lists the changes itself
		return f.Reader()
	}
	opts := &StatusOptions{IO: f.IO, Reader: reader, WantText: f.wantText, Evidence: f.recordEvidence, Changes: f.changes}
	opts.Holds = func(ctx context.Context) ([]workspace.HeldGeneration, error) {
		if f.pin.set() {
			return nil, nil // a pin is not about now
		}
		ws, err := f.Workspace()
		if err != nil {
			return nil, err
		}
		held, err := ws.Holds(ctx)
		if docir.CodeOf(err) == docir.CodeNoStore {
			// Nothing indexed and nothing to index, in a project of
			// peers only (the status read got that far): an empty
			// store holds nothing.
			return nil, nil
		}
		return held, err
	}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the store: generation, sources, document count, peers, holds",
		Long: `Show the local store: its folder, format, current generation, document count
and source folders; the declared peers (when there are any) and whether each
answers; what a refresh would find (files added, changed and removed since
the generation, by a stat of each file, none read); and the generations
bindings hold.

Output (JSON): {store, format, generation, documents, sources: [{path,
prefix, front_matter_id}], peers, changes: {generation, added, changed,
removed, unchanged, ignored, skipped, clashes, sources_changed,
settings_changed, missing}, holds}. A source's front_matter_id (name or
off) is left out for the default. With --at or --receipt, the pinned
generation, without changes or holds (a pin is not about now).`,
		Example: `  docir status
  docir status --jq '.changes.changed[]'     # the files edited since the last index`,
		Args: noArgs,
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
		for _, m := range missingOf(out.Changes) {
			if text {
				break // the text says so on stdout
			}
			fmt.Fprintf(opts.IO.ErrOut, "docir: warning: %s; status leaves it out of changes, and docir index fails until it is back (docir sources --remove takes it off the list)\n", forTerminal(m.Error))
		}
	}
	if opts.Holds != nil {
		held, err := opts.Holds(ctx)
		if err != nil {
			return err
		}
		out.Holds = statusHolds(held)
	}
	if text {
		return opts.IO.writeText(opts.IO.Out, func(w io.Writer) error { return printStatusText(w, out) })
	}
	return opts.IO.printJSON(out)
}

// statusOutput is what `docir status` prints: the store's status, and
// what changed in the sources since the current generation.
type statusOutput struct {
	docir.Status
	Changes *statusChanges `json:"changes,omitempty"`
	// Holds are the bindings' holds (absent for a pinned status).
	Holds *[]statusHold `json:"holds,omitempty"`
}

// statusChanges is what a refresh would find, and the source folders it
// could not look in.
type statusChanges struct {
	ingest.Changes
	// Missing are the configured source folders that cannot be read (gone,
	// not a folder), left out of the other fields: a refresh fails until
	// each is back or taken off the list.
	Missing []missingSource `json:"missing,omitempty"`
}

// missingSource is a source folder that cannot be read, and why.
type missingSource struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

func missingOf(c *statusChanges) []missingSource {
	if c == nil {
		return nil
	}
	return c.Missing
}

// statusHolds is the holds as status prints them; nil for none listed
// (a pinned status).
func statusHolds(held []workspace.HeldGeneration) *[]statusHold {
	if held == nil {
		return nil
	}
	holds := make([]statusHold, len(held))
	for i, h := range held {
		holds[i] = statusHold{Binding: h.Binding, Generation: h.Generation, Binds: h.Binds,
			Created: h.Created.UTC(), Expires: h.Expires.UTC(), KeptBytes: h.KeptBytes}
	}
	return &holds
}

// statusHold is one binding's hold on a generation, as `docir status`
// prints it: kept_bytes is what that generation alone keeps on disk (the
// bytes of its files no other generation shares), which pruning it would
// free once the hold ends.
type statusHold struct {
	Binding    string    `json:"binding"`
	Generation uint64    `json:"generation"`
	Binds      int       `json:"binds"`
	Created    time.Time `json:"created"`
	Expires    time.Time `json:"expires"`
	KeptBytes  int64     `json:"kept_bytes"`
}

func printStatusText(dst io.Writer, out statusOutput) error {
	w := &errWriter{w: dst}
	st := out.Status
	fmt.Fprintf(w, "store       %s\n", st.Store)
	fmt.Fprintf(w, "generation  %d\n", st.Generation)
	fmt.Fprintf(w, "documents   %d\n", st.Documents)
	for _, s := range st.Sources {
		fmt.Fprintf(w, "source      %s", s.Path)
		if s.Prefix != "" {
			fmt.Fprintf(w, " (prefix %s)", s.Prefix)
		}
		if s.FrontMatterID != "" { // after the prefix, as `docir sources` says it
			fmt.Fprintf(w, " (front_matter_id %s)", s.FrontMatterID)
		}
		fmt.Fprintln(w)
	}
	for _, p := range st.Peers {
		if p.Status == "ok" {
			fmt.Fprintf(w, "peer        %s  %s %s  ok: generation %d, %d documents\n", p.Name, p.Kind, p.Location, p.Generation, p.Documents)
		} else {
			fmt.Fprintf(w, "peer        %s  %s %s  %s: %s\n", p.Name, p.Kind, p.Location, p.Status, p.Error)
		}
	}
	if out.Holds != nil {
		for _, h := range *out.Holds {
			fmt.Fprintf(w, "hold        generation %d until %s, %d bind(s), keeps %s on disk (binding %s)\n",
				h.Generation, h.Expires.Format(time.RFC3339), h.Binds, sizeText(h.KeptBytes), h.Binding[:12])
		}
	}
	if c := out.Changes; c != nil {
		for _, m := range c.Missing {
			fmt.Fprintf(w, "missing     %s; left out of changes, and docir index fails until it is back\n", forTerminal(m.Error))
		}
		if c.SettingsChanged {
			fmt.Fprintf(w, "settings    the index settings (%s's, or this docir's markdown rules) changed since generation %d; run docir index\n", ConfigFileName, st.Generation)
		}
		switch {
		case len(c.Added)+len(c.Changed)+len(c.Removed) == 0 && !c.SourcesChanged:
			fmt.Fprintf(w, "changes     none since generation %d (%s unchanged, %d ignored%s)\n", st.Generation, render.Counted(c.Unchanged, "file", "files"), c.Ignored, skippedText(c.Skipped))
		default:
			fmt.Fprintf(w, "changes     since generation %d: %d added, %d changed, %d removed (%d ignored%s); run docir index\n",
				st.Generation, len(c.Added), len(c.Changed), len(c.Removed), c.Ignored, skippedText(c.Skipped))
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
	return w.err
}

// sizeText is a byte count for people: 812 B, 4.1 KiB, 12.0 MiB.
func sizeText(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// skippedText says how many files a refresh would skip again, when any.
func skippedText(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d skipped as before: binary, not UTF-8, unreadable or over a parse limit", n)
}
