package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/store/faultfs"
)

// digestN is a well-formed binding digest, distinct for each n.
func digestN(n int) string { return fmt.Sprintf("%064x", n+1) }

// TestHoldKeepsGenerationThroughPrune: a binding's hold keeps its
// generation past retain through every later publish, until the last of
// its binds is released; then the next publish prunes it. An expired hold
// keeps nothing.
func TestHoldKeepsGenerationThroughPrune(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	gen1 := publish(t, dir, 1, putFile("/src", "", "a.md", "a", "v1", 1))
	h, evicted, err := AddHold(dir, gen1, digestN(0), now.Add(time.Hour), now)
	if err != nil || len(evicted) != 0 {
		t.Fatal(err, evicted)
	}
	if h.Binds != 1 || h.Generation != gen1 || !h.Expires.Equal(now.Add(time.Hour).UTC().Truncate(time.Second)) {
		t.Fatalf("hold %+v", h)
	}
	// A second bind of the same binding: one hold, two binds, the later
	// expiry.
	if h, _, err = AddHold(dir, gen1, digestN(0), now.Add(time.Minute), now); err != nil || h.Binds != 2 || !h.Expires.Equal(now.Add(time.Hour).UTC().Truncate(time.Second)) {
		t.Fatalf("second bind: %+v %v", h, err)
	}
	// An expired hold of another binding on generation 2 keeps nothing.
	gen2 := publish(t, dir, 1, putFile("/src", "", "a.md", "a", "v2", 1))
	past := now.Add(-2 * time.Hour)
	if _, _, err := AddHold(dir, gen2, digestN(1), past.Add(time.Hour), past); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		publish(t, dir, 1, putFile("/src", "", "a.md", "a", fmt.Sprint("v", 3+i), 1))
	}
	// (publish reads the previous generation while it publishes: a
	// reader's hold keeps that one too.)
	if got, _ := Retained(dir); !cmp.Equal([]uint64{1, 4, 5}, got) {
		t.Fatalf("retained with generation 1 held: %v", got)
	}
	s := open(t, dir, gen1)
	if _, body, ok, err := s.Lookup("a"); err != nil || !ok || string(body) != "v1" {
		t.Fatalf("held generation reads %q %v %v", body, ok, err)
	}
	s.Close()
	holds, err := Holds(dir, now)
	if err != nil || len(holds) != 1 || holds[0].Binding != digestN(0) {
		t.Fatalf("holds %+v %v", holds, err)
	}
	// One release leaves one bind; the generation stays.
	left, released, err := ReleaseHold(dir, digestN(0), now)
	if err != nil || !released || left == nil || left.Binds != 1 {
		t.Fatalf("release: %+v %v %v", left, released, err)
	}
	publish(t, dir, 1, putFile("/src", "", "a.md", "a", "v6", 1))
	if got, _ := Retained(dir); !cmp.Equal([]uint64{1, 5, 6}, got) {
		t.Fatalf("retained with one bind left: %v", got)
	}
	// The last release ends the hold; the next publish prunes it.
	if left, released, err = ReleaseHold(dir, digestN(0), now); err != nil || !released || left != nil {
		t.Fatalf("last release: %+v %v %v", left, released, err)
	}
	if left, released, err = ReleaseHold(dir, digestN(0), now); err != nil || released || left != nil {
		t.Fatalf("a release of nothing: %+v %v %v", left, released, err)
	}
	publish(t, dir, 1, putFile("/src", "", "a.md", "a", "v7", 1))
	if got, _ := Retained(dir); !cmp.Equal([]uint64{6, 7}, got) {
		t.Fatalf("retained once released: %v", got)
	}
	// A hold of a pruned generation is refused as not existing.
	if _, _, err := AddHold(dir, gen1, digestN(0), now.Add(time.Hour), now); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a hold of a pruned generation: %v", err)
	}
	if _, _, err := AddHold(dir, 8, digestN(0), now.Add(time.Hour), now); !errors.Is(err, ErrNotPublished) {
		t.Fatalf("a hold of a generation not yet published: %v", err)
	}
}

