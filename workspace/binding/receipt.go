package binding

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/gowebpki/jcs"

	"github.com/docir/docir/docir"
)

// Schema names of what this package signs off. A schema's bytes never
// change once released: a new shape is a new name, and the old one keeps
// being read (testdata/receipts holds one of each as golden bytes).
//
// Change log:
//
//	docir.workspace-binding.v1  {schema, workspace, revision, manifest_digest,
//	                            authority: false}
//	docir.read-evidence.v1      {schema, binding_digest, method, request_digest,
//	                            response_digest, authority: false}
const (
	SchemaBinding  = "docir.workspace-binding.v1"
	SchemaEvidence = "docir.read-evidence.v1"
)

// MaxReceiptBytes bounds a receipt and a receipt file.
const MaxReceiptBytes = 16384

// maxRevision is the largest revision a receipt carries: RFC 8785 numbers
// are doubles, exact up to 2^53.
const maxRevision = 1<<53 - 1

// Receipt is a canonical receipt: the RFC 8785 bytes of a binding or an
// evidence object and its digest, sha256(schema || 0x00 || bytes) in hex.
// Only this package makes one, from state it rebuilt itself.
type Receipt struct {
	schema    string
	canonical []byte
	digest    string
}

// Canonical returns the receipt's canonical bytes (a copy).
func (r Receipt) Canonical() []byte { return bytes.Clone(r.canonical) }

// Digest returns the receipt's digest, hex.
func (r Receipt) Digest() string { return r.digest }

// Schema returns the receipt's schema name.
func (r Receipt) Schema() string { return r.schema }

// Marshal returns the receipt file: the RFC 8785 form of {digest, receipt}
// and a newline.
func (r Receipt) Marshal() []byte {
	return append(r.object(), '\n')
}

// object is the receipt file's JSON object: already canonical, since keys
// are in order, the digest is hex and the receipt is canonical itself.
func (r Receipt) object() []byte {
	b := make([]byte, 0, len(r.canonical)+100)
	b = append(b, `{"digest":"`...)
	b = append(b, r.digest...)
	b = append(b, `","receipt":`...)
	b = append(b, r.canonical...)
	return append(b, '}')
}

// bindingJSON is the receipt's wire shape.
type bindingJSON struct {
	Schema         string `json:"schema"`
	Workspace      string `json:"workspace"`
	Revision       uint64 `json:"revision"`
	ManifestDigest string `json:"manifest_digest"`
	Authority      bool   `json:"authority"`
}

func newReceipt(workspace string, revision uint64, manifestDigest string) Receipt {
	return seal(SchemaBinding, bindingJSON{Schema: SchemaBinding, Workspace: workspace, Revision: revision, ManifestDigest: manifestDigest})
}

// seal makes a receipt of v under schema.
func seal(schema string, v any) Receipt {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("binding: encoding a %s: %v", schema, err))
	}
	canon, err := jcs.Transform(raw)
	if err != nil {
		panic(fmt.Sprintf("binding: canonical form of a %s: %v", schema, err))
	}
	return Receipt{schema: schema, canonical: canon, digest: digest(schema, canon)}
}

// digest is sha256(schema || 0x00 || canonical), hex.
func digest(schema string, canonical []byte) string {
	h := sha256.New()
	h.Write([]byte(schema))
	h.Write([]byte{0})
	h.Write(canonical)
	return hex.EncodeToString(h.Sum(nil))
}

// Claim is what a receipt file says, parsed and checked for form and
// self-consistency but not against any store: Replay does that.
type Claim struct {
	Workspace      string
	Revision       uint64
	ManifestDigest string
	Digest         string

	canonical []byte
}

