package store

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store/faultfs"
)

// FileEntry is what the store remembers of one source file, to tell on the
// next refresh whether it changed without reading it.
type FileEntry struct {
	ID      string
	Prefix  string // the root's prefix when the entry was made
	Size    int64
	ModTime int64 // nanoseconds since the epoch
	Digest  [32]byte
}

// FileKey is the files-table key of a file: its root and its path below it.
func FileKey(root, rel string) string { return root + "\x00" + rel }

func (e FileEntry) marshal() []byte {
	b := make([]byte, 0, 64+len(e.ID)+len(e.Prefix))
	b = binary.AppendVarint(b, e.Size)
	b = binary.AppendVarint(b, e.ModTime)
	b = append(b, e.Digest[:]...)
	b = binary.AppendUvarint(b, uint64(len(e.Prefix)))
	b = append(b, e.Prefix...)
	return append(b, e.ID...)
}

// fileEntryView is a FileEntry whose strings are the bytes of the stored
// value: valid only while they are.
type fileEntryView struct {
	size, modTime int64
	digest        []byte
	prefix, id    []byte
}

func viewFileEntry(b []byte) (fileEntryView, error) {
	var e fileEntryView
	var n int
	if e.size, n = binary.Varint(b); n <= 0 {
		return e, errors.New("bad file entry")
	}
	b = b[n:]
	if e.modTime, n = binary.Varint(b); n <= 0 || len(b) < n+32 {
		return e, errors.New("bad file entry")
	}
	b = b[n:]
	e.digest, b = b[:32], b[32:]
	l, n := binary.Uvarint(b)
	if n <= 0 || uint64(len(b)-n) < l {
		return e, errors.New("bad file entry")
	}
	e.prefix, e.id = b[n:n+int(l)], b[n+int(l):]
	return e, nil
}

func unmarshalFileEntry(b []byte) (FileEntry, error) {
	v, err := viewFileEntry(b)
	if err != nil {
		return FileEntry{}, err
	}
	e := FileEntry{ID: string(v.id), Prefix: string(v.prefix), Size: v.size, ModTime: v.modTime}
	copy(e.Digest[:], v.digest)
	return e, nil
}

// Files returns the generation's source-file table. A refresh that only
// compares it with a sorted walk should use EachFile, which builds no map.
func (s *Snapshot) Files() (map[string]FileEntry, error) {
	var files map[string]FileEntry
	err := s.view(func(c chain) error {
		// Presized: growing a map of 192k entries costs more than reading them.
		files = make(map[string]FileEntry, c.keyCount(bucketFiles))
		return c.each(bucketFiles, false, func(k, v []byte, _ int) error {
			e, err := unmarshalFileEntry(v)
			if err != nil {
				return fmt.Errorf("files table %q: %w", k, err)
			}
			files[string(k)] = e
			return nil
		})
	})
	return files, err
}

// EachFile calls fn with every entry of the generation's source-file table
// in key order (FileKey: root, then path below it, bytewise), stopping at
// the first error fn returns. key is valid only during the call.
func (s *Snapshot) EachFile(fn func(key []byte, e FileEntry) error) error {
	return s.EachFileFrom(nil, fn)
}

// EachFileFrom is EachFile from the first key at or after from.
func (s *Snapshot) EachFileFrom(from []byte, fn func(key []byte, e FileEntry) error) error {
	return s.view(func(c chain) error {
		prefix := "" // a root's prefix repeats for all its files: one string
		return c.eachFrom(bucketFiles, from, false, func(k, v []byte, _ int) error {
			ev, err := viewFileEntry(v)
			if err != nil {
				return fmt.Errorf("files table %q: %w", k, err)
			}
			if string(ev.prefix) != prefix {
				prefix = string(ev.prefix)
			}
			e := FileEntry{ID: string(ev.id), Prefix: prefix, Size: ev.size, ModTime: ev.modTime}
			copy(e.Digest[:], ev.digest)
			return fn(k, e)
		})
	})
}

// keyCount is an upper bound of the keys of bucket across the chain: the
// sum of every layer's count (a key in two layers counts twice, a
// tombstone counts).
func (c chain) keyCount(bucket []byte) int {
	n := 0
	for _, tx := range c {
		if b := tx.Bucket(bucket); b != nil {
			n += b.Stats().KeyN
		}
	}
	return n
}

// Holder is who holds the refresh lock a refresh waits for.
type Holder int