// TestHoldsAreBounded: a store keeps at most MaxHolds live holds; a new
// one past the cap lets the oldest go first (expired ones went before).
func TestHoldsAreBounded(t *testing.T) {
	dir := t.TempDir()
	gen := publish(t, dir, 1, putFile("/src", "", "a.md", "a", "v1", 1))
	start := time.Now().Add(-time.Hour)
	for i := range MaxHolds {
		now := start.Add(time.Duration(i) * time.Second)
		if _, ev, err := AddHold(dir, gen, digestN(i), now.Add(24*time.Hour), now); err != nil || len(ev) != 0 {
			t.Fatalf("hold %d: %v %v", i, ev, err)
		}
	}
	now := start.Add(time.Hour)
	_, ev, err := AddHold(dir, gen, digestN(MaxHolds), now.Add(time.Hour), now)
	if err != nil || len(ev) != 1 || ev[0].Binding != digestN(0) {
		t.Fatalf("past the cap: evicted %+v, %v", ev, err)
	}
	holds, err := Holds(dir, now)
	if err != nil || len(holds) != MaxHolds {
		t.Fatalf("%d holds, %v", len(holds), err)
	}
	data, err := os.ReadFile(filepath.Join(dir, holdsFile))
	if err != nil || len(data) > maxHoldsBytes {
		t.Fatalf("the record at the cap: %d bytes, %v", len(data), err)
	}
	// A bind of a held binding counts, but never past MaxHoldBinds.
	rec := append([]Hold(nil), holds...)
	rec[0].Binds = MaxHoldBinds
	if err := writeHolds(dir, rec); err != nil {
		t.Fatal(err)
	}
	h, _, err := AddHold(dir, gen, rec[0].Binding, now.Add(time.Hour), now)
	if err != nil || h.Binds != MaxHoldBinds {
		t.Fatalf("binds past the bound: %+v %v", h, err)
	}
}

