package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store/faultfs"
)

const (
	currentFile  = "CURRENT"
	identityFile = "IDENTITY"
	lockFile     = "lock"
	genDir       = "gen"
	bodyFile     = "docs.bolt"
	fulltextDir  = "fulltext"
	holdFile     = "hold"
	ignoreFile   = ".gitignore"
	tmpMarker    = ".tmp-"
	currentPerms = 0o644
)

// ignoreText is the .gitignore docir writes into a store folder it creates:
// the folder ignores itself, so a store beside the sources never shows in
// `git status`.
const ignoreText = "# a docir store (docir index writes it): nothing in it belongs in git\n*\n"

// ErrNoStore is returned when a folder holds no published generation.
var ErrNoStore = errors.New("no docir store here yet")

// current is the content of CURRENT.
type current struct {
	Format     int    `json:"format"`
	Generation uint64 `json:"generation"`
}

// ErrNotPublished is wrapped by the error of opening a generation the store
// never published: a build that a crash left past CURRENT, or a number not
// yet reached. It is an fs.ErrNotExist: nothing by that number exists.
var ErrNotPublished = fmt.Errorf("never published: %w", fs.ErrNotExist)

func genPath(dir string, gen uint64) string {
	return filepath.Join(dir, genDir, strconv.FormatUint(gen, 10))
}

// maxSmallFile bounds what readSmall reads of a store's small files
// (CURRENT, the identity): a few dozen bytes each when docir wrote them.
const maxSmallFile = 4096

// readSmall reads one of a store's small files. A store may be a peer's,
// declared by path and not written by this docir, so what is there is
// outside input: a file that is not a regular file (a link to /dev/zero,
// a FIFO) or is over maxSmallFile bytes is refused, not read without end.
func readSmall(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, docir.Errorf(docir.CodeStoreFormat, "%s is not a regular file (%s); remove the store folder and index again", path, info.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSmallFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxSmallFile {
		return nil, docir.Errorf(docir.CodeStoreFormat, "%s is over %d bytes: not a file docir wrote; remove the store folder and index again", path, maxSmallFile)
	}
	return b, nil
}

// quoteHead quotes the start of b for an error message: at most 64 bytes.
func quoteHead(b []byte) string {
	if len(b) > 64 {
		return strconv.Quote(string(b[:64])) + "…"
	}
	return strconv.Quote(string(b))
}

// readCurrent reads CURRENT: which generation readers should open.
func readCurrent(dir string) (current, error) {
	b, err := readSmall(filepath.Join(dir, currentFile))
	if errors.Is(err, fs.ErrNotExist) {
		msg := fmt.Sprintf("%s: %v", dir, ErrNoStore)
		if _, err := os.Stat(filepath.Join(dir, identityFile)); err == nil {
			msg = fmt.Sprintf("%s: %v (the store folder exists, but no index of it finished)", dir, ErrNoStore)
		}
		return current{}, &docir.Error{Code: docir.CodeNoStore, Message: msg, Err: ErrNoStore}
	}
	if err != nil {
		return current{}, err
	}
	var c current
	if err := json.Unmarshal(b, &c); err != nil || c.Generation == 0 {
		return current{}, docir.Errorf(docir.CodeStoreFormat, "%s: unreadable %s (%s); remove the folder and index again", dir, currentFile, quoteHead(bytes.TrimSpace(b)))
	}
	if c.Format != FormatVersion {
		return current{}, docir.Errorf(docir.CodeStoreFormat, "%s: store format %d, this docir reads format %d; %s", dir, c.Format, FormatVersion, formatAdvice(c.Format))
	}
	return c, nil
}

// formatAdvice is what to do about a store of format got, which this
// docir does not read. A newer docir made a store of a higher format:
// it may be another team's, or still in use by that docir, so the fix is
// to upgrade, not to delete it. An older format is rebuilt.
func formatAdvice(got int) string {
	if got > FormatVersion {
		return "a newer docir made it: upgrade docir to read it, and leave the folder be"
	}
	return "remove the folder and index again"
}

// writeCurrent publishes gen as the current generation, atomically.
// published reports whether CURRENT names gen, whatever err says: once
// its rename is done the generation is current even if the folder's sync
// then failed.
func writeCurrent(dir string, gen uint64) (published bool, err error) {
	b, err := json.Marshal(current{Format: FormatVersion, Generation: gen})
	if err != nil {
		return false, err
	}
	return writeFileAtomic(filepath.Join(dir, currentFile), append(b, '\n'))
}

// writeFileAtomic writes data to a temporary file beside name, syncs it, and
// renames it over name, then syncs the folder: readers see the old bytes or
// the new ones, never a mix, and a crash keeps one of them. renamed reports
// whether the new bytes are in place (err may then be the folder's sync).
func writeFileAtomic(name string, data []byte) (renamed bool, err error) {
	tmp, err := writeTemp(name, data)
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp) // a no-op once renamed
	if err := faultfs.Rename(tmp, name); err != nil {
		return false, err
	}
	return true, faultfs.SyncDir(filepath.Dir(name))
}

