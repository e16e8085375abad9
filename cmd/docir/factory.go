package main

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/viper"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/federation"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/ingest"
	"github.com/docir/docir/workspace"
)

// Factory builds what commands need, lazily: `docir --help` and usage
// errors never read the config or open a store.
type Factory struct {
	IO         *IOStreams
	viper      *viper.Viper
	configFile string
	ran        bool            // a command's RunE started: errors after this are not usage errors
	ctx        context.Context // the command's: a zero-setup index stops with it (Ctrl-C)
	jq         string          // --jq, compiled into IO before the command runs
	// formatGiven: --format is on the command line (not only DOCIR_FORMAT
	// or the config's format:, defaults that --jq overrides).
	formatGiven bool

	config       *loadedConfig
	ws           *workspace.Service
	fed          *federation.Reader
	pin          pinFlags
	pinnedReader docir.Reader          // the reader the pin flags name, once opened
	stale        chan ingest.Staleness // the answer of the stale check, once started
	// noStaleCheck: the command says itself what changed (status), so
	// the stale check's warning would say it twice.
	noStaleCheck bool
}

func newFactory(io *IOStreams) *Factory {
	return &Factory{IO: io, viper: viper.New()} // the one viper instance of a process
}

// Config reads the configuration once.
func (f *Factory) Config() (*loadedConfig, error) {
	if f.config != nil {
		return f.config, nil
	}
	lc, err := loadConfig(f.viper, f.configFile)
	if err != nil {
		return nil, err
	}
	f.config = lc
	return lc, nil
}

// Workspace opens the service over the local store, once.
func (f *Factory) Workspace() (*workspace.Service, error) {
	return f.workspace(false)
}

// serveWorkspace is Workspace for serve, a process that outlives edits to
// the sources: each refresh it runs reads docir.yaml again (reloadSettings).
func (f *Factory) serveWorkspace() (*workspace.Service, error) {
	return f.workspace(true)
}

func (f *Factory) workspace(reload bool) (*workspace.Service, error) {
	if f.ws != nil {
		return f.ws, nil
	}
	lc, err := f.Config()
	if err != nil {
		return nil, err
	}
	cfg := workspace.Config{
		Dir:     lc.StoreDir(),
		Sources: lc.StoreSources(),
		Ingest:  f.ingestOptions(lc),
		// A command's first read indexes through zeroSetup, with its
		// checks ($HOME, another project's store below); a read that
		// skips it (a pinned one: a receipt names a generation a new
		// store cannot have) finds no store. serve indexes first itself.
		AutoIndex: reload,
		Notify:    f.IO.note,
		Stemming:  lc.Search.Stemming,
	}
	if reload {
		cfg.Reload = f.reloadSettings(lc)
	}
	f.ws = workspace.New(cfg)
	return f.ws, nil
}

// reloadSettings reads the sources and index settings of docir.yaml again
// for a refresh, as a `docir index` started now would, holding the lock
// the commands that change the sources hold (lockSources) until the
// refresh is done. The store stays lc's: a server serves one store.
func (f *Factory) reloadSettings(lc *loadedConfig) func(context.Context) (workspace.Settings, func(), error) {
	return func(ctx context.Context) (workspace.Settings, func(), error) {
		unlock, err := lockConfig(ctx, lc.configFileToWrite(), f.IO.note)
		if err != nil {
			return workspace.Settings{}, nil, err
		}
		v := viper.New()
		if lc.Store != "" {
			v.Set("store", lc.Store)
		}
		now, err := loadConfig(v, f.configFile)
		if err != nil {
			unlock()
			return workspace.Settings{}, nil, err
		}
		return workspace.Settings{Sources: now.StoreSources(), Ingest: f.ingestOptions(now)}, unlock, nil
	}
}

// Reader is what read commands call: every deep and skeleton read goes
// through it. With peers configured it is the federation: local first, then
// the peers in declaration order. A store with nothing indexed yet is
// indexed first (zeroSetup).
func (f *Factory) Reader() (docir.Reader, error) {
	return f.reader(true)
}

// serveReader is Reader without the zero-setup index: serve answers at once
// and indexes in the background.
func (f *Factory) serveReader() (docir.Reader, error) {
	return f.reader(false)
}