const (
	HeldByRefresh Holder = iota + 1 // another refresh (exclusive)
	HeldByReads                     // reads that hold refreshes off (HoldRefresh, shared)
)

func (h Holder) String() string {
	if h == HeldByReads {
		return "a read that holds refreshes off (--require-current)"
	}
	return "another refresh"
}

// Lock takes the store's refresh lock, claiming dir first (Claim). Only
// refreshes take it exclusively; reads that must not see a refresh
// meanwhile (HoldRefresh) take it shared. It waits for them, in this
// process or another; wait is called once, before waiting, if it must,
// with who holds the lock then.
func Lock(dir string, wait func(by Holder)) (unlock func() error, err error) {
	_, unlock, err = LockClaimed(dir, wait)
	return unlock, err
}

// errLockGone is lockOnce's error when the lock it was granted is no
// longer the store's: Undo removed the store meanwhile.
var errLockGone = errors.New("the store folder was removed while waiting for its lock")

// LockClaimed is Lock, and returns what its claim made (Claimed.Undo).
// Once the flock is granted, the lock file must still be the one at
// dir/lock and the folder still a store (IDENTITY): a first index that
// failed removes the store it made while holding the lock (Undo), and
// whoever waited on the removed file claims the folder again and takes
// the lock anew, so a concurrent first index goes on with a store of its
// own.
func LockClaimed(dir string, wait func(by Holder)) (Claimed, func() error, error) {
	waited := false
	once := func(by Holder) {
		if wait != nil && !waited {
			waited = true
			wait(by)
		}
	}
	var made Claimed // a claim of an earlier try that made the store
	for try := 0; ; try++ {
		c, err := Claim(dir)
		if errors.Is(err, fs.ErrNotExist) && try < 100 {
			continue // Undo removed the folder Claim had just made (MkdirAll) before it wrote in it
		}
		if err != nil {
			return c, nil, err
		}
		if !c.New() && made.stands() {
			c = made // the store is the one an earlier try made
		}
		made = c
		unlock, err := lockOnce(dir, once)
		if errors.Is(err, errLockGone) && try < 100 {
			continue
		}
		return c, unlock, err
	}
}

// lockOnce takes the refresh lock of the store dir (claimed) exclusively,
// or fails with errLockGone (see LockClaimed).
func lockOnce(dir string, wait func(by Holder)) (unlock func() error, err error) {
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("store %s: %w", dir, errLockGone)
	}
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		// A shared lock granted now means readers hold it (a
		// refresh's exclusive lock would refuse it too). It is let
		// go at once; it only names whom the wait is for.
		by := HeldByRefresh
		if syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB) == nil {
			by = HeldByReads
		}
		wait(by)
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
	}
	unlock = func() error {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return errors.Join(err, f.Close())
	}
	if !stillNamed(f) {
		return nil, errors.Join(fmt.Errorf("store %s: %w", dir, errLockGone), unlock())
	}
	if _, err := os.Lstat(filepath.Join(dir, identityFile)); err != nil {
		return nil, errors.Join(fmt.Errorf("store %s: %w", dir, errLockGone), unlock())
	}
	return unlock, nil
}

// stillNamed reports whether the open file f is still the file its name
// names: a lock file removed while a process waited on it (Undo) is not.
func stillNamed(f *os.File) bool {
	held, err := f.Stat()
	if err != nil {
		return false
	}
	named, err := os.Stat(f.Name())
	return err == nil && os.SameFile(held, named)
}

// HoldRefresh holds refreshes of the store in dir off, in this process and
// in others, until release is called: it takes the refresh lock shared, so
// a refresh (Lock, exclusive) waits for every holder, and holders never
// wait on each other. It waits for a refresh under way to finish first. A
// holder must not refresh before releasing: it would wait on itself.
func HoldRefresh(dir string) (release func() error, err error) {
	return flockPath(filepath.Join(dir, lockFile), os.O_CREATE, syscall.LOCK_SH)
}

// flockPath takes a flock of kind how (LOCK_SH or LOCK_EX) on the file
// name, waiting for it as long as it takes; flag os.O_CREATE creates the
// file when it is not there (flag 0: an fs.ErrNotExist then). A file
// removed while it waited (a failed first index's Undo removes the
// refresh lock it holds) is let go and name opened again. A lock file is
// removed only by a holder of its flock, so the file a holder was granted
// is the one name names for as long as it holds it.
func flockPath(name string, flag, how int) (unlock func() error, err error) {
	for {
		f, err := os.OpenFile(name, os.O_RDWR|flag, currentPerms)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), how); err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		unlock := func() error {
			err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			return errors.Join(err, f.Close())
		}
		if stillNamed(f) {
			return unlock, nil
		}
		if err := unlock(); err != nil {
			return nil, err
		}
	}
}

