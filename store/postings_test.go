package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"github.com/docir/docir/docir"
)

// numbersOf finds the numbers of ids by binary search (few ids) and by a
// walk beside them (many): the same answer either way, ids missing from
// the layer skipped.
func TestNumbersOf(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "n.bolt"), 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const n = 1000
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket(bucketNumbers)
		if err != nil {
			return err
		}
		for i := range n {
			if err := b.Put(be32(uint32(i)), fmt.Appendf(nil, "doc/%04d", 2*i)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, count := range []int{0, 1, 3, 40, 60, 500, 2 * n} {
		var ids [][]byte
		var want []uint32
		for i := range count {
			v := i * 2 * n / max(count, 1) // even: present; odd: absent
			if i%3 == 2 {
				v++
			}
			ids = append(ids, fmt.Appendf(nil, "doc/%04d", v))
			if v%2 == 0 {
				want = append(want, uint32(v/2))
			}
		}
		ids = slices.CompactFunc(ids, func(a, b []byte) bool { return string(a) == string(b) })
		want = slices.Compact(want)
		var got []uint32
		err := db.View(func(tx *bolt.Tx) error {
			return numbersOf(tx.Bucket(bucketNumbers), ids, func(x uint32) { got = append(got, x) })
		})
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%d ids: got %v %v, want %v", count, got, err, want)
		}
	}
}

// buildTwoLayers publishes a base of 30 documents and a delta replacing
// and deleting some, and returns the store folder.
func buildTwoLayers(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	publish(t, dir, 3, Change{Put: colored(0, 30, "red")})
	publish(t, dir, 3, Change{Put: colored(10, 15, "blue"), Delete: []string{"doc/20", "doc/21"}})
	return dir
}

func colored(from, to int, color string) []PutDoc {
	var out []PutDoc
	for i := from; i < to; i++ {
		out = append(out, PutDoc{Record: docir.Record{ID: fmt.Sprintf("doc/%02d", i), Fields: map[string]any{"color": color}}})
	}
	return out
}

var redTerm = [][][]byte{{[]byte("vCOLOR\x00RED\x00")}}

// A missing or corrupt part of the field index is an error naming the
// store, never a panic nor a wrong answer.
func TestFieldIndexCorrupt(t *testing.T) {
	dir := buildTwoLayers(t)
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Match(redTerm)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := m.IDs(-1)
	s.Close()
	if err != nil || m.Len() != 23 || len(ids) != 23 || ids[9] != "doc/09" || ids[10] != "doc/15" {
		t.Fatalf("intact store: %d matches, %q, %v", m.Len(), ids, err)
	}
	for _, tc := range []struct {
		name   string
		file   string // in gen/2
		edit   func(tx *bolt.Tx) error
		inIDs  bool // the error comes when ids are read
		substr string
	}{
		{"garbage postings", "layer-1.bolt", func(tx *bolt.Tx) error {
			return tx.Bucket(bucketPostings).Put([]byte("vCOLOR\x00RED\x00\x00\x00"), []byte("not a bitmap"))
		}, false, "postings"},
		{"postings past their end", "layer-1.bolt", func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketPostings)
			k := []byte("vCOLOR\x00RED\x00\x00\x00")
			return b.Put(k, append(b.Get(k), 0))
		}, false, "past its end"},
		{"no postings bucket", "docs.bolt", func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketPostings) }, false, "no postings bucket"},
		{"no shadow bucket", "docs.bolt", func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketShadow) }, false, "no shadow bucket"},
		{"no shadow of the base", "docs.bolt", func(tx *bolt.Tx) error { return tx.Bucket(bucketShadow).Delete(be64(1)) }, false, "no shadow of layer 1"},
		{"corrupt shadow", "docs.bolt", func(tx *bolt.Tx) error { return tx.Bucket(bucketShadow).Put(be64(1), []byte{0x3b, 0x30, 0, 0}) }, false, "shadow of layer 1"},
		{"a number without its id", "layer-1.bolt", func(tx *bolt.Tx) error { return tx.Bucket(bucketNumbers).Delete(be32(3)) }, true, "no id for document number 3"},
		{"no numbers bucket", "layer-1.bolt", func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketNumbers) }, true, "no numbers bucket"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			if err := os.CopyFS(d, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(d, genDir, "2", tc.file)
			if err := os.Chmod(path, 0o644); err != nil {
				t.Fatal(err)
			}
			db, err := bolt.Open(path, 0o644, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = db.Update(tc.edit)
			if err := errors.Join(err, db.Close()); err != nil {
				t.Fatal(err)
			}
			s, err := Open(d)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			m, err := s.Match(redTerm)
			if tc.inIDs {
				if err != nil {
					t.Fatal(err)
				}
				_, err = m.IDs(-1)
			}
			var de *docir.Error
			if err == nil || !errors.As(err, &de) || de.Code != docir.CodeStoreFormat || !strings.Contains(err.Error(), d) || !strings.Contains(err.Error(), tc.substr) {
				t.Fatalf("got %v; want a store_format error naming %s and saying %q", err, d, tc.substr)
			}
		})
	}
}

// FuzzReadBitmap: a posting bitmap read from the store is outside input.
// readBitmap accepts it whole and valid or returns an error; what it
// accepts, the operations a filter runs on it must not panic on.
func FuzzReadBitmap(f *testing.F) {
	for _, nums := range [][]uint32{{}, {0}, {1, 2, 3, 70000}, {5, 6, 7, 8, 9, 10, 11, 12}} {
		bm := roaring.BitmapOf(nums...)
		b, _ := bm.ToBytes()
		f.Add(b)
		bm.RunOptimize()
		b, _ = bm.ToBytes()
		f.Add(b)
	}
	dense := roaring.New()
	dense.AddRange(0, 5000)
	dense.Remove(77)
	b, _ := dense.ToBytes()
	f.Add(b)
	other := roaring.BitmapOf(1, 3, 5, 4000, 65536, 65537)
	other.AddRange(10, 4200)
	f.Fuzz(func(t *testing.T, data []byte) {
		bm, err := readBitmap(data)
		if err != nil {
			return
		}
		n := bm.GetCardinality()
		var seen uint64
		for it := bm.Iterator(); it.HasNext(); it.Next() {
			seen++
		}
		if seen != n {
			t.Fatalf("cardinality %d, iterated %d", n, seen)
		}
		u := roaring.FastOr(bm, other)
		a := bm.Clone()
		a.And(other)
		a.AndNot(dense)
		x := other.Clone()
		x.And(bm)
		x.AndNot(bm)
		if u.GetCardinality() < n || !x.IsEmpty() {
			t.Fatalf("OR %d < %d, or AND then AND NOT of itself leaves %d", u.GetCardinality(), n, x.GetCardinality())
		}
	})
}
