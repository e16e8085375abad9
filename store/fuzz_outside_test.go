package store

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docir/docir/docir"
)

// A store may be a peer's, declared by path: what its files hold is
// outside input. These targets feed their readers bytes directly.

// checkSmallFileErr fails t unless err, from reading a small file of the
// store in dir, is a store_format error that quotes at most a short head
// of the file.
func checkSmallFileErr(t *testing.T, dir string, err error) {
	t.Helper()
	if docir.CodeOf(err) != docir.CodeStoreFormat || len(err.Error()) > len(dir)+400 {
		t.Fatalf("error %.200q (code %q, %d bytes)", err, docir.CodeOf(err), len(err.Error()))
	}
}

// FuzzReadCurrent: whatever CURRENT holds, readCurrent returns a
// generation of this format, or a store_format error that quotes at most
// a short head of the file.
func FuzzReadCurrent(f *testing.F) {
	for _, s := range []string{
		`{"format":16,"generation":1}` + "\n",
		`{"format":16,"generation":18446744073709551615}`,
		`{"format":15,"generation":3}`, `{"format":17,"generation":3}`,
		`{"format":16,"generation":0}`, `{"format":16}`, `{"format":16,"generation":-1}`,
		`{"format":16,"generation":1`, `{}`, `null`, `[]`, ``, "garbage garbage",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, currentFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := readCurrent(dir)
		if err != nil {
			checkSmallFileErr(t, dir, err)
			return
		}
		if c.Format != FormatVersion || c.Generation == 0 || len(b) > maxSmallFile {
			t.Fatalf("read %+v from %q", c, b)
		}
	})
}

// FuzzIdentity: whatever IDENTITY holds, Identity returns 32 lowercase hex
// digits (the file's, without one final newline), or a store_format error
// that quotes at most a short head of the file.
func FuzzIdentity(f *testing.F) {
	for _, s := range []string{
		"0123456789abcdef0123456789abcdef\n", "0123456789abcdef0123456789abcdef",
		"0123456789ABCDEF0123456789ABCDEF\n", "0123456789abcdef0123456789abcdef\n\n",
		"0123456789abcdef0123456789abcde\n", "/home/me\n", "", "\n", strings.Repeat("a", 64),
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, identityFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		id, err := Identity(dir)
		if err != nil {
			checkSmallFileErr(t, dir, err)
			return
		}
		if !validIdentity(id) || string(b) != id && string(b) != id+"\n" {
			t.Fatalf("identity %q from %q", id, b)
		}
	})
}

// FuzzParseLayers: parseLayers reads a comma-separated list of decimal
// generations or fails (an empty part, a trailing comma, anything not a
// digit); what it reads is written back by formatLayers and read the same.
func FuzzParseLayers(f *testing.F) {
	for _, s := range []string{"", "1", "1,2,3", "3,18446744073709551615", "007", "1,", ",1", "1,,2", "18446744073709551616", "+1", "-1", "1_0", " 1", "a"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		gens, err := parseLayers(v)
		if err != nil {
			if gens != nil {
				t.Fatalf("parseLayers(%q) = %v with error %v", v, gens, err)
			}
			return
		}
		for _, c := range v {
			if c != ',' && (c < '0' || c > '9') {
				t.Fatalf("parseLayers(%q) took %q", v, c)
			}
		}
		if bytes.HasPrefix(v, []byte(",")) || bytes.HasSuffix(v, []byte(",")) || bytes.Contains(v, []byte(",,")) {
			t.Fatalf("parseLayers(%q) = %v: an empty part taken", v, gens)
		}
		if len(v) > 0 && len(gens) != bytes.Count(v, []byte(","))+1 {
			t.Fatalf("parseLayers(%q) = %v", v, gens)
		}
		back, err := parseLayers(formatLayers(gens))
		if err != nil || !slices.Equal(back, gens) {
			t.Fatalf("%v written back reads %v, %v", gens, back, err)
		}
	})
}

// FuzzViewFileEntry: any bytes are a file entry or an error, never a
// panic; an entry written by marshal reads back the same, and cut short
// anywhere before its id it is an error (the id runs to the end, so a cut
// inside it shortens it).
func FuzzViewFileEntry(f *testing.F) {
	digest := sha256.Sum256([]byte("v0"))
	for _, e := range []FileEntry{
		{ID: "a", Prefix: "", Size: 2, ModTime: 1, Digest: digest},
		{ID: "team/runbooks/disk-full", Prefix: "team", Size: 1 << 40, ModTime: 1767225600123456789, Digest: digest},
		{ID: "", Prefix: "p", Size: -1, ModTime: -1 << 63},
	} {
		f.Add(e.marshal())
	}
	f.Add([]byte{})
	f.Add([]byte{0x80})
	f.Add(append([]byte{2, 2}, make([]byte, 31)...))
	f.Add(append(append([]byte{2, 2}, make([]byte, 32)...), 0xff, 0xff, 0xff, 0xff, 0x0f))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := viewFileEntry(b)
		if err == nil {
			if len(v.digest) != 32 || len(v.prefix)+len(v.id) > len(b) {
				t.Fatalf("entry %+v from %d bytes", v, len(b))
			}
			// Written again, it reads the same.
			e := FileEntry{ID: string(v.id), Prefix: string(v.prefix), Size: v.size, ModTime: v.modTime}
			copy(e.Digest[:], v.digest)
			if again, err := unmarshalFileEntry(e.marshal()); err != nil || again != e {
				t.Fatalf("%+v reads back as %+v, %v", e, again, err)
			}
		}
		// The bytes as the fields of an entry: marshalled, it reads back,
		// and every cut before its id is refused.
		e := FileEntry{ID: string(b), Prefix: string(b[:len(b)/2]), Size: int64(len(b)) << 40, ModTime: -int64(len(b))}
		copy(e.Digest[:], b)
		m := e.marshal()
		if again, err := unmarshalFileEntry(m); err != nil || again != e {
			t.Fatalf("%+v reads back as %+v, %v", e, again, err)
		}
		for cut := range len(m) - len(e.ID) {
			if _, err := viewFileEntry(m[:cut]); err == nil {
				t.Fatalf("%q, %d of its %d bytes before the id, read as an entry", m[:cut], cut, len(m)-len(e.ID))
			}
		}
	})
}
