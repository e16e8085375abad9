package ingest

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"golang.org/x/sys/unix"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/faultfs"
)

// maxLinkHops is how many symbolic links to folders one path may pass
// through; past it the walk stops with a warning, so links between
// folders cannot multiply the walk.
const maxLinkHops = 8

// maxIgnoreFileBytes caps a .gitignore file; a larger one is skipped with a
// warning.
const maxIgnoreFileBytes = 1 << 20

// walkResult is what a walk found.
type walkResult struct {
	files    []*file
	warnings []warning
	ignored  int                    // files and folders left out by ignore rules
	folders  map[string]folderEntry // every folder read → its mtime and names digest
	roots    []string               // real paths files must lie under
}

// walk lists the *.md files under every root, with their size and mtime,
// sorted by root (in the order given) and path.
//
//   - Hidden folders (.git, .docir, ...) are skipped, but not hidden files:
//     a file named "..md" is a page about "." whose path gives no valid id,
//     and the user is told so.
//   - A symbolic link (to a file or a folder) is followed only when its real
//     path lies under the real path of a source root or of one of
//     opt.AllowRoots; else it is skipped with a warning. A link to a folder
//     that holds the link (a loop) is a warning, and a path passes through
//     at most maxLinkHops links to folders.
//   - A markdown file or a folder whose name is not valid UTF-8 is skipped
//     with a KindNoID warning (notUTF8): no id nor path can hold it.
//   - .gitignore files under a root (unless opt.NoGitignore),
//     opt.Exclude and the root's opt.SourceExclude leave files and folders
//     out; a left-out folder is not read.
//   - A folder below a root that cannot be listed fails the walk (its files
//     are unknown, not gone): an I/O error, or one docir may not read. A
//     file or link that cannot be stat'ed is a warning when it vanished or
//     may not be read, and fails the walk on any other error (ioFailure).
//     An unreadable root is an error.
//
// On a no-op refresh of a large corpus the walk is most of the time, so
// folders are read on several goroutines and each file is stat'ed relative
// to its open folder (fstatat), not by its full path.
func walk(ctx context.Context, sources []store.Source, opt Options) (*walkResult, error) {
	roots, err := allowedRoots(sources, opt.AllowRoots)
	if err != nil {
		return nil, err
	}
	excludes := make([][]gitignore.Pattern, len(sources))
	for i, src := range sources {
		for _, e := range slices.Concat(opt.Exclude, opt.SourceExclude[src.Path]) {
			excludes[i] = append(excludes[i], gitignore.ParsePattern(e, nil))
		}
	}
	w := &walker{ctx: ctx, roots: roots, excludes: excludes, gitignore: !opt.NoGitignore,
		tallies: make([]sourceTally, len(sources)),
		res:     &walkResult{folders: map[string]folderEntry{}, roots: roots}}
	for i := range sources {
		src := &sources[i]
		real, err := filepath.EvalSymlinks(src.Path)
		if err != nil {
			return nil, docir.Errorf(docir.CodeSource, "source %s: %w", src.Path, err)
		}
		w.queue = append(w.queue, dirJob{root: i, src: src, path: src.Path, real: real, chain: []string{real}})
	}
	w.cond = sync.NewCond(&w.mu)
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.work()
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if w.err != nil {
		return nil, w.err
	}

	res := w.res
	n := 0
	for _, c := range w.chunks {
		n += len(c)
	}
	files := make([]rootedFile, 0, n)
	for _, c := range w.chunks {
		files = append(files, c...)
	}
	w.chunks = nil
	slices.SortFunc(files, func(a, b rootedFile) int {
		return cmp.Or(cmp.Compare(a.root, b.root), strings.Compare(a.f.rel, b.f.rel))
	})
	res.files = make([]*file, len(files))
	for i, rf := range files {
		res.files[i] = rf.f
	}
	slices.SortFunc(res.warnings, func(a, b warning) int { return strings.Compare(a.text, b.text) })
	// A source's own warnings come first: a list shown as its first few
	// shows them.
	res.warnings = append(sourceWarnings(sources, w.tallies), res.warnings...)
	return res, nil
}

// allowedRoots is the real path of every source root and extra root.
func allowedRoots(sources []store.Source, extra []string) ([]string, error) {
	return realRoots(sources, extra, true)
}