func (f *Factory) reader(setUp bool) (docir.Reader, error) {
	ws, err := f.Workspace()
	if err != nil {
		return nil, err
	}
	if f.pin.set() {
		if f.pinnedReader == nil {
			if err := somethingToRead(f.config, "read"); err != nil {
				return nil, err
			}
			if f.pinnedReader, err = f.pinned(context.Background(), ws); err != nil {
				return nil, err
			}
		}
		return f.pinnedReader, nil
	}
	if len(f.config.peers) == 0 {
		if err := somethingToRead(f.config, "read"); err != nil {
			return nil, err
		}
	}
	if setUp {
		if err := f.zeroSetup(f.config, ws); err != nil {
			return nil, err
		}
	}
	f.warnIfStale(f.config)
	if len(f.config.peers) == 0 {
		return ws, nil
	}
	if f.fed == nil {
		peers, err := federation.OpenPeers(f.config.peers)
		if err != nil {
			return nil, err
		}
		f.fed = federation.New(federation.Config{Local: ws, LocalDir: f.config.StoreDir(), Peers: peers})
	}
	return f.fed, nil
}

// readWorkspace is Workspace for a command that reads the local store
// only (bind): it makes the checks a read makes first, so that it refuses
// what a read refuses (nothing to read; another project's store below) and
// indexes a store with no generation as a read would, saying so.
func (f *Factory) readWorkspace(what string) (*workspace.Service, error) {
	ws, err := f.Workspace()
	if err != nil {
		return nil, err
	}
	if err := somethingToRead(f.config, what); err != nil {
		return nil, err
	}
	if err := f.zeroSetup(f.config, ws); err != nil {
		return nil, err
	}
	return ws, nil
}

// zeroSetup indexes the sources when the store has no generation yet, so
// that a first read needs no set-up step, and says on stderr what it
// indexes, where the store goes, and what it found. With no docir.yaml, it
// refuses a folder that holds another project's store (zeroSetupRefusal).
// A store with a generation, or sources with no markdown, it leaves alone.
func (f *Factory) zeroSetup(lc *loadedConfig, ws *workspace.Service) error {
	dir := lc.StoreDir()
	if _, err := store.CurrentGeneration(dir); docir.CodeOf(err) != docir.CodeNoStore {
		return nil
	}
	if err := homeRefusal(lc); err != nil {
		return err
	}
	srcs := lc.StoreSources()
	if !slices.ContainsFunc(srcs, func(s store.Source) bool { return hasMarkdown(s.Path, nil) }) {
		return nil
	}
	if err := storeBelowRefusal(lc); err != nil { // homeRefusal was asked above, before the walk
		return err
	}
	paths := make([]string, len(srcs))
	for i, s := range srcs {
		paths[i] = s.Path
	}
	fmt.Fprintf(f.IO.ErrOut, "docir: no store yet: indexing %s into %s first\n", forTerminal(strings.Join(paths, ", ")), forTerminal(dir))
	ctx := f.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	sum, err := ws.RefreshFirst(ctx, nil)
	if err != nil {
		return err
	}
	if !sum.Published && sum.Generation > 0 {
		// Another process (a `docir index`, another read) published the
		// first generation while this one waited for the lock: read it.
		fmt.Fprintf(f.IO.ErrOut, "docir: %s was indexed meanwhile (generation %d, by another docir); reading it\n", forTerminal(dir), sum.Generation)
		// This process's config was read before that index wrote its
		// own: the stale check would compare the wrong sources.
		f.noStaleCheck = true
		return nil
	}
	printWarnings(f.IO, sum.Warnings)
	who := "reads below " + lc.BaseDir + " use it"
	if lc.storeNamed {
		who = "reads that name it (--store or DOCIR_STORE) use it"
	}
	fmt.Fprintf(f.IO.ErrOut, "docir: indexed %d documents (%d warnings, %.2fs) into %s; %s; `docir index` refreshes it\n",
		sum.Documents, len(sum.Warnings), sum.Seconds, forTerminal(dir), who)
	return nil
}

// zeroSetupRefusal refuses to index the working folder of a project with
// no docir.yaml (its one source, implicit) when it is the home folder or
// the file system's root (homeRefusal), or when a store lies below it
// (storeBelowRefusal). nil when there is a config (its sources were
// chosen).
func zeroSetupRefusal(lc *loadedConfig) error {
	if err := homeRefusal(lc); err != nil {
		return err
	}
	return storeBelowRefusal(lc)
}