// writeTemp writes data, synced, to a new temporary file beside name (its
// name and tmpMarker, then random digits) and returns its path.
func writeTemp(name string, data []byte) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(name), filepath.Base(name)+tmpMarker+"*")
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(currentPerms)
	}
	if err == nil {
		err = faultfs.SyncFile(f)
	}
	if err := errors.Join(err, f.Close()); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// writeOnce writes the file dir/name with data if it is absent: written
// aside and hard-linked into place, so that it appears whole and an
// existing file is never replaced. wrote reports whether this call put the
// file there.
//
// A refresh of the same store that tidies it meanwhile may remove the
// temporary file of a claim under way (Tidy runs under the refresh lock, a
// claim before it): the write is then made again.
func writeOnce(dir, name string, data []byte) (wrote bool, err error) {
	path := filepath.Join(dir, name)
	for try := 0; ; try++ {
		if _, err := os.Lstat(path); err == nil {
			return false, nil
		}
		tmp, err := writeTemp(path, data)
		if err != nil {
			return false, err
		}
		err = faultfs.Link(tmp, path)
		os.Remove(tmp)
		switch {
		case errors.Is(err, fs.ErrNotExist) && try < 3:
			continue // the temporary file was tidied away
		case errors.Is(err, fs.ErrExist):
			return false, faultfs.SyncDir(dir)
		case err != nil:
			return false, err
		}
		return true, faultfs.SyncDir(dir)
	}
}

// cloneTree copies the folder src to dst (which must not exist). Files named
// by link are hard-linked instead of copied: they are immutable once written,
// so two generations may share them. A failed link falls back to a copy.
func cloneTree(src, dst string, link func(name string) bool) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return faultfs.MkdirAll(target, 0o755)
		}
		if link(d.Name()) {
			if err := faultfs.Link(p, target); err == nil {
				return nil
			}
		}
		return copyFile(p, target)
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// syncTree fsyncs every file and folder below root, so a rename that
// publishes root publishes bytes that are on disk. On the way it gives
// folders the mode dirMode and files fileMode where theirs differ (bleve
// makes its own 0700 and 0600; a store's are 0755 and 0644 less the umask,
// as the files docir creates itself).
func syncTree(root string, dirMode, fileMode fs.FileMode) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		want := fileMode
		if d.IsDir() {
			want = dirMode
		}
		if info, err := f.Stat(); err != nil {
			return err
		} else if info.Mode().Perm() != want {
			if err := f.Chmod(want); err != nil {
				return err
			}
		}
		return faultfs.SyncFile(f)
	})
}

// genName is what docir names an entry of gen/: a generation "N", or a
// build or pruned generation "N.tmp-*". ok is false for any other name,
// which docir never touches.
func genName(name string) (n uint64, tmp bool, ok bool) {
	num, rest, tmp := strings.Cut(name, tmpMarker)
	if tmp && rest == "" {
		return 0, false, false
	}
	if num == "" || strings.TrimLeft(num, "0123456789") != "" || (len(num) > 1 && num[0] == '0') {
		return 0, false, false
	}
	n, err := strconv.ParseUint(num, 10, 64)
	return n, tmp, err == nil
}