// SourceRoots are the real paths of the roots a refresh reads files under,
// as OpenSource takes them: the source roots and the roots allowed beside
// them (Options.AllowRoots). A root that cannot be resolved now is left
// out: nothing is under it.
func SourceRoots(sources []store.Source, allowed []string) []string {
	roots, _ := realRoots(sources, allowed, false)
	return roots
}

// realRoots is the real path of every source root and extra root; with
// strict, a root that cannot be resolved is an error, else it is left out.
func realRoots(sources []store.Source, extra []string, strict bool) ([]string, error) {
	var roots []string
	for _, s := range sources {
		real, err := filepath.EvalSymlinks(s.Path)
		if err != nil && strict {
			return nil, docir.Errorf(docir.CodeSource, "source %s: %w", s.Path, err)
		} else if err == nil {
			roots = append(roots, real)
		}
	}
	for _, e := range extra {
		real, err := filepath.EvalSymlinks(e)
		if err != nil && strict {
			return nil, docir.Errorf(docir.CodeConfig, "allowed root %s: %w", e, err)
		} else if err == nil {
			roots = append(roots, real)
		}
	}
	return roots, nil
}

// under reports whether the real path p is one of roots or lies below one.
func under(p string, roots []string) bool {
	for _, r := range roots {
		if p == r || strings.HasPrefix(p, r+string(filepath.Separator)) || r == string(filepath.Separator) {
			return true
		}
	}
	return false
}

type dirJob struct {
	root     int // index of the source
	src      *store.Source
	path     string   // as reached from the source path: ids come from it
	real     string   // its real path
	chain    []string // real paths of the folders from the root to here
	hops     int      // links to folders passed through
	parts    []string // path components below the root, for ignore rules
	patterns []gitignore.Pattern
}

type rootedFile struct {
	root int
	f    *file
}

// walker is a pool of goroutines reading folders from a shared queue.
type walker struct {
	ctx       context.Context
	roots     []string
	excludes  [][]gitignore.Pattern // per source: Options.Exclude, then its own
	gitignore bool

	mu     sync.Mutex
	cond   *sync.Cond
	queue  []dirJob
	active int            // folders being read
	chunks [][]rootedFile // the files of each folder read
	// tallies, per source: its *.md and lookalike files (sourceWarnings).
	tallies []sourceTally
	res     *walkResult
	err     error // the first folder that failed; the walk stops
}

func (w *walker) work() {
	var buf []byte
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && (w.active > 0) {
			w.cond.Wait()
		}
		if len(w.queue) == 0 {
			w.mu.Unlock()
			w.cond.Broadcast()
			return
		}
		job := w.queue[len(w.queue)-1]
		w.queue = w.queue[:len(w.queue)-1]
		w.active++
		w.mu.Unlock()

		var out folderResult
		w.mu.Lock()
		failed := w.err != nil
		w.mu.Unlock()
		if w.ctx.Err() == nil && !failed {
			out = w.readFolder(job, &buf)
		}

		w.mu.Lock()
		if out.err != nil && w.err == nil {
			w.err = out.err
		}
		w.queue = append(w.queue, out.dirs...)
		if len(out.files) > 0 {
			w.chunks = append(w.chunks, out.files)
		}
		w.res.warnings = append(w.res.warnings, out.warnings...)
		w.res.ignored += out.ignored
		out.tally.ignored = out.ignored
		w.tallies[job.root].add(&out.tally)
		if out.mtime != 0 {
			w.res.folders[job.path] = folderEntry{ModTime: out.mtime, Names: out.names}
		}
		w.active--
		w.mu.Unlock()
		w.cond.Broadcast()
	}
}

type folderResult struct {
	dirs     []dirJob
	files    []rootedFile
	warnings []warning
	ignored  int
	mtime    int64
	names    string // namesDigest of the folder's entries
	err      error  // the folder, or an entry of it, failed: the walk fails
	tally    sourceTally
}

// ioFailure reports whether err, met reading a file or a link below a root,
// fails the refresh: anything but the file having vanished, having been
// replaced, or being one docir may not read. A file that could not be read
// for an I/O error (EIO, EMFILE...) is not a removed file, and a refresh
// must not publish it as one.
func ioFailure(err error) bool {
	switch {
	case err == nil,
		errors.Is(err, os.ErrNotExist), errors.Is(err, os.ErrPermission),
		errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.ELOOP), errors.Is(err, unix.ENAMETOOLONG),
		errors.Is(err, errReplaced), errors.Is(err, errOutside):
		return false
	}
	var tl *tooLargeError
	return !errors.As(err, &tl)
}

