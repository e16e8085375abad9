package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"

	"github.com/docir/docir/docir"
)

// Buckets of the body file.
var (
	bucketMeta   = []byte("meta")   // "generation", "sources"
	bucketDocs   = []byte("docs")   // id -> JSON docir.Record
	bucketBodies = []byte("bodies") // id -> the file's bytes
	// id -> its passages' pair filters (fulltext.Pairs), in the layer of
	// its record; a layer an older build wrote has none.
	bucketPairs = []byte("pairs")
	bucketFiles = []byte("files") // source key -> FileEntry.marshal
	// id -> source key: the manifest's index, kept in step with the files
	// table, so one document's manifest entry is two key lookups.
	bucketManifest = []byte("manifest")
)

var (
	keyGeneration  = []byte("generation")
	keySources     = []byte("sources")
	keyFrontMatter = []byte("front_matter") // the front-matter fields the index holds (JSON list)
	keyParseRules  = []byte("parse_rules")  // the markdown rules its records were made by (JSON int; absent: 0)
	keyStoreDir    = []byte("store_dir")    // the store's folder, its real path, when the generation was written (JSON string)
	keyFormat      = []byte("format")
	keyDocuments   = []byte("documents") // the count, written at publish
	// hex sha256 of the canonical manifest, written at publish
	keyManifestDigest = []byte("manifest_digest")
	// the generations whose layers lie below this one, oldest first
	keyLayers = []byte("layers")
)

// Source is one configured source root.
type Source struct {
	Path   string `json:"path"`             // absolute, cleaned
	Prefix string `json:"prefix,omitempty"` // put before the path-derived ids of its files
	// FrontMatterID is how a front-matter `id:` makes a file's id (package
	// ingest's FrontMatterID* values): "" is the whole id.
	FrontMatterID string `json:"front_matter_id,omitempty"`
}

// FrontMatterIDName is the FrontMatterID by which an `id:` replaces its
// file's name (package ingest's FrontMatterIDName is it): links resolve
// below such a source by id too (linkindex.go, byID).
const FrontMatterIDName = "name"

// Snapshot is one published generation, open for reading. It is safe for
// concurrent use. It opens only the body layers; searches open the
// generation's bleve index through package fulltext.
type Snapshot struct {
	dir    string
	gen    uint64
	db     *bolt.DB   // the generation's own layer: meta and the newest entries
	layers []*bolt.DB // every layer, oldest first; the last is db
	hold   *os.File   // the generation's hold file, flock'ed shared: prune leaves the generation be

	// The layers' files opened for point reads by pread (pread.go), in
	// step with layers; ready once pointsOnce has run.
	pointsOnce sync.Once
	pread      []*preadLayer
	pointsErr  error

	// The generation's files by name, for the link rules FillResolvesWith
	// tries (noteNames); made once, on first use.
	namesOnce sync.Once
	names     *noteNames
	// The sets of the link rules the generation has off, for
	// FillResolvesWith (offRuleSets: 1,023 of them with ten rules off).
	offOnce sync.Once
	offSets []ruleSet
}