// Pending is a generation being built aside. Nothing reads it until
// Publish renames it into place and swaps CURRENT. The caller holds Lock.
type Pending struct {
	dir   string
	gen   uint64
	path  string
	mmap  int        // bbolt's InitialMmapSize for the new layer (0: its default)
	db    *bolt.DB   // the new layer, written
	lower []*bolt.DB // the layers below it, read-only, oldest first
	// documents in the layers below, to count the generation at Publish
	lowerCount int
	// What the link index's seal resolves again (linkindex.go): the ids
	// put or deleted and the file keys whose document changed, noted as
	// Apply writes them; and the previous generation's sources and link
	// rules, whose change resolves every link again.
	linkIDs, linkKeys map[string]bool
	// The linkto keys of the ids that files the layer adds, removes or
	// renames leave or take (idLinkKey).
	idKeys                     map[string]bool
	prevSources, prevLinkRules []byte
	// The alias paths (links.AliasPath) whose documents the layer
	// changed, noted as Apply writes them (indexAliases), and whether
	// the previous generation keeps the alias index (a store sealed by a
	// docir before it does not: the seal indexes every document).
	aliasPaths   map[string]bool
	aliasIndexed bool
}

// Begin starts the next generation in a folder no reader knows of, on top
// of prev (the current generation, or nil for the first): prev's body
// layers hard-linked below a new, empty layer (or merged into it, to keep
// the chain short), and its bleve index cloned with the immutable segment
// files hard-linked. It first removes what crashed or aborted refreshes
// left behind.
//
// The next generation's number is one past the current one and every
// generation folder (and build) gen/ shows, published or not: a build a
// crash left renamed into place but never named by CURRENT keeps its
// number taken, so no number ever names two different generations a
// reader could see.
func Begin(dir string, prev *Snapshot) (*Pending, error) {
	return BeginSized(dir, prev, 0)
}

