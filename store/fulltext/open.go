package fulltext

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/util"
	index "github.com/blevesearch/bleve_index_api"
)

// The on-disk layout is bleve's, byte for byte, so an index written by
// bleve.NewUsing opens here and the other way round:
//
//	<path>/index_meta.json  {"storage":"boltdb","index_type":"scorch"}
//	<path>/store/           the scorch index; the mapping, as JSON, under
//	                        the internal key "_mapping"
//
// and docir's own file beside them (bleve ignores it):
//
//	<path>/docir_passages   how many passages the index holds, decimal:
//	                        written by Seal, checked by every Open
//
// docir opens it through bleve's scorch and mapping packages directly. The
// top-level bleve package would also link and initialize the upsidedown
// index type and its stores, protobuf, expvar and bleve's configuration,
// which a read never uses: about 15 MB of the binary and a large share of
// a read's start-up.
const (
	metaFile  = "index_meta.json"
	storeDir  = "store"
	indexType = scorch.Name // "scorch"
	// storageName is what bleve writes as the store of a scorch index on
	// disk (its default key-value store, which scorch does not use).
	storageName = "boltdb"
	countFile   = "docir_passages"
	// asyncErrors names docir's callback for the errors of scorch's
	// persister and merger goroutines (see writers).
	asyncErrors = "docir"
)

// writers maps the scorch folder of every index open for writing to it, for
// the callback scorch calls with an error of its background work (a
// persist or a merge that failed, a panic it recovered), which fails that
// index: scorch itself only logs such an error, or retries. The registry
// is scorch's, filled at init as it asks.
var writers sync.Map

func init() {
	scorch.RegistryAsyncErrorCallbacks[asyncErrors] = func(err error, path string) {
		if x, ok := writers.Load(path); ok {
			x.(*Index).fail(fmt.Errorf("scorch: %w", err))
		}
	}
}

// AnalysisWorkers is how many goroutines analyze a batch's passages, as in
// bleve's default configuration.
const AnalysisWorkers = 4

// mergePlan is what docir changes of scorch's merge policy (the rest is
// mergeplan.DefaultMergePlanOptions): the smallest segment the planner
// counts is a full batch's, not two batches' (its default floor, 2000
// documents). Under the default floor, every pair of batch segments is
// over the planner's budget and merged again as soon as it is written: a
// from-scratch index of the RFCs (11 batches) spent 9% of its CPU merging
// into 6 segments what it now keeps as 11 (search time alike). Segments
// still merge ten at a time as each tier fills.
var mergePlan = map[string]any{"FloorSegmentSize": BatchSize}

// indexMeta is bleve's index_meta.json.
type indexMeta struct {
	Storage   string         `json:"storage"`
	IndexType string         `json:"index_type"`
	Config    map[string]any `json:"config,omitempty"`
}

// Create makes a new, empty index at path, which must not exist.
func Create(path string) (x *Index, err error) {
	m, err := newMapping()
	if err != nil {
		return nil, fmt.Errorf("fulltext mapping: %w", err)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("fulltext mapping: %w", err)
	}
	mappingJSON, err := util.MarshalJSON(m)
	if err != nil {
		return nil, fmt.Errorf("fulltext mapping: %w", err)
	}
	meta, err := json.Marshal(indexMeta{Storage: storageName, IndexType: indexType})
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, fmt.Errorf("create index %s: %w", path, err)
	}
	f, err := os.OpenFile(filepath.Join(path, metaFile), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create index %s: %w", path, err)
	}
	_, err = f.Write(meta)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("create index %s: %w", path, err)
	}
	x, err = openScorch(path, m, map[string]any{"create_if_missing": true, "error_if_exists": true}, false)
	if err != nil {
		return nil, fmt.Errorf("create index %s: %w", path, err)
	}
	b := index.NewBatch()
	b.SetInternal(util.MappingInternalKey, mappingJSON)
	if err := x.write(b); err != nil {
		x.Close()
		return nil, fmt.Errorf("create index %s: %w", path, err)
	}
	return x, nil
}