// storeBelowRefusal refuses, with no docir.yaml, a folder that holds a
// store below it: that store is another project's, and it already indexes
// what it holds. nil when there is a config or no store below.
func storeBelowRefusal(lc *loadedConfig) error {
	if lc.File != "" || len(lc.Sources) > 0 {
		return nil
	}
	inner := storeBelow(lc.BaseDir)
	if inner == "" {
		return nil
	}
	project := filepath.Dir(inner)
	return &docir.Error{Code: docir.CodeNoStore, Err: store.ErrNoStore, Message: fmt.Sprintf(
		"not indexing %s: %s below it is the store of the project %s, which reads there use; read from %s, or run `docir index` to index all of %s into a store of its own",
		lc.BaseDir, inner, project, project, lc.BaseDir)}
}

// homeRefusal refuses a first read's index of the home folder or / when
// no docir.yaml chose sources there: it would walk the whole home folder or
// file system, and every project below it without a docir.yaml would then
// read that store (the look-up goes up, as git's does). serve refuses the
// same folders. nil for any other folder.
func homeRefusal(lc *loadedConfig) error {
	if lc.File != "" || len(lc.Sources) > 0 || !isHomeOrRoot(lc.BaseDir, os.Getenv("HOME")) {
		return nil
	}
	return &docir.Error{Code: docir.CodeNoStore, Err: store.ErrNoStore, Message: fmt.Sprintf(
		"not indexing %s: docir does not index the home folder or / without a docir.yaml; run `docir index DIR` with a folder of markdown and read there, or `docir index .` to index all of %s on purpose",
		lc.BaseDir, lc.BaseDir)}
}

// storeBelow is the first .docir folder found below dir (not dir's own),
// in a folder the indexer reads (not a hidden one); "" when there is none.
func storeBelow(dir string) string {
	found := ""
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			if d != nil && d.IsDir() && p != dir {
				return fs.SkipDir
			}
			return nil
		case !d.IsDir() || p == dir:
			return nil
		case d.Name() == StoreFolderName && filepath.Dir(p) != dir:
			found = p
			return fs.SkipAll
		case strings.HasPrefix(d.Name(), "."):
			return fs.SkipDir
		}
		return nil
	})
	return found
}

// changes is what a refresh of the local store would find (a stat walk),
// for `docir status`; nil for a pinned status. A source folder that cannot
// be read (gone, not a folder) is left out of the walk and listed in
// Missing: its files are not counted removed, and the sources are changed
// only if the list in the config differs from the store's.
func (f *Factory) changes(ctx context.Context) (*statusChanges, error) {
	lc, err := f.Config()
	if err != nil {
		return nil, err
	}
	return f.changesIn(ctx, lc.StoreSources())
}

// changesIn is changes of the source folders all.
func (f *Factory) changesIn(ctx context.Context, all []store.Source) (*statusChanges, error) {
	if f.pin.set() {
		return nil, nil
	}
	lc, err := f.Config()
	if err != nil {
		return nil, err
	}
	var present []store.Source
	var missing []missingSource
	for _, s := range all {
		if err := store.CheckSourceDir(s.Path); err != nil {
			missing = append(missing, missingSource{Path: s.Path, Error: err.Error()})
			continue
		}
		present = append(present, s)
	}
	c, err := ingest.Diff(ctx, lc.StoreDir(), present, indexSettings(lc))
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		c.Removed = slices.DeleteFunc(c.Removed, func(p string) bool {
			return slices.ContainsFunc(missing, func(m missingSource) bool { return within(p, m.Path) })
		})
		if c.SourcesChanged, err = sourcesDiffer(lc.StoreDir(), all); err != nil {
			return nil, err
		}
	}
	return &statusChanges{Changes: c, Missing: missing}, nil
}

// sourcesDiffer says whether sources are not the ones the store in dir
// records (any, when there is no store yet).
func sourcesDiffer(dir string, sources []store.Source) (bool, error) {
	snap, err := store.Open(dir)
	if docir.CodeOf(err) == docir.CodeNoStore {
		return len(sources) > 0, nil
	}
	if err != nil {
		return false, err
	}
	defer snap.Close()
	recorded, err := snap.Sources()
	return !slices.Equal(recorded, sources), err
}

// warnIfStale starts the check, once per process, of whether the sources
// changed since the current generation was indexed, and whether
// docir.yaml's index settings did: a cheap check of folder mtimes only
// (ingest.Stale), never a walk of the files. It runs beside the read (a
// stat for each of at most ingest.StaleFolders folders, those that changed
// last); reportStale says what it found.
func (f *Factory) warnIfStale(lc *loadedConfig) {
	if f.stale != nil || f.noStaleCheck {
		return
	}
	if _, err := store.CurrentGeneration(lc.StoreDir()); err != nil {
		return // nothing indexed yet: the read indexes first, or says what to run
	}
	ch := make(chan ingest.Staleness, 1)
	f.stale = ch
	dir, sources, opt := lc.StoreDir(), lc.StoreSources(), indexSettings(lc)
	go func() {
		st, err := ingest.Stale(dir, sources, opt)
		if err != nil {
			st = ingest.Staleness{}
		}
		ch <- st
	}()
}

