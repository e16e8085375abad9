package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sys/unix"
	"golang.org/x/text/unicode/norm"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/faultfs"
	"github.com/docir/docir/store/fulltext"
	"github.com/docir/docir/store/markdown"
)

// Warning kinds: what IndexSummary.WarningCounts counts. A skipped file's
// warning is "PATH: skipped: why".
const (
	KindTooLarge      = "too_large"      // over Options.MaxFileBytes or store.MaxValueBytes
	KindBinary        = "binary"         // holds a NUL byte
	KindNotUTF8       = "not_utf8"       // not valid UTF-8
	KindNoID          = "no_id"          // its path gives no valid id
	KindFrontMatter   = "front_matter"   // front matter ignored in part (the file indexes)
	KindParseBudget   = "parse_budget"   // over the parse budget (Options.ParseTime, MaxHeadings...)
	KindOutsideRoots  = "outside_roots"  // a symbolic link out of the source roots
	KindNotRegular    = "not_regular"    // a FIFO, device or socket named *.md
	KindBrokenLink    = "broken_link"    // a symbolic link to nothing
	KindLinkLoop      = "link_loop"      // a symbolic link to a folder on its own way, or one that loops
	KindUnreadable    = "unreadable"     // an error opening or reading it
	KindChanged       = "changed"        // replaced or removed while the refresh read it
	KindCleanup       = "cleanup"        // a tidying step after publishing, or after finding nothing to publish, failed
	KindPartlyIndexed = "partly_indexed" // a passage over fulltext.MaxTextBytes: searchable by its start
	KindUnclosedFence = "unclosed_fence" // a code fence never closed swallows headings (the file indexes)
	KindWikilinks     = "wikilinks"      // the files read hold more [[wikilinks]] than other links, and links.wikilinks is off
	// A source's own warnings (one per source at most), "PATH: ...".
	KindOtherExtension = "other_extension" // files that look like markdown (.mdx, .markdown...) and are not *.md
	KindNoMarkdown     = "no_markdown"     // a source with no *.md file (with its other_extension count, if any)
)

// shown is a path as messages print it: as it is, or, when it holds a
// character that is not graphic (a control character such as ESC, a
// bidirectional override such as U+202E), Go-quoted with those escaped,
// so that a file's name never drives the terminal that shows a warning
// nor reorders the text around it.
func shown(p string) string {
	for _, r := range p {
		if !unicode.IsGraphic(r) || r == utf8.RuneError {
			return strconv.QuoteToGraphic(p)
		}
	}
	return p
}

// warning is one message for the user, with its kind.
type warning struct {
	kind, text string
}

// file is one markdown file found under a root.
type file struct {
	root  *store.Source // one per source, shared by its files
	rel   string        // '/'-separated, below root
	real  string        // its real path when a link lies on the way; else "" (path is real)
	size  int64
	mtime int64

	// filled while planning and reading
	prev    *store.FileEntry // the file table's entry, for a file to read
	status  status
	reparse bool // parse it even if its bytes did not change
	digest  [32]byte
	parsed  *markdown.Parsed // set once read; released once stored
	body    []byte
	// wiki and links count its wikilinks and its other links, for the
	// refresh's hint (refresher.wikilinkHint)
	wiki, links int
	// passages are its passages, and pairs their pair filters
	// (fulltext.Pairs), set once read; released once stored.
	passages []fulltext.Passage
	pairs    []byte
	id       string
	// idRead: the file was read this refresh, and fmID says whether its
	// front matter's `id:` made its id (see idFromFrontMatter).
	idRead, fmID bool
	warning      *warning // why it was skipped or what its front matter lacks; nil when nothing
	err          error    // it could not be read for an I/O error: the refresh fails
	// overLimit: skipped over a parse limit its bytes decide (lines,
	// depth, headings, blocks, steps: not the time), which the same bytes
	// pass again (skipped.state records it)
	overLimit bool
}

// path is the file's path as reached from its source folder. It is built
// when asked, not kept: a walk of 192k files would hold every one.
func (f *file) path() string { return joinClean(f.root.Path, filepath.FromSlash(f.rel)) }

// openPath is the path a read opens: the real path when a link lies on the
// way (the one the walk checked against the roots), else path.
func (f *file) openPath() string {
	if f.real != "" {
		return f.real
	}
	return f.path()
}