// Open opens the index at path. A read-only open coexists with other
// read-only opens; a writable one excludes every other opener.
//
// An index Seal recorded must hold the passages it recorded: scorch, when
// the newest snapshot of an index does not load (one segment file that an
// I/O error keeps from opening), logs "unable to load snapshot,
// continuing" and opens an older one, which would answer searches from a
// stale index (or, written to, build the next generation on it). Open fails
// instead, naming the counts.
func Open(path string, readOnly bool) (*Index, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	if err := checkMeta(path); err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	x, err := openScorch(path, nil, map[string]any{
		"create_if_missing": false, "error_if_exists": false, "read_only": readOnly,
	}, readOnly)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	if err := x.loadMapping(); err != nil {
		x.Close()
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	if err := x.checkCount(); err != nil {
		x.Close()
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	return x, nil
}

// checkCount compares the passages the index holds with the count Seal
// recorded, when it recorded one (an index bleve wrote has none).
func (x *Index) checkCount() error {
	b, err := os.ReadFile(filepath.Join(x.path, countFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	want, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return fmt.Errorf("%s: %q is not a count of passages", countFile, b)
	}
	got, err := x.Count()
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("it holds %d passages, where %d were written: a segment did not load (an I/O error, or a damaged index), and bleve fell back to an older snapshot; try again, and if it persists, remove the store folder and index again", got, want)
	}
	return nil
}

// Count is the number of passages the index holds.
func (x *Index) Count() (uint64, error) {
	r, err := x.idx.Reader()
	if err != nil {
		return 0, err
	}
	n, err := r.DocCount()
	return n, errors.Join(err, r.Close())
}

// Compact merges the segments of an index opened for writing into one,
// and waits (up to compactCleanup) until scorch has removed the files of
// the segments it merged. A search opens each query word's postings in
// every segment, so an index built from scratch in many batch segments
// costs every later search a dictionary lookup per word per segment: one
// segment made searches 0.85–0.93× the CPU at 38k to 192k documents
// (paired), for a merge of about a tenth of the build at 38k. Segments a
// refresh adds later are merged by scorch's own policy (mergePlan).
func (x *Index) Compact(ctx context.Context) error {
	if x.readOnly {
		return errors.New("fulltext: Compact of an index opened read-only")
	}
	s, ok := x.idx.(*scorch.Scorch)
	if !ok {
		return nil
	}
	if err := s.ForceMerge(ctx, &mergeplan.SingleSegmentMergePlanOptions); err != nil {
		return fmt.Errorf("compact index %s: %w", x.path, err)
	}
	if err := x.err(); err != nil {
		return err
	}
	// scorch's persister removes the merged files between its rounds;
	// closing before that would leave them in the generation for good.
	dir := filepath.Join(x.path, storeDir)
	for deadline := time.Now().Add(compactCleanup); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if stale, err := staleSegments(s, dir); err != nil || len(stale) == 0 {
			return err
		}
	}
	return nil
}

// compactCleanup bounds Compact's wait for the merged files' removal: past
// it, Seal removes what is left (no snapshot names them). A variable for
// the tests, which also run Compact without the wait.
var compactCleanup = 2 * time.Second

// staleSegments lists the segment files in dir that the index's current
// snapshot does not hold.
func staleSegments(s *scorch.Scorch, dir string) ([]string, error) {
	r, err := s.Reader()
	if err != nil {
		return nil, err
	}
	live := map[string]bool{}
	for _, seg := range r.(*scorch.IndexSnapshot).Segments() {
		live[fmt.Sprintf("%012x.zap", seg.Id())] = true
	}
	if err := r.Close(); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".zap") && !live[e.Name()] {
			stale = append(stale, e.Name())
		}
	}
	return stale, nil
}

// Seal closes an index opened for writing, records beside it how many
// passages it holds, and opens it again from disk, read-only, to check
// that the disk holds as many: what a refresh publishes is what it wrote,
// and every later Open checks the same count. It removes the segment files
// that snapshot does not hold (merged away, and not yet removed by scorch
// when it closed).
func (x *Index) Seal() error {
	if x.readOnly {
		return errors.New("fulltext: Seal of an index opened read-only")
	}
	n, err := x.Count()
	if err = errors.Join(err, x.Close()); err != nil {
		return fmt.Errorf("seal index %s: %w", x.path, err)
	}
	name := filepath.Join(x.path, countFile)
	if err := os.WriteFile(name+".tmp", []byte(strconv.FormatUint(n, 10)+"\n"), 0o644); err != nil {
		return fmt.Errorf("seal index %s: %w", x.path, err)
	}
	if err := os.Rename(name+".tmp", name); err != nil {
		return fmt.Errorf("seal index %s: %w", x.path, err)
	}
	y, err := Open(x.path, true)
	if err != nil {
		return fmt.Errorf("seal: %w", err)
	}
	// What scorch's persister had not removed when it stopped (a merge's
	// inputs, on a slow machine past Compact's wait): no snapshot on disk
	// names them, and nothing else opens this index before it is published.
	err = removeStale(y, filepath.Join(x.path, storeDir))
	return errors.Join(err, y.Close())
}

