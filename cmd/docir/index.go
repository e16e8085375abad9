package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/ingest"
	"github.com/docir/docir/workspace"
)

// IndexOptions is everything `docir index` needs.
type IndexOptions struct {
	IO        *IOStreams
	Config    func() (*loadedConfig, error)
	Workspace func() (*workspace.Service, error)
	WantText  func() (bool, error)

	Dirs      []string
	Prefix    string
	PrefixSet bool // --prefix was given (an empty one removes a prefix)
	Force     bool // --force: index even when that drops recorded sources or most documents

	// FrontMatterID is --front-matter-id: how the folder given reads a
	// front-matter `id:` ("" when not given).
	FrontMatterID string
}

func newCmdIndex(f *Factory, runF func(context.Context, *IndexOptions) error) *cobra.Command {
	opts := &IndexOptions{IO: f.IO, Config: f.Config, Workspace: f.Workspace, WantText: f.wantText}
	cmd := &cobra.Command{
		Annotations: map[string]string{longRunning: "true"},
		Use:         "index [SOURCE_DIR...]",
		Short:       "Ingest or refresh the store; folders given are added to the sources",
		Long: `Index folders of *.md files into the store, or refresh it.

Folders given are added to the sources, which are saved in the config
(docir.yaml; created in the working folder if there is none, naming the
store too when --store or DOCIR_STORE names it) as written, relative to
the config's folder. The config is written only after the
refresh succeeded: a folder whose ids clash with another source's (two
README.md, say) is refused with the fix, and docir.yaml stays as it was.
--prefix NAME puts NAME/ before the ids of the one folder given;
--front-matter-id name reads its files' front-matter id: as Docusaurus
does (the file's name, its folder kept). Without
folders, the configured sources are refreshed; with no config at all,
the working folder is the source. docir sources lists and edits the list.

Unchanged files (same size and mtime, else same content digest) are not
read again. A refresh that changes anything publishes a new generation
atomically; readers are never blocked. Warnings (skipped files) go to
stderr, the first few and a count unless -v; a progress bar is drawn on
stderr when it is a terminal.`,
		Example: `  docir index runbooks/ adr/            # two folders: ids are paths below each (disk-full)
  docir index --prefix guides guides/   # ids below guides/ start with guides/
  docir index                           # refresh the configured sources
  docir index --format json`,
		Args: usageArgs(cobra.ArbitraryArgs),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dirs = args
			opts.PrefixSet = cmd.Flags().Changed("prefix")
			if opts.PrefixSet && len(args) != 1 {
				return docir.Errorf(docir.CodeUsage, "--prefix names the ids of one source: give exactly one SOURCE_DIR")
			}
			if err := ingest.CheckPrefix(opts.Prefix); err != nil {
				return docir.Errorf(docir.CodeUsage, "--%w", err) // --prefix "a b" is not a valid id prefix: ...
			}
			if cmd.Flags().Changed("front-matter-id") {
				if len(args) != 1 {
					return docir.Errorf(docir.CodeUsage, "--front-matter-id sets how one source reads `id:`: give exactly one SOURCE_DIR")
				}
				if err := ingest.CheckFrontMatterID(opts.FrontMatterID); err != nil || opts.FrontMatterID == "" {
					return docir.Errorf(docir.CodeUsage, "--front-matter-id %q: want %s, %s or %s", opts.FrontMatterID, ingest.FrontMatterIDWhole, ingest.FrontMatterIDName, ingest.FrontMatterIDOff)
				}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return indexRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Prefix, "prefix", "", "put `NAME`/ before the ids of the folder given (\"\" removes its prefix)")
	cmd.Flags().StringVar(&opts.FrontMatterID, "front-matter-id", "", "read the front-matter ids of the folder given by `RULE`: whole (the id, the default), name (the file's name, folder and prefix kept, as Docusaurus), off (ids from paths only)")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "index even when that drops sources the store records, or most of its documents (a --store of another project, a config mistake)")
	f.addFlags(cmd, storeFlags|outputFlags|verboseFlag)
	return cmd
}

