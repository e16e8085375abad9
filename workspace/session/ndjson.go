package session

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/docir/docir/docir/wire"
)

// Serve answers NDJSON frames from r on w, one session (Conn) from the
// first line to the last: one request at a time, replies in the order of
// the requests, no reply to a notification. A blank line is
// skipped; a line that is not JSON gets a -32700 reply with id null; a line
// over MaxFrameBytes is skipped unread and gets a frame_too_large reply; the
// stream goes on after each.
//
// Serve returns nil at the end of r, and nil when ctx is done (SIGTERM): a
// request in hand is finished and answered first, and nothing after it is
// started. It returns an error only when w cannot be written.
//
// r is read ahead by one line in a goroutine so that a done ctx need not
// wait for input; that goroutine ends when r ends or is closed.
func Serve(ctx context.Context, e *Engine, r io.Reader, w io.Writer) error {
	events := make(chan wire.FrameEvent)
	done := make(chan struct{})
	defer close(done)
	go wire.ReadFrames(r, events, done)
	// The request in hand runs to its end even once ctx is done.
	work := context.WithoutCancel(ctx)
	c := e.NewConn()
	for {
		if ctx.Err() != nil {
			return nil
		}
		var ev wire.FrameEvent
		select {
		case <-ctx.Done():
			return nil
		case ev = <-events:
		}
		if errors.Is(ev.Err, io.EOF) {
			return nil
		}
		if ev.Err != nil {
			return fmt.Errorf("reading frames: %w", ev.Err)
		}
		var reply []byte
		switch {
		case ev.Frame.TooLarge:
			reply = wire.TooLargeFrame(ev.Frame)
		case wire.Blank(ev.Frame.Line):
			continue
		default:
			reply = c.Handle(work, ev.Frame.Line)
		}
		if reply == nil {
			continue
		}
		if _, err := w.Write(append(reply, '\n')); err != nil {
			return fmt.Errorf("writing a reply: %w", err)
		}
	}
}
