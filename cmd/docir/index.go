package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/workspace"
)

// IndexOptions is everything `docir index` needs.
type IndexOptions struct {
	IO        *IOStreams
	Config    func() (*loadedConfig, error)
	Workspace func() (*workspace.Service, error)
	WantText  func() (bool, error)

	Dirs []string
}

func newCmdIndex(f *Factory, runF func(context.Context, *IndexOptions) error) *cobra.Command {
	opts := &IndexOptions{IO: f.IO, Config: f.Config, Workspace: f.Workspace, WantText: f.wantText}
	return &cobra.Command{
		Use:   "index [SOURCE_DIR...]",
		Short: "Ingest or refresh the store from source folders",
		Long: `Index folders of *.md files into the store, or refresh it.

With folders, they become the sources and are saved in the config
(docir.yaml; created in the working folder if there is none). Without,
the configured sources are refreshed; with no config at all, the working
folder is the source.

Unchanged files (same size and mtime, else same content digest) are not
read again. A refresh that changes anything publishes a new generation
atomically; readers are never blocked. Warnings (skipped files) go to
stderr; a progress bar is drawn on stderr when it is a terminal.`,
		Example: `  docir index docs/ adr/
  docir index --format json`,
		Args: usageArgs(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dirs = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return indexRun(cmd.Context(), opts)
		},
	}
}

func indexRun(ctx context.Context, opts *IndexOptions) error {
	text, err := opts.WantText()
	if err != nil {
		return err
	}
	if len(opts.Dirs) > 0 {
		lc, err := opts.Config()
		if err != nil {
			return err
		}
		if err := checkDirs(opts.Dirs); err != nil {
			return err
		}
		if _, err := lc.saveSources(opts.Dirs); err != nil {
			return err
		}
	}
	ws, err := opts.Workspace()
	if err != nil {
		return err
	}
	sum, err := ws.Refresh(ctx)
	if err != nil {
		return err
	}
	printWarnings(opts.IO.ErrOut, sum.Warnings)
	if text {
		return printIndexText(opts.IO.Out, sum)
	}
	return printJSON(opts.IO.Out, sum)
}

// checkDirs refuses a source that is not a folder before the config is
// written, so a typo is not remembered.
func checkDirs(dirs []string) error {
	for _, d := range dirs {
		if err := store.CheckSourceDir(d); err != nil {
			return err
		}
	}
	return nil
}

func printIndexText(w io.Writer, s docir.IndexSummary) error {
	state := fmt.Sprintf("published generation %d", s.Generation)
	if !s.Published {
		state = fmt.Sprintf("nothing changed; generation %d stays current", s.Generation)
	}
	_, err := fmt.Fprintf(w, "%d documents: %d added, %d changed, %d removed, %d unchanged; %s (%.2fs, %d warnings)\n",
		s.Documents, s.Added, s.Changed, s.Removed, s.Unchanged, state, s.Seconds, len(s.Warnings))
	return err
}
