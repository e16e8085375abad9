package store

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/gowebpki/jcs"
	bolt "go.etcd.io/bbolt"

	"github.com/docir/docir/docir"
)

// ManifestSchema names the canonical form of a generation's manifest, the
// bytes its manifest digest is the sha256 of.
//
// Change log:
//
//	docir.manifest.v1  {schema, documents: {id: {path, sha256, size, mtime_ns}}},
//	                   RFC 8785; path is the file's path below its source root
//	                   behind the root's prefix; mtime_ns a decimal string.
const ManifestSchema = "docir.manifest.v1"

// ManifestEntry is what a generation's manifest records of one document's
// source file.
type ManifestEntry struct {
	Root    string // the absolute source root, to stat the file; never in the manifest's canonical form
	Rel     string // '/'-separated path below Root ("a.md"); never in the canonical form either
	Path    string // the manifest's path: Rel behind the root's prefix ("team/a.md")
	Size    int64
	ModTime int64  // nanoseconds since the epoch
	SHA256  string // hex sha256 of the file's bytes
}

// Abs is the file's path on this machine, to stat it: Root joined with Rel.
func (e ManifestEntry) Abs() string {
	return filepath.Join(e.Root, filepath.FromSlash(e.Rel))
}

// manifestDoc is one document of the manifest's canonical form.
type manifestDoc struct {
	Path    string `json:"path"`
	SHA256  string `json:"sha256"`
	Size    int64  `json:"size"`
	ModTime string `json:"mtime_ns"` // a string: RFC 8785 numbers are doubles, exact only to 2^53
}

type manifestJSON struct {
	Schema    string                 `json:"schema"`
	Documents map[string]manifestDoc `json:"documents"`
}

// manifestPath is the manifest's path of a file: the root's prefix, then
// the path below the root.
func manifestPath(prefix, rel string) string {
	if p := strings.TrimSuffix(prefix, "/"); p != "" {
		return p + "/" + rel
	}
	return rel
}

// splitFileKey splits a files-table key into its root and relative path.
func splitFileKey(k []byte) (root, rel string, err error) {
	i := bytes.IndexByte(k, 0)
	if i < 0 {
		return "", "", fmt.Errorf("files table key %q has no root", k)
	}
	return string(k[:i]), string(k[i+1:]), nil
}

