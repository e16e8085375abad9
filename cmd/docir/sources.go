package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/workspace"
)

// SourcesOptions is everything `docir sources` needs.
type SourcesOptions struct {
	IO        *IOStreams
	Config    func() (*loadedConfig, error)
	Workspace func() (*workspace.Service, error)
	WantText  func() (bool, error)

	Remove  []string // --remove DIR, repeatable
	Replace bool     // --replace: Dirs become the list
	Dirs    []string
}

// sourcesResult is the JSON of `docir sources`.
type sourcesResult struct {
	Config string `json:"config"` // the config file; "" when there is none
	// Exclude are the config's exclude patterns, for every source.
	Exclude []string      `json:"exclude,omitempty"`
	Sources []sourceEntry `json:"sources"`
}

// sourceEntry is one source: as written in the config, and where it is.
type sourceEntry struct {
	Path   string `json:"path"`
	Prefix string `json:"prefix,omitempty"`
	// FrontMatterID is how a front-matter `id:` makes an id (whole, name,
	// off); left out for the default.
	FrontMatterID string `json:"front_matter_id,omitempty"`
	// Exclude are the source's own exclude patterns (after the config's
	// global ones, sourcesResult.Exclude).
	Exclude []string `json:"exclude,omitempty"`
	Dir     string   `json:"dir"` // absolute
}

func newCmdSources(f *Factory, runF func(context.Context, *SourcesOptions) error) *cobra.Command {
	opts := &SourcesOptions{IO: f.IO, Config: f.Config, Workspace: f.Workspace, WantText: f.wantText}
	cmd := &cobra.Command{
		Use:   "sources [--remove DIR]... | --replace DIR...",
		Short: "List the source folders, or remove or replace them",
		Long: `List the configured source folders: each as written in the config
(relative to its folder), its id prefix, and its absolute path.

--remove DIR takes a folder off the list (repeat it for several);
--replace DIR... makes the folders given the whole list (a folder that
stays keeps its prefix). Either refreshes the store on the new list first
and writes the config only once that succeeded, so a list whose ids clash
is never saved. To add a folder, use docir index DIR (--prefix NAME).`,
		Example: `  docir index runbooks/ adr/ guides/
  docir sources
  docir sources --remove guides/
  docir sources --replace runbooks adr guides`,
		Args: usageArgs(cobra.ArbitraryArgs),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dirs = args
			switch {
			case opts.Replace && len(opts.Remove) > 0:
				return docir.Errorf(docir.CodeUsage, "--remove and --replace do not go together")
			case opts.Replace && len(args) == 0:
				return docir.Errorf(docir.CodeUsage, "--replace needs the folders that make the new list")
			case !opts.Replace && len(args) > 0:
				return docir.Errorf(docir.CodeUsage, "folders given without --replace; to add one, use docir index DIR")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return sourcesRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Remove, "remove", nil, "take `DIR` off the source list (repeatable)")
	cmd.Flags().BoolVar(&opts.Replace, "replace", false, "make the folders given the whole source list")
	_ = cmd.RegisterFlagCompletionFunc("remove", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		lc, err := f.Config()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var paths []string
		for _, s := range lc.Sources {
			paths = append(paths, s.Path)
		}
		return paths, cobra.ShellCompDirectiveNoFileComp
	})
	f.addFlags(cmd, storeFlags|outputFlags|verboseFlag)
	return cmd
}

func sourcesRun(ctx context.Context, opts *SourcesOptions) error {
	text, err := opts.WantText()
	if err != nil {
		return err
	}
	lc, err := opts.Config()
	if err != nil {
		return err
	}
	if opts.Replace || len(opts.Remove) > 0 {
		if err := checkDirs(opts.Dirs); err != nil {
			return err
		}
		// The list as it is once no other docir can change it.
		unlock, err := lc.lockSources(ctx, opts.IO.note)
		if err != nil {
			return indexFailed(ctx, err, nil)
		}
		defer unlock()
		var list []SourceConfig
		if opts.Replace {
			kept := lc.Sources
			lc.Sources = nil
			list, err = lc.sourcesAdding(opts.Dirs, "", false)
			for i := range list {
				if j := lc.indexOf(kept, list[i].Path); j >= 0 {
					list[i].Prefix, list[i].FrontMatterID, list[i].Exclude = kept[j].Prefix, kept[j].FrontMatterID, kept[j].Exclude
				}
			}
			lc.Sources = kept
		} else {
			list, err = lc.sourcesRemoving(opts.Remove)
		}
		if err != nil {
			return err
		}
		if len(list) == 0 {
			return docir.Errorf(docir.CodeUsage, "that would leave no sources; use --replace DIR... to change the list")
		}
		// The list is the user's: a source the store holds and the list
		// leaves out (a docir.yaml edited by hand, whose list already
		// reads as the new one) is dropped, as --replace and --remove
		// say; index refuses that only when the list was not changed
		// on purpose.
		lc.force = true
		sum, err := refreshWith(ctx, lc, list, opts.Workspace)
		if err != nil {
			return indexFailed(ctx, err, nil)
		}
		printWarnings(opts.IO, sum.Warnings)
		if text {
			fmt.Fprintf(opts.IO.ErrOut, "docir: %s updated; ", forTerminal(lc.File))
			_ = printIndexText(opts.IO.ErrOut, sum)
		}
	}
	res := sourcesResult{Config: lc.File, Exclude: lc.Exclude, Sources: []sourceEntry{}}
	if lc.File == "" && len(lc.Sources) == 0 {
		res.Sources = append(res.Sources, sourceEntry{Path: ".", Dir: lc.BaseDir})
	}
	for _, s := range lc.Sources {
		res.Sources = append(res.Sources, sourceEntry{Path: s.Path, Prefix: s.Prefix, FrontMatterID: s.FrontMatterID, Exclude: s.Exclude, Dir: lc.abs(s.Path)})
	}
	if text {
		return printSourcesText(opts.IO.Out, res)
	}
	return opts.IO.printJSON(res)
}

func printSourcesText(w io.Writer, res sourcesResult) error {
	if res.Config == "" {
		fmt.Fprintln(w, "no config file: the working folder is the source (docir index DIR creates docir.yaml)")
	}
	rows := [][]string{{"PATH", "PREFIX", "FOLDER"}}
	for _, s := range res.Sources {
		prefix := s.Prefix
		if s.FrontMatterID != "" { // said beside the prefix: both make its files' ids
			prefix = strings.TrimSpace(prefix + " (front_matter_id " + s.FrontMatterID + ")")
		}
		rows = append(rows, []string{s.Path, prefix, s.Dir})
	}
	var b strings.Builder
	widths := columnWidths(rows)
	for _, row := range rows {
		writeRow(&b, row, widths, []bool{false, false, false})
	}
	_, err := io.WriteString(w, b.String())
	return err
}
