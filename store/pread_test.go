package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/docir/docir/docir"
)

// preadFixture writes a bbolt file with bucket "big" (n keys, values from a
// few bytes to several pages, so that leaves overflow and branches nest),
// bucket "small" (inline in its parent) and bucket "nested" holding a
// bucket under one key, and returns it open read-only.
func preadFixture(t testing.TB, n int) (*bolt.DB, [][]byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "layer.bolt")
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	var keys [][]byte
	err = db.Update(func(tx *bolt.Tx) error {
		big, err := tx.CreateBucket([]byte("big"))
		if err != nil {
			return err
		}
		for i := range n {
			k := fmt.Appendf(nil, "doc/%06d", i*2) // odd numbers are absent
			v := bytes.Repeat([]byte{byte(i)}, []int{1, 300, 5000, 20000}[i%4])
			if i%97 == 0 {
				v = []byte{0} // a tombstone
			}
			if err := big.Put(k, v); err != nil {
				return err
			}
			keys = append(keys, k)
		}
		small, err := tx.CreateBucket([]byte("small"))
		if err != nil {
			return err
		}
		if err := small.Put([]byte("a"), []byte("1")); err != nil {
			return err
		}
		nested, err := tx.CreateBucket([]byte("nested"))
		if err != nil {
			return err
		}
		for i := range 2000 {
			if err := nested.Put(fmt.Appendf(nil, "k%05d", i), bytes.Repeat([]byte("v"), 100)); err != nil {
				return err
			}
		}
		_, err = nested.CreateBucket([]byte("k00500x"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = openLayer(path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, keys
}

// TestPreadMatchesBolt reads every key, and keys between, before and after
// them, by pread and through bbolt, and wants the same answers.
func TestPreadMatchesBolt(t *testing.T) {
	db, keys := preadFixture(t, 3000)
	l, err := openPreadLayer(db, newPageCache(pageCacheBytes), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.init(db, []byte("big"), []byte("small"), []byte("nested"), []byte("missing")); err != nil {
		t.Fatal(err)
	}
	if !l.has([]byte("big")) || !l.has([]byte("nested")) {
		t.Fatalf("big and nested should be read by pread: roots %v", l.roots)
	}
	if l.has([]byte("small")) || l.has([]byte("missing")) {
		t.Fatalf("an inline or missing bucket is left to the map: roots %v", l.roots)
	}
	probes := [][]byte{nil, []byte(""), []byte("a"), []byte("doc/"), []byte("doc/999999"), []byte("zzz")}
	for _, k := range keys {
		probes = append(probes, k, append(bytes.Clone(k), 0), k[:len(k)-1], bytes.Replace(k, []byte("0"), []byte("1"), 1))
	}
	branchPages := 0
	err = db.View(func(tx *bolt.Tx) error {
		for _, bucket := range []string{"big", "nested"} {
			b := tx.Bucket([]byte(bucket))
			if bucket == "big" {
				branchPages = b.Stats().BranchPageN
			}
			for _, k := range append(probes, []byte("k00500x"), []byte("k01999"), []byte("k00000")) {
				want := b.Get(k)
				if b.Bucket(k) != nil {
					want = nil // bbolt's Get answers nil for a nested bucket
				}
				got, err := l.get([]byte(bucket), k)
				if err != nil {
					return fmt.Errorf("%s %q: %v", bucket, k, err)
				}
				if !bytes.Equal(got, want) || (got == nil) != (want == nil) {
					return fmt.Errorf("%s %q: pread %d bytes (nil %v), bbolt %d bytes (nil %v)", bucket, k, len(got), got == nil, len(want), want == nil)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if branchPages < 2 {
		t.Fatalf("the fixture should have nested branch pages, has %d", branchPages)
	}
	if len(l.cache.new)+len(l.cache.old) == 0 {
		t.Fatal("pages read should be cached")
	}
}

// fixtureBytes returns the fixture's file, its page size and the root page
// of its bucket "big".
func fixtureBytes(t testing.TB, db *bolt.DB) (data []byte, pageSize int, root uint64) {
	t.Helper()
	data, err := os.ReadFile(db.Path())
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		root = uint64(tx.Bucket([]byte("big")).Root())
		return nil
	})
	if err != nil || root == 0 {
		t.Fatalf("root of big: %d, %v", root, err)
	}
	return data, db.Info().PageSize, root
}

// layerOver writes b to path and returns a layer reading it by pread, with
// bucket "big" rooted at page root and no cache; the file is closed when
// the test ends.
func layerOver(t testing.TB, path string, b []byte, pageSize int, root uint64) *preadLayer {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return &preadLayer{f: f, size: int64(len(b)), pageSize: pageSize, roots: map[string]uint64{"big": root}, cache: newPageCache(0)}
}

// TestPreadCorruptPages: a page that is not what bbolt writes is a
// store_format error naming the file, never a panic or a wrong value.
func TestPreadCorruptPages(t *testing.T) {
	db, keys := preadFixture(t, 400)
	data, ps, root := fixtureBytes(t, db)
	cases := map[string]func(b []byte){
		"wrong page id":        func(b []byte) { binary.NativeEndian.PutUint64(b[int(root)*ps:], root+1) },
		"meta flags on root":   func(b []byte) { binary.NativeEndian.PutUint16(b[int(root)*ps+8:], 0x04) },
		"too many elements":    func(b []byte) { binary.NativeEndian.PutUint16(b[int(root)*ps+10:], 0xffff) },
		"overflow past file":   func(b []byte) { binary.NativeEndian.PutUint32(b[int(root)*ps+12:], 1<<20) },
		"key outside page":     func(b []byte) { binary.NativeEndian.PutUint32(b[int(root)*ps+16+4:], 1<<30) },
		"child past the file":  func(b []byte) { binary.NativeEndian.PutUint64(b[int(root)*ps+16+8:], 1<<40) },
		"child id 2^64-1":      func(b []byte) { binary.NativeEndian.PutUint64(b[int(root)*ps+16+8:], 1<<64-1) },
		"child is a meta page": func(b []byte) { binary.NativeEndian.PutUint64(b[int(root)*ps+16+8:], 1) },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			b := bytes.Clone(data)
			mutate(b)
			path := filepath.Join(t.TempDir(), "bad.bolt")
			bad := layerOver(t, path, b, ps, root)
			failed := 0
			for _, k := range keys {
				v, err := bad.get([]byte("big"), k)
				if err != nil {
					failed++
					if docir.CodeOf(err) != docir.CodeStoreFormat || !strings.Contains(err.Error(), path) {
						t.Fatalf("error %v: want a store_format error naming %s", err, path)
					}
					continue
				}
				if v != nil && !bytes.Equal(v, bytes.Repeat(v[:1], len(v))) {
					t.Fatalf("%q: a value that was never written", k)
				}
			}
			if failed == 0 {
				t.Fatal("no read noticed the corrupt page")
			}
		})
	}
}

// FuzzPreadPage reads keys from a file of arbitrary pages: any answer or a
// store_format error, never a panic or a read past the file.
func FuzzPreadPage(f *testing.F) {
	db, _ := preadFixture(f, 60)
	data, ps, root := fixtureBytes(f, db)
	f.Add(data[int(root)*ps:int(root+1)*ps], []byte("doc/000010"))
	f.Add(make([]byte, ps), []byte("doc/000000"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, page, key []byte) {
		// The fixture's file with its bucket's root page replaced.
		b := bytes.Clone(data)
		copy(b[int(root)*ps:int(root+1)*ps], page)
		x := layerOver(t, filepath.Join(dir, "fuzz.bolt"), b, ps, root)
		if _, err := x.get([]byte("big"), key); err != nil && docir.CodeOf(err) != docir.CodeStoreFormat {
			t.Fatalf("error %v: want store_format", err)
		}
	})
}

// TestPreadConcurrent reads from many goroutines through a cache small
// enough to turn over (run with -race).
func TestPreadConcurrent(t *testing.T) {
	db, keys := preadFixture(t, 600)
	l, err := openPreadLayer(db, newPageCache(64<<10), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.init(db, []byte("big")); err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	if err := db.View(func(tx *bolt.Tx) error {
		for _, k := range keys {
			want[string(k)] = bytes.Clone(tx.Bucket([]byte("big")).Get(k))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for i := range keys {
				k := keys[(i*(g+1))%len(keys)]
				v, err := l.get([]byte("big"), k)
				if err == nil && !bytes.Equal(v, want[string(k)]) {
					err = fmt.Errorf("%q: wrong value", k)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