// Open opens the current generation of the store in dir for reading. It
// never waits on a refresh: generations are immutable once published.
func Open(dir string) (*Snapshot, error) {
	// A refresh may prune the generation CURRENT named between our reading
	// CURRENT and opening its files; read CURRENT again once if so.
	var lastErr error
	for range 2 {
		cur, err := readCurrent(dir)
		if err != nil {
			return nil, err
		}
		s, err := openGeneration(dir, cur.Generation)
		if err == nil {
			return s, nil
		}
		lastErr = err
		if !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	return nil, lastErr
}

// OpenGeneration opens generation gen of the store in dir for reading: a
// published one, no later than the current generation. A generation past
// CURRENT (a build a crash left renamed into place before the swap) was
// never published and is an error wrapping ErrNotPublished, as is a
// number not reached yet; a pruned one is an fs.ErrNotExist too.
//
// The snapshot holds its generation until it is closed: a refresh prunes
// no generation a reader holds, so its bleve index opens later as well.
func OpenGeneration(dir string, gen uint64) (*Snapshot, error) {
	c, err := readCurrent(dir)
	if err != nil {
		return nil, err
	}
	if gen > c.Generation {
		return nil, fmt.Errorf("open generation %d of %s (current: %d): %w", gen, dir, c.Generation, ErrNotPublished)
	}
	return openGeneration(dir, gen)
}

// openGeneration opens generation gen, which CURRENT names or named.
func openGeneration(dir string, gen uint64) (*Snapshot, error) {
	db, err := openLayer(filepath.Join(genPath(dir, gen), bodyFile))
	if err != nil {
		return nil, fmt.Errorf("open generation %d: %w", gen, err)
	}
	s := &Snapshot{dir: dir, gen: gen, db: db}
	var lower []uint64
	if err := s.checkFormat(&lower); err != nil {
		db.Close()
		return nil, err
	}
	if s.hold, err = holdGeneration(genPath(dir, gen)); err != nil {
		db.Close()
		return nil, fmt.Errorf("open generation %d: %w", gen, err)
	}
	for _, g := range lower {
		l, err := openLayer(filepath.Join(genPath(dir, gen), layerName(g)))
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("open generation %d: %w", gen, err)
		}
		s.layers = append(s.layers, l)
	}
	s.layers = append(s.layers, db)
	cache := newPageCache(pageCacheBytes)
	for i, l := range s.layers {
		pl, err := openPreadLayer(l, cache, i)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("open generation %d: %w", gen, err)
		}
		s.pread = append(s.pread, pl)
	}
	return s, nil
}

// holdGeneration holds the generation in the folder gen for a reader: a
// shared flock on its hold file, which prune takes exclusive (and leaves
// the generation alone when it cannot). A generation being pruned, or
// pruned since its folder was found, is an fs.ErrNotExist.
func holdGeneration(gen string) (*os.File, error) {
	name := filepath.Join(gen, holdFile)
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s: being pruned: %w", gen, fs.ErrNotExist)
		}
		return nil, fmt.Errorf("hold %s: %w", name, err)
	}
	// prune renames the folder aside while it holds the file: a hold
	// taken since is on a file that is no longer the generation's.
	var held, now unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &held); err != nil {
		f.Close()
		return nil, err
	}
	if err := unix.Stat(name, &now); err != nil || now.Ino != held.Ino || now.Dev != held.Dev {
		f.Close()
		return nil, fmt.Errorf("%s: pruned: %w", gen, fs.ErrNotExist)
	}
	return f, nil
}

// openLayer opens the bolt file at path for reading, once checkBoltFile
// has found it whole: bbolt maps it, and a page missing from a mapped file
// is a crash, not an error.
func openLayer(path string) (db *bolt.DB, err error) {
	if err := checkBoltFile(path); err != nil {
		return nil, err
	}
	defer recoverBolt(path, &err)
	return bolt.Open(path, 0o444, &bolt.Options{ReadOnly: true, Timeout: time.Second})
}

func (s *Snapshot) checkFormat(lower *[]uint64) (err error) {
	defer recoverBolt(s.db.Path(), &err)
	return s.db.View(func(tx *bolt.Tx) error {
		m := tx.Bucket(bucketMeta)
		if m == nil {
			return docir.Errorf(docir.CodeStoreFormat, "%s: generation %d has no meta bucket", s.dir, s.gen)
		}
		if v := string(m.Get(keyFormat)); v != fmt.Sprint(FormatVersion) {
			got, _ := strconv.Atoi(v) // not a number: 0, an older format's advice
			return docir.Errorf(docir.CodeStoreFormat, "%s: generation %d has format %q, this docir reads %d; %s", s.dir, s.gen, v, FormatVersion, formatAdvice(got))
		}
		var err error
		if *lower, err = parseLayers(m.Get(keyLayers)); err != nil {
			return docir.Errorf(docir.CodeStoreFormat, "%s: generation %d: bad layer list %q", s.dir, s.gen, m.Get(keyLayers))
		}
		return nil
	})
}

// view runs fn with a read transaction on every layer.
func (s *Snapshot) view(fn func(c chain) error) error {
	c, done, err := beginChain(s.layers)
	if err != nil {
		return err
	}
	defer done()
	return fn(c)
}

