package fulltext

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	index "github.com/blevesearch/bleve_index_api"

	"github.com/docir/docir/docir/corpustest"
)

// Faults of the index (issue 28): an index that does not load whole, a
// write that fails in scorch's background, and a panic of bleve's all fail
// closed.

func numbered(from, to int, word string) []Passage {
	var ps []Passage
	for i := from; i < to; i++ {
		ps = append(ps, Passage{ID: fmt.Sprintf("p%03d", i), Text: fmt.Sprintf("passage %d about %s", i, word)})
	}
	return ps
}

// TestOpenFailsClosed: scorch, when the newest snapshot of an index does
// not load (one segment an I/O error keeps from opening), logs "unable to
// load snapshot, continuing" and opens an older snapshot: a refresh wrote
// its next generation on it, and searches found 0 of the 30 files holding
// a word. A sealed index holds the count of its passages, and Open fails
// when the index it loaded holds another.
func TestOpenFailsClosed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ft")
	x, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Apply(nil, numbered(0, 1500, "kestrels")); err != nil {
		t.Fatal(err)
	}
	if err := x.Seal(); err != nil {
		t.Fatal(err)
	}
	// A second writer, as a refresh: deletes, then adds. It keeps its
	// older snapshots (scorch keeps them, or not, as its purger's timing
	// has it), so that one to fall back to is there.
	x, err = openScorch(path, nil, map[string]any{"read_only": false, "numSnapshotsToKeep": 100}, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.loadMapping(); err != nil {
		t.Fatal(err)
	}
	if err := x.Apply([]string{"p000", "p001"}, numbered(1500, 1530, "clean21")); err != nil {
		t.Fatal(err)
	}
	if err := x.Seal(); err != nil {
		t.Fatal(err)
	}
	segments, err := filepath.Glob(filepath.Join(path, storeDir, "*.zap"))
	if err != nil || len(segments) == 0 {
		t.Fatalf("segments %v, %v", segments, err)
	}
	fellBack := 0
	for i, seg := range segments {
		broken := filepath.Join(t.TempDir(), fmt.Sprint(i))
		if err := corpustest.CopyAll(path, broken); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(filepath.Join(broken, storeDir, filepath.Base(seg)), 16); err != nil {
			t.Fatal(err)
		}
		for _, readOnly := range []bool{true, false} {
			y, err := Open(broken, readOnly)
			if err != nil {
				if strings.Contains(err.Error(), "fell back to an older snapshot") {
					fellBack++
				}
				continue
			}
			// An older snapshot with the same passages (the one before a
			// merge) is the same index.
			m, _, err := y.Search(context.Background(), "clean21", 100)
			y.Close()
			if err != nil || len(m) != 30 {
				t.Errorf("%s cut, read-only %v: opened, and finds %d of the 30 (%v)", filepath.Base(seg), readOnly, len(m), err)
			}
		}
	}
	if fellBack == 0 {
		t.Error("no cut segment made scorch fall back to an older snapshot: nothing was tested")
	}
	// The whole index opens, and finds all 30.
	y, err := Open(path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer y.Close()
	if m, _, err := y.Search(context.Background(), "clean21", 100); err != nil || len(m) != 30 {
		t.Errorf("clean21: %d hits, %v", len(m), err)
	}
}

// TestPersistFailureIsAnError: a write whose persistence fails in scorch's
// persister (here its folder is gone; ENOSPC did it in the field) used to
// panic on a goroutine of scorch's, which nothing can recover (scorch's
// safe Batch closed the segment it had already put in the index, and the
// persister's retry merged it: "assignment to entry in nil map" in zapx).
// The write, and every write after it, now fails with the persister's
// error, and the process goes on.
func TestPersistFailureIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ft")
	x, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Apply(nil, numbered(0, 10, "herons")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(path, storeDir)); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		err := x.Apply(nil, numbered(10, 3000, "egrets"))
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Fatalf("a write that cannot persist: %v", err)
		}
	}
	if err := x.Close(); err == nil {
		t.Error("Close of a failed index: no error")
	}
}

// panicky is an index whose batches panic, as bleve's did under ENOSPC.
type panicky struct{ index.Index }

func (panicky) Batch(*index.Batch) error { panic("assignment to entry in nil map") }

// TestPanicIsAnError: a panic of bleve's under a write is recovered at the
// index boundary: the write, and the index, fail with it.
func TestPanicIsAnError(t *testing.T) {
	x, err := Create(filepath.Join(t.TempDir(), "ft"))
	if err != nil {
		t.Fatal(err)
	}
	real := x.idx
	x.idx = panicky{real}
	err = x.Apply([]string{"a"}, numbered(0, 2500, "ibis"))
	if err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("Apply: %v", err)
	}
	x.idx = real
	if err := x.Apply(nil, numbered(0, 1, "ibis")); !errors.Is(err, x.failure) {
		t.Errorf("a write after the panic: %v", err)
	}
	if err := x.Close(); err == nil {
		t.Error("Close of a failed index: no error")
	}
}

// TestLongTermsAndTexts: a term is cut to MaxTermBytes (at a character
// boundary) and a text to MaxTextBytes, at index and query time alike, so
// the long word still finds its passage, and what lies past the bound is
// not indexed.
func TestLongTermsAndTexts(t *testing.T) {
	an := analyzer(t)
	long := strings.Repeat("ä", 3000) // 2 bytes each
	for _, term := range analyzeTerms(an, "x "+long+" y") {
		if len(term) > MaxTermBytes || !utf8.ValidString(term) {
			t.Errorf("term of %d bytes (valid UTF-8: %v)", len(term), utf8.ValidString(term))
		}
	}
	x, err := Create(filepath.Join(t.TempDir(), "ft"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	tail := strings.Repeat("filler ", MaxTextBytes/7) + "beyondthebound"
	if err := x.Apply(nil, []Passage{{ID: "a", Text: long + " " + tail}, {ID: "b", Text: "other"}}); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]int{long: 1, long[:MaxTermBytes+40]: 1, "filler": 1, "beyondthebound": 0} {
		if m, _, err := x.Search(context.Background(), q, 5); err != nil || len(m) != want {
			t.Errorf("search of a %d-byte query: %v, %v; want %d hits", len(q), m, err, want)
		}
	}
}
