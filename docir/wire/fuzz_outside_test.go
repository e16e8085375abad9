package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// decodedID is the top-level "id" of body as encoding/json reads it, when
// body is one JSON object holding exactly one "id" member that is a string,
// number or null of at most MaxIDBytes in valid UTF-8 (what IDScanner
// promises to find); else nil.
func decodedID(body []byte) json.RawMessage {
	if !json.Valid(body) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var id json.RawMessage
	ids := 0
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if key == "id" {
			ids++
			id = bytes.TrimSpace(v)
		}
	}
	if ids != 1 || len(id) > MaxIDBytes || !utf8.Valid(id) {
		return nil
	}
	switch c := id[0]; {
	case c == '"', c == 'n', c == '-', c >= '0' && c <= '9':
		return id
	}
	return nil
}

// FuzzReadBody: a body within the bound comes back whole as the line; one
// over it is TooLarge with its true size and the bound, and its id is the
// one encoding/json reads from it when it is a JSON object (and the id
// IDScanner reads from it whole in any case); ReadBody reads the body to
// its end, and no further than MaxScanBytes.
func FuzzReadBody(f *testing.F) {
	for _, s := range []string{
		`{"id":1}`,
		`{"jsonrpc":"2.0","id":7,"method":"docir/get","params":{"doc_ids":["runbooks/disk-full"]}}`,
		`{"jsonrpc":"2.0","method":"m","params":{"q":"\"}"},"id":"\u0041"}`,
		`{"params":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","id":"z"}`,
		`{"a":{"id":1},"id":2}`,
		`{"id":1,"id":2,"params":"xxxxxxxxxxxxxxxxxxxxxxx"}`,
		`{"id":null,"params":[1,2,3,4,5,6,7,8,9,10,11,12]}`,
		`{"\u0069\u0064":-12.5e3,"params":"yyyyyyyyyyyyyy"} `,
		`{"id":true,"params":"zzzzzzzzzzzzzzzzzzzzzzzzzzz"}`,
		`{"id":{"a":1},"params":"zzzzzzzzzzzzzzzzzzzzzzzzz"}`,
		`[{"id":1},{"id":2},{"id":3},{"id":4}]`,
		`{"params":"xxxxxxxxxxxxxxxxxxxxxxxx","id":12`,
		"{\"id\":\"\xff\",\"params\":\"xxxxxxxxxxxxxxxxxxxx\"}",
		``,
	} {
		f.Add([]byte(s), uint8(16))
	}
	f.Add([]byte(`{"id":1}`), uint8(0))
	f.Add([]byte(`{"id":1}`), uint8(7))
	f.Fuzz(func(t *testing.T, body []byte, limit uint8) {
		max := int(limit % 64)
		cr := &countingReader{r: iotest.HalfReader(bytes.NewReader(body))}
		got, err := ReadBody(cr, max)
		if err != nil {
			t.Fatal(err)
		}
		if cr.n != int64(len(body)) || cr.n > MaxScanBytes {
			t.Fatalf("read %d bytes of a body of %d", cr.n, len(body))
		}
		if len(body) <= max {
			if got.TooLarge || !bytes.Equal(got.Line, body) || got.Line == nil {
				t.Fatalf("a body within the bound came back as %+v", got)
			}
			return
		}
		if !got.TooLarge || got.Line != nil || got.Size != int64(len(body)) || got.Bound != max {
			t.Fatalf("a body of %d bytes over %d came back as %+v", len(body), max, got)
		}
		if whole := ScanID(body, true); !bytes.Equal(got.ID, whole) {
			t.Fatalf("id %s read in pieces, %s read whole", got.ID, whole)
		}
		if json.Valid(body) {
			if want := decodedID(body); !bytes.Equal(got.ID, want) {
				t.Fatalf("id %s, encoding/json reads %s", got.ID, want)
			}
		}
	})
}