// folderError is the error of a folder below a root that could not be
// read, with the fix.
func folderError(p string, err error) error {
	return docir.Errorf(docir.CodeSource, "source folder %s cannot be read (%w); nothing is published, since its files would read as removed; fix it, or exclude the folder", shown(p), err)
}

// readFolder lists one folder: the subfolders to read next and the
// markdown files in it, stat'ed.
//
// buf is the goroutine's folder buffer (see readDirents): the names of
// entries are views of it, so a name kept past the call is cloned.
func (w *walker) readFolder(job dirJob, buf *[]byte) folderResult {
	r := &folderRead{w: w, job: job}
	d, entries, ok := r.list(buf)
	if !ok {
		return r.out
	}
	defer d.Close()
	r.rules(entries)
	r.prepare(entries)
	for _, e := range entries {
		r.entry(e)
	}
	r.lookalikeDone()
	return r.out
}

// folderRead is one folder being read: its job, its open descriptor, the
// ignore rules in force in it, and what it found so far.
type folderRead struct {
	w        *walker
	job      dirJob
	fd       int
	patterns []gitignore.Pattern // the .gitignore patterns in force here
	matcher  gitignore.Matcher   // patterns and excludes; nil: none
	// The folder's files are allocated together: one allocation per
	// folder, not per file (a no-op refresh of 192k files spent a tenth of
	// its time allocating).
	slab []file
	mds  int // entries named *.md: slab's capacity
	// relDir is the folder's path below the root, with a trailing slash
	// ("" for the root): a file keeps its path below the root, not its
	// whole path (that was a fifth of a 192k walk's memory), and path()
	// rebuilds it when a message or a read needs it.
	relDir string
	// example is the least name of the folder's lookalike files (a
	// view of the folder buffer; see lookalike).
	example string
	out     folderResult
}

func (r *folderRead) warn(kind, p, format string, args ...any) {
	r.out.warnings = append(r.out.warnings, warning{kind: kind, text: shown(p) + ": skipped: " + fmt.Sprintf(format, args...)})
}

// unreadable warns of an entry that vanished or may not be read, and
// fails the folder on any other error.
func (r *folderRead) unreadable(p string, err error) {
	if ioFailure(err) {
		if r.out.err == nil {
			r.out.err = docir.Errorf(docir.CodeSource, "%s cannot be read (%w); nothing is published, since it would read as removed", shown(p), err)
		}
		return
	}
	r.warn(KindUnreadable, p, "%v", err)
}

// list opens the folder and reads its entries and its mtime; ok is false
// when it is gone (nothing to read) or failed (out.err). On ok the caller
// closes d.
func (r *folderRead) list(buf *[]byte) (d *os.File, entries []dirent, ok bool) {
	job := r.job
	if err := faultfs.Check(faultfs.OpReadDir, job.path); err != nil {
		r.out.err = folderError(job.path, err)
		return nil, nil, false
	}
	d, err := os.Open(job.path)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, unix.ENOTDIR) {
		return nil, nil, false // gone, or no longer a folder, since its parent was read
	}
	if err != nil {
		r.out.err = folderError(job.path, err)
		return nil, nil, false
	}
	r.fd = int(d.Fd())
	var st unix.Stat_t
	if err := unix.Fstat(r.fd, &st); err != nil {
		r.out.err = folderError(job.path, err)
		_ = d.Close()
		return nil, nil, false
	}
	r.out.mtime = st.Mtim.Nano()
	if entries, err = readDirents(r.fd, buf); err != nil {
		r.out.err = folderError(job.path, err)
		_ = d.Close()
		return nil, nil, false
	}
	if r.out.mtime != 0 {
		r.out.names = entriesDigest(job.path, entries)
	}
	return d, entries, true
}

// rules sets the ignore rules in force in the folder: its parent's
// .gitignore patterns and its own, then the source's excludes, which come
// last and so take precedence over any .gitignore negation.
func (r *folderRead) rules(entries []dirent) {
	job := r.job
	r.patterns = job.patterns
	if r.w.gitignore && slices.ContainsFunc(entries, func(e dirent) bool { return e.Name() == ".gitignore" }) {
		ps, err := readIgnoreFile(filepath.Join(job.path, ".gitignore"), job.parts)
		if err != nil {
			r.unreadable(filepath.Join(job.path, ".gitignore"), err)
		}
		r.patterns = append(slices.Clip(r.patterns), ps...)
	}
	if excludes := r.w.excludes[job.root]; len(r.patterns)+len(excludes) > 0 {
		r.matcher = gitignore.NewMatcher(append(slices.Clip(r.patterns), excludes...))
	}
}

