package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"unicode/utf8"

	"github.com/docir/docir/docir"
)

// The bounds of a session, the same on every transport.
const (
	MaxFrameBytes = 64 << 10 // one inbound frame: a line without its ending, or an HTTP body
	MaxReplyBytes = 1 << 20  // one outbound reply, without its line ending
	// MaxPageBytes bounds the result of one page of a paged read
	// (docir/check, docir/changes): a reply to any id a frame can carry
	// fits MaxReplyBytes around it, so a page is the same alone and as a
	// read-batch row.
	MaxPageBytes = MaxReplyBytes - MaxFrameBytes - 64
)

// Frame is one line read by a LineReader.
type Frame struct {
	// Line is the line without its "\n" or "\r\n" ending. It is valid
	// until the next call of Next. Nil when TooLarge.
	Line []byte
	// TooLarge reports a line over the bound. It was not buffered: Size is
	// its length, and ID the top-level "id" of the request it holds, read
	// while it was skipped (nil when it has none, or none could be read:
	// see IDScanner).
	TooLarge bool
	ID       json.RawMessage
	Size     int64
	// Bound is the bound the line was over (0: MaxFrameBytes).
	Bound int
	// More reports that the reader holds the whole next line already: it
	// came in the same read as this one (a client's one write of several
	// messages), so the next Next returns it without waiting for input.
	More bool
}

// LineReader reads newline-delimited frames with a bound on each: a line
// over the bound is skipped to its end without being held in memory, and
// reported with its size and the id of the request it holds, so that the
// error can be addressed to it and the stream goes on with the next line.
// Framing knows nothing else of JSON-RPC; the session decides what a frame
// means.
type LineReader struct {
	br  *bufio.Reader
	max int
}

// NewLineReader reads lines of at most max bytes (without their ending)
// from r.
func NewLineReader(r io.Reader, max int) *LineReader {
	// Room for a line of max bytes and its "\r\n".
	return &LineReader{br: bufio.NewReaderSize(r, max+2), max: max}
}

// Next returns the next line. A last line without a newline is a line; at
// the end of input Next returns io.EOF.
func (lr *LineReader) Next() (Frame, error) {
	line, err := lr.br.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		return lr.skip(line)
	case errors.Is(err, io.EOF):
		if len(line) == 0 {
			return Frame{}, io.EOF
		}
	case err != nil:
		return Frame{}, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) > lr.max {
		f := TooLargeLine(line)
		f.Bound, f.More = lr.max, lr.more()
		return f, nil
	}
	return Frame{Line: line, More: lr.more()}, nil
}