func indexRun(ctx context.Context, opts *IndexOptions) error {
	text, err := opts.WantText()
	if err != nil {
		return err
	}
	lc, err := opts.Config()
	if err != nil {
		return err
	}
	if err := checkDirs(opts.Dirs); err != nil {
		return err
	}
	// The sources as they are once no other docir can change them.
	unlock, err := lc.lockSources(ctx, opts.IO.note)
	if err != nil {
		return indexFailed(ctx, err, opts.Dirs)
	}
	defer unlock()
	var list []SourceConfig
	if len(opts.Dirs) == 0 {
		// A bare refresh with nothing to index writes nothing either.
		if err := somethingToRead(lc, "index"); err != nil {
			return err
		}
	} else if list, err = lc.sourcesAdding(opts.Dirs, opts.Prefix, opts.PrefixSet); err != nil {
		return err
	} else if opts.FrontMatterID != "" {
		if err := lc.settingFrontMatterID(list, opts.Dirs[0], opts.FrontMatterID); err != nil {
			return err
		}
	}
	lc.force = lc.force || opts.Force
	sum, err := refreshWith(ctx, lc, list, opts.Workspace)
	if err != nil {
		return indexFailed(ctx, err, opts.Dirs)
	}
	printWarnings(opts.IO, sum.Warnings)
	if text {
		return printIndexText(opts.IO.Out, sum)
	}
	return opts.IO.printJSON(sum)
}

// indexFailed is the error of an index that failed with err: an
// interruption (Ctrl-C) says nothing was published, a clash of ids says
// how to fix it.
func indexFailed(ctx context.Context, err error, dirs []string) error {
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return &interruptedError{what: "nothing published", err: err}
	}
	return clashHint(err, dirs)
}

// refreshWith refreshes the store from list (nil: the configured sources)
// and writes list to the config once the refresh has succeeded, just
// before it publishes (ingest.Options.BeforePublish): a source that cannot
// be indexed is never remembered, and a published generation never holds a
// source the config lacks, which would have every later refresh refused
// ("would drop"). (Should publishing itself then fail, the config lists a
// source the store does not hold yet; the next refresh indexes it.)
func refreshWith(ctx context.Context, lc *loadedConfig, list []SourceConfig, open func() (*workspace.Service, error)) (docir.IndexSummary, error) {
	old, oldFile := lc.Sources, lc.File
	write := list != nil && (oldFile == "" || !slices.EqualFunc(list, old, sameSource))
	if list != nil {
		lc.Sources = list // the workspace opens on the new list
	}
	if write {
		lc.force = true // the user changed the list: dropping a source is meant
		lc.beforePublish = func() error { return lc.saveSources(list) }
	}
	ws, err := open()
	if err != nil {
		return docir.IndexSummary{}, err
	}
	sum, err := ws.Refresh(ctx)
	if err != nil && lc.File == oldFile {
		lc.Sources = old
	}
	return sum, err
}

// clashHint adds the fix to a refresh that failed because two files claim
// one id, which is what two sources each holding README.md do. A prefix
// is suggested only when both ids come from paths. When both
// files are in one source (of those the refresh ran on, open's), a prefix
// cannot part them: the fix is an id of its own for one of them.
func clashHint(err error, dirs []string) error {
	var e *docir.Error
	var claim *ingest.ClaimError
	if !errors.As(err, &e) || !errors.As(err, &claim) {
		return err
	}
	if claim.FrontMatter() || claim.Source != "" {
		// A front-matter id, or two files of one source: a prefix
		// changes neither apart; the error says what does.
		return &docir.Error{Code: e.Code, Err: e.Err, Message: e.Message + "\nnothing was published and the config is unchanged"}
	}
	fix := "docir index --prefix NAME DIR"
	if len(dirs) == 1 {
		name := filepath.Base(filepath.Clean(dirs[0]))
		if abs, err := filepath.Abs(dirs[0]); err == nil {
			name = filepath.Base(abs) // "." names the folder it is
		}
		fix = fmt.Sprintf("docir index --prefix %s %s", name, dirs[0])
	}
	// The claim, then the fix with the folder named (the store's error
	// says it with NAME DIR: said once, here).
	return &docir.Error{Code: e.Code, Err: e.Err, Message: claim.Error() +
		"\ngive one source a prefix (its ids become NAME/<path>): " + fix + ", or one file an `id:` in its front matter" +
		"\nnothing was published and the config is unchanged"}
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