type status uint8

const (
	statusNew status = iota
	statusUnchanged
	statusTouched // stat changed, bytes did not
	statusChanged
	statusSkipped
)

// errReplaced is a file that became something else (a link, a FIFO)
// between the walk and the read.
var errReplaced = errors.New("replaced while being read")

// errOutside is a file that resolved outside the source roots when opened.
var errOutside = errors.New("resolves outside the source roots")

// readRegular reads the file at p, which must be a regular file of at most
// max bytes, whatever it became since it was listed: it opens it as
// openRegular does (without following a last symbolic link, without
// blocking: a FIFO never hangs the read; under roots when roots is not
// nil: a folder swapped for a link since the walk cannot lead outside),
// and reads at most max+1 bytes (a link swapped for /dev/zero never floods
// memory).
func readRegular(p string, max int64, roots []string) ([]byte, error) {
	f, err := openRegular(p, roots)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Read(max)
}

// ReadSource reads the source file at p as a refresh does (readRegular,
// through the fault seam): only a regular file, opened without following
// a last symbolic link and without blocking, checked once open, and at
// most max bytes of it read. A file that is larger, became a link, a FIFO
// or a device, is an error; nothing past max+1 bytes is ever read. Every
// read of a source file goes through it: a refresh's, and a read batch's
// authentication of what it read.
func ReadSource(p string, max int64) ([]byte, error) {
	return readSource(p, max, nil)
}

// ErrOutside is the error of OpenSource for a file it opened outside the
// roots it was given: nothing of that file is told.
var ErrOutside = errOutside

// NotRegularError is the error of OpenSource for a file that is not a
// regular file (under the roots): a FIFO, a device, a folder.
type NotRegularError struct{ Mode fs.FileMode }

func (e *NotRegularError) Error() string { return errReplaced.Error() + ": not a regular file" }

func (e *NotRegularError) Unwrap() error { return errReplaced }

// SourceFile is a source file opened as a refresh opens one (OpenSource):
// its size and mtime are the opened file's, and Read reads that file.
type SourceFile struct {
	f       *os.File
	Size    int64
	ModTime int64 // nanoseconds since the epoch
}

// OpenSource opens the source file at p as a refresh reads one, through
// the fault seam: without following a last symbolic link, without
// blocking, and only when the file it opened (not the path: a folder on
// the way swapped for a link after a check of the path is still seen)
// lies under roots, the real paths of the source roots and any allowed
// beside them; else ErrOutside, and nothing of it is told. A file that is
// not a regular file is a *NotRegularError; one that became a link, an
// error wrapping errReplaced.
func OpenSource(p string, roots []string) (*SourceFile, error) {
	if err := faultfs.Check(faultfs.OpRead, p); err != nil {
		return nil, err
	}
	if roots == nil {
		roots = []string{} // under no root: nothing is
	}
	return openRegular(p, roots)
}

// openRegular opens the file at p without following a last symbolic link
// (one is an error wrapping errReplaced) and without blocking, and checks
// the file it opened: when roots is not nil, that it lies under one of
// them (else errOutside, before anything else of it is looked at); that it
// is a regular file (else a *NotRegularError, which wraps errReplaced).
func openRegular(p string, roots []string) (*SourceFile, error) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if errors.Is(err, unix.ELOOP) {
		return nil, fmt.Errorf("%w: now a symbolic link", errReplaced)
	}
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), p)
	if roots != nil && !openedUnder(f, roots) {
		f.Close()
		return nil, errOutside
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		f.Close()
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		info, _ := f.Stat()
		f.Close()
		e := &NotRegularError{}
		if info != nil {
			e.Mode = info.Mode()
		}
		return nil, e
	}
	return &SourceFile{f: f, Size: st.Size, ModTime: st.Mtim.Nano()}, nil
}

// Read reads the file to its end, at most max bytes: one larger is an
// error, and nothing past max+1 bytes is read.
func (s *SourceFile) Read(max int64) ([]byte, error) {
	if s.Size > max {
		return nil, tooLarge(s.Size, max)
	}
	b, err := readSized(s.f, s.Size, max+1)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, tooLarge(int64(len(b)), max)
	}
	return b, nil
}

// Close closes the file.
func (s *SourceFile) Close() error { return s.f.Close() }

