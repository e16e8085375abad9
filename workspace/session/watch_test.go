package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/workspace"
)

// TestWatchRetriesAFailedRefresh: a refresh that fails (a full disk, say)
// is tried again with no change to the files, until it succeeds; it was
// tried again only at the next change.
func TestWatchRetriesAFailedRefresh(t *testing.T) {
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "a.md"), []byte("# A\n\ntext\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srcs := []store.Source{{Path: src}}
	var calls atomic.Int32
	ws := workspace.New(workspace.Config{Dir: t.TempDir(), Sources: srcs,
		Reload: func(context.Context) (workspace.Settings, func(), error) {
			if calls.Add(1) < 3 {
				return workspace.Settings{}, nil, errors.New("no space left on device")
			}
			return workspace.Settings{Sources: srcs}, func() {}, nil
		}})
	defer ws.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var outcomes []error
	done, err := Watch(ctx, ws, WatchOptions{Debounce: time.Millisecond, Pending: true, Retry: 10 * time.Millisecond, MaxRetry: 20 * time.Millisecond,
		OnRefresh: func(_ docir.IndexSummary, err error) {
			mu.Lock()
			defer mu.Unlock()
			outcomes = append(outcomes, err)
		}})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		mu.Lock()
		n := len(outcomes)
		ok := n > 0 && outcomes[n-1] == nil
		mu.Unlock()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no successful refresh after a minute: %v", outcomes)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(outcomes) != 3 || outcomes[0] == nil || outcomes[1] == nil {
		t.Errorf("outcomes %v, want two failures then a success", outcomes)
	}
}

// TestWatchWaitsForItsRefresh: the channel Watch returns is closed only
// once a refresh the end of ctx interrupted has returned (cleaned up), so
// a server that waits for it leaves no temporary files behind.
func TestWatchWaitsForItsRefresh(t *testing.T) {
	src := t.TempDir()
	entered := make(chan struct{})
	var finished atomic.Bool
	ws := workspace.New(workspace.Config{Dir: t.TempDir(), Sources: []store.Source{{Path: src}},
		Reload: func(ctx context.Context) (workspace.Settings, func(), error) {
			close(entered)
			<-ctx.Done()
			time.Sleep(50 * time.Millisecond) // the cleanup
			finished.Store(true)
			return workspace.Settings{}, nil, ctx.Err()
		}})
	defer ws.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done, err := Watch(ctx, ws, WatchOptions{Debounce: time.Millisecond, Pending: true})
	if err != nil {
		t.Fatal(err)
	}
	<-entered
	cancel()
	<-done
	if !finished.Load() {
		t.Error("the watch ended before its refresh did")
	}
}

// TestWatchSymlinkedSource: a source folder that is a symbolic link (the
// indexer follows it) is watched through its target: nothing changed, no
// refresh (each poll took the link for a new folder and refreshed, every
// poll, for the life of the server); an edit through it is seen.
func TestWatchSymlinkedSource(t *testing.T) {
	target := t.TempDir()
	if err := os.WriteFile(filepath.Join(target, "a.md"), []byte("# A\n\ntext\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "docs")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	ws := workspace.New(workspace.Config{Dir: t.TempDir(), Sources: []store.Source{{Path: link}}})
	defer ws.Close()
	if _, err := ws.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var n atomic.Int32
	done, err := Watch(ctx, ws, WatchOptions{Debounce: time.Millisecond, Poll: 20 * time.Millisecond,
		OnRefresh: func(docir.IndexSummary, error) { n.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); <-done }()
	time.Sleep(500 * time.Millisecond) // 25 polls
	if got := n.Load(); got != 0 {
		t.Fatalf("%d refreshes with nothing changed", got)
	}
	if err := os.WriteFile(filepath.Join(link, "b.md"), []byte("# B\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); n.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("an edit through the link was not seen")
		}
	}
}