// reportStale waits for the check warnIfStale started, if any, and says on
// stderr when the sources or the index settings changed.
func (f *Factory) reportStale() {
	if f.stale == nil {
		return
	}
	st := <-f.stale
	if st.Sources {
		if gone := f.missingSources(); len(gone) > 0 {
			// docir index would fail until it is back: say so, and how
			// to drop it, not "docir index refreshes".
			for _, p := range gone {
				fix := "`docir sources --replace DIR` names where it went"
				if len(f.config.StoreSources()) > 1 {
					fix = "`docir sources --remove " + p + "` drops it"
				}
				fmt.Fprintf(f.IO.ErrOut, "docir: warning: source folder %s is gone; reads answer from the last index, and docir index fails until it is back (or %s)\n", forTerminal(p), forTerminal(fix))
			}
		} else {
			fmt.Fprintln(f.IO.ErrOut, "docir: warning: the sources changed since they were indexed; reads answer from the last index (docir status shows what changed; docir index refreshes)")
		}
	}
	if st.Settings {
		fmt.Fprintf(f.IO.ErrOut, "docir: warning: the index settings (%s's front_matter, links, exclude, max_file_bytes, or this docir's markdown rules) changed since the store was indexed; reads answer from the index made with the old ones (docir index applies them)\n", ConfigFileName)
	}
	f.stale = nil
}

// missingSources are the configured source folders that cannot be read
// as folders now (moved, removed), for the stale warning.
func (f *Factory) missingSources() []string {
	if f.config == nil {
		return nil
	}
	var gone []string
	for _, s := range f.config.StoreSources() {
		if store.CheckSourceDir(s.Path) != nil {
			gone = append(gone, s.Path)
		}
	}
	return gone
}

func (f *Factory) ingestOptions(lc *loadedConfig) ingest.Options {
	opt := indexSettings(lc)
	opt.Retain, opt.Progress, opt.Force, opt.BeforePublish = lc.Retain, f.progress(), lc.force, lc.beforePublish
	return opt
}

// indexSettings are the ingest options docir.yaml sets that decide the
// index, and nothing else: what Diff and Stale compare with the ones the
// last refresh recorded, with no progress bar to set up (a read's stale
// check runs on every call).
func indexSettings(lc *loadedConfig) ingest.Options {
	return ingest.Options{
		MaxFileBytes:  lc.MaxFileBytes,
		FrontMatter:   lc.FrontMatter,
		Exclude:       lc.Exclude,
		SourceExclude: lc.sourceExcludes(),
		Links: store.LinkConfig{Base: lc.Links.Base, Ignore: lc.Links.Ignore, Site: lc.Links.Site,
			IgnoreCase: lc.Links.IgnoreCase, DefinitionIDs: lc.Links.DefinitionIDs, RootFallback: lc.Links.RootFallback,
			MkDocsAnchors: lc.Links.MkDocsAnchors, DirectoryURLs: lc.Links.DirectoryURLs, VitePressAnchors: lc.Links.VitePressAnchors,
			HugoAliases: lc.Links.HugoAliases, BlackfridayAnchors: lc.Links.BlackfridayAnchors, MDNAnchors: lc.Links.MDNAnchors,
			NumberPrefixes: lc.Links.NumberPrefixes, Wikilinks: lc.wikilinks()},
	}
}

// progress returns a progress callback that draws a bar per stage on
// stderr when stderr is a terminal, and nil (silence) otherwise.
func (f *Factory) progress() func(stage string, done, total int) {
	if !isTerminal(f.IO.ErrOut) {
		return nil
	}
	var bar *progressbar.ProgressBar
	var current string
	return func(stage string, done, total int) {
		if bar == nil || stage != current {
			if bar != nil {
				_ = bar.Finish()
			}
			current = stage
			bar = progressbar.NewOptions(total,
				progressbar.OptionSetWriter(f.IO.ErrOut),
				progressbar.OptionSetDescription(fmt.Sprintf("%-9s", stage)),
				progressbar.OptionShowCount(),
				progressbar.OptionThrottle(80*time.Millisecond),
				progressbar.OptionClearOnFinish(),
				progressbar.OptionSetWidth(30))
		}
		_ = bar.Set(done)
		if done == total {
			_ = bar.Finish()
		}
	}
}