// ParseReceipt reads a receipt file. It accepts exactly the bytes Marshal
// writes (one trailing newline optional): RFC 8785 form, the closed shapes
// {digest, receipt} and docir.workspace-binding.v1, authority false, and a
// digest that is the receipt's own. Anything else is
// docir.CodeBindingRejected, naming what is wrong.
func ParseReceipt(file []byte) (Claim, error) {
	if len(file) > MaxReceiptBytes {
		return Claim{}, rejectf("receipt: %d bytes, over the %d-byte bound", len(file), MaxReceiptBytes)
	}
	var env struct {
		Digest  *string         `json:"digest"`
		Receipt json.RawMessage `json:"receipt"`
	}
	if err := decodeCanonical("receipt", file, &env, "digest", "receipt"); err != nil {
		return Claim{}, err
	}
	if env.Digest == nil || env.Receipt == nil {
		return Claim{}, rejectf("receipt: want the fields digest and receipt")
	}
	var r struct {
		Schema         *string `json:"schema"`
		Workspace      *string `json:"workspace"`
		Revision       *uint64 `json:"revision"`
		ManifestDigest *string `json:"manifest_digest"`
		Authority      *bool   `json:"authority"`
	}
	if err := decodeClosed("receipt", env.Receipt, &r, "schema", "workspace", "revision", "manifest_digest", "authority"); err != nil {
		return Claim{}, err
	}
	if r.Schema == nil || r.Workspace == nil || r.Revision == nil || r.ManifestDigest == nil || r.Authority == nil {
		return Claim{}, rejectf("receipt: want the fields schema, workspace, revision, manifest_digest and authority")
	}
	switch {
	case *r.Schema != SchemaBinding:
		return Claim{}, rejectf("receipt: schema %q; this docir reads %s", docir.Clip(*r.Schema, maxQuoted), SchemaBinding)
	case *r.Authority:
		return Claim{}, rejectf("receipt: authority is true; a binding receipt grants no authority")
	case !validWorkspace(*r.Workspace):
		return Claim{}, rejectf("receipt: workspace %q is not a workspace identity (32 lowercase hex digits)", docir.Clip(*r.Workspace, maxQuoted))
	case *r.Revision == 0 || *r.Revision > maxRevision:
		return Claim{}, rejectf("receipt: revision %d names no generation", *r.Revision)
	case !validDigest(*r.ManifestDigest):
		return Claim{}, rejectf("receipt: manifest_digest %q is not 64 lowercase hex digits", docir.Clip(*r.ManifestDigest, maxQuoted))
	}
	want := newReceipt(*r.Workspace, *r.Revision, *r.ManifestDigest)
	if !bytes.Equal(want.canonical, env.Receipt) {
		return Claim{}, rejectf("receipt: the receipt object is not the canonical docir.workspace-binding.v1 form of its fields")
	}
	if *env.Digest != want.digest {
		return Claim{}, rejectf("receipt: digest %q is not the receipt's digest", docir.Clip(*env.Digest, maxQuoted))
	}
	if !bytes.Equal(bytes.TrimSuffix(file, []byte("\n")), want.object()) {
		return Claim{}, rejectf("receipt: not the bytes docir writes for it")
	}
	return Claim{Workspace: *r.Workspace, Revision: *r.Revision, ManifestDigest: *r.ManifestDigest, Digest: want.digest, canonical: want.canonical}, nil
}

// decodeCanonical decodes a file that must be in RFC 8785 form (one
// trailing newline allowed) into the closed shape v, whose keys are keys.
//
// A file that is not JSON is refused by what it is not, and where, never
// by its content: the JSON parsers' messages quote the text they stopped
// at, and `docir replay /etc/shadow` printed the file's first line.
func decodeCanonical(what string, file []byte, v any, keys ...string) error {
	b := bytes.TrimSuffix(file, []byte("\n"))
	canon, err := jcs.Transform(b)
	if err != nil {
		var syntax *json.SyntaxError
		if err := json.Unmarshal(b, new(json.RawMessage)); errors.As(err, &syntax) {
			return rejectf("%s: not JSON (a syntax error at byte %d), so not a docir %s file", what, syntax.Offset, what)
		}
		return rejectf("%s: not JSON that RFC 8785 can put in canonical form, so not a docir %s file", what, what)
	}
	if !bytes.Equal(canon, b) {
		return rejectf("%s: not in canonical form (RFC 8785): keys reordered, spaces added or escapes changed; use the bytes docir wrote", what)
	}
	return decodeClosed(what, b, v, keys...)
}

// decodeClosed decodes the JSON object b into v, whose keys are keys,
// rejecting any other key and trailing data. encoding/json matches a key
// to a field whatever its case ("DIGEST" fills digest): b's keys are
// checked byte for byte first.
func decodeClosed(what string, b []byte, v any, keys ...string) error {
	if err := exactKeys(b, keys); err != nil {
		return rejectf("%s: %v", what, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return rejectf("%s: %v", what, err)
	}
	if dec.More() {
		return rejectf("%s: data after the object", what)
	}
	return nil
}

// exactKeys checks that every key of the JSON object b, at its top level,
// is one of keys, byte for byte.
func exactKeys(b []byte, keys []string) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("not a JSON object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if k, _ := t.(string); !slices.Contains(keys, k) {
			return fmt.Errorf("unknown field %q", docir.Clip(k, maxQuoted))
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}

func rejectf(format string, args ...any) error {
	return docir.Errorf(docir.CodeBindingRejected, format, args...)
}

func validWorkspace(s string) bool { return len(s) == 32 && isLowerHex(s) }

func validDigest(s string) bool { return len(s) == 2*sha256.Size && isLowerHex(s) }

func isLowerHex(s string) bool {
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
