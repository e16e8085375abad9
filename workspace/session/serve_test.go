package session

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// gatedReader is a docir.Reader whose Status waits for a gate, so a
// test can hold a request in hand. Every other read is refused.
type gatedReader struct {
	entered chan struct{}
	release chan struct{}
}

func (g *gatedReader) Status(ctx context.Context) (docir.Status, error) {
	g.entered <- struct{}{}
	<-g.release
	return docir.Status{Store: "gated", Generation: 7, Sources: []docir.SourceInfo{}}, nil
}

var errGated = errors.New("gatedReader reads only status")

func (g *gatedReader) Resolve(context.Context, []address.Address, int) (docir.Resolved, error) {
	return docir.Resolved{}, errGated
}
func (g *gatedReader) Search(context.Context, docir.SearchParams) (docir.SearchResult, error) {
	return docir.SearchResult{}, errGated
}
func (g *gatedReader) Query(context.Context, docir.QueryParams) (docir.SearchResult, error) {
	return docir.SearchResult{}, errGated
}
func (g *gatedReader) Context(context.Context, docir.ContextParams) (docir.ContextResult, error) {
	return docir.ContextResult{}, errGated
}
func (g *gatedReader) Links(context.Context, []address.Address, int) (docir.LinksResolved, error) {
	return docir.LinksResolved{}, errGated
}
func (g *gatedReader) LinksPage(context.Context, address.Address, docir.Page, int) (docir.LinksResolved, error) {
	return docir.LinksResolved{}, errGated
}
func (g *gatedReader) Check(context.Context, docir.CheckParams) (docir.CheckResult, error) {
	return docir.CheckResult{}, errGated
}
func (g *gatedReader) Changes(context.Context, docir.ChangesParams) (docir.ChangesResult, error) {
	return docir.ChangesResult{}, errGated
}

var _ docir.Reader = (*gatedReader)(nil)

// TestServeEOF: the session ends with nil at the end of input, after
// answering everything, and leaves no goroutine behind.
func TestServeEOF(t *testing.T) {
	checkLeaks(t)
	ws, _ := testStore(t, nil)
	defer ws.Close() // before the leak check: a search opens bleve
	e := New(Config{Reader: ws})
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_id":"runbooks/disk-full#escalate"}}`,
		`{"jsonrpc":"2.0","method":"workspace/status"}`,
		`oops`,
		`{"jsonrpc":"2.0","id":2,"method":"docir/search","params":{"query":"disk","limit":1}}`,
	}, "\r\n") // CRLF line endings are fine; the last line has none
	var out strings.Builder
	if err := Serve(context.Background(), e, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d replies:\n%s", len(lines), out.String())
	}
	for i, want := range []string{`"id":1,"result":{"address":"runbooks/disk-full#escalate"`, `"id":null,"error":{"code":-32700`, `"id":2,"result":{"query":"disk"`} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("reply %d = %s, want %s", i, lines[i], want)
		}
	}
}

// TestServeStopsAfterTheRequestInHand: once ctx is done (SIGTERM), the
// request being served is finished and answered, nothing after it is
// read, and Serve returns nil.
func TestServeStopsAfterTheRequestInHand(t *testing.T) {
	checkLeaks(t)
	g := &gatedReader{entered: make(chan struct{}), release: make(chan struct{})}
	e := New(Config{Reader: g})
	pr, pw := io.Pipe()
	defer pr.Close()
	defer pw.Close() // ends the reading goroutine
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, e, pr, outW); outW.Close() }()
	replies := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			replies <- sc.Text()
		}
		close(replies)
	}()

	go fmt.Fprintln(pw, `{"jsonrpc":"2.0","id":1,"method":"workspace/status"}`)
	<-g.entered // the request is in hand
	cancel()    // SIGTERM
	// A second request arrives while the first is in hand: its bytes are
	// read (the pipe's write returns once they are), and the frame waits
	// to be taken. Only then is the first let go, so a Serve that took
	// one more frame after SIGTERM would find this one ready.
	if _, err := fmt.Fprintln(pw, `{"jsonrpc":"2.0","id":2,"method":"workspace/discover"}`); err != nil {
		t.Fatal(err)
	}
	waitParked(t, "docir/wire.ReadFramesOf(")
	close(g.release)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after SIGTERM")
	}
	var got []string
	for r := range replies {
		got = append(got, r)
	}
	if len(got) == 0 || !strings.Contains(got[0], `"id":1,"result":{"store":"gated"`) {
		t.Fatalf("the request in hand was not answered: %q", got)
	}
	if len(got) > 1 {
		t.Errorf("a request after SIGTERM was answered: %q", got[1:])
	}
}

// waitParked waits until a goroutine is blocked in the function whose
// qualified name contains fn, as its innermost frame: the frame reader
// holding a frame for Serve to take, not reading.
func waitParked(t *testing.T, fn string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		stacks := string(buf[:runtime.Stack(buf, true)])
		for _, g := range strings.Split(stacks, "\n\n") {
			header, rest, _ := strings.Cut(g, "\n")
			if strings.Contains(header, "[select") || strings.Contains(header, "[chan send") {
				if top, _, _ := strings.Cut(rest, "\n"); strings.Contains(top, fn) {
					return
				}
			}
		}
	}
	t.Fatalf("no goroutine parked in %s", fn)
}