// removeStale removes the segment files of x's folder dir that the
// snapshot x opened does not hold.
func removeStale(x *Index, dir string) error {
	s, ok := x.idx.(*scorch.Scorch)
	if !ok {
		return nil
	}
	stale, err := staleSegments(s, dir)
	if err != nil {
		return fmt.Errorf("seal index %s: %w", x.path, err)
	}
	for _, name := range stale {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("seal index %s: %w", x.path, err)
		}
	}
	return nil
}

// checkMeta reads the index's index_meta.json and refuses an index of
// another type than scorch, or one whose meta bleve wrote through a file
// callback (encrypted), which docir never sets.
func checkMeta(path string) error {
	b, err := os.ReadFile(filepath.Join(path, metaFile))
	if err != nil {
		return fmt.Errorf("index meta: %w", err)
	}
	if _, err := os.Stat(filepath.Join(path, metaFile+"_temp")); err == nil {
		return fmt.Errorf("index meta: %s_temp present: an interrupted update", metaFile)
	}
	var meta indexMeta
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&meta); err != nil {
		return fmt.Errorf("index meta %s: %w", metaFile, err)
	}
	if meta.IndexType != indexType {
		return fmt.Errorf("index meta %s: index type %q, want %q", metaFile, meta.IndexType, indexType)
	}
	return nil
}

// openScorch opens the scorch index under path/store with config (bleve's
// keys), and m as its mapping when known.
func openScorch(path string, m *mapping.IndexMappingImpl, config map[string]any, readOnly bool) (*Index, error) {
	config["path"] = filepath.Join(path, storeDir)
	x := &Index{m: m, readOnly: readOnly, path: path}
	if !readOnly {
		x.queue = index.NewAnalysisQueue(AnalysisWorkers)
		config["scorchMergePlanOptions"] = mergePlan
		// No rollback points: docir never rolls an index back (a
		// generation is published whole or not at all), and a kept
		// snapshot keeps the files of the segments merged since. (A
		// test that needs older snapshots asks for them.)
		if _, ok := config["numSnapshotsToKeep"]; !ok {
			config["numSnapshotsToKeep"] = 0
		}
		// Batches wait for their persistence in write, not in scorch.
		config["unsafe_batch"] = true
		config["asyncErrorCallbackName"] = asyncErrors
		x.failed = make(chan struct{})
		writers.Store(config["path"], x)
	}
	idx, err := scorch.NewScorch(storageName, config, x.queue)
	if err == nil {
		err = idx.Open()
	}
	if err != nil {
		if x.queue != nil {
			x.queue.Close()
			writers.Delete(config["path"])
		}
		return nil, err
	}
	x.idx = idx
	if m != nil {
		if err := x.setMapping(m); err != nil {
			x.Close()
			return nil, err
		}
	}
	return x, nil
}

// loadMapping reads the mapping stored in the index, as bleve.OpenUsing
// does.
func (x *Index) loadMapping() (err error) {
	r, err := x.idx.Reader()
	if err != nil {
		return err
	}
	defer func() {
		if cerr := r.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	b, err := r.GetInternal(util.MappingInternalKey)
	if err != nil {
		return err
	}
	if len(b) == 0 {
		return errors.New("no mapping stored in the index")
	}
	var m *mapping.IndexMappingImpl
	if err := util.UnmarshalJSON(b, &m); err != nil {
		return fmt.Errorf("index mapping: %w", err)
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("index mapping: %w", err)
	}
	return x.setMapping(m)
}

func (x *Index) setMapping(m *mapping.IndexMappingImpl) error {
	an := m.AnalyzerNamed(AnalyzerName)
	if an == nil {
		return fmt.Errorf("index mapping has no analyzer %q", AnalyzerName)
	}
	x.m, x.an, x.fast = m, an, newFastAnalyzer(an)
	if x.fast != nil {
		x.an = x.fast
	}
	return nil
}