// readSource is readRegular for a source file, through the fault seam.
func readSource(p string, max int64, roots []string) ([]byte, error) {
	if err := faultfs.Check(faultfs.OpRead, p); err != nil {
		return nil, err
	}
	return readRegular(p, max, roots)
}

// readSized reads r to its end, or to limit bytes, into a buffer of the
// size the file had when checked (and one byte more, to see its end
// without growing): io.ReadAll would start small and double, copying
// each body about twice and keeping up to twice its size for as long as
// the body is held.
func readSized(r io.Reader, size, limit int64) ([]byte, error) {
	b := make([]byte, 0, min(max(size, 0), limit)+1)
	for int64(len(b)) < limit {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // the file grew since it was checked
		}
		n, err := r.Read(b[len(b):min(int64(cap(b)), limit)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}

type tooLargeError struct{ size, max int64 }

func (e *tooLargeError) Error() string {
	if e.max == store.MaxValueBytes {
		return fmt.Sprintf("%d bytes, over the %d-byte bound on one document the store keeps (max_file_bytes cannot raise it)", e.size, e.max)
	}
	return fmt.Sprintf("%d bytes, over the %d-byte cap", e.size, e.max)
}

// fileCap is the size of the largest file a refresh reads: max_file_bytes,
// but no more than the store keeps of one document (store.MaxValueBytes).
func fileCap(opt Options) int64 { return min(opt.MaxFileBytes, store.MaxValueBytes) }

func tooLarge(size, max int64) error { return &tooLargeError{size, max} }

// openedUnder reports whether the open file behind fd lies under one of
// roots, as the kernel resolved it (/proc/self/fd); true when the kernel
// does not say.
func openedUnder(f *os.File, roots []string) bool {
	real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil || !strings.HasPrefix(real, "/") {
		return true
	}
	return under(real, roots)
}

// read reads and parses files on every core. Each file's id is checked
// against owner (which holds the ids already known) as soon as it is
// read: a second claim ends the read at once with an error naming both
// files. parsed, when set, is called with each file as it is read, from
// the calling goroutine.
func read(ctx context.Context, files []*file, owner map[string]*file, opt Options, roots []string, parsed func(*file)) error {
	if len(files) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan *file)
	// Bounded: when the caller's parsed is slower than reading (a build
	// waits on the index), the readers wait too instead of holding every
	// body and parse.
	done := make(chan *file, min(len(files), 4*runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := markdown.NewParser()
			for f := range work {
				readOne(ctx, p, f, opt, roots)
				select {
				case done <- f:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(work)
		for _, f := range files {
			select {
			case work <- f:
			case <-ctx.Done():
				return
			}
		}
	}()
	stop := func(err error) error {
		cancel()
		wg.Wait()
		return err
	}
	for n := range len(files) {
		select {
		case f := <-done:
			if f.err != nil {
				return stop(f.err)
			}
			if f.status != statusSkipped {
				if other, dup := owner[f.id]; dup {
					return stop(clashError(f.id, other, f))
				}
				owner[f.id] = f
			}
			if parsed != nil {
				parsed(f)
			}
		case <-ctx.Done():
			return stop(ctx.Err())
		}
		if opt.Progress != nil {
			opt.Progress("reading", n+1, len(files))
		}
	}
	wg.Wait()
	return ctx.Err()
}

// ClaimError is the cause of a refresh that failed because two files
// claim one id (a source error). Callers that know more of the fix (the
// CLI knows the folders it was given) match it with errors.As.
type ClaimError struct {
	ID string
	// A and B are the two files' paths, as the file system has them: a
	// caller may look them up. The message shows them apart (shownApart:
	// quoted when they look alike or hold what is not graphic).
	A, B string
	// Source is the source folder that holds both files, "" when they
	// are in two sources: only then can a prefix part two ids taken from
	// paths, since a source's prefix goes before all of its ids.
	Source string
	// AFrontMatter and BFrontMatter: the file's front-matter `id:` made its
	// id (a prefix, which changes only path-derived ids, cannot part it).
	AFrontMatter, BFrontMatter bool
}

func (e *ClaimError) Error() string {
	a, b := shownApart(e.A, e.B)
	return fmt.Sprintf("two files claim the id %q: %s and %s", e.ID, a, b)
}

// FrontMatter reports whether a front-matter `id:` made either claim.
func (e *ClaimError) FrontMatter() bool { return e.AFrontMatter || e.BFrontMatter }

// clashError is the error of two files claiming one id, with the fix
// when both ids come from paths: a prefix on one of their two sources, or
// an `id:`; an `id:` or a new name when one source holds both (its prefix
// would rename both). Else it says which front matter set the id, and
// what would part them.
func clashError(id string, a, b *file) error {
	sa, sb := shownApart(a.path(), b.path())
	claim := &ClaimError{ID: id, A: a.path(), B: b.path(), AFrontMatter: idFromFrontMatter(a), BFrontMatter: idFromFrontMatter(b)}
	if a.root.Path == b.root.Path {
		claim.Source = a.root.Path
	}
	switch {
	case !claim.FrontMatter() && claim.Source != "":
		return docir.Errorf(docir.CodeSource, "%w; give one file an `id:` of its own in its front matter, or rename it", claim)
	case !claim.FrontMatter():
		return docir.Errorf(docir.CodeSource, "%w; give one source folder a prefix (docir index --prefix NAME DIR) or one file an `id:` in its front matter", claim)
	}
	var set string
	switch {
	case claim.AFrontMatter && claim.BFrontMatter:
		set = "the `id:` in the front matter of both sets it"
	case claim.AFrontMatter:
		set = "the `id:` in the front matter of " + sa + " sets it"
	default:
		set = "the `id:` in the front matter of " + sb + " sets it"
	}
	return docir.Errorf(docir.CodeSource, "%w; %s; %s", claim, set, frontMatterFix(a, b, claim))
}

// frontMatterFix is what parts two files when a front-matter `id:` made
// the clash: a prefix does not change such an id, so it is the
// source's front_matter_id setting, or an edit of the `id:`. Under
// `front_matter_id: name` the `id:` is the file's name in its folder,
// below its source's prefix: when the other file is another source's, a
// prefix on either source parts them too.
func frontMatterFix(a, b *file, claim *ClaimError) string {
	f := a
	if !claim.AFrontMatter {
		f = b
	}
	switch f.root.FrontMatterID {
	case FrontMatterIDName:
		if claim.Source == "" {
			return "give one of the two source folders a prefix (docir index --prefix NAME DIR), which goes before an `id:` read as a file's name; or edit the `id:`, or set `front_matter_id: off` on its source in docir.yaml (docir index --front-matter-id off DIR) to take ids from paths only"
		}
		return "edit the `id:`, or set `front_matter_id: off` on its source in docir.yaml (docir index --front-matter-id off DIR) to take ids from paths only"
	default:
		return "a prefix does not change such an id: set `front_matter_id: name` on its source in docir.yaml (docir index --front-matter-id name DIR), which reads an `id:` as the file's name in its folder, as Docusaurus does, or `off` to take ids from paths only; or edit the `id:`"
	}
}

// idFromFrontMatter reports whether f's front matter's `id:` made its id:
// as its reading found, for a file read this refresh; for an unchanged
// one, whose front matter was not read, whether its id is not the one its
// path gives (an `id:` equal to that is taken for the path's).
func idFromFrontMatter(f *file) bool {
	if f.idRead {
		return f.fmID
	}
	id, _, ok := documentID(*f.root, f.rel, "")
	return !ok || id != f.id
}

// shownApart shows two paths so that a reader can tell them apart: as
// shown does, unless they look the same once Unicode-normalized (café.md
// as NFC and as NFD), when both are quoted with their non-ASCII runes
// escaped ("caf\u00e9.md", "cafe\u0301.md").
func shownApart(a, b string) (string, string) {
	if a != b && norm.NFC.String(a) == norm.NFC.String(b) {
		return strconv.QuoteToASCII(a), strconv.QuoteToASCII(b)
	}
	return shown(a), shown(b)
}

func readOne(ctx context.Context, p *markdown.Parser, f *file, opt Options, roots []string) {
	skip := func(kind, format string, args ...any) {
		f.status = statusSkipped
		f.warning = &warning{kind: kind, text: shown(f.path()) + ": skipped: " + fmt.Sprintf(format, args...)}
	}
	if f.size > fileCap(opt) {
		skip(KindTooLarge, "%v", tooLarge(f.size, fileCap(opt)))
		return
	}
	body, err := readSource(f.openPath(), fileCap(opt), roots)
	var tl *tooLargeError
	switch {
	case ioFailure(err):
		f.status = statusSkipped
		f.err = docir.Errorf(docir.CodeSource, "%s cannot be read (%w); nothing is published, since it would read as removed", shown(f.path()), err)
		return
	case errors.As(err, &tl):
		skip(KindTooLarge, "%v", err)
		return
	case errors.Is(err, errOutside):
		skip(KindOutsideRoots, "%v", err)
		return
	case errors.Is(err, errReplaced):
		skip(KindChanged, "%v", err)
		return
	case errors.Is(err, fs.ErrNotExist):
		// Removed since the walk listed it: it reads as the next walk
		// will see it, gone, and the warning says so (not "unreadable").
		skip(KindChanged, "removed while being read")
		return
	case err != nil:
		skip(KindUnreadable, "%v", err)
		return
	}
	f.size = int64(len(body))
	if bytes.IndexByte(body, 0) >= 0 {
		skip(KindBinary, "binary file (NUL bytes)")
		return
	}
	if !utf8.Valid(body) {
		skip(KindNotUTF8, "not valid UTF-8")
		return
	}
	f.digest = sha256.Sum256(body)
	if f.prev != nil && !f.reparse && f.prev.Digest == f.digest && f.prev.Prefix == f.root.Prefix {
		f.status = statusTouched
		f.id = f.prev.ID
		return
	}
	f.status = statusNew
	if f.prev != nil {
		f.status = statusChanged
	}
	parsed, err := p.ParseContext(ctx, f.rel, body, opt.limits())
	if errors.Is(err, markdown.ErrBudget) {
		skip(KindParseBudget, "%v", err)
		f.overLimit = !errors.Is(err, markdown.ErrBudgetTime)
		return
	}
	if err != nil { // the refresh is cancelled; nothing of it is kept
		f.status = statusSkipped
		return
	}
	f.body, f.parsed = body, &parsed
	var warn []string
	if f.parsed.Warning != "" {
		warn = append(warn, f.parsed.Warning)
	}
	id, idWarn, ok := documentID(*f.root, f.rel, f.parsed.FrontMatterID)
	if idWarn != "" {
		warn = append(warn, idWarn)
	}
	f.idRead = true
	f.fmID = f.parsed.FrontMatterID != "" && idWarn == "" && f.root.FrontMatterID != FrontMatterIDOff
	if !ok {
		skip(KindNoID, "%s", strings.Join(warn, "; "))
		return
	}
	if len(warn) > 0 {
		f.warning = &warning{kind: KindFrontMatter, text: shown(f.path()) + ": " + strings.Join(warn, "; ")}
	}
	f.parseWarnings()
	f.id = id
	rec := &f.parsed.Record
	rec.ID = id
	rec.Path = f.rel
	rec.Size = f.size
	rec.Digest = hex.EncodeToString(f.digest[:])
	// Its passages, and the pair filters the store keeps beside its
	// record, are cut here, on the reading goroutines: the filters analyze
	// every passage once more.
	f.wiki, f.links = countWikilinks(rec)
	f.passages = filePassages(opt.passages(), f)
	if f.pairs, err = fulltext.Pairs(id, f.passages); err != nil {
		f.status = statusSkipped
		f.err = fmt.Errorf("%s: %w", shown(f.path()), err)
	}
}

// countWikilinks counts rec's wikilinks and its other links.
func countWikilinks(rec *docir.Record) (wiki, other int) {
	add := func(refs []docir.LinkRef) {
		for _, l := range refs {
			if l.Kind == docir.LinkWiki {
				wiki++
			} else {
				other++
			}
		}
	}
	add(rec.Links)
	for _, s := range rec.Sections {
		add(s.Links)
	}
	return wiki, other
}

// parseWarnings adds to f's warning what its parse says the index holds
// otherwise than its author meant: a fence never closed that swallows
// headings, links past the record's bound.
func (f *file) parseWarnings() {
	if msg := f.parsed.UnclosedFence; msg != "" {
		f.addWarning(KindUnclosedFence, msg)
	}
	if n := f.parsed.LinksLeftOut; n > 0 {
		f.partlyIndexed(fmt.Sprintf("%d link(s) past the first %d are not recorded (not checked, and no backlinks); split the page", n, markdown.MaxLinks))
	}
}