// TestServeWriteError: a host that stops reading ends the session with an
// error naming the write.
func TestServeWriteError(t *testing.T) {
	checkLeaks(t)
	e := New(Config{Reader: &gatedReader{}})
	err := Serve(context.Background(), e, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"workspace/discover"}`+"\n"), failingWriter{})
	if err == nil || !strings.Contains(err.Error(), "writing a reply") {
		t.Fatalf("got %v", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

// TestHandlePanics: a method that panics answers an internal error and the
// engine goes on.
func TestHandlePanics(t *testing.T) {
	e := New(Config{Reader: &panickyReader{}})
	reply := e.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"workspace/status"}`))
	if !strings.Contains(string(reply), `"code":-32603`) || !strings.Contains(string(reply), `"code":"internal"`) {
		t.Fatalf("reply %s", reply)
	}
	reply = e.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"workspace/discover"}`))
	if !strings.Contains(string(reply), `"result"`) {
		t.Fatalf("after a panic: %s", reply)
	}
}

type panickyReader struct{ gatedReader }

func (*panickyReader) Status(context.Context) (docir.Status, error) { panic("boom") }

// TestRefreshIsExclusive: a refresh waits for reads in hand, and reads wait
// for a refresh in hand.
func TestRefreshIsExclusive(t *testing.T) {
	g := &gatedReader{entered: make(chan struct{}), release: make(chan struct{})}
	refreshed := make(chan struct{})
	p, _ := ParsePolicy([]byte(`{"schema":"docir.host-policy.v1","grants":["refresh"]}`))
	e := New(Config{Reader: g, Policy: p, Refresh: func(context.Context) (docir.IndexSummary, error) {
		close(refreshed)
		return docir.IndexSummary{Generation: 8, Warnings: []string{}}, nil
	}})
	var wg sync.WaitGroup
	wg.Go(func() { e.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"workspace/status"}`)) })
	<-g.entered
	wg.Go(func() {
		reply := e.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"workspace/refresh"}`))
		if !strings.Contains(string(reply), `"generation":8`) {
			t.Errorf("refresh reply %s", reply)
		}
	})
	select {
	case <-refreshed:
		t.Fatal("refresh ran beside a read")
	case <-time.After(50 * time.Millisecond):
	}
	close(g.release)
	<-refreshed
	wg.Wait()
}

// TestReplyBound: the bound applies to the whole reply line.
func TestReplyBound(t *testing.T) {
	e, _ := newTestEngine(t, nil, nil)
	frame := []byte(`{"jsonrpc":"2.0","id":"big","method":"docir/get","params":{"doc_id":"adr/0002-store-bodies-beside-the-index"}}`)
	full := e.Handle(context.Background(), frame)
	e.maxReply = len(full)
	if got := e.Handle(context.Background(), frame); string(got) != string(full) {
		t.Fatalf("a reply of exactly the bound was refused: %s", got)
	}
	e.maxReply = len(full) - 1
	got := e.Handle(context.Background(), frame)
	var r wire.Response
	if err := json.Unmarshal(got, &r); err != nil || r.Error == nil || r.Error.StableCode() != docir.CodeReplyTooLarge || string(r.ID) != `"big"` {
		t.Fatalf("over the bound: %s", got)
	}
}

// TestMaxRunning: no more than MaxRunning calls run at once; the others
// wait their turn and start as one ends, and a waiting call whose context
// ends gives up without running.
func TestMaxRunning(t *testing.T) {
	checkLeaks(t)
	n := MaxRunning()
	g := &gatedReader{entered: make(chan struct{}, 2*n), release: make(chan struct{})}
	e := New(Config{Reader: g})
	var wg sync.WaitGroup
	for range n + 2 {
		wg.Go(func() {
			if _, werr := e.Call(context.Background(), wire.MethodStatus, nil); werr != nil {
				t.Errorf("status: %v", werr)
			}
		})
	}
	for range n {
		<-g.entered
	}
	// The two past the bound wait (a call that ran would be in entered).
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan *wire.Error, 1)
	go func() {
		_, werr := e.Call(ctx, wire.MethodStatus, nil)
		gaveUp <- werr
	}()
	time.Sleep(50 * time.Millisecond)
	if k := len(g.entered); k != 0 {
		t.Fatalf("%d calls past the bound of %d started", k, n)
	}
	cancel()
	if werr := <-gaveUp; werr == nil {
		t.Error("a waiting call whose context ended ran")
	}
	g.release <- struct{}{} // one ends: one waiting starts
	<-g.entered
	for range n + 1 {
		g.release <- struct{}{}
	}
	wg.Wait()
	if k := len(g.entered); k != 1 {
		t.Errorf("%d calls entered after the last release, want the last waiting one", k)
	}
	<-g.entered
}