// BeginSized is Begin for a generation whose new body layer is expected to
// hold about expect bytes of documents (their markdown). bbolt maps its
// file anew each time the file outgrows the mapping, doubling it, and a
// remap inside a write transaction first copies out every node the
// transaction holds: a from-scratch build of the RFCs spent 60% of its
// body writes there. With a size to expect, the layer maps enough address
// space for it from the start (4 times the markdown: a layer at 192k
// documents is 3.5 times its markdown), which costs nothing until pages
// are touched. The file still grows as bbolt grows it.
func BeginSized(dir string, prev *Snapshot, expect int64) (*Pending, error) {
	if _, err := Claim(dir); err != nil {
		return nil, err
	}
	var cur uint64
	if c, err := readCurrent(dir); err == nil {
		cur = c.Generation
	} else if docir.CodeOf(err) != docir.CodeNoStore {
		return nil, err
	}
	if prev != nil && prev.gen != cur {
		return nil, fmt.Errorf("store %s: generation %d is current, not %d: another refresh published", dir, cur, prev.gen)
	}
	gens, tmps, highest, err := generations(dir)
	if err != nil {
		return nil, err
	}
	gen := max(cur, highest) + 1
	if err := faultfs.MkdirAll(filepath.Join(dir, genDir), 0o755); err != nil {
		return nil, err
	}
	path, err := mkdirTemp(filepath.Join(dir, genDir), gen)
	if err != nil {
		return nil, err
	}
	p := &Pending{dir: dir, gen: gen, path: path, mmap: mmapFor(expect)}
	// Only now that a folder holds the new number are the leftovers
	// removed: unfinished builds, and generations past CURRENT (renamed
	// into place by a refresh that died before the swap, never current).
	var errs []error
	for _, t := range tmps {
		errs = append(errs, faultfs.RemoveAll(filepath.Join(dir, genDir, t)))
	}
	for _, g := range gens {
		if g > cur {
			errs = append(errs, faultfs.RemoveAll(genPath(dir, g)))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, errors.Join(err, p.Abort())
	}
	if err := p.seed(prev); err != nil {
		return nil, errors.Join(err, p.Abort())
	}
	return p, nil
}

// mkdirTemp makes the folder of a build of generation gen in parent,
// named gen, tmpMarker and random digits, with the mode every store folder
// has (0755 less the umask; os.MkdirTemp's is 0700).
func mkdirTemp(parent string, gen uint64) (string, error) {
	for {
		path := filepath.Join(parent, strconv.FormatUint(gen, 10)+tmpMarker+strconv.FormatUint(uint64(rand.Uint32()), 10))
		err := faultfs.Mkdir(path, 0o755)
		if !errors.Is(err, fs.ErrExist) {
			return path, err
		}
	}
}

// prevLayer is one of prev's layers: its file and the generation that
// wrote it.
type prevLayer struct {
	gen  uint64
	file string
	db   *bolt.DB
	size int64
}

// layersOf sorts prev's layers into those the new generation keeps below
// it (linked, not copied) and those it merges into its own, and clones
// prev's bleve index (its segments linked) into the generation.
func (p *Pending) layersOf(prev *Snapshot) (below, merge []prevLayer, err error) {
	from := genPath(prev.dir, prev.gen)
	var lower []uint64
	if err := prev.checkFormat(&lower); err != nil {
		return nil, nil, err
	}
	for i, db := range prev.layers {
		l := prevLayer{gen: prev.gen, file: filepath.Join(from, bodyFile), db: db}
		if i < len(lower) {
			l.gen, l.file = lower[i], filepath.Join(from, layerName(lower[i]))
		}
		st, err := os.Stat(l.file)
		if err != nil {
			return nil, nil, err
		}
		l.size = st.Size()
		below = append(below, l)
	}
	// Keep the chain short: past maxDeltas deltas above the base, merge
	// the deltas into the new layer; once they outweigh half the base,
	// merge everything into a new base.
	var deltas int64
	for _, l := range below[1:] {
		deltas += l.size
	}
	switch {
	case deltas > below[0].size/2:
		below, merge = nil, below
	case len(below)-1 >= maxDeltas:
		below, merge = below[:1], below[1:]
	}
	isSegment := func(name string) bool { return strings.HasSuffix(name, ".zap") }
	if err := cloneTree(filepath.Join(from, fulltextDir), filepath.Join(p.path, fulltextDir), isSegment); err != nil {
		return nil, nil, err
	}
	return below, merge, nil
}

func (p *Pending) seed(prev *Snapshot) error {
	var below, merge []prevLayer
	if prev != nil {
		var err error
		if below, merge, err = p.layersOf(prev); err != nil {
			return err
		}
	}
	var gens []uint64
	for _, l := range below {
		name := filepath.Join(p.path, layerName(l.gen))
		if err := faultfs.Link(l.file, name); err != nil {
			if err := copyFile(l.file, name); err != nil {
				return err
			}
		}
		db, err := openLayer(name)
		if err != nil {
			return err
		}
		p.lower = append(p.lower, db)
		gens = append(gens, l.gen)
	}
	db, err := bolt.Open(filepath.Join(p.path, bodyFile), 0o644, &bolt.Options{NoSync: true, NoFreelistSync: true, InitialMmapSize: p.mmap})
	if err != nil {
		return err
	}
	p.db = db
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketMeta, bucketDocs, bucketBodies, bucketPairs, bucketFiles, bucketManifest, bucketNumbers, bucketPostings, bucketShadow, bucketLinks, bucketLinkTo, bucketBroken, bucketFold, bucketAlias} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		m := tx.Bucket(bucketMeta)
		var sources, frontMatter, parseRules, linkCounts []byte
		p.aliasIndexed = prev == nil // a first generation indexes what it puts
		if prev != nil {
			if err := prev.db.View(func(ptx *bolt.Tx) error {
				pm := ptx.Bucket(bucketMeta)
				sources = bytes.Clone(pm.Get(keySources))
				frontMatter = bytes.Clone(pm.Get(keyFrontMatter))
				parseRules = bytes.Clone(pm.Get(keyParseRules))
				p.prevLinkRules = bytes.Clone(pm.Get(keyLinkRules))
				p.aliasIndexed = bytes.Equal(pm.Get(keyLinkAliases), aliasIndexVersion)
				linkCounts = bytes.Clone(pm.Get(keyLinkCounts))
				return nil
			}); err != nil {
				return err
			}
		}
		p.prevSources = sources
		return errors.Join(
			m.Put(keyFormat, []byte(strconv.Itoa(FormatVersion))),
			m.Put(keyGeneration, []byte(strconv.FormatUint(p.gen, 10))),
			m.Put(keyLayers, formatLayers(gens)),
			putIf(m, keySources, sources),
			putIf(m, keyFrontMatter, frontMatter),
			putIf(m, keyParseRules, parseRules),
			putIf(m, keyLinkRules, p.prevLinkRules),
			putIf(m, keyLinkCounts, linkCounts))
	})
	if err != nil {
		return err
	}
	switch {
	case prev == nil:
	case merge == nil: // every layer of prev lies below
		p.lowerCount, err = prev.Count()
	default:
		p.lowerCount, err = countLayers(p.lower)
		if err == nil {
			err = p.mergeIn(merge, len(below) > 0)
		}
	}
	return err
}

