package binding

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/docir/docir/docir"
)

func b64enc(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// FuzzParseReceipt: any input is either rejected with binding_rejected or
// is exactly the receipt file its fields give (one trailing newline
// optional): a parsed receipt has one spelling.
func FuzzParseReceipt(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "receipts", "binding-v1.json")); err == nil {
		f.Add(b)
	}
	f.Add(newReceipt(wsA, 1, fakeDigest(wsA, 1)).Marshal())
	f.Add([]byte(`{"digest":"","receipt":{}}`))
	f.Add([]byte(`{"receipt":{"revision":1e3}}`))
	f.Fuzz(func(t *testing.T, file []byte) {
		c, err := ParseReceipt(file)
		if err != nil {
			if docir.CodeOf(err) != docir.CodeBindingRejected {
				t.Fatalf("error without binding_rejected: %v", err)
			}
			return
		}
		again := newReceipt(c.Workspace, c.Revision, c.ManifestDigest)
		if !bytes.Equal(again.Marshal(), file) && !bytes.Equal(again.Marshal(), append(bytes.Clone(file), '\n')) {
			t.Fatalf("accepted %q, which is not the receipt file %q", file, again.Marshal())
		}
		if again.Digest() != c.Digest {
			t.Fatalf("digest %s, claimed %s", again.Digest(), c.Digest)
		}
	})
}

// FuzzParseEvidence: any input is rejected or is exactly the evidence file
// its fields give.
func FuzzParseEvidence(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "receipts", "evidence-v1.json")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"binding":{},"digest":"","evidence":{},"request":""}`))
	f.Fuzz(func(t *testing.T, file []byte) {
		c, err := ParseEvidence(file)
		if err != nil {
			if docir.CodeOf(err) != docir.CodeBindingRejected {
				t.Fatalf("error without binding_rejected: %v", err)
			}
			return
		}
		e := Evidence{
			ev:      newEvidence(c.Binding.Digest, c.Method, sha256Hex(c.Request), c.ResponseDigest),
			binding: newReceipt(c.Binding.Workspace, c.Binding.Revision, c.Binding.ManifestDigest),
			method:  c.Method, request: c.Request,
		}
		if !bytes.Equal(e.Marshal(), file) && !bytes.Equal(e.Marshal(), append(bytes.Clone(file), '\n')) {
			t.Fatalf("accepted %q, which is not the evidence file %q", file, e.Marshal())
		}
	})
}