// canonicalManifest builds the RFC 8785 form of the manifest in c. It
// writes the bytes directly (a generation of 38k documents is published
// in tens of milliseconds rather than seconds through encoding/json and a
// re-parse); writeCanonical's test holds it to jcs.Transform.
func canonicalManifest(c chain) ([]byte, error) {
	var docs []manifestEntryJSON
	err := eachManifestDoc(c, func(id []byte, e fileEntryView, rel []byte) error {
		docs = append(docs, manifestEntryJSON{ID: string(id), Doc: manifestDoc{
			Path:    manifestPath(string(e.prefix), string(rel)),
			SHA256:  hex.EncodeToString(e.digest),
			Size:    e.size,
			ModTime: strconv.FormatInt(e.modTime, 10),
		}})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return writeCanonical(docs)
}

// eachManifestDoc calls fn with every document of the manifest in c, in
// id order (bytewise): its id, its file's entry and the file's path below
// its root. The bytes are valid only during the call.
func eachManifestDoc(c chain, fn func(id []byte, e fileEntryView, rel []byte) error) error {
	files := c.buckets(bucketFiles)
	return c.each(bucketManifest, false, func(id, key []byte, _ int) error {
		v, _ := files.get(key)
		if v == nil {
			return fmt.Errorf("manifest: %q names a missing file %q", id, key)
		}
		e, err := viewFileEntry(v)
		if err != nil {
			return fmt.Errorf("manifest: %q: %w", id, err)
		}
		i := bytes.IndexByte(key, 0)
		if i < 0 {
			return fmt.Errorf("files table key %q has no root", key)
		}
		return fn(id, e, key[i+1:])
	})
}

// EachDocPath calls fn with the id of every document the generation holds,
// from the first id at or after from, in id order (bytewise), and its
// source file's path below its root (as Record.Path), until fn returns an
// error. It reads only the manifest's id index, about a seventh of the
// records' bytes (13 against 94 MB at 192k documents): what a scan of ids
// (suggestions for a miss, completion) needs. id and path are valid only
// during the call.
func (s *Snapshot) EachDocPath(from string, fn func(id, path string) error) error {
	return s.view(func(c chain) error {
		return c.eachFrom(bucketManifest, []byte(from), false, func(id, key []byte, _ int) error {
			i := bytes.IndexByte(key, 0)
			if i < 0 {
				return fmt.Errorf("generation %d: manifest entry of %q names %q, which has no root", s.gen, id, key)
			}
			return fn(bytesView(id), bytesView(key[i+1:]))
		})
	})
}

// bytesView is b as a string without a copy, for a call that does not keep
// it (bbolt's bytes are valid only during their transaction).
func bytesView(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// manifestDigest is the sha256 of canonicalManifest(c), written straight
// into the hash: no entry is kept and nothing is allocated per document.
// It runs on every publish, over every document of the generation, so it
// is much of a small refresh's cost on a large store. Ids in bbolt's byte
// order are already in RFC 8785's UTF-16 order unless one holds a
// character past U+FFFF (a 4-byte UTF-8 sequence); such a manifest, and
// one with text that is not valid UTF-8, is digested from
// canonicalManifest.
func manifestDigest(c chain) ([sha256.Size]byte, error) {
	h := sha256.New()
	buf := make([]byte, 0, 64<<10)
	buf = append(buf, `{"documents":{`...)
	first, slow := true, false
	var num, hexd []byte // the mtime in decimal and the digest in hex, reused
	slash := []byte("/")
	err := eachManifestDoc(c, func(id []byte, e fileEntryView, rel []byte) error {
		if !bmpUTF8(id) || !utf8.Valid(e.prefix) || !utf8.Valid(rel) {
			slow = true
			return errSlowManifest
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		num = strconv.AppendInt(num[:0], e.modTime, 10)
		hexd = hex.AppendEncode(hexd[:0], e.digest)
		if p := bytes.TrimSuffix(e.prefix, slash); len(p) > 0 {
			buf = appendManifestDoc(buf, id, num, hexd, e.size, p, slash, rel)
		} else {
			buf = appendManifestDoc(buf, id, num, hexd, e.size, rel)
		}
		if len(buf) > cap(buf)-4096 {
			h.Write(buf)
			buf = buf[:0]
		}
		return nil
	})
	if slow {
		m, err := canonicalManifest(c)
		if err != nil {
			return [sha256.Size]byte{}, err
		}
		return sha256.Sum256(m), nil
	}
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	buf = append(buf, `},"schema":"`+ManifestSchema+`"}`...)
	h.Write(buf)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum, nil
}

// errSlowManifest stops manifestDigest's walk for canonicalManifest's way.
var errSlowManifest = errors.New("manifest needs the general writer")

// bmpUTF8 reports whether b is valid UTF-8 without a character past
// U+FFFF, so that its byte order is its UTF-16 order.
func bmpUTF8(b []byte) bool {
	for _, c := range b {
		if c >= 0xF0 {
			return false
		}
	}
	return utf8.Valid(b)
}

type manifestEntryJSON struct {
	ID  string
	Doc manifestDoc
}

// writeCanonical writes the manifest of docs (in bbolt's byte order) in
// RFC 8785 form: members sorted by UTF-16 code units, strings escaped as
// ECMAScript does, integers in decimal. Text that is not valid UTF-8 goes
// through encoding/json and jcs instead, which replace it as they do.
func writeCanonical(docs []manifestEntryJSON) ([]byte, error) {
	for _, d := range docs {
		if !utf8.ValidString(d.ID) || !utf8.ValidString(d.Doc.Path) {
			return canonicalSlow(docs)
		}
	}
	// Byte order is code point order; UTF-16 order differs only where a
	// character past U+FFFF meets one of U+E000..U+FFFF.
	slices.SortStableFunc(docs, func(a, b manifestEntryJSON) int { return compareUTF16(a.ID, b.ID) })
	size := 64
	for _, d := range docs {
		size += len(d.ID) + len(d.Doc.Path) + 160
	}
	b := make([]byte, 0, size)
	b = append(b, `{"documents":{`...)
	for i, d := range docs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendManifestDoc(b, d.ID, d.Doc.ModTime, d.Doc.SHA256, d.Doc.Size, d.Doc.Path)
	}
	b = append(b, `},"schema":"`+ManifestSchema+`"}`...)
	return b, nil
}

// appendManifestDoc appends one member of the canonical form's documents,
// "id":{"mtime_ns":"N","path":"…","sha256":"…","size":N}, the path being
// its pieces joined. mtime is decimal digits, sha256 hex digits: neither
// needs escaping. manifestDigest and writeCanonical both write with it.
func appendManifestDoc[T string | []byte](b []byte, id, mtime, sha256 T, size int64, path ...T) []byte {
	b = appendJSONString(b, id)
	b = append(b, `:{"mtime_ns":"`...)
	b = append(b, mtime...)
	b = append(b, `","path":"`...)
	for _, p := range path {
		b = appendJSONText(b, p)
	}
	b = append(b, `","sha256":"`...)
	b = append(b, sha256...)
	b = append(b, `","size":`...)
	b = strconv.AppendInt(b, size, 10)
	return append(b, '}')
}

// canonicalSlow is writeCanonical through encoding/json and jcs.
func canonicalSlow(docs []manifestEntryJSON) ([]byte, error) {
	m := manifestJSON{Schema: ManifestSchema, Documents: make(map[string]manifestDoc, len(docs))}
	for _, d := range docs {
		m.Documents[d.ID] = d.Doc
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return jcs.Transform(raw)
}

// compareUTF16 orders valid UTF-8 strings by their UTF-16 code units.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return cmp.Compare(utf16Key(ra), utf16Key(rb))
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}

// utf16Key is the first UTF-16 code unit of r, which decides its order.
func utf16Key(r rune) rune {
	if r >= 0x10000 {
		hi, _ := utf16.EncodeRune(r)
		return hi
	}
	return r
}

// appendJSONString appends s as RFC 8785 (ECMAScript) writes a string:
// '"' and '\' escaped, control characters as \b \t \n \f \r or
// \u00xx, everything else as is.
func appendJSONString[T string | []byte](b []byte, s T) []byte {
	b = append(b, '"')
	return append(appendJSONText(b, s), '"')
}

// appendJSONText is appendJSONString without the quotes.
func appendJSONText[T string | []byte](b []byte, s T) []byte {
	const hexDigits = "0123456789abcdef"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c >= 0x20:
			b = append(b, c)
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
	}
	return b
}

// CanonicalManifest returns the generation's manifest in its canonical form
// (RFC 8785), rebuilt from the generation's tables: its sha256 is the
// generation's manifest digest.
func (s *Snapshot) CanonicalManifest() (b []byte, err error) {
	err = s.view(func(c chain) error {
		b, err = canonicalManifest(c)
		return err
	})
	return b, err
}

// ManifestDigest returns the hex sha256 of the generation's canonical
// manifest, recorded when the generation was published.
func (s *Snapshot) ManifestDigest() (d string, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketMeta).Get(keyManifestDigest)
		if len(v) != 2*sha256.Size {
			return docir.Errorf(docir.CodeStoreFormat, "%s: generation %d records no manifest digest; remove the folder and index again", s.dir, s.gen)
		}
		d = string(v)
		return nil
	})
	return d, err
}

