package session

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/workspace"
)

// TestGate: reads wait for the gate at most its wait, then answer
// indexing; an open gate lets them through, or answers its error; gates
// made with Over open together.
func TestGate(t *testing.T) {
	ws := workspace.New(workspace.Config{Dir: t.TempDir(), Sources: []store.Source{{Path: t.TempDir()}}})
	defer ws.Close()
	g := NewGate(ws, 10*time.Millisecond)
	other := g.Over(ws)
	ctx := context.Background()
	if _, err := g.Search(ctx, docir.SearchParams{Query: "x"}); docir.CodeOf(err) != docir.CodeIndexing {
		t.Errorf("closed gate: %v, want indexing", err)
	}
	if g.Ready() || other.Ready() {
		t.Error("ready before Open")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := NewGate(ws, time.Hour).Wait(cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v", err)
	}
	want := docir.Errorf(docir.CodeNoStore, "nothing to serve; run `docir index DIR`")
	g.Open(want)
	g.Open(nil) // later calls do nothing
	if !other.Ready() {
		t.Error("Over's gate did not open with it")
	}
	for name, err := range map[string]error{
		"status":  func() error { _, err := other.Status(ctx); return err }(),
		"query":   func() error { _, err := g.Query(ctx, docir.QueryParams{Expr: "a:b"}); return err }(),
		"context": func() error { _, err := g.Context(ctx, docir.ContextParams{Query: "x"}); return err }(),
		"resolve": func() error { _, err := g.Resolve(ctx, nil, 0); return err }(),
	} {
		if err != want {
			t.Errorf("%s: %v, want the gate's error", name, err)
		}
	}
}

// TestGateRecheck: a gate opened with an error answers it until its
// recheck passes, then lets reads through for good and says so once; it
// answered its error forever.
func TestGateRecheck(t *testing.T) {
	ws := workspace.New(workspace.Config{Dir: t.TempDir()})
	defer ws.Close()
	g := NewGate(ws, time.Millisecond)
	want := docir.Errorf(docir.CodeNoStore, "nothing to serve")
	g.Open(want)
	var there, checks int
	recovered := make(chan struct{}, 2)
	g.Recheck(func() bool { checks++; return there > 0 }, func() { recovered <- struct{}{} })
	ctx := context.Background()
	if err := g.Wait(ctx); err != want {
		t.Fatalf("before the store: %v", err)
	}
	there = 1
	for range 3 {
		if err := g.Over(ws).Wait(ctx); err != nil {
			t.Fatalf("after the store: %v", err)
		}
	}
	<-recovered
	if len(recovered) != 0 || checks != 2 {
		t.Errorf("recovered %d more times, %d checks; want once, and no check once recovered", len(recovered), checks)
	}
}