// ignored reports whether the rules leave the entry name out, and counts
// it if so.
func (r *folderRead) ignored(name string, isDir bool) bool {
	if !r.matches(name, isDir) {
		return false
	}
	r.out.ignored++
	return true
}

// matches reports whether the rules leave the entry name out.
func (r *folderRead) matches(name string, isDir bool) bool {
	return r.matcher != nil && r.matcher.Match(append(slices.Clip(r.job.parts), name), isDir)
}

// prepare sizes the folder's slab of files and works out relDir.
func (r *folderRead) prepare(entries []dirent) {
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") {
			r.mds++
		}
	}
	r.slab = make([]file, 0, r.mds)
	r.relDir = filepath.ToSlash(strings.TrimPrefix(r.job.path[len(r.job.src.Path):], string(filepath.Separator)))
	if r.relDir != "" {
		r.relDir += "/"
	}
}

// addFile keeps a markdown file of the folder.
func (r *folderRead) addFile(name, real string, st *unix.Stat_t) {
	// name is a view of the folder buffer: the path kept must be a copy
	// ("" + name would be name itself).
	rel := strings.Clone(name)
	if r.relDir != "" {
		rel = r.relDir + name
	}
	r.slab = append(r.slab, file{
		root: r.job.src, rel: rel, real: real,
		size: st.Size, mtime: st.Mtim.Nano(),
	})
	if r.out.files == nil {
		r.out.files = make([]rootedFile, 0, r.mds)
	}
	r.out.files = append(r.out.files, rootedFile{root: r.job.root, f: &r.slab[len(r.slab)-1]})
}

// entry takes one entry of the folder: a markdown file is kept, a folder
// (or a link to one under the roots) is queued, a link named *.md is
// followed to its file.
func (r *folderRead) entry(e dirent) {
	job := r.job
	name := e.Name()
	isLink := e.Type()&os.ModeSymlink != 0
	isDir := e.IsDir()
	if !isLink && !isDir {
		r.plainFile(name)
		return
	}
	// job.path and job.real are clean and name has no separator: a
	// join is a concatenation (filepath.Join would clean it again).
	p := joinClean(job.path, name)
	real := p
	if job.real != job.path {
		real = joinClean(job.real, name)
	}
	if isLink {
		var ok bool
		if real, isDir, ok = r.followLink(name, p, isDir); !ok {
			return
		}
	}
	if isDir {
		r.subfolder(name, p, real, isLink)
		return
	}
	if !strings.HasSuffix(name, ".md") || r.ignored(name, false) {
		return
	}
	r.out.tally.md++
	if r.notUTF8(name, false) {
		return
	}
	// A link named *.md: its target, checked against the roots.
	var st unix.Stat_t
	if err := unix.Stat(real, &st); err != nil {
		r.unreadable(p, err)
		return
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		r.warn(KindNotRegular, p, "not a regular file")
		return
	}
	r.addFile(name, real, &st)
}

// plainFile takes an entry that is neither a link nor a folder: most
// entries of a large tree. A markdown file is stat'ed relative to its
// folder, and no path is built for it.
func (r *folderRead) plainFile(name string) {
	if !strings.HasSuffix(name, ".md") {
		r.lookalike(name) // no stat: a look at the name
		return
	}
	if r.ignored(name, false) {
		return
	}
	r.out.tally.md++
	if r.notUTF8(name, false) {
		return
	}
	job := r.job
	var st unix.Stat_t
	if err := unix.Fstatat(r.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		r.unreadable(joinClean(job.path, name), err)
		return
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		r.warn(KindNotRegular, joinClean(job.path, name), "not a regular file")
		return
	}
	real := ""
	if job.real != job.path {
		real = joinClean(job.real, name)
	}
	r.addFile(name, real, &st)
}

