package binding

import (
	"context"
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// storeService is a Service over real store generations, built with
// store.Begin/Apply/Publish: what the workspace service does, without
// bleve. A refresh takes the refresh lock exclusively.
type storeService struct {
	dir    string
	root   string // the source root the files' entries name
	retain int

	refresh sync.RWMutex
}

func (s *storeService) Workspace(context.Context) (string, error) { return store.Identity(s.dir) }

func (s *storeService) Generation(_ context.Context, rev uint64) (Generation, error) {
	retained, err := store.Retained(s.dir)
	if err != nil {
		return Generation{}, err
	}
	if !slices.Contains(retained, rev) {
		return Generation{}, docir.Errorf(docir.CodeStaleRevision, "generation %d is not retained (retained: %v)", rev, retained)
	}
	snap, err := store.OpenGeneration(s.dir, rev)
	if err != nil {
		return Generation{}, docir.Errorf(docir.CodeStaleRevision, "generation %d: %v", rev, err)
	}
	defer snap.Close()
	d, err := snap.ManifestDigest()
	return Generation{Revision: rev, ManifestDigest: d}, err
}

func (s *storeService) Current(ctx context.Context) (Generation, error) {
	gen, err := store.CurrentGeneration(s.dir)
	if err != nil {
		return Generation{}, err
	}
	return s.Generation(ctx, gen)
}

func (s *storeService) HoldRefresh(context.Context) (func(), error) {
	s.refresh.RLock()
	return sync.OnceFunc(s.refresh.RUnlock), nil
}

func (s *storeService) Hold(_ context.Context, rev uint64, binding string, ttl time.Duration) (Hold, error) {
	now := time.Now()
	h, _, err := store.AddHold(s.dir, rev, binding, now.Add(ttl), now)
	if errors.Is(err, fs.ErrNotExist) {
		return Hold{}, docir.Errorf(docir.CodeStaleRevision, "generation %d is not retained: %v", rev, err)
	}
	return Hold(h), err
}

func (s *storeService) Release(_ context.Context, binding string) (*Hold, bool, error) {
	left, released, err := store.ReleaseHold(s.dir, binding, time.Now())
	if left == nil {
		return nil, released, err
	}
	h := Hold(*left)
	return &h, released, err
}

func (s *storeService) Holds(context.Context) ([]Hold, error) {
	holds, err := store.Holds(s.dir, time.Now())
	out := make([]Hold, len(holds))
	for i, h := range holds {
		out[i] = Hold(h)
	}
	return out, err
}

// write publishes the next generation with the document id set to body.
func (s *storeService) write(t *testing.T, id, body string) uint64 {
	t.Helper()
	s.refresh.Lock()
	defer s.refresh.Unlock()
	prev, err := store.Open(s.dir)
	if err != nil && docir.CodeOf(err) != docir.CodeNoStore {
		t.Fatal(err)
	}
	if prev != nil {
		defer prev.Close()
	}
	p, err := store.Begin(s.dir, prev)
	if err != nil {
		t.Fatal(err)
	}
	rel := id + ".md"
	st := time.Now().UnixNano()
	c := store.Change{
		Put: []store.PutDoc{{Record: docir.Record{ID: id}, Body: []byte(body)}},
		Files: map[string]*store.FileEntry{store.FileKey(s.root, rel): {
			ID: id, Size: int64(len(body)), ModTime: st, Digest: sha256.Sum256([]byte(body)),
		}},
		Sources: []store.Source{{Path: s.root}},
	}
	if err := errors.Join(os.MkdirAll(p.FullTextPath(), 0o755), p.Apply(c)); err != nil {
		t.Fatal(errors.Join(err, p.Abort()))
	}
	if after, err := p.Publish(s.retain); err != nil || after != nil {
		t.Fatal(errors.Join(err, after))
	}
	return p.Generation()
}

func (s *storeService) body(t *testing.T, rev uint64, id string) string {
	t.Helper()
	snap, err := store.OpenGeneration(s.dir, rev)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	_, body, ok, err := snap.Lookup(id)
	if err != nil || !ok {
		t.Fatalf("generation %d: %s: %v %v", rev, id, ok, err)
	}
	return string(body)
}

// The agent flow over real generations: bind, a refresh, the pinned
// generation still answers and replays, currentness is lost, and a
// refresh during RunCurrent waits; past retain the receipt is rejected.
func TestRealStoreGenerations(t *testing.T) {
	ctx := context.Background()
	s := &storeService{dir: filepath.Join(t.TempDir(), ".docir"), root: t.TempDir(), retain: 3}
	s.write(t, "guide", "# Guide\n\nsecret body one\n")
	b, err := Bind(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	receipt := b.Receipt().Marshal()
	ev := b.Evidence("docir/get", []byte(`{"addresses":["guide"]}`), []byte(s.body(t, b.Revision(), "guide")))
	evFile := ev.Marshal()
	scanReceipt(t, "receipt", receipt, s.dir, s.root, "secret body")
	scanReceipt(t, "evidence", evFile, s.dir, s.root, "secret body")

	// RunCurrent holds off a real refresh.
	started, done := make(chan struct{}), make(chan uint64)
	err = b.RunCurrent(ctx, func(ctx context.Context) error {
		go func() {
			close(started)
			done <- s.write(t, "guide", "# Guide\n\nbody two\n")
		}()
		<-started
		select {
		case <-done:
			t.Error("a refresh published during RunCurrent")
		case <-time.After(20 * time.Millisecond):
		}
		if gen, _ := store.CurrentGeneration(s.dir); gen != b.Revision() {
			t.Errorf("generation %d current during RunCurrent", gen)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	gen2 := <-done

	// The pinned generation still answers byte for byte and replays.
	if got := s.body(t, b.Revision(), "guide"); got != "# Guide\n\nsecret body one\n" {
		t.Fatalf("pinned generation reads %q", got)
	}
	again, err := Replay(ctx, s, receipt)
	if err != nil {
		t.Fatalf("replay after a refresh: %v", err)
	}
	if again.Revision() != b.Revision() || string(again.Receipt().Canonical()) != string(b.Receipt().Canonical()) {
		t.Fatalf("replayed into generation %d", again.Revision())
	}
	rerun := func(_ context.Context, b *Binding, _ string, _ []byte) ([]byte, error) {
		return []byte(s.body(t, b.Revision(), "guide")), nil
	}
	if _, err := VerifyEvidence(ctx, s, evFile, rerun); err != nil {
		t.Fatalf("evidence after a refresh: %v", err)
	}
	wantRejected(t, "RequireCurrent after a refresh", b.RequireCurrent(ctx))
	wantRejected(t, "RunCurrent after a refresh", b.RunCurrent(ctx, func(context.Context) error {
		t.Error("fn ran on a stale binding")
		return nil
	}))
	b2, err := Bind(ctx, s)
	if err != nil || b2.Revision() != gen2 || b2.ManifestDigest() == b.ManifestDigest() {
		t.Fatalf("bind after refresh: %v, generation %d", err, b2.Revision())
	}

	// Past retain, the generation is gone: the pin is stale, the receipt
	// and the evidence are rejected.
	s.write(t, "guide", "three")
	s.write(t, "guide", "four")
	if _, err := s.Generation(ctx, b.Revision()); docir.CodeOf(err) != docir.CodeStaleRevision {
		t.Errorf("pruned generation: %v", err)
	}
	_, err = Replay(ctx, s, receipt)
	wantStale(t, "replay past retain", err)
	_, err = VerifyEvidence(ctx, s, evFile, rerun)
	wantStale(t, "evidence past retain", err)

	// A receipt of another store with the same content is foreign.
	other := &storeService{dir: filepath.Join(t.TempDir(), ".docir"), root: s.root, retain: 3}
	other.write(t, "guide", "four")
	_, err = Replay(ctx, other, b2.Receipt().Marshal())
	wantRejected(t, "receipt replayed on another store", err)
}

// TestHoldKeepsTheBoundGeneration: over real generations with retain 1, a
// bind that holds its generation keeps it readable and its receipt
// replaying through any number of refreshes; releasing it (by the receipt
// file) lets the next refresh prune it, and the receipt is then a clear
// stale_revision, not a forgery. A bind with a TTL of 0 holds nothing.
func TestHoldKeepsTheBoundGeneration(t *testing.T) {
	ctx := context.Background()
	s := &storeService{dir: filepath.Join(t.TempDir(), ".docir"), root: t.TempDir(), retain: 1}
	s.write(t, "guide", "one")
	b, err := Bind(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	h, err := b.Hold(ctx, time.Hour)
	if err != nil || h == nil || h.Binds != 1 || h.Generation != b.Revision() || h.Binding != b.Receipt().Digest() {
		t.Fatalf("hold: %+v %v", h, err)
	}
	unheld, err := Bind(ctx, s) // the same generation: the same receipt
	if err != nil {
		t.Fatal(err)
	}
	if h, err := unheld.Hold(ctx, 0); h != nil || err != nil {
		t.Fatalf("a TTL of 0 held: %+v %v", h, err)
	}
	file := b.Receipt().Marshal()
	for _, body := range []string{"two", "three", "four"} {
		s.write(t, "guide", body)
	}
	if _, err := Replay(ctx, s, file); err != nil {
		t.Fatalf("the held generation after 3 refreshes with retain 1: %v", err)
	}
	if got := s.body(t, b.Revision(), "guide"); got != "one" {
		t.Fatalf("the held generation reads %q", got)
	}
	held, err := b.Held(ctx)
	if err != nil || held == nil || held.Binds != 1 {
		t.Fatalf("held: %+v %v", held, err)
	}
	if res, err := b.Result(ctx, held); err != nil || res.Hold == nil || res.Hold.Binds != 1 || !res.Hold.Expires.Equal(held.Expires) || res.Current {
		t.Fatalf("result: %+v %v", res, err)
	}

	// A receipt of another store releases nothing.
	other := &storeService{dir: filepath.Join(t.TempDir(), ".docir"), root: s.root, retain: 1}
	other.write(t, "guide", "one")
	if _, _, err := Release(ctx, other, file); !errors.Is(err, rejected) {
		t.Fatalf("release on another store: %v", err)
	}
	res, released, err := Release(ctx, s, file)
	if err != nil || !released || res.Hold != nil || res.Revision != b.Revision() || res.Receipt != string(file) || res.Current {
		t.Fatalf("release: %+v %v %v", res, released, err)
	}
	if res, released, err = Release(ctx, s, file); err != nil || released || res.Hold != nil {
		t.Fatalf("a second release: %+v %v %v", res, released, err)
	}
	s.write(t, "guide", "five")
	_, err = Replay(ctx, s, file)
	wantStale(t, "replay once released and pruned", err)
	if _, err := b.Hold(ctx, time.Hour); docir.CodeOf(err) != docir.CodeStaleRevision {
		t.Fatalf("a hold of a pruned generation: %v", err)
	}
	if _, err := Select(ctx, s, b.Workspace(), 99); !errors.Is(err, rejected) {
		t.Fatalf("a generation never published: %v", err)
	}
}

func TestParseTTL(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"0": 0, "0s": 0, "90m": 90 * time.Minute, "24h": 24 * time.Hour, "7d": 7 * 24 * time.Hour, "30d": MaxHoldTTL, "1h30m": 90 * time.Minute,
	} {
		if got, err := ParseTTL(in); err != nil || got != want {
			t.Errorf("ParseTTL(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1h", "31d", "721h", "d", "1.5d", "forever", "99999999999d", "1e3", "1ns", "999ms"} {
		if got, err := ParseTTL(in); err == nil {
			t.Errorf("ParseTTL(%q) = %v, want an error", in, got)
		}
	}
}
