package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docir/docir/docir"
)

// A generation whose docs.bolt is cut short at any length opens as a
// store_format error naming the file, or (cut only in the unused tail)
// opens and reads every document: never a bbolt panic or a SIGBUS, which
// would end the test binary.
func TestOpenTruncatedBodyFile(t *testing.T) {
	dir := t.TempDir()
	var c Change
	for i := range 40 {
		body := strings.Repeat(fmt.Sprintf("line %d of a body\n", i), 1+i*40)
		d := putFile("/src", "", fmt.Sprintf("d%02d.md", i), fmt.Sprintf("d%02d", i), body, 1)
		c.Put = append(c.Put, d.Put...)
		if c.Files == nil {
			c.Files = d.Files
		} else {
			for k, v := range d.Files {
				c.Files[k] = v
			}
		}
	}
	gen := publish(t, dir, 1, c)
	path := filepath.Join(genPath(dir, gen), bodyFile)
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(whole); n += 1000 + n/8 {
		if err := os.WriteFile(path, whole[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(dir)
		if err != nil {
			if docir.CodeOf(err) != docir.CodeStoreFormat || !strings.Contains(err.Error(), path) {
				t.Errorf("cut to %d bytes: %v; want a store_format error naming %s", n, err, path)
			}
			continue
		}
		for _, p := range c.Put {
			_, body, ok, err := s.Lookup(p.Record.ID)
			if err == nil && (!ok || !bytes.Equal(body, p.Body)) {
				t.Errorf("cut to %d bytes: %s read back wrong and without an error", n, p.Record.ID)
			}
		}
		s.Close()
	}
}

// FuzzCheckBoltFile holds checkBoltFile to an error or nil on any bytes,
// and to nil on none of a valid file's prefixes shorter than its pages.
func FuzzCheckBoltFile(f *testing.F) {
	db, _ := preadFixture(f, 4)
	whole, err := os.ReadFile(db.Path())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(whole[:8192])
	f.Add(whole[:4096])
	f.Add(whole[:3*4096+100])
	f.Add([]byte{})
	path := filepath.Join(f.TempDir(), "fuzz.bolt")
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		err := checkBoltFile(path)
		if err != nil && (docir.CodeOf(err) != docir.CodeStoreFormat || !strings.Contains(err.Error(), path)) {
			t.Fatalf("%v: want a store_format error naming the file", err)
		}
		if err == nil && len(b) < len(whole) && bytes.HasPrefix(whole, b) {
			if m, ps, _ := newestBoltMeta(bytes.NewReader(b), int64(len(b))); int64(m.pgid)*ps > int64(len(b)) {
				t.Fatalf("a %d-byte prefix of a file of %d pages passed", len(b), m.pgid)
			}
		}
	})
}

// The writer refuses a value over MaxValueBytes, and four values of
// MaxValueBytes side by side, which bbolt keeps on one page, read back:
// what the writer accepts, the point reads accept (maxPageSpan).
func TestValueBoundWriterAndReaderAgree(t *testing.T) {
	dir := t.TempDir()
	p, err := Begin(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	over := putFile("/src", "", "big.md", "big", strings.Repeat("x", MaxValueBytes+1), 1)
	if err := p.Apply(over); err == nil || !strings.Contains(err.Error(), `"big"`) {
		t.Errorf("Apply of a %d-byte body: %v; want an error naming it", MaxValueBytes+1, err)
	}
	if err := p.Abort(); err != nil {
		t.Fatal(err)
	}
	var c Change
	for i := range 4 {
		d := putFile("/src", "", fmt.Sprintf("b%d.md", i), fmt.Sprintf("b%d", i), strings.Repeat(string(rune('a'+i)), MaxValueBytes), 1)
		c.Put = append(c.Put, d.Put...)
	}
	publish(t, dir, 1, c)
	s := open(t, dir, 1)
	for _, d := range c.Put {
		if _, body, ok, err := s.Lookup(d.Record.ID); !ok || err != nil || !bytes.Equal(body, d.Body) {
			t.Errorf("Lookup(%s) = %d bytes, %v, %v", d.Record.ID, len(body), ok, err)
		}
	}
}