func putIf(b *bolt.Bucket, k, v []byte) error {
	if v == nil {
		return nil
	}
	return b.Put(k, v)
}

// countLayers counts the documents of a chain of layers whose oldest holds
// no tombstones (a base): the base's keys, plus or minus what each layer
// above adds or removes.
func countLayers(dbs []*bolt.DB) (n int, err error) {
	c, done, err := beginChain(dbs)
	if err != nil {
		return 0, err
	}
	defer done()
	for i := range c {
		if i == 0 {
			// The base recorded its count when it was published (it was
			// then a whole generation); counting its keys walks every page.
			recorded, aerr := strconv.Atoi(string(c[0].Bucket(bucketMeta).Get(keyDocuments)))
			if n = recorded; aerr != nil {
				n = c[0].Bucket(bucketDocs).Stats().KeyN
			}
			continue
		}
		n += countDelta(c[:i+1])
	}
	return n, nil
}

// countDelta is how many documents the top layer of c adds (or, negative,
// removes) over the layers below it.
func countDelta(c chain) (d int) {
	top := len(c) - 1
	_ = c.top().Bucket(bucketDocs).ForEach(func(k, v []byte) error {
		below, _ := c.getBelow(top, bucketDocs, k)
		switch {
		case isTombstone(v) && below != nil:
			d--
		case !isTombstone(v) && below == nil:
			d++
		}
		return nil
	})
	return d
}

