package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/docir/docir/docir"
)

// The bounds of a session, the same on every transport.
const (
	MaxFrameBytes = 64 << 10 // one inbound frame: a line without its ending, or an HTTP body
	MaxReplyBytes = 1 << 20  // one outbound reply, without its line ending
)

// Frame is one line read by a LineReader.
type Frame struct {
	// Line is the line without its "\n" or "\r\n" ending. It is valid
	// until the next call of Next. Nil when TooLarge.
	Line []byte
	// TooLarge reports a line over the bound. It was not buffered: Prefix
	// holds its first bytes (at most the bound) and Size its length.
	TooLarge bool
	Prefix   []byte
	Size     int64
}

// LineReader reads newline-delimited frames with a bound on each: a line
// over the bound is skipped to its end without being held in memory, and
// reported, so the stream goes on with the next line. Framing knows nothing
// of JSON-RPC; the session decides what a frame means.
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
		return Frame{TooLarge: true, Prefix: bytes.Clone(line[:lr.max]), Size: int64(len(line))}, nil
	}
	return Frame{Line: line}, nil
}

// skip discards the rest of a line that does not fit the buffer, counting
// its bytes, and keeps only the first max bytes.
func (lr *LineReader) skip(head []byte) (Frame, error) {
	f := Frame{TooLarge: true, Prefix: bytes.Clone(head[:min(len(head), lr.max)]), Size: int64(len(head))}
	last := head[len(head)-1]
	for {
		more, err := lr.br.ReadSlice('\n')
		f.Size += int64(len(more))
		switch {
		case err == nil:
			f.Size-- // the "\n"
			if len(more) > 1 && more[len(more)-2] == '\r' || len(more) == 1 && last == '\r' {
				f.Size--
			}
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
			return f, nil // the next call reports the end
		default:
			return Frame{}, err
		}
	}
}

// PrefixID reads the id of a request from the first bytes of a frame that
// was too large to read whole, so that the error can be addressed to it. It
// returns nil when no top-level "id" member is complete within the prefix.
func PrefixID(prefix []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, ok := tok.(string)
		if !ok {
			return nil // the object ended
		}
		if key != "id" {
			if !skipValue(dec) {
				return nil
			}
			continue
		}
		val, err := dec.Token()
		if err != nil {
			return nil
		}
		// A number is whole only if a byte follows it within the prefix:
		// one cut by the prefix's end would read as shorter.
		if _, isNum := val.(json.Number); isNum && dec.InputOffset() >= int64(len(prefix)) {
			return nil
		}
		var out json.RawMessage
		switch v := val.(type) {
		case string, json.Number, nil:
			out, err = json.Marshal(v)
		default:
			return nil
		}
		if err != nil {
			return nil
		}
		return out
	}
}

// skipValue reads one whole value off dec.
func skipValue(dec *json.Decoder) bool {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			default:
				depth--
			}
		}
		if depth == 0 {
			return true
		}
	}
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
	lr := NewLineReader(r, MaxFrameBytes)
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

// TooLargeFrame is the reply to a frame over MaxFrameBytes, addressed to
// the id read from its first bytes when there is one. A Size under the
// bound means the size is unknown (an HTTP body without Content-Length).
func TooLargeFrame(f Frame) []byte {
	id := PrefixID(f.Prefix)
	if f.Size <= MaxFrameBytes {
		return ErrorLine(id, NewError(docir.CodeFrameTooLarge, "frame of more than %d bytes is over the %d-byte bound; it was not read", MaxFrameBytes, MaxFrameBytes))
	}
	return ErrorLine(id, NewError(docir.CodeFrameTooLarge, "frame of %d bytes is over the %d-byte bound; it was skipped unread", f.Size, MaxFrameBytes))
}

// ReplyTooLarge is the error that replaces a reply of n bytes over the
// bound, in every transport.
func ReplyTooLarge(n, bound int) *Error {
	return NewError(docir.CodeReplyTooLarge, "reply of %d bytes is over the %d-byte bound; ask for fewer addresses or a lower limit", n, bound)
}