// more reports whether the buffer holds a whole line (see Frame.More).
// It looks only as far as the next line's end, so reading a buffer of
// lines costs their length once.
func (lr *LineReader) more() bool {
	b, _ := lr.br.Peek(lr.br.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// skip discards the rest of a line that does not fit the buffer, counting
// its bytes and scanning them for the request's id.
func (lr *LineReader) skip(head []byte) (Frame, error) {
	var ids IDScanner
	ids.Write(head)
	f := Frame{TooLarge: true, Size: int64(len(head)), Bound: lr.max}
	last := head[len(head)-1]
	for {
		more, err := lr.br.ReadSlice('\n')
		f.Size += int64(len(more))
		ids.Write(more) // a "\r\n" ending is whitespace after the object
		switch {
		case err == nil:
			f.Size-- // the "\n"
			if len(more) > 1 && more[len(more)-2] == '\r' || len(more) == 1 && last == '\r' {
				f.Size--
			}
			f.ID = ids.ID(true)
			return f, nil
		case errors.Is(err, bufio.ErrBufferFull):
			last = more[len(more)-1]
		case errors.Is(err, io.EOF):
			if len(more) > 0 {
				last = more[len(more)-1]
			}
			if last == '\r' {
				f.Size-- // a last line drops a final "\r" as any other does
			}
			f.ID = ids.ID(true)
			return f, nil // the next call reports the end
		default:
			return Frame{}, err
		}
	}
}

// TooLargeLine is the Frame of a line over MaxFrameBytes that is in memory
// whole (a read batch's inner frame): its id is read from all of it.
func TooLargeLine(line []byte) Frame {
	return Frame{TooLarge: true, ID: ScanID(line, true), Size: int64(len(line))}
}

// MaxScanBytes bounds how much of a body over its frame bound ReadBody
// reads (without keeping it) to find the request's id, which a client may
// write last.
const MaxScanBytes = 16 << 20

// ReadBody reads a frame that comes as a whole body (an HTTP request's),
// keeping at most max bytes. A body over the bound is read on without being
// kept, up to MaxScanBytes, for the id of the request it holds: its Frame is
// TooLarge, with Size -1 when it did not end within MaxScanBytes (the rest
// is left unread, and the connection should be closed).
func ReadBody(r io.Reader, max int) (Frame, error) {
	body, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return Frame{}, err
	}
	if len(body) <= max {
		return Frame{Line: body}, nil
	}
	var ids IDScanner
	ids.Write(body)
	n, err := io.CopyN(&ids, r, MaxScanBytes-int64(len(body)))
	whole := errors.Is(err, io.EOF)
	f := Frame{TooLarge: true, ID: ids.ID(whole), Size: int64(len(body)) + n, Bound: max}
	if !whole {
		f.Size = -1
	}
	return f, nil
}

// ScanID reads the top-level "id" of the request frame b with an
// IDScanner. whole says b is the whole frame, not its first bytes, so that
// a number at its end is whole.
func ScanID(b []byte, whole bool) json.RawMessage {
	var ids IDScanner
	ids.Write(b)
	return ids.ID(whole)
}

// MaxIDBytes bounds the id an IDScanner keeps: a longer id is not read.
const MaxIDBytes = 1024

// IDScanner finds the top-level "id" member of a JSON-RPC request as its
// bytes stream by, in constant memory: it follows strings, escapes and
// nesting depth, and keeps only a member name's first bytes and the id's
// bytes (at most MaxIDBytes). It does not validate what it skips. It finds
// no id (ID returns nil) when the frame does not start as an object, when
// a top-level member is out of place (no colon, no comma), when the id is
// not a string, a number or null, is over MaxIDBytes or is a string that is
// not valid UTF-8 (it could not be echoed as JSON text), or when "id" is a
// member twice (DecodeRequest refuses such a request to id null too). The
// id comes back byte for byte as sent.
type IDScanner struct {
	phase   scanPhase
	depth   int  // nesting depth inside an object or array value
	inStr   bool // inside a string nested in such a value
	esc     bool // after a backslash inside a string
	name    []byte
	nameBig bool // the member name is longer than any spelling of "id"
	isID    bool // the value being read is the "id" member's
	val     []byte
	valBig  bool
	id      json.RawMessage
	ids     int // "id" members seen
	failed  bool
}

type scanPhase uint8

const (
	phaseStart  scanPhase = iota // before the opening brace
	phaseName                    // before a member name, or the closing brace
	phaseInName                  // inside a member name
	phaseColon                   // after a member name
	phaseValue                   // before a member value
	phaseString                  // inside a string value
	phaseScalar                  // inside a number or a literal
	phaseNested                  // inside an object or array value
	phaseAfter                   // after a member value
	phaseEnd                     // after the closing brace
)

// maxNameBytes is the longest spelling of "id" inside a JSON string:
// \u0069\u0064.
const maxNameBytes = 12

// Write scans the next bytes of the frame. It never fails: it is an
// io.Writer so that a body can be copied into it.
func (s *IDScanner) Write(p []byte) (int, error) {
	for i := 0; i < len(p) && !s.failed; i++ {
		c := p[i]
		switch s.phase {
		case phaseStart:
			s.expect(c, '{', phaseName)
		case phaseName:
			switch c {
			case '"':
				s.phase, s.name, s.nameBig = phaseInName, s.name[:0], false
			case '}':
				s.phase = phaseEnd
			default:
				s.failed = !isJSONSpace(c)
			}
		case phaseInName:
			if s.stringEnds(c) {
				s.phase = phaseColon
				var name string
				quoted := append(append([]byte{'"'}, s.name...), '"')
				s.isID = !s.nameBig && json.Unmarshal(quoted, &name) == nil && name == "id"
				continue
			}
			if len(s.name) < maxNameBytes {
				s.name = append(s.name, c)
			} else {
				s.nameBig = true
			}
		case phaseColon:
			s.expect(c, ':', phaseValue)
		case phaseValue:
			if isJSONSpace(c) {
				continue
			}
			s.val, s.valBig = s.val[:0], false
			switch c {
			case '"':
				s.phase = phaseString
			case '{', '[':
				s.phase, s.depth, s.inStr = phaseNested, 1, false
			case ',', '}', ']', ':':
				s.failed = true
				continue
			default:
				s.phase = phaseScalar
			}
			s.keep(c)
		case phaseString:
			s.keep(c)
			if s.stringEnds(c) {
				s.endValue()
			}
		case phaseScalar:
			if isJSONSpace(c) || c == ',' || c == '}' {
				s.endValue()
				i-- // the delimiter belongs to what follows the value
				continue
			}
			s.keep(c)
		case phaseNested:
			switch {
			case s.inStr:
				s.inStr = !s.stringEnds(c)
			case c == '"':
				s.inStr = true
			case c == '{' || c == '[':
				s.depth++
			case c == '}' || c == ']':
				if s.depth--; s.depth == 0 {
					s.endValue()
				}
			}
		case phaseAfter:
			switch c {
			case ',':
				s.phase = phaseName
			case '}':
				s.phase = phaseEnd
			default:
				s.failed = !isJSONSpace(c)
			}
		case phaseEnd:
			s.failed = !isJSONSpace(c)
		}
	}
	return len(p), nil
}

// stringEnds reads c inside a string and reports whether it is the
// closing quote.
func (s *IDScanner) stringEnds(c byte) bool {
	switch {
	case s.esc:
		s.esc = false
	case c == '\\':
		s.esc = true
	case c == '"':
		return true
	}
	return false
}

// expect moves to next on want, stays on JSON whitespace, and fails on
// anything else.
func (s *IDScanner) expect(c, want byte, next scanPhase) {
	switch {
	case c == want:
		s.phase = next
	case !isJSONSpace(c):
		s.failed = true
	}
}

// keep adds c to the value being read when it is the id's.
func (s *IDScanner) keep(c byte) {
	if !s.isID {
		return
	}
	if len(s.val) < MaxIDBytes {
		s.val = append(s.val, c)
	} else {
		s.valBig = true
	}
}

// endValue ends a member's value, and keeps it when it is an id that is a
// string, a number or null.
func (s *IDScanner) endValue() {
	s.phase = phaseAfter
	if !s.isID {
		return
	}
	s.isID = false
	s.ids++
	s.id = nil
	if s.ids == 1 && !s.valBig && len(s.val) > 0 && (s.val[0] == '"' || s.val[0] == 'n' || s.val[0] == '-' || s.val[0] >= '0' && s.val[0] <= '9') &&
		json.Valid(s.val) && utf8.Valid(s.val) {
		s.id = bytes.Clone(s.val)
	}
}

// ID returns the id found, or nil. whole says the bytes written were the
// whole frame: a number or literal that runs to their end is then whole,
// else it may go on past them and is not read.
func (s *IDScanner) ID(whole bool) json.RawMessage {
	if s.failed {
		return nil
	}
	if s.phase == phaseScalar && s.isID {
		if !whole {
			return nil
		}
		s.endValue()
	}
	return s.id
}

// FrameEvent is one frame read from a stream, or the error that ended it
// (io.EOF at its end).
type FrameEvent struct {
	Frame Frame
	Err   error
}

// ReadFrames reads r frame by frame, bounded by MaxFrameBytes, and sends
// each to out with a line of its own (not the reader's buffer), until r
// ends (the last event carries the error) or done is closed. Transports run
// it on a goroutine of its own, so that a done context need not wait for
// input.
func ReadFrames(r io.Reader, out chan<- FrameEvent, done <-chan struct{}) {
	ReadFramesOf(r, MaxFrameBytes, out, done)
}

// ReadFramesOf is ReadFrames with another bound on a frame (MCP's).
func ReadFramesOf(r io.Reader, max int, out chan<- FrameEvent, done <-chan struct{}) {
	lr := NewLineReader(r, max)
	for {
		f, err := lr.Next()
		if f.Line != nil {
			f.Line = bytes.Clone(f.Line) // Next reuses its buffer
		}
		select {
		case out <- FrameEvent{Frame: f, Err: err}:
		case <-done:
			return
		}
		if err != nil {
			return
		}
	}
}

// TooLargeFrame is the reply to a frame over its bound, addressed to the
// frame's id when one was read (else to null). A Size under the bound means
// the size is unknown (an HTTP body without Content-Length).
func TooLargeFrame(f Frame) []byte {
	bound := f.Bound
	if bound == 0 {
		bound = MaxFrameBytes
	}
	if f.Size <= int64(bound) {
		return ErrorLine(f.ID, NewError(docir.CodeFrameTooLarge, "frame of more than %d bytes is over the %d-byte bound; it was not read", bound, bound))
	}
	return ErrorLine(f.ID, NewError(docir.CodeFrameTooLarge, "frame of %d bytes is over the %d-byte bound; it was skipped unread", f.Size, bound))
}

// ReplyTooLarge is the error that replaces a reply of n bytes over the
// bound, in every transport.
func ReplyTooLarge(n, bound int) *Error {
	return ReplyTooLargeFor("", n, bound)
}

// ReplyTooLargeFor is ReplyTooLarge for a result of method, with what can
// make that method's reply smaller ("" for any method).
func ReplyTooLargeFor(method string, n, bound int) *Error {
	return NewError(docir.CodeReplyTooLarge, "reply of %d bytes is over the %d-byte bound; %s", n, bound, smallerReply(method))
}

// smallerReply says what makes a method's reply smaller.
func smallerReply(method string) string {
	switch method {
	case MethodGet:
		return "ask for fewer addresses, or for sections (id#heading) instead of whole documents"
	case MethodLinks:
		return "ask for fewer addresses, or for sections (id#heading) instead of whole documents"
	case MethodSearch, MethodQuery:
		return "ask for a lower limit"
	case MethodContext:
		return "ask for a lower limit or budget"
	case MethodCheck:
		return "this store's link report is more than one reply holds: run docir check in a shell (its bound is 64 MiB)"
	case MethodChanges:
		return "the change is more than one reply holds: ask for fewer generations at once, or run docir changes in a shell"
	}
	return "ask for fewer addresses or a lower limit"
}
