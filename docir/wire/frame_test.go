package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

type readLine struct {
	Line   string
	Large  bool
	Size   int64
	Prefix string
}

func readAll(t testing.TB, r io.Reader, max int) []readLine {
	t.Helper()
	lr := NewLineReader(r, max)
	var out []readLine
	for {
		f, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, readLine{Line: string(f.Line), Large: f.TooLarge, Size: f.Size, Prefix: string(f.Prefix)})
	}
}

func TestLineReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []readLine
	}{
		{"empty", "", nil},
		{"one", "abc\n", []readLine{{Line: "abc"}}},
		{"no final newline", "abc\ndef", []readLine{{Line: "abc"}, {Line: "def"}}},
		{"crlf", "abc\r\ndef\r\n", []readLine{{Line: "abc"}, {Line: "def"}}},
		{"blank lines", "\n\nx\n", []readLine{{}, {}, {Line: "x"}}},
		{"exactly the bound", "12345678\nx\n", []readLine{{Line: "12345678"}, {Line: "x"}}},
		{"bound with crlf", "12345678\r\nx\n", []readLine{{Line: "12345678"}, {Line: "x"}}},
		{"one over", "123456789\nx\n", []readLine{{Large: true, Size: 9, Prefix: "12345678"}, {Line: "x"}}},
		{"one over crlf", "123456789\r\nx\n", []readLine{{Large: true, Size: 9, Prefix: "12345678"}, {Line: "x"}}},
		{"far over", strings.Repeat("a", 100) + "\nx\n", []readLine{{Large: true, Size: 100, Prefix: "aaaaaaaa"}, {Line: "x"}}},
		{"far over crlf", strings.Repeat("a", 100) + "\r\nx\n", []readLine{{Large: true, Size: 100, Prefix: "aaaaaaaa"}, {Line: "x"}}},
		{"far over at eof", strings.Repeat("a", 100), []readLine{{Large: true, Size: 100, Prefix: "aaaaaaaa"}}},
		{"two over in a row", strings.Repeat("a", 30) + "\n" + strings.Repeat("b", 20) + "\nok\n",
			[]readLine{{Large: true, Size: 30, Prefix: "aaaaaaaa"}, {Large: true, Size: 20, Prefix: "bbbbbbbb"}, {Line: "ok"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Byte by byte too, so buffer boundaries fall everywhere.
			for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in))} {
				if diff := cmp.Diff(tt.want, readAll(t, r, 8)); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestLineReaderDoesNotBufferLargeLines: a 64 MiB line goes through a
// reader whose buffer stays at the bound.
func TestLineReaderDoesNotBufferLargeLines(t *testing.T) {
	const size = 64 << 20
	src := io.MultiReader(io.LimitReader(repeatReader('x'), size), strings.NewReader("\n{}\n"))
	lr := NewLineReader(src, MaxFrameBytes)
	f, err := lr.Next()
	if err != nil || !f.TooLarge || f.Size != size || len(f.Prefix) != MaxFrameBytes {
		t.Fatalf("got %v, TooLarge %v, Size %d, prefix %d bytes", err, f.TooLarge, f.Size, len(f.Prefix))
	}
	if got := lr.br.Size(); got > MaxFrameBytes+2 {
		t.Errorf("buffer grew to %d bytes", got)
	}
	f, err = lr.Next()
	if err != nil || string(f.Line) != "{}" {
		t.Fatalf("after the large line: %q, %v", f.Line, err)
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestPrefixID(t *testing.T) {
	tests := []struct{ prefix, want string }{
		{`{"jsonrpc":"2.0","id":7,"method":"docir/get","params":{"doc_ids":["aaaa`, `7`},
		{`{"id":"abc","jsonrpc"`, `"abc"`},
		{`{"id":null,`, `null`},
		{`{"jsonrpc":"2.0","method":"x","params":{"id":3,"doc_ids":["aaa`, ``}, // id below the top level
		{`{"jsonrpc":"2.0","params":{"a":[1,{"b":2}]},"id":-4.5}`, `-4.5`},
		{`{"jsonrpc":"2.0","id":12`, ``}, // the number may go on past the prefix
		{`{"jsonrpc":"2.0","id":"ab`, ``},
		{`{"id":{"a":1},`, ``},
		{`{"id":true,`, ``},
		{`[{"id":1},`, ``},
		{`not json`, ``},
		{``, ``},
	}
	for _, tt := range tests {
		got := string(PrefixID([]byte(tt.prefix)))
		if got != tt.want {
			t.Errorf("PrefixID(%s) = %s, want %s", tt.prefix, got, tt.want)
		}
	}
}

// FuzzLineReader: every line comes back whole and in order when it fits,
// or as too large with its true size and first bytes when it does not.
func FuzzLineReader(f *testing.F) {
	for _, s := range []string{"", "a\nb", "a\r\n\r\n", strings.Repeat("x", 40) + "\ny\n", "\r\r\n\n", "12345678\r"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const max = 16
		got := readAll(t, iotest.HalfReader(bytes.NewReader(in)), max)
		var want []readLine
		lines := strings.Split(string(in), "\n")
		if len(lines) > 0 && lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		for i, l := range lines {
			if i < len(lines)-1 || strings.HasSuffix(string(in), "\n") {
				l = strings.TrimSuffix(l, "\r")
			} else {
				l = strings.TrimSuffix(l, "\r") // a last line without "\n" also drops a final "\r"
			}
			if len(l) > max {
				want = append(want, readLine{Large: true, Size: int64(len(l)), Prefix: l[:max]})
			} else {
				want = append(want, readLine{Line: l})
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("(-want +got):\n%s", diff)
		}
	})
}

// FuzzPrefixID: an id read from a prefix is the id of the whole frame.
func FuzzPrefixID(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"method":"m"}`), 10)
	f.Add([]byte(`{"id":"x","a":[1,2,{"b":"c"}]}`), 5)
	f.Add([]byte(`{"a":{"id":1},"id":2}`), 100)
	f.Fuzz(func(t *testing.T, frame []byte, cut int) {
		if cut < 0 || cut > len(frame) {
			cut = len(frame)
		}
		id := PrefixID(frame[:cut])
		if id == nil {
			return
		}
		var whole map[string]json.RawMessage
		if err := json.Unmarshal(frame, &whole); err != nil {
			return // the rest of the frame is broken; nothing to compare
		}
		var a, b any
		if json.Unmarshal(id, &a) != nil || json.Unmarshal(whole["id"], &b) != nil || !cmp.Equal(a, b) {
			t.Fatalf("prefix id %s, frame id %s", id, whole["id"])
		}
	})
}