// mergeIn copies the newest entries of the layers from into the new layer,
// in transactions of bounded size. With keepTombstones (layers remain
// below) tombstones are copied too, to go on shadowing them.
func (p *Pending) mergeIn(from []prevLayer, keepTombstones bool) error {
	dbs := make([]*bolt.DB, len(from))
	for i, l := range from {
		dbs[i] = l.db
	}
	c, done, err := beginChain(dbs)
	if err != nil {
		return err
	}
	defer done()
	const perTx = 4096
	type kv struct{ k, v, body, pairs []byte }
	for _, bucket := range [][]byte{bucketDocs, bucketFiles, bucketManifest, bucketLinks, bucketLinkTo, bucketBroken, bucketFold, bucketAlias} {
		var batch []kv
		flush := func() error {
			err := p.db.Update(func(tx *bolt.Tx) error {
				b := tx.Bucket(bucket)
				b.FillPercent = fillPercent
				bodies, pairs := tx.Bucket(bucketBodies), tx.Bucket(bucketPairs)
				bodies.FillPercent, pairs.FillPercent = fillPercent, fillPercent
				for _, e := range batch {
					if err := b.Put(e.k, e.v); err != nil {
						return err
					}
					if e.body != nil {
						if err := bodies.Put(e.k, e.body); err != nil {
							return err
						}
					}
					if len(e.pairs) > 0 {
						if err := pairs.Put(e.k, e.pairs); err != nil {
							return err
						}
					}
				}
				return nil
			})
			batch = batch[:0]
			return err
		}
		err := c.each(bucket, keepTombstones, func(k, v []byte, layer int) error {
			e := kv{k: bytes.Clone(k), v: bytes.Clone(v)}
			if string(bucket) == string(bucketDocs) && !isTombstone(v) {
				e.body = bytes.Clone(c[layer].Bucket(bucketBodies).Get(k))
				if e.body == nil {
					e.body = []byte{}
				}
				if b := c[layer].Bucket(bucketPairs); b != nil { // else written before pair filters
					e.pairs = bytes.Clone(b.Get(k))
				}
			}
			batch = append(batch, e)
			if len(batch) == perTx {
				return flush()
			}
			return nil
		})
		if err == nil && len(batch) > 0 {
			err = flush()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// chain begins a read transaction on every lower layer; with tx, the new
// layer's transaction tops it.
func (p *Pending) chain(tx *bolt.Tx) (chain, func(), error) {
	c, done, err := beginChain(p.lower)
	if err != nil {
		return nil, nil, err
	}
	return append(c, tx), done, nil
}

// Generation is the number the pending generation will publish as.
func (p *Pending) Generation() uint64 { return p.gen }

// FullTextPath is where the pending generation's bleve index lives; it
// holds a clone of the previous one, or nothing on the first generation.
func (p *Pending) FullTextPath() string { return filepath.Join(p.path, fulltextDir) }

// Change is one batch of edits to the body file.
type Change struct {
	Delete  []string              // document ids to remove
	Put     []PutDoc              // documents to add or replace
	Files   map[string]*FileEntry // files-table edits: nil removes the key
	Sources []Source              // when non-nil, replaces the recorded sources
	// FrontMatter, when non-nil, replaces the recorded list of the
	// front-matter fields the index holds.
	FrontMatter []string
	// ParseRules, when non-zero, replaces the recorded version of the
	// markdown rules the records were made by.
	ParseRules int
	// StoreDir, when not "", replaces the recorded real path of the store
	// folder (Snapshot.StoreDir).
	StoreDir string
	// Links, when non-nil, replaces the recorded link rules; a change
	// resolves every link again when the layer is sealed.
	Links *LinkConfig
}

// PutDoc is one document to store.
type PutDoc struct {
	Record docir.Record
	Body   []byte
	// Pairs is the pair filters of the document's passages
	// (fulltext.Pairs), kept beside its record for rankings; nil: none.
	Pairs []byte
}

// checkValueSizes refuses a document whose record, body or pair filters
// are over MaxValueBytes: written, it would make a page the point reads
// take for corrupt, and every read of the store would fail.
func checkValueSizes(id string, record, body, pairs []byte) error {
	for _, v := range []struct {
		what string
		b    []byte
	}{{"record", record}, {"body", body}, {"pair filters", pairs}} {
		if len(v.b) > MaxValueBytes {
			return docir.Errorf(docir.CodeSource, "document %q: its %s is %d bytes, over the %d-byte bound on one value the store keeps", id, v.what, len(v.b), MaxValueBytes)
		}
	}
	return nil
}

// Apply writes c in one transaction. Over lower layers, a delete leaves a
// tombstone that shadows them.
func (p *Pending) Apply(c Change) error {
	return p.db.Update(func(tx *bolt.Tx) error {
		ch, done, err := p.chain(tx)
		if err != nil {
			return err
		}
		defer done()
		p.noteChange(ch, c)
		if err := p.indexAliases(ch, c); err != nil {
			return err
		}
		docs, bodies, pairs, files := tx.Bucket(bucketDocs), tx.Bucket(bucketBodies), tx.Bucket(bucketPairs), tx.Bucket(bucketFiles)
		manifest := tx.Bucket(bucketManifest)
		// Refreshes mostly write keys in order (a walk is sorted): pack
		// pages nearly full instead of bbolt's half-full default.
		docs.FillPercent, bodies.FillPercent, pairs.FillPercent, files.FillPercent, manifest.FillPercent = fillPercent, fillPercent, fillPercent, fillPercent, fillPercent
		del := func(b *bolt.Bucket, k []byte) error {
			if len(p.lower) == 0 {
				return b.Delete(k)
			}
			return b.Put(k, tombstone)
		}
		// The field index is written when the layer is sealed, from the
		// records it then holds (Publish).
		for _, id := range c.Delete {
			if err := errors.Join(del(docs, []byte(id)), bodies.Delete([]byte(id)), pairs.Delete([]byte(id))); err != nil {
				return err
			}
		}
		for _, d := range c.Put {
			v, err := json.Marshal(d.Record)
			if err != nil {
				return fmt.Errorf("encode %s: %w", d.Record.ID, err)
			}
			id := d.Record.ID
			if err := checkValueSizes(id, v, d.Body, d.Pairs); err != nil {
				return err
			}
			if err := errors.Join(docs.Put([]byte(id), v), bodies.Put([]byte(id), d.Body)); err != nil {
				return err
			}
			// A document stored again without filters must not keep its
			// old ones.
			put := func() error { return pairs.Put([]byte(id), d.Pairs) }
			if len(d.Pairs) == 0 {
				put = func() error { return pairs.Delete([]byte(id)) }
			}
			if err := put(); err != nil {
				return err
			}
		}
		// In key order: bbolt inserts into a page's sorted slice, and keys
		// in random order make a large transaction quadratic.
		for _, k := range slices.Sorted(maps.Keys(c.Files)) {
			e := c.Files[k]
			if err := unindexFile(ch, del, []byte(k)); err != nil {
				return err
			}
			var err error
			if e == nil {
				err = del(files, []byte(k))
			} else {
				err = errors.Join(files.Put([]byte(k), e.marshal()), manifest.Put([]byte(e.ID), []byte(k)))
			}
			if err != nil {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta)
		return errors.Join(
			putJSON(meta, keyFrontMatter, c.FrontMatter, c.FrontMatter != nil),
			putJSON(meta, keyParseRules, c.ParseRules, c.ParseRules != 0),
			putJSON(meta, keyStoreDir, c.StoreDir, c.StoreDir != ""),
			putJSON(meta, keyLinkRules, c.Links, c.Links != nil),
			putJSON(meta, keySources, c.Sources, c.Sources != nil))
	})
}

// putJSON puts v, as JSON, under key in b when set.
func putJSON(b *bolt.Bucket, key []byte, v any, set bool) error {
	if !set {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, raw)
}

// unindexFile drops the manifest's index entry of the file at key, if the
// entry still names that file (another file may have taken the id over in
// the same change).
func unindexFile(c chain, del func(*bolt.Bucket, []byte) error, key []byte) error {
	old, _ := c.get(bucketFiles, key)
	if old == nil {
		return nil
	}
	e, err := unmarshalFileEntry(old)
	if err != nil {
		return fmt.Errorf("files table %q: %w", key, err)
	}
	if cur, _ := c.get(bucketManifest, []byte(e.ID)); string(cur) == string(key) {
		return del(c.top().Bucket(bucketManifest), []byte(e.ID))
	}
	return nil
}

// fillPercent is how full bbolt packs a page before splitting it.
const fillPercent = 0.9

// mmapFor is the mapping to reserve for a body layer expected to hold
// expect bytes of markdown: 4 times that, rounded up to a power of two,
// at most 1 GiB (past it bbolt grows the mapping by 1 GiB at a time
// anyway); 0, bbolt's default, for a small layer. bbolt extends a file
// whose mapping is past 16 MiB by 16 MiB steps, so a small layer is left
// to its default mapping and keeps its exact size.
func mmapFor(expect int64) int {
	const small, most = 16 << 20, 1 << 30
	want := 4 * expect
	if want <= small {
		return 0
	}
	size := small
	for int64(size) < want && size < most {
		size *= 2
	}
	return size
}

// Publish makes the pending generation current: it records the manifest
// digest, syncs every file, renames the folder into place, and swaps
// CURRENT by an atomic rename: the commit point. Any failure before it
// leaves the previous generation current and is err; the generation is
// then not published (a folder renamed into place is removed, its number
// kept, by the next Begin).
//
// Past the commit point the generation is current whatever fails: the sync
// of the store folder, then pruning all but the newest retain published
// generations (the current one included; at least one) that no reader
// holds. Those failures are after, and err is nil.
func (p *Pending) Publish(retain int) (after, err error) {
	// Seal the layer's link index (the links whose resolution may have
	// changed) and its field index (number its documents, write their
	// postings and what it shadows below).
	if err := p.sealLinks(); err != nil {
		return nil, p.fail(err)
	}
	if err := p.sealFields(); err != nil {
		return nil, p.fail(err)
	}
	// Record the document count, so a status never walks the whole bucket
	// (2 ms of page faults on a 39k-document store), and the manifest
	// digest, so a binding reads it with one lookup.
	err = p.db.Update(func(tx *bolt.Tx) error {
		c, done, err := p.chain(tx)
		if err != nil {
			return err
		}
		defer done()
		n := p.lowerCount + countDelta(c)
		sum, err := manifestDigest(c)
		if err != nil {
			return err
		}
		meta := tx.Bucket(bucketMeta)
		return errors.Join(
			meta.Put(keyDocuments, []byte(strconv.Itoa(n))),
			meta.Put(keyManifestDigest, []byte(hex.EncodeToString(sum[:]))))
	})
	if err != nil {
		return nil, p.fail(err)
	}
	body := filepath.Join(p.path, bodyFile)
	if err := faultfs.Check(faultfs.OpSync, body); err != nil {
		return nil, p.fail(err)
	}
	if err := p.db.Sync(); err != nil {
		return nil, p.fail(err)
	}
	if err := errors.Join(p.db.Close(), p.closeLower()); err != nil {
		return nil, p.fail(err)
	}
	p.db = nil
	if err := writeHold(p.path); err != nil {
		return nil, p.fail(err)
	}
	dirInfo, err := os.Stat(p.path)
	if err != nil {
		return nil, p.fail(err)
	}
	fileInfo, err := os.Stat(body)
	if err != nil {
		return nil, p.fail(err)
	}
	if err := syncTree(p.path, dirInfo.Mode().Perm(), fileInfo.Mode().Perm()); err != nil {
		return nil, p.fail(err)
	}
	final := genPath(p.dir, p.gen)
	if err := faultfs.Rename(p.path, final); err != nil {
		return nil, p.fail(err)
	}
	p.path = final // not published yet: unreadable past CURRENT
	if err := faultfs.SyncDir(filepath.Join(p.dir, genDir)); err != nil {
		return nil, err
	}
	published, err := writeCurrent(p.dir, p.gen)
	if !published {
		return nil, err
	}
	// The commit point is behind: the generation is current.
	return errors.Join(err, prune(p.dir, retain)), nil
}

// writeHold creates the generation's hold file: a reader holds the
// generation with a shared flock on it (holdGeneration), which prune
// respects.
func writeHold(gen string) error {
	f, err := os.OpenFile(filepath.Join(gen, holdFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// Abort discards the pending generation. Once Publish renamed it into
// place, it leaves the folder to the next Begin, which keeps its number.
func (p *Pending) Abort() error {
	var err error
	if p.db != nil {
		err = p.db.Close()
		p.db = nil
	}
	err = errors.Join(err, p.closeLower())
	if strings.Contains(filepath.Base(p.path), tmpMarker) {
		err = errors.Join(err, faultfs.RemoveAll(p.path))
	}
	return err
}

func (p *Pending) closeLower() error {
	var errs []error
	for _, l := range p.lower {
		errs = append(errs, l.Close())
	}
	p.lower = nil
	return errors.Join(errs...)
}

func (p *Pending) fail(err error) error {
	return errors.Join(err, p.Abort())
}

// Prune removes published generations but the newest retain of the store
// in dir, as a refresh that publishes does (see prune). Only a refresh
// calls it, holding the lock: one that publishes nothing, so that what an
// earlier one could not prune goes.
func Prune(dir string, retain int) error { return prune(dir, retain) }

// prune removes published generations but the newest retain (at least
// one), except those a reader holds (see holdGeneration) or a binding
// holds (AddHold): a held one stays until a later refresh finds it let go
// (a binding's hold released or expired). Each leaves at once: while prune
// holds its hold file exclusively, its folder is renamed aside (a name
// Retained never lists and the next refresh removes) before it is deleted,
// so no reader can take a hold on it after that. A reader that opened it
// before keeps its files until it closes them.
func prune(dir string, retain int) error {
	c, err := readCurrent(dir)
	if err != nil {
		return err
	}
	gens, _, _, err := generations(dir)
	if err != nil {
		return err
	}
	published := gens[:0]
	for _, g := range gens {
		if g <= c.Generation {
			published = append(published, g)
		}
	}
	retain = max(retain, 1)
	var errs []error
	for len(published) > retain {
		g := published[0]
		published = published[1:]
		if err := pruneOne(dir, g); err != nil {
			errs = append(errs, fmt.Errorf("prune generation %d: %w", g, err))
		}
	}
	return errors.Join(errs...)
}

func pruneOne(dir string, gen uint64) error {
	from := genPath(dir, gen)
	h, err := os.Open(filepath.Join(from, holdFile))
	switch {
	case err == nil:
		defer h.Close()
		if err := unix.Flock(int(h.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil // held: kept until its readers let go
			}
			return err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	// Only now, with the generation held alone, is the holds record read:
	// a bind records its hold while it holds the generation shared, so a
	// hold recorded before this point is seen, and a bind after it finds
	// the generation going. A record that cannot be read keeps it.
	if held, err := heldAt(dir, gen, time.Now()); err != nil || held {
		return err
	}
	aside := from + tmpMarker + "pruned"
	if _, err := os.Lstat(aside); err == nil { // left by a prune that died
		if err := faultfs.RemoveAll(aside); err != nil {
			return err
		}
	}
	if err := faultfs.Rename(from, aside); err != nil {
		return err
	}
	return faultfs.RemoveAll(aside)
}