// Generation is the number of the generation s holds.
func (s *Snapshot) Generation() uint64 { return s.gen }

// Dir is the store folder s was opened from.
func (s *Snapshot) Dir() string { return s.dir }

// Close releases the snapshot's files.
func (s *Snapshot) Close() error {
	var errs []error
	for _, l := range s.pread {
		errs = append(errs, l.Close())
	}
	for _, l := range s.layers {
		if l != s.db {
			errs = append(errs, l.Close())
		}
	}
	if s.hold != nil {
		errs = append(errs, s.hold.Close())
	}
	return errors.Join(append(errs, s.db.Close())...)
}

// Lookup returns the record and body bytes of the document with the given
// id. ok is false when the generation has no such document. The returned
// bytes are the caller's: they are copied out of the memory map.
func (s *Snapshot) Lookup(id string) (rec docir.Record, body []byte, ok bool, err error) {
	v, layer, err := s.pointGet(bucketDocs, []byte(id))
	if v == nil || err != nil {
		return rec, nil, false, err
	}
	if err := json.Unmarshal(v, &rec); err != nil {
		return rec, nil, false, fmt.Errorf("record %q: %w", id, err)
	}
	if body, err = s.pointGetIn(layer, bucketBodies, []byte(id)); err != nil {
		return rec, nil, false, err
	}
	return rec, body, true, nil
}

// LookupSpans is Lookup for a ranking, which reads many documents and
// little of each (see Spans); ok is false when the generation has no
// such document.
func (s *Snapshot) LookupSpans(id string) (doc *Spans, ok bool, err error) {
	v, layer, err := s.pointGet(bucketDocs, []byte(id))
	if v == nil || err != nil {
		return nil, false, err
	}
	return &Spans{id: id, raw: v, s: s, layer: layer}, true, nil
}

// Spans is a document as a ranking reads it: its record without its
// links, anchors and definition terms (a ranking reads none of them, and
// a long document has hundreds), decoded when first asked (Record: a
// ranking that passes over a passage by its pair filters never needs
// it), its front matter decoded when asked (Fields; a ranking needs it
// for a head passage or a name), and its body read a span at a time
// (Body), so that a ranking that scores a section of a long document
// reads that section's bytes, not the document's.
type Spans struct {
	id     string
	raw    []byte // the record's bytes, until decoded
	rec    docir.Record
	err    error // of decoding raw
	fields json.RawMessage
	s      *Snapshot
	layer  int // the layer the record is in: its body is in the same
}

// Record is the document's record without its links, anchors and
// definition terms; its Fields are nil until Fields is called.
func (d *Spans) Record() (*docir.Record, error) {
	if d.raw != nil {
		rec, fields, err := decodeLean(d.raw)
		d.rec, d.fields, d.raw = rec, fields, nil
		if err != nil {
			d.err = fmt.Errorf("record %q: %w", d.id, err)
		}
	}
	return &d.rec, d.err
}

// Fields decodes the document's front matter into its record's Fields,
// once, and returns it.
func (d *Spans) Fields() (map[string]any, error) {
	rec, err := d.Record()
	if err != nil {
		return nil, err
	}
	if rec.Fields == nil && len(d.fields) > 0 && !bytes.Equal(d.fields, []byte("null")) {
		if err := json.Unmarshal(d.fields, &rec.Fields); err != nil {
			return nil, fmt.Errorf("record %q: fields: %w", d.id, err)
		}
		d.fields = nil
	}
	return rec.Fields, nil
}

// Pairs is the pair filters of the document's passages, as the index
// analyzed them when the document was stored (fulltext.Pairs); nil when
// it has none (stored by a build before them). A ranking reads them to
// pass over passages whose words cannot be in an order that ranks.
func (d *Spans) Pairs() ([]byte, error) {
	return d.s.pointGetIn(d.layer, bucketPairs, []byte(d.id))
}

// Body reads the body's bytes [from, to) (clipped to it; to < 0: its
// end), a copy; a document without a body reads as an empty one.
func (d *Spans) Body(from, to int) ([]byte, error) {
	b, err := d.s.pointSpanIn(d.layer, bucketBodies, []byte(d.id), from, to)
	if err == nil && b == nil {
		b = []byte{}
	}
	return b, err
}