// completionService is the local store for shell completion: it never
// indexes (a TAB must not start a refresh) and prints nothing.
func (f *Factory) completionService() (*workspace.Service, error) {
	lc, err := f.Config()
	if err != nil {
		return nil, err
	}
	return workspace.New(workspace.Config{Dir: lc.StoreDir(), Sources: lc.StoreSources()}), nil
}

// wantText resolves --format: text for "text", or for "auto" when stdout
// is a terminal; JSON otherwise, and always with --jq. Only the flag
// --format text conflicts with --jq: a text default from DOCIR_FORMAT or
// the config yields to it.
func (f *Factory) wantText() (bool, error) {
	lc, err := f.Config()
	if err != nil {
		return false, err
	}
	switch {
	case f.IO.jq != nil && lc.Format == "text" && f.formatGiven:
		return false, docir.Errorf(docir.CodeUsage, "--jq filters JSON output: drop --format text")
	case f.IO.jq != nil, lc.Format == "json":
		return false, nil
	case lc.Format == "text":
		return true, nil
	default:
		return f.IO.outIsTerminal(), nil
	}
}

// somethingToRead refuses a read (or a bare `docir index`) that would index
// nothing: no store yet and no markdown file in any source. Without it the
// first read in an empty folder would create an empty store and answer
// nothing, silently.
func somethingToRead(lc *loadedConfig, what string) error {
	dir := lc.StoreDir()
	if _, err := store.CurrentGeneration(dir); docir.CodeOf(err) != docir.CodeNoStore {
		return nil // a store (or an error the read will report)
	}
	if err := homeRefusal(lc); err != nil {
		return err // before the walk for markdown: it would walk all of $HOME or /
	}
	srcs := lc.StoreSources()
	others := map[string]int{} // files that look like markdown and are not *.md, by extension
	for _, s := range srcs {
		if hasMarkdown(s.Path, others) {
			return nil // the read indexes it first
		}
	}
	var where string
	switch {
	case len(srcs) == 0:
		where = fmt.Sprintf("%s lists no sources", lc.File)
	case len(srcs) == 1:
		where = "no *.md files under " + srcs[0].Path
		if err := store.CheckSourceDir(srcs[0].Path); err != nil {
			where = "its source cannot be read: " + err.Error() // "does not exist", not "no *.md files"
		}
	default:
		where = fmt.Sprintf("no *.md files under any of the %d sources", len(srcs))
	}
	if len(others) > 0 {
		var parts []string
		for _, ext := range slices.Sorted(maps.Keys(others)) {
			parts = append(parts, fmt.Sprintf("%d %s", others[ext], ext))
		}
		where += fmt.Sprintf(" (%s files there are not read: docir reads *.md files only)", strings.Join(parts, ", "))
	}
	return &docir.Error{Code: docir.CodeNoStore, Err: store.ErrNoStore, Message: fmt.Sprintf(
		"nothing to %s: no store in %s and %s; run `docir index DIR` with a folder of markdown", what, dir, where)}
}

// hasMarkdown reports whether a *.md file lies under dir, in a folder the
// indexer reads (hidden folders are not); it stops at the first one. Until
// then it counts in others (when not nil) the files that look like
// markdown but are not *.md (ingest.LookalikeExt), by extension.
//
// A source that is a symbolic link to a folder is that folder, as
// ingest's walk reads it: WalkDir does not follow a link at its top, so
// the link's target is walked (without it, a first `docir index` of a
// linked source said it held no *.md file, and refused).
func hasMarkdown(dir string, others map[string]int) bool {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	found := false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir() && p != dir && strings.HasPrefix(d.Name(), "."):
			return fs.SkipDir
		case !d.IsDir() && strings.HasSuffix(d.Name(), ".md"):
			found = true
			return fs.SkipAll
		case !d.IsDir() && others != nil:
			if ext := ingest.LookalikeExt(d.Name()); ext != "" {
				others[ext]++
			}
		}
		return nil
	})
	return found
}

// Close releases what the factory opened.
func (f *Factory) Close() {
	f.reportStale()
	f.pin.close()
	if f.fed != nil {
		_ = f.fed.Close()
	}
	if f.ws != nil {
		_ = f.ws.Close()
	}
}