// ManifestEntry returns what the generation's manifest records of the
// document id's source file. ok is false when the manifest has no such id.
func (s *Snapshot) ManifestEntry(id string) (e ManifestEntry, ok bool, err error) {
	err = s.view(func(c chain) error {
		key, _ := c.get(bucketManifest, []byte(id))
		if key == nil {
			return nil
		}
		v, _ := c.get(bucketFiles, key)
		if v == nil {
			return fmt.Errorf("generation %d: manifest names a missing file %q for %q", s.gen, key, id)
		}
		fe, err := unmarshalFileEntry(v)
		if err != nil {
			return fmt.Errorf("generation %d: file of %q: %w", s.gen, id, err)
		}
		root, rel, err := splitFileKey(key)
		if err != nil {
			return err
		}
		e = ManifestEntry{
			Root:    root,
			Rel:     rel,
			Path:    manifestPath(fe.Prefix, rel),
			Size:    fe.Size,
			ModTime: fe.ModTime,
			SHA256:  hex.EncodeToString(fe.Digest[:]),
		}
		ok = true
		return nil
	})
	return e, ok, err
}

// identityBytes is the length of a workspace identity in bytes (128 bits).
const identityBytes = 16

// Identity returns the store's workspace identity: 32 lowercase hex digits
// drawn at random when the store was created, the same for every
// generation and never derived from a path of the machine.
func Identity(dir string) (string, error) {
	b, err := readSmall(filepath.Join(dir, identityFile))
	if errors.Is(err, fs.ErrNotExist) {
		if _, err := readCurrent(dir); err != nil {
			return "", err
		}
		return "", docir.Errorf(docir.CodeStoreFormat, "%s: the store has no %s file; remove the folder and index again", dir, identityFile)
	}
	if err != nil {
		return "", err
	}
	id := strings.TrimSuffix(string(b), "\n")
	if !validIdentity(id) {
		return "", docir.Errorf(docir.CodeStoreFormat, "%s: unreadable %s (%s); remove the folder and index again", dir, identityFile, quoteHead(b))
	}
	return id, nil
}

func validIdentity(id string) bool {
	if len(id) != 2*identityBytes {
		return false
	}
	for _, c := range []byte(id) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ensureIdentity writes the store's identity file if it is absent. The
// file is written aside and hard-linked into place, so it appears whole
// and an existing identity is never replaced. wrote is what this call
// wrote, "" when it wrote nothing.
func ensureIdentity(dir string) (wrote string, err error) {
	if _, err := os.Stat(filepath.Join(dir, identityFile)); err == nil {
		return "", nil
	}
	var raw [identityBytes]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	text := hex.EncodeToString(raw[:]) + "\n"
	if ok, err := writeOnce(dir, identityFile, []byte(text)); !ok {
		return "", err
	}
	return text, nil
}
