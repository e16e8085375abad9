package session

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/workspace"
)

// WatchOptions say how Watch watches. Zero durations take the defaults.
type WatchOptions struct {
	// Debounce is how long the sources must be quiet before a refresh.
	Debounce time.Duration
	// Config, when set, is the configuration file: its changes (its
	// creation too) refresh as a source's do, and the refresh reads it
	// again (workspace.Config.Reload), so the folders watched follow the
	// sources it lists.
	Config string
	// Pending runs a refresh at the start, after Debounce: the server's
	// first index failed, or has yet to run.
	Pending bool
	// OnRefresh, when set, gets each refresh's outcome.
	OnRefresh func(docir.IndexSummary, error)
	// Poll is how often the watch looks for a source folder it does not
	// watch: one that vanished (deleted, moved away) and may be back, or
	// one new in the sources. Default 1 s.
	Poll time.Duration
	// Retry is how long after a failed refresh it is tried again, if no
	// change comes first; each failure in a row doubles it, up to
	// MaxRetry. Defaults 2 s and 1 min.
	Retry, MaxRetry time.Duration
}

// Watch refreshes s whenever a markdown file (or a folder) under its
// sources changes, once the changes have been quiet for Debounce, until
// ctx is done. Hidden folders are not watched, as the indexer does not
// read them. A source folder that is deleted is watched again when it is
// back (then the sources are refreshed), and a refresh that fails is
// tried again (WatchOptions.Retry). The channel returned is closed once
// the watch has stopped: a refresh ctx interrupted has ended by then, its
// temporary files removed.
func Watch(ctx context.Context, s *workspace.Service, o WatchOptions) (<-chan struct{}, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.Retry <= 0 {
		o.Retry = 2 * time.Second
	}
	if o.MaxRetry < o.Retry {
		o.MaxRetry = max(time.Minute, o.Retry)
	}
	x := &watcher{s: s, o: o, w: w, roots: map[string]bool{}, backoff: o.Retry}
	x.sync()
	if o.Pending {
		x.schedule(o.Debounce)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer w.Close()
		x.run(ctx)
	}()
	return done, nil
}

// watcher is the state of one Watch.
type watcher struct {
	s       *workspace.Service
	o       WatchOptions
	w       *fsnotify.Watcher
	roots   map[string]bool // the source folders watched
	timer   *time.Timer     // the next refresh: debounce, or a retry
	backoff time.Duration   // the wait before the next retry
	started bool            // the first sync is done: a folder watched since is news
}

func (x *watcher) run(ctx context.Context) {
	tick := time.NewTicker(x.o.Poll)
	defer tick.Stop()
	defer x.stopTimer()
	for {
		var fire <-chan time.Time
		if x.timer != nil {
			fire = x.timer.C
		}
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-x.w.Events:
			if !ok {
				return
			}
			if !x.relevant(ev) {
				continue
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
					_ = addTree(x.w, ev.Name)
				}
			}
			x.schedule(x.o.Debounce)
		case _, ok := <-x.w.Errors:
			if !ok {
				return
			}
			// An error is events lost (the kernel's queue overflowed, a
			// large checkout during a refresh): what changed is not
			// known, so the store is refreshed, which reads it all.
			x.schedule(x.o.Debounce)
		case <-tick.C:
			if x.sync() {
				x.schedule(x.o.Debounce)
			}
		case <-fire:
			x.timer = nil
			x.refresh(ctx)
		}
	}
}

// refresh refreshes the store, follows the sources it read, and, when it
// failed, sets the retry.
func (x *watcher) refresh(ctx context.Context) {
	sum, err := x.s.Refresh(ctx)
	if ctx.Err() != nil {
		return
	}
	if x.sync() {
		x.schedule(x.o.Debounce)
	}
	if err != nil {
		if x.timer == nil {
			x.schedule(x.backoff)
		}
		x.backoff = min(2*x.backoff, x.o.MaxRetry)
	} else {
		x.backoff = x.o.Retry
	}
	if x.o.OnRefresh != nil {
		x.o.OnRefresh(sum, err)
	}
}

// schedule sets the next refresh d from now, in place of any set.
func (x *watcher) schedule(d time.Duration) {
	x.stopTimer()
	x.timer = time.NewTimer(d)
}

func (x *watcher) stopTimer() {
	if x.timer != nil {
		x.timer.Stop()
		x.timer = nil
	}
}

// sync makes the folders watched follow the service's sources: a source
// no longer listed is watched no more; one not watched (new in the list,
// or deleted and back) is watched, and sync then reports true: its files
// may have changed unseen. The configuration's folder is watched too.
func (x *watcher) sync() (added bool) {
	want := map[string]bool{}
	for _, src := range x.s.Sources() {
		// The folder the indexer reads: a source that is a symbolic link
		// is followed (as ingest's walk follows it), and its target is
		// what is watched (WalkDir does not follow a link at its top, so
		// the link itself was never in the watch list, and every poll
		// took it for a new folder and refreshed).
		root := filepath.Clean(src.Path)
		if real, err := filepath.EvalSymlinks(root); err == nil {
			root = real
		}
		want[root] = true
	}
	list := x.w.WatchList()
	for root := range x.roots {
		if !want[root] {
			delete(x.roots, root)
			x.unwatch(root, list, want)
		}
	}
	watched := map[string]bool{}
	for _, p := range x.w.WatchList() {
		watched[p] = true
	}
	for root := range want {
		if x.roots[root] && watched[root] {
			continue
		}
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			continue // not there (yet): looked for again at the next poll
		}
		if addTree(x.w, root) == nil {
			added = added || x.started
			x.roots[root] = true
		}
	}
	if x.o.Config != "" {
		if dir := filepath.Dir(x.o.Config); !watched[dir] {
			_ = x.w.Add(dir)
		}
	}
	x.started = true
	return added
}

// unwatch stops watching root and the folders below it, but for those
// below another source in want.
func (x *watcher) unwatch(root string, list []string, want map[string]bool) {
	for _, p := range list {
		if p != root && !within(p, root) {
			continue
		}
		keep := false
		for other := range want {
			keep = keep || p == other || within(p, other)
		}
		if !keep {
			_ = x.w.Remove(p)
		}
	}
}

// within says whether p is strictly inside the folder dir.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// relevant reports whether ev may change what a refresh reads: the
// config file, or, in a source folder, what relevant says.
func (x *watcher) relevant(ev fsnotify.Event) bool {
	if x.o.Config != "" && ev.Name == x.o.Config {
		return ev.Op != fsnotify.Chmod
	}
	for root := range x.roots {
		if ev.Name == root || within(ev.Name, root) {
			return relevant(ev)
		}
	}
	return false
}

// relevant reports whether ev may change what the indexer reads: a
// markdown file, or something without an extension (a folder).
func relevant(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	base := filepath.Base(ev.Name)
	if strings.HasPrefix(base, ".") {
		return false
	}
	return strings.HasSuffix(base, ".md") || filepath.Ext(base) == ""
}

// addTree watches dir and every folder under it that the indexer reads.
func addTree(w *fsnotify.Watcher, dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir
		}
		if err := w.Add(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
}