// TestHoldsRecordRefusesBadBytes: ParseHolds takes only the closed,
// well-formed shape; a record docir cannot read keeps every generation
// from prune, and its error says how to end it.
func TestHoldsRecordRefusesBadBytes(t *testing.T) {
	good := `{"schema":"docir.holds.v1","holds":[{"binding":"` + digestN(0) + `","generation":1,"binds":1,"created":"2030-01-01T00:00:00Z","expires":"2030-01-02T00:00:00Z"}]}`
	if _, err := ParseHolds([]byte(good)); err != nil {
		t.Fatalf("the good record: %v", err)
	}
	for _, bad := range []string{
		``, `null`, `[]`, `{}`,
		`{"schema":"docir.holds.v2","holds":[]}`,
		`{"schema":"docir.holds.v1","holds":[],"extra":1}`,
		`{"schema":"docir.holds.v1","holds":[]} {}`,
		strings.Replace(good, `"binds":1`, `"binds":0`, 1),
		strings.Replace(good, `"generation":1`, `"generation":0`, 1),
		strings.Replace(good, digestN(0), "ABC", 1),
		strings.Replace(good, `,"expires":"2030-01-02T00:00:00Z"`, ``, 1),
		strings.Replace(good, `}]}`, `},`+good[len(`{"schema":"docir.holds.v1","holds":[`):], 1), // the binding twice
	} {
		if _, err := ParseHolds([]byte(bad)); !errors.Is(err, ErrHoldsRecord) {
			t.Errorf("ParseHolds(%q): %v", bad, err)
		}
	}
	dir := t.TempDir()
	publish(t, dir, 1, putFile("/src", "", "a.md", "a", "v1", 1))
	publish(t, dir, 1, putFile("/src", "", "a.md", "a", "v2", 1))
	if err := os.WriteFile(filepath.Join(dir, holdsFile), []byte("{garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	prev := open(t, dir, 2)
	p, err := Begin(dir, prev)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(p.FullTextPath(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := p.Apply(putFile("/src", "", "a.md", "a", "v3", 1)); err != nil {
		t.Fatal(err)
	}
	after, err := p.Publish(1)
	if err != nil || after == nil || !strings.Contains(after.Error(), "remove the file") {
		t.Fatalf("publish over an unreadable holds record: after %v, err %v", after, err)
	}
	if got, _ := Retained(dir); !cmp.Equal([]uint64{1, 2, 3}, got) {
		t.Fatalf("retained with an unreadable holds record: %v", got)
	}
	if _, _, err := AddHold(dir, 2, digestN(0), time.Now().Add(time.Hour), time.Now()); !errors.Is(err, ErrHoldsRecord) {
		t.Fatalf("a bind over an unreadable record: %v", err)
	}
}

// FuzzParseHolds: the holds record is a file in the store anyone may
// edit; ParseHolds never panics, and what it accepts it writes back to a
// record it reads the same.
func FuzzParseHolds(f *testing.F) {
	f.Add([]byte(`{"schema":"docir.holds.v1","holds":[{"binding":"` + digestN(0) + `","generation":1,"binds":1,"created":"2030-01-01T00:00:00Z","expires":"2030-01-02T00:00:00Z"}]}`))
	f.Add([]byte(`{"schema":"docir.holds.v1","holds":[]}`))
	f.Add([]byte(`{"schema":"docir.holds.v1","holds":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		holds, err := ParseHolds(data)
		if err != nil {
			return
		}
		dir := t.TempDir()
		if err := writeHolds(dir, holds); err != nil {
			t.Fatal(err)
		}
		again, err := readHolds(dir)
		if err != nil {
			t.Fatalf("a record ParseHolds took does not read back: %v", err)
		}
		if len(again) != len(holds) {
			t.Fatalf("read back %d holds, wrote %d", len(again), len(holds))
		}
	})
}

// TestHoldRacesPrune: binds and publishes (each pruning with retain 1) run
// side by side; every bind that succeeded leaves its generation on disk
// and openable, and every one that failed was refused as not existing.
func TestHoldRacesPrune(t *testing.T) {
	dir := t.TempDir()
	publish(t, dir, 1, putFile("/src", "", "a.md", "a", "v0", 1))
	var wg sync.WaitGroup
	var mu sync.Mutex
	held := map[uint64]bool{}
	stop := make(chan struct{})
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				gen, err := CurrentGeneration(dir)
				if err != nil {
					t.Error(err)
					return
				}
				now := time.Now()
				_, _, err = AddHold(dir, gen, digestN(int(gen)*1000+100*w+i%10), now.Add(time.Hour), now)
				switch {
				case err == nil:
					mu.Lock()
					held[gen] = true
					mu.Unlock()
				case !errors.Is(err, fs.ErrNotExist):
					t.Errorf("bind of generation %d: %v", gen, err)
					return
				}
			}
		}()
	}
	for i := range 30 {
		publish(t, dir, 1, putFile("/src", "", "a.md", "a", fmt.Sprint("v", i+1), 1))
	}
	close(stop)
	wg.Wait()
	holds, err := Holds(dir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	live := map[uint64]bool{}
	for _, h := range holds {
		live[h.Generation] = true
	}
	for gen := range held {
		if !live[gen] {
			continue // evicted past the cap: not held any more
		}
		s, err := OpenGeneration(dir, gen)
		if err != nil {
			t.Errorf("generation %d is held but does not open: %v", gen, err)
			continue
		}
		s.Close()
	}
	if len(held) < 2 {
		t.Logf("only %d generations held; the race was not exercised much", len(held))
	}
}

// TestHoldsWriteIsCrashSafe fails each file operation of a bind in turn
// (through the store's fault seam): the bind fails, the record on disk is
// the one before it, whole, and the next bind succeeds; temporary files
// it left are tidied by the next refresh.
func TestHoldsWriteIsCrashSafe(t *testing.T) {
	dir := t.TempDir()
	gen := publish(t, dir, 1, putFile("/src", "", "a.md", "a", "v1", 1))
	now := time.Now()
	if _, _, err := AddHold(dir, gen, digestN(0), now.Add(time.Hour), now); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, holdsFile))
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	restore := faultfs.Set(func(op faultfs.Op, p string) error {
		ops = append(ops, op.String()+" "+filepath.Base(p))
		return nil
	})
	if _, _, err := AddHold(dir, gen, digestN(1), now.Add(time.Hour), now); err != nil {
		t.Fatal(err)
	}
	restore()
	if err := writeHolds(dir, mustHolds(t, before)); err != nil {
		t.Fatal(err)
	}
	if len(ops) < 3 {
		t.Fatalf("a bind counted %d operations: %q", len(ops), ops)
	}
	for k := range ops {
		n := 0
		restore := faultfs.Set(func(op faultfs.Op, p string) error {
			if n++; n == k+1 {
				return syscall.EIO
			}
			return nil
		})
		_, _, err := AddHold(dir, gen, digestN(1), now.Add(time.Hour), now)
		restore()
		after, rerr := os.ReadFile(filepath.Join(dir, holdsFile))
		switch {
		case rerr != nil:
			t.Fatalf("EIO at %s: the record is gone: %v", ops[k], rerr)
		case err == nil && !strings.HasPrefix(ops[k], "sync holds") && ops[k] != "sync "+filepath.Base(dir):
			t.Errorf("EIO at %s: the bind succeeded", ops[k])
		case err != nil && !errors.Is(err, syscall.EIO):
			t.Errorf("EIO at %s: error %v does not say so", ops[k], err)
		}
		holds, perr := ParseHolds(after)
		if perr != nil {
			t.Fatalf("EIO at %s: the record does not parse: %v", ops[k], perr)
		}
		if len(holds) != 1 && len(holds) != 2 {
			t.Errorf("EIO at %s: %d holds", ops[k], len(holds))
		}
		if err := writeHolds(dir, mustHolds(t, before)); err != nil {
			t.Fatal(err)
		}
	}
	// Leftovers of a write killed before its rename go with the next
	// refresh's Tidy.
	if err := os.WriteFile(filepath.Join(dir, holdsFile+tmpMarker+"123"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Tidy(dir); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, holdsFile+tmpMarker+"*")); len(m) != 0 {
		t.Errorf("left after Tidy: %v", m)
	}
}

func mustHolds(t *testing.T, data []byte) []Hold {
	t.Helper()
	h, err := ParseHolds(data)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestKeptBytes: what a generation alone keeps is the bytes of its files
// no other generation links.
func TestKeptBytes(t *testing.T) {
	dir := t.TempDir()
	gen1 := publish(t, dir, 3, putFile("/src", "", "a.md", "a", strings.Repeat("x", 5000), 1))
	one, err := KeptBytes(dir, gen1)
	if err != nil || one <= 0 {
		t.Fatalf("generation 1 alone keeps %d: %v", one, err)
	}
	gen2 := publish(t, dir, 3, putFile("/src", "", "b.md", "b", "y", 1))
	shared, err := KeptBytes(dir, gen1)
	if err != nil || shared >= one {
		t.Fatalf("generation 1 keeps %d once generation 2 links its layer (%d before): %v", shared, one, err)
	}
	var want int64
	_ = filepath.WalkDir(genPath(dir, gen2), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			info, _ := d.Info()
			if info.Sys().(*syscall.Stat_t).Nlink == 1 {
				want += info.Size()
			}
		}
		return nil
	})
	if got, err := KeptBytes(dir, gen2); err != nil || got != want {
		t.Fatalf("generation 2 keeps %d, want %d: %v", got, want, err)
	}
	if got, err := KeptBytes(dir, 99); err != nil || got != 0 {
		t.Fatalf("a generation that is not there keeps %d: %v", got, err)
	}
}
