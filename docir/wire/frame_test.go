package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

type readLine struct {
	Line  string
	Large bool
	Size  int64
	ID    string
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
		out = append(out, readLine{Line: string(f.Line), Large: f.TooLarge, Size: f.Size, ID: string(f.ID)})
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
		{"one over", "123456789\nx\n", []readLine{{Large: true, Size: 9}, {Line: "x"}}},
		{"one over crlf", "123456789\r\nx\n", []readLine{{Large: true, Size: 9}, {Line: "x"}}},
		{"far over", strings.Repeat("a", 100) + "\nx\n", []readLine{{Large: true, Size: 100}, {Line: "x"}}},
		{"far over crlf", strings.Repeat("a", 100) + "\r\nx\n", []readLine{{Large: true, Size: 100}, {Line: "x"}}},
		{"far over at eof", strings.Repeat("a", 100), []readLine{{Large: true, Size: 100}}},
		{"two over in a row", strings.Repeat("a", 30) + "\n" + strings.Repeat("b", 20) + "\nok\n",
			[]readLine{{Large: true, Size: 30}, {Large: true, Size: 20}, {Line: "ok"}}},
		// The id of a line over the bound is read wherever it is, as the
		// TypeScript SDK writes it last.
		{"id last", `{"method":"m","params":{"id":1,"a":"}{\"id\":2"},"id":3}` + "\nx\n",
			[]readLine{{Large: true, Size: 56, ID: "3"}, {Line: "x"}}},
		{"id last crlf", `{"params":[1,2,3,4,5,6,7,8,9],"id":"a\"b"}` + "\r\n",
			[]readLine{{Large: true, Size: 42, ID: `"a\"b"`}}},
		{"id number at eof", `{"params":[1,2,3,4,5,6,7,8,9],"id":-12}`, []readLine{{Large: true, Size: 39, ID: "-12"}}},
		{"id first", `{"id":null,"params":[1,2,3,4,5,6,7,8,9]}` + "\n", []readLine{{Large: true, Size: 40, ID: "null"}}},
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

// TestLineReaderDoesNotBufferLargeLines: a 64 MiB request goes through a
// reader whose buffer stays at the bound, and its id, written last, is read
// on the way: the bytes allocated do not grow with the line.
func TestLineReaderDoesNotBufferLargeLines(t *testing.T) {
	const size = 64 << 20
	head := `{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"doc_id":"`
	tail := `"}},"id":4242}`
	src := io.MultiReader(strings.NewReader(head), io.LimitReader(repeatReader('x'), size), strings.NewReader(tail+"\n{}\n"))
	lr := NewLineReader(src, MaxFrameBytes)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f, err := lr.Next()
	runtime.ReadMemStats(&after)
	if want := int64(len(head) + size + len(tail)); err != nil || !f.TooLarge || f.Size != want || string(f.ID) != "4242" {
		t.Fatalf("got %v, TooLarge %v, Size %d (want %d), id %s", err, f.TooLarge, f.Size, want, f.ID)
	}
	if got := lr.br.Size(); got > MaxFrameBytes+2 {
		t.Errorf("buffer grew to %d bytes", got)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("skipping a %d-byte line allocated %d bytes", size, alloc)
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

func TestScanID(t *testing.T) {
	tests := []struct {
		frame        string
		whole, first string // the id read from the whole frame, and from it as a frame's first bytes
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"docir/get","params":{"doc_ids":["aaaa"]}}`, `7`, `7`},
		{`{"id":"abc","jsonrpc":"2.0"}`, `"abc"`, `"abc"`},
		{`{"id":null}`, `null`, `null`},
		{`{"jsonrpc":"2.0","method":"x","params":{"id":3,"doc_ids":["aaa"]}}`, ``, ``}, // below the top level
		{`{"jsonrpc":"2.0","params":{"a":[1,{"b":2}]},"id":-4.5}`, `-4.5`, `-4.5`},
		{`{"params":{"s":"\"}{\\","id":1},"id":2}`, `2`, `2`},                   // quotes and escapes in a skipped string
		{`{"params":["]","}",{"x":"["}],"id":"z"}`, `"z"`, `"z"`},               // brackets inside strings
		{`{"jsonrpc":"2.0","id":12}`, `12`, `12`},                               // the brace shows the number ended
		{` {"id" : "a\u00e9\"" , "method":"m"} `, `"a\u00e9\""`, `"a\u00e9\""`}, // as sent, escapes kept
		{`{"\u0069\u0064":5}`, `5`, `5`},                                        // "id" spelled with escapes
		{`{"id":5}`, `5`, `5`},
		{`{"jsonrpc":"2.0","id":12345678901234567890}`, `12345678901234567890`, `12345678901234567890`},
		{`{"id":{"a":1}}`, ``, ``},
		{`{"id":[1]}`, ``, ``},
		{`{"id":true}`, ``, ``},
		{`{"id":1,"id":2}`, ``, `1`}, // a member twice: DecodeRequest answers null too; a prefix cannot know

		{`{"id":1 2}`, ``, `1`},
		{`{"a" 1,"id":2}`, ``, ``},
		{`{"id":01}`, ``, ``},
		{`{"id":"x"}x`, ``, `"x"`},
		{`[{"id":1}]`, ``, ``},
		{`not json`, ``, ``},
		{``, ``, ``},
		{`{"id":"` + strings.Repeat("a", MaxIDBytes) + `"}`, ``, ``},
	}
	for _, tt := range tests {
		if got := string(ScanID([]byte(tt.frame), true)); got != tt.whole {
			t.Errorf("ScanID(%s, whole) = %s, want %s", tt.frame, got, tt.whole)
		}
		// Cut at every byte: a prefix finds the id only once the id is
		// whole in it, and then it is the first id the frame holds (what
		// follows may still make the whole frame refuse it).
		for cut := range len(tt.frame) {
			got := string(ScanID([]byte(tt.frame[:cut]), false))
			if got != "" && got != tt.first {
				t.Errorf("ScanID(%s, prefix) = %s, want %s", tt.frame[:cut], got, tt.first)
			}
		}
	}
	// Cut short of its end, a number may go on.
	if got := ScanID([]byte(`{"jsonrpc":"2.0","id":12`), false); got != nil {
		t.Errorf("an id cut by the prefix's end was read: %s", got)
	}
	if got := string(ScanID([]byte(`{"jsonrpc":"2.0","id":12`), true)); got != "12" {
		t.Errorf("the id at the end of a whole (broken) frame: %q", got)
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
				want = append(want, readLine{Large: true, Size: int64(len(l)), ID: string(ScanID([]byte(l), true))})
			} else {
				want = append(want, readLine{Line: l})
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("(-want +got):\n%s", diff)
		}
	})
}

// FuzzScanID: the id an IDScanner reads, in one write or byte by byte, is
// the id DecodeRequest reads from the whole frame whenever that decodes, and
// a prefix reads no other.
func FuzzScanID(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"method":"m"}`), 10)
	f.Add([]byte(`{"id":"x","a":[1,2,{"b":"c"}]}`), 5)
	f.Add([]byte(`{"a":{"id":1},"id":2}`), 100)
	f.Add([]byte(`{"jsonrpc":"2.0","method":"m","params":{"q":"\"}"},"id":"\u0041"}`), 30)
	f.Fuzz(func(t *testing.T, frame []byte, cut int) {
		if cut < 0 || cut > len(frame) {
			cut = len(frame)
		}
		whole := ScanID(frame, true)
		var s IDScanner
		for i := range frame {
			s.Write(frame[i : i+1])
		}
		if got := s.ID(true); !bytes.Equal(got, whole) {
			t.Fatalf("byte by byte %s, at once %s", got, whole)
		}
		// A prefix may find an id that what follows makes the whole frame
		// refuse; when the whole frame has one, it is that.
		if prefix := ScanID(frame[:cut], false); prefix != nil && whole != nil && !bytes.Equal(prefix, whole) {
			t.Fatalf("prefix id %s, whole frame id %s", prefix, whole)
		}
		req, id, werr := DecodeRequest(frame)
		switch {
		case werr == nil && req.ID != nil && len(req.ID) <= MaxIDBytes:
			if !bytes.Equal(whole, req.ID) {
				t.Fatalf("scanned id %s, decoded id %s", whole, req.ID)
			}
		case werr == nil:
			if whole != nil {
				t.Fatalf("scanned id %s of a request decoded without one", whole)
			}
		case string(id) != "null":
			// DecodeRequest read the id, then refused the request.
			if !bytes.Equal(whole, id) && len(id) <= MaxIDBytes {
				t.Fatalf("scanned id %s, decoded id %s", whole, id)
			}
		}
	})
}

// TestReadBody: a body within the bound is the frame; one over it is read
// on, unkept, for its id, up to MaxScanBytes; past that its size is
// unknown.
func TestReadBody(t *testing.T) {
	big := func(n int64, tail string) io.Reader {
		return io.MultiReader(strings.NewReader(`{"params":"`), io.LimitReader(repeatReader('a'), n), strings.NewReader(tail))
	}
	tests := []struct {
		name string
		in   io.Reader
		want Frame
	}{
		{"fits", strings.NewReader(`{"id":1}`), Frame{Line: []byte(`{"id":1}`)}},
		{"over, id last", big(100, `","id":"z"}`), Frame{TooLarge: true, ID: json.RawMessage(`"z"`), Size: 122, Bound: 16}},
		{"past the scan bound", big(MaxScanBytes, `","id":"z"}`), Frame{TooLarge: true, Size: -1, Bound: 16}},
	}
	for _, tt := range tests {
		got, err := ReadBody(tt.in, 16)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestLineReaderMore: More says the next line came in the same read (it is
// whole in the buffer), never that a line is whole when it is not.
func TestLineReaderMore(t *testing.T) {
	more := func(r io.Reader) []bool {
		lr := NewLineReader(r, 64)
		var out []bool
		for {
			f, err := lr.Next()
			if err != nil {
				return out
			}
			out = append(out, f.More)
		}
	}
	in := "a\nb\n" + strings.Repeat("x", 50) + "\nc\nd" // d: a last line, whole only at the end
	if got, want := more(strings.NewReader(in)), []bool{true, true, true, false, false}; !slices.Equal(got, want) {
		t.Errorf("one read: %v, want %v", got, want)
	}
	// Byte by byte: a line is never whole in the buffer before it is read.
	if got, want := more(iotest.OneByteReader(strings.NewReader(in))), []bool{false, false, false, false, false}; !slices.Equal(got, want) {
		t.Errorf("byte by byte: %v, want %v", got, want)
	}
}

// TestReplyTooLargeFor: the reply_too_large of a method says what makes
// that method's reply smaller; check and changes, which take no addresses
// and no limit, are sent to the command line, which writes them whole.
func TestReplyTooLargeFor(t *testing.T) {
	for method, want := range map[string]string{
		MethodGet:     "fewer addresses, or for sections",
		MethodLinks:   "fewer addresses, or for sections",
		MethodSearch:  "a lower limit",
		MethodContext: "a lower limit or budget",
		MethodCheck:   "run docir check in a shell",
		MethodChanges: "run docir changes in a shell",
		"":            "fewer addresses or a lower limit",
	} {
		e := ReplyTooLargeFor(method, 2<<20, 1<<20)
		if e.Code != -32003 || !strings.Contains(e.Message, "reply of 2097152 bytes is over the 1048576-byte bound; ") || !strings.Contains(e.Message, want) {
			t.Errorf("%q: %d %q, want %q", method, e.Code, e.Message, want)
		}
	}
}
