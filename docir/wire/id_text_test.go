package wire

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/docir/docir/docir"
)

// A string id that is not valid UTF-8 cannot be echoed: the reply would not
// be JSON text (RFC 8259 section 8.1), and a client's decoder either fails
// on it or reads another id. DecodeRequest refuses it to id null, and the
// id scanner of a frame over the bound does not read it (null too). A lone
// surrogate escape is ASCII on the wire and is echoed as sent.
func TestStringIDMustBeUTF8(t *testing.T) {
	for _, id := range []string{"\"a\xff\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"x\xf4\x90\x80\x80\""} {
		frame := `{"jsonrpc":"2.0","id":` + id + `,"method":"workspace/status"}`
		_, got, werr := DecodeRequest([]byte(frame))
		if werr == nil || werr.StableCode() != docir.CodeInvalidRequest || string(got) != "null" {
			t.Errorf("DecodeRequest(id %q) = id %s, %v; want invalid_request to id null", id, got, werr)
		}
		if werr != nil {
			if line := ErrorLine(got, werr); !utf8.Valid(line) || !json.Valid(line) {
				t.Errorf("the reply to id %q is not UTF-8 JSON: %q", id, line)
			}
		}
		big := `{"jsonrpc":"2.0","method":"docir/get","params":{"doc_id":"` + strings.Repeat("x", MaxFrameBytes) + `"},"id":` + id + `}`
		if got := ScanID([]byte(big), true); got != nil {
			t.Errorf("ScanID(id %q) = %s; want none (null)", id, got)
		}
		if line := TooLargeFrame(TooLargeLine([]byte(big))); !utf8.Valid(line) || !strings.Contains(string(line), `"id":null`) {
			t.Errorf("frame_too_large reply to id %q: %q", id, line)
		}
	}
	for _, id := range []string{`"\ud800"`, `"α"`, `"\u00ff"`} {
		frame := `{"jsonrpc":"2.0","id":` + id + `,"method":"workspace/status"}`
		if _, got, werr := DecodeRequest([]byte(frame)); werr != nil || string(got) != id {
			t.Errorf("DecodeRequest(id %s) = id %s, %v; want it echoed", id, got, werr)
		}
	}
}

// TestParseErrorNamesTheCharacter: a frame that is not JSON because of a
// character past ASCII is told by that character (encoding/json names the
// byte as if it were one: 'ï' for a byte-order mark, 'Â' for a no-break
// space); ASCII keeps encoding/json's words.
func TestParseErrorNamesTheCharacter(t *testing.T) {
	for frame, want := range map[string]string{
		"\ufeff{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}": "parse error: invalid character: U+FEFF, a byte-order mark (send the JSON without one) (at byte 1)",
		"\u00a0{}":      `parse error: invalid character: U+00A0 '\u00a0' (at byte 1)`,
		"{\"a\":é}":     `parse error: invalid character: U+00E9 'é' (at byte 6)`,
		"{\"a\":1}\xff": "parse error: invalid character: a byte that is not UTF-8 (at byte 8)",
		"{oops":         "parse error: invalid character 'o' looking for beginning of object key string (at byte 2)",
	} {
		_, _, err := DecodeRequest([]byte(frame))
		if err == nil || err.Message != want {
			t.Errorf("%q: %v\nwant %s", frame, err, want)
		}
	}
}