// leanRecord decodes a record without its links, anchors and terms, and
// its front matter undecoded (see Spans): the fields of the same names
// here shadow the record's.
type leanRecord struct {
	docir.Record
	Sections []leanSection   `json:"sections"`
	Fields   json.RawMessage `json:"fields"` // decoded when asked (Spans.Fields)
	Links    skipped         `json:"links"`
	Anchors  skipped         `json:"anchors"`
	Terms    skipped         `json:"terms"`
}

type leanSection struct {
	docir.Section
	Links   skipped `json:"links"`
	Anchors skipped `json:"anchors"`
	Terms   skipped `json:"terms"`
}

// skipped is a JSON value read past, not decoded.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// Record returns the record of one document, without its body.
func (s *Snapshot) Record(id string) (rec docir.Record, ok bool, err error) {
	v, _, err := s.pointGet(bucketDocs, []byte(id))
	if v == nil || err != nil {
		return rec, false, err
	}
	return rec, true, json.Unmarshal(v, &rec)
}

// Records calls fn for every record, in id order, until fn returns an error.
func (s *Snapshot) Records(fn func(docir.Record) error) error {
	return s.view(func(c chain) error {
		return c.each(bucketDocs, false, func(k, v []byte, _ int) error {
			var rec docir.Record
			if err := json.Unmarshal(v, &rec); err != nil {
				return fmt.Errorf("record %q: %w", k, err)
			}
			return fn(rec)
		})
	})
}

// RecordsJSON calls fn with the JSON of every record, in id order, until fn
// returns an error. The bytes are valid only during the call: they are the
// memory map's. It lets a filter skip decoding what it can rule out.
func (s *Snapshot) RecordsJSON(fn func(raw []byte) error) error {
	return s.view(func(c chain) error {
		return c.each(bucketDocs, false, func(_, v []byte, _ int) error { return fn(v) })
	})
}

// Count returns the number of documents in the generation, recorded when
// it was published.
func (s *Snapshot) Count() (n int, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketMeta).Get(keyDocuments)
		n, err = strconv.Atoi(string(v))
		if err != nil {
			return fmt.Errorf("generation %d: document count: %w", s.gen, err)
		}
		return nil
	})
	return n, err
}

// Sources returns the source roots the generation was built from.
func (s *Snapshot) Sources() (srcs []Source, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketMeta).Get(keySources)
		if v == nil {
			return nil
		}
		return json.Unmarshal(v, &srcs)
	})
	return srcs, err
}

// StoreDir returns the store folder's real path when the generation was
// written, and whether it recorded one (generations written before it was
// recorded did not): a project that moved with its store is told from one
// whose sources were replaced by it (ingest's movedRoots).
func (s *Snapshot) StoreDir() (dir string, recorded bool, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketMeta).Get(keyStoreDir); v != nil {
			recorded = true
			return json.Unmarshal(v, &dir)
		}
		return nil
	})
	return dir, recorded, err
}

// ParseRules returns the version of the markdown rules the generation's
// records were made by (markdown.RulesVersion); 0 when it recorded none
// (a generation written before the version was recorded).
func (s *Snapshot) ParseRules() (version int, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketMeta).Get(keyParseRules); v != nil {
			return json.Unmarshal(v, &version)
		}
		return nil
	})
	return version, err
}

// FrontMatter returns the front-matter fields the generation's index
// holds as text, and whether the generation recorded them (generations
// built before the list was recorded did not: they hold the defaults).
func (s *Snapshot) FrontMatter() (fields []string, recorded bool, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketMeta).Get(keyFrontMatter)
		if v == nil {
			return nil
		}
		recorded = true
		return json.Unmarshal(v, &fields)
	})
	return fields, recorded, err
}

// FullTextPath is the folder of the generation's bleve index, for package
// fulltext to open read-only. The store itself never opens bleve, so a deep
// read never pays for it.
func (s *Snapshot) FullTextPath() string {
	return filepath.Join(genPath(s.dir, s.gen), fulltextDir)
}