// generations lists the generation folders under dir, ascending (published
// or, past CURRENT, left by a crash before the swap), the names of
// unfinished builds and pruned generations, and the highest number any of
// them carries.
func generations(dir string) (gens []uint64, tmps []string, highest uint64, err error) {
	entries, err := os.ReadDir(filepath.Join(dir, genDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, 0, nil
	}
	if err != nil {
		return nil, nil, 0, err
	}
	for _, e := range entries {
		n, tmp, ok := genName(e.Name())
		if !ok {
			continue
		}
		highest = max(highest, n)
		if tmp {
			tmps = append(tmps, e.Name())
		} else {
			gens = append(gens, n)
		}
	}
	slices.Sort(gens)
	return gens, tmps, highest, nil
}

// Claim makes dir docir's store folder, or checks that it is one, before a
// refresh writes anything into it: a folder is a docir store only if docir
// made it, which its IDENTITY file marks (written first, when docir
// creates the store). A folder that does not exist, or holds nothing but
// dotfiles, becomes a store: docir writes its IDENTITY and a .gitignore
// that keeps the folder out of git. An empty file named lock or holds.lock
// counts as a dotfile: docir's lock files, which Undo leaves for an
// instant (and a kill during Undo for good), as does a bind that finds the
// store not published yet (changeHolds). Any other folder is refused (a usage error naming a file in
// it), so that `--store` on a folder of the user's never writes into it,
// and prune never removes what docir did not make. The Claimed returned
// says what this call made (Undo removes it again).
func Claim(dir string) (Claimed, error) {
	c := Claimed{dir: dir}
	if err := faultfs.Check(faultfs.OpReadDir, dir); err != nil {
		return c, fmt.Errorf("store folder %s: %w", dir, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return c, fmt.Errorf("store folder %s: %w", dir, err)
	}
	var other string
	for _, e := range entries {
		switch name := e.Name(); {
		case name == identityFile:
			return c, nil
		case strings.HasPrefix(name, "."), strings.HasPrefix(name, identityFile+tmpMarker): // another Claim's, under way
		case (name == lockFile || name == holdsLockFile) && emptyFile(e):
		case other == "":
			other = name
		}
	}
	if other != "" {
		return c, docir.Errorf(docir.CodeUsage, "store folder %s holds %s and is not a docir store (docir marks the stores it makes with an %s file); give --store an empty or new folder", dir, other, identityFile)
	}
	if err != nil { // dir does not exist
		c.top = missingTop(dir)
	}
	if err := faultfs.MkdirAll(dir, 0o755); err != nil {
		return c, err
	}
	if c.identity, err = ensureIdentity(dir); err != nil {
		return c, err
	}
	c.ignore, err = writeOnce(dir, ignoreFile, []byte(ignoreText))
	return c, err
}

// emptyFile reports whether e is an empty regular file, or one removed
// since its folder was read (a lock file Undo removed meanwhile).
func emptyFile(e fs.DirEntry) bool {
	info, err := e.Info()
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	return err == nil && info.Mode().IsRegular() && info.Size() == 0
}

// missingTop is the highest of dir and the folders above it that do not
// exist: the first folder MkdirAll(dir) makes ("" when dir exists).
func missingTop(dir string) string {
	top := ""
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil || filepath.Dir(p) == p {
			return top
		}
		top = p
	}
}

// Claimed is what one Claim made of a store folder: nothing when the
// folder was a store already.
type Claimed struct {
	dir string
	// top is the highest folder the claim created on the way to dir
	// (dir itself, or one above it); "" when dir was there.
	top string
	// identity is the IDENTITY the claim wrote ("": none); ignore, that
	// it wrote the .gitignore.
	identity string
	ignore   bool
}

// New reports whether the claim made the folder a store (wrote its
// IDENTITY).
func (c Claimed) New() bool { return c.identity != "" }

// stands reports whether the store's IDENTITY is still the one the claim
// wrote.
func (c Claimed) stands() bool {
	b, err := readSmall(filepath.Join(c.dir, identityFile))
	return c.New() && err == nil && string(b) == c.identity
}

// Undo removes a store that the claim made and no refresh published in,
// for a first index that failed: so that it leaves no trace. The caller
// holds the refresh lock taken after the claim (LockClaimed), and keeps
// it until Undo returns.
//
// It removes what the claim and the refresh made, in this order: gen/ (if
// empty: a generation renamed into place keeps the store as it is), the
// holds.lock, the .gitignore and IDENTITY if the claim wrote them, the
// lock file (an empty one there before the claim is docir's too, see
// Claim), and last the folders the claim created, each only if empty (a
// folder that was there before stays, and so does one another process
// wrote into meanwhile). Each lock file goes while its flock is held: a
// process that opened it meanwhile finds, once its flock is granted, that
// it is no longer the store's lock file. A refresh then claims the folder
// again (LockClaimed), so that two first indexes never both hold the lock;
// a bind finds no CURRENT and refuses, removing the holds.lock it made
// (changeHolds), so no holds file outlives Undo. (A bind at the instant
// Undo removes the folder can keep it there, empty, which the next index
// claims.) Undo never removes a holds record: none is written before a
// store's first publish. Undo does nothing once CURRENT exists, nor
// unless IDENTITY is the one the claim wrote.
func (c Claimed) Undo() error {
	if !c.stands() {
		return nil
	}
	if _, err := os.Lstat(filepath.Join(c.dir, currentFile)); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	switch err := faultfs.Remove(filepath.Join(c.dir, genDir)); {
	case errors.Is(err, fs.ErrExist): // not empty (ENOTEMPTY): the store stays a store
		return nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if err := removeHoldsLock(c.dir); err != nil {
		return err
	}
	var names []string
	if c.ignore {
		names = append(names, ignoreFile)
	}
	names = append(names, identityFile, lockFile)
	for _, name := range names {
		if err := removeMissing(filepath.Join(c.dir, name)); err != nil {
			return err
		}
	}
	if c.top == "" {
		return nil
	}
	for p := filepath.Clean(c.dir); ; p = filepath.Dir(p) {
		if faultfs.Remove(p) != nil || p == c.top {
			return nil // not empty: another process's now, or the user's
		}
	}
}

// removeMissing removes the file name; one already gone is no error.
func removeMissing(name string) error {
	if err := faultfs.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Tidy removes what killed processes left in the store dir: temporary
// files of CURRENT, IDENTITY and .gitignore and of the other files named
// (a refresh's own, such as folders.state), of the holds record (taking
// its lock, so never one being written), and unfinished builds and pruned
// generations under gen/. Only a refresh calls it, holding the lock, and
// only on a store (Claim).
func Tidy(dir string, others ...string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("store folder %s: %w", dir, err)
	}
	bases := append([]string{currentFile, identityFile, ignoreFile}, others...)
	var errs []error
	for _, e := range entries {
		base, _, tmp := strings.Cut(e.Name(), tmpMarker)
		if tmp && slices.Contains(bases, base) && !e.IsDir() {
			// A claim under way may have renamed or removed it since.
			errs = append(errs, removeMissing(filepath.Join(dir, e.Name())))
		}
	}
	errs = append(errs, tidyHolds(dir))
	_, tmps, _, err := generations(dir)
	if err != nil {
		return err
	}
	for _, t := range tmps {
		errs = append(errs, faultfs.RemoveAll(filepath.Join(dir, genDir, t)))
	}
	return errors.Join(errs...)
}

// CheckSourceDir reports a clear error when dir is not a readable folder.
func CheckSourceDir(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return docir.Errorf(docir.CodeSource, "source %s: %w", dir, err)
	}
	if !info.IsDir() {
		return docir.Errorf(docir.CodeSource, "source %s: not a folder", dir)
	}
	return nil
}

// CurrentGeneration reads which generation is current in dir: one small
// file read, for a long-running reader to notice a newer generation.
func CurrentGeneration(dir string) (uint64, error) {
	c, err := readCurrent(dir)
	return c.Generation, err
}

// Retained lists the generations of the store in dir that a binding may
// select, ascending: every published generation up to the current one (a
// folder past CURRENT, left by a crash before the swap, was never current
// and never opens).
// A refresh keeps the newest retain of them (ingest's Options.Retain,
// default 3: the current generation and the two before it).
func Retained(dir string) ([]uint64, error) {
	c, err := readCurrent(dir)
	if err != nil {
		return nil, err
	}
	gens, _, _, err := generations(dir)
	if err != nil {
		return nil, err
	}
	out := gens[:0]
	for _, g := range gens {
		if g <= c.Generation {
			out = append(out, g)
		}
	}
	return out, nil
}