// followLink resolves the link name (at p; isDir as its entry says): its
// real path and whether it leads to a folder; ok is false when it is to be
// passed over (not a page nor a folder, broken, unreadable, or outside the
// roots, with a warning where one is due).
func (r *folderRead) followLink(name, p string, isDir bool) (real string, _ bool, ok bool) {
	if !isDir && !strings.HasSuffix(name, ".md") {
		// Only a link named *.md may be a page; a link to a folder
		// may have any name, so resolve it to tell.
		info, err := os.Stat(p)
		if err != nil && ioFailure(err) {
			r.unreadable(p, err)
		}
		if err == nil && !info.IsDir() {
			r.lookalike(name)
		}
		if err != nil || !info.IsDir() {
			return "", false, false
		}
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		// EvalSymlinks tells a loop only as "too many links", with no
		// errno in it; the kernel's stat of the link says ELOOP.
		if _, serr := os.Stat(p); errors.Is(serr, unix.ELOOP) {
			err = serr
		}
		switch {
		case errors.Is(err, os.ErrNotExist):
			r.warn(KindBrokenLink, p, "broken symbolic link")
		case errors.Is(err, unix.ELOOP):
			r.warn(KindLinkLoop, p, "symbolic link that loops (too many levels of symbolic links)")
		default:
			r.unreadable(p, err)
		}
		return "", false, false
	}
	info, err := os.Stat(real)
	if err != nil {
		r.unreadable(p, err)
		return "", false, false
	}
	isDir = info.IsDir()
	if !under(real, r.w.roots) {
		if !isDir || !strings.HasPrefix(name, ".") {
			r.warn(KindOutsideRoots, p, "symbolic link to %s, outside the source roots", shown(real))
		}
		return "", false, false
	}
	return real, isDir, true
}

// subfolder queues the folder name (at p, real path real) unless it is
// hidden or ignored, or, reached through a link, would loop or pass too
// many links.
func (r *folderRead) subfolder(name, p, real string, isLink bool) {
	job := r.job
	if strings.HasPrefix(name, ".") || r.ignored(name, true) || r.notUTF8(name, true) {
		return
	}
	hops := job.hops
	if isLink {
		hops++
		if loops(real, job.chain) {
			r.warn(KindLinkLoop, p, "symbolic link to %s, a folder that holds it (a loop)", shown(real))
			return
		}
		if hops > maxLinkHops {
			r.warn(KindLinkLoop, p, "more than %d symbolic links to folders on the way", maxLinkHops)
			return
		}
	}
	r.out.dirs = append(r.out.dirs, dirJob{
		root: job.root, src: job.src, path: p, real: real,
		chain: append(slices.Clip(job.chain), real), hops: hops,
		parts: append(slices.Clip(job.parts), strings.Clone(name)), patterns: r.patterns,
	})
}

// notUTF8 reports whether name, an entry of the folder that the walk
// would take (a markdown file, or a folder when folder is set), is not
// valid UTF-8, and warns of it (KindNoID) if so. A document's id is
// UTF-8, and so is every path a reply gives (JSON text is): no id, and no
// path a script could open, can hold such a name's bytes, and two such
// names would read as one (a\xffx.md, a\xfex.md). The file, or the folder
// and all below it, is skipped whatever its front matter says; the warning
// names it with those bytes escaped.
func (r *folderRead) notUTF8(name string, folder bool) bool {
	if utf8.ValidString(name) {
		return false
	}
	p := joinClean(r.job.path, name)
	if !folder {
		r.warn(KindNoID, p, "its name is not valid UTF-8, which no id and no path in a reply can hold; rename it")
		return true
	}
	r.warn(KindNoID, p, "the folder's name is not valid UTF-8, which no id and no path in a reply can hold: nothing below it is read; rename it")
	return true
}

// joinClean joins a clean folder path and a name without a separator.
func joinClean(dir, name string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

// loops reports whether following a link to the folder real would walk a
// folder already on the way: real is one of chain, or holds one of them.
func loops(real string, chain []string) bool {
	for _, c := range chain {
		if c == real || strings.HasPrefix(c, real+string(filepath.Separator)) || real == string(filepath.Separator) {
			return true
		}
	}
	return false
}

// readIgnoreFile reads the patterns of one .gitignore file, whose folder is
// at parts below the root.
func readIgnoreFile(p string, parts []string) ([]gitignore.Pattern, error) {
	b, err := readRegular(p, maxIgnoreFileBytes, nil)
	if err != nil {
		return nil, err
	}
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, maxIgnoreFileBytes)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, slices.Clone(parts)))
	}
	return ps, sc.Err()
}
