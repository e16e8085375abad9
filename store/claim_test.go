package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/docir/docir/docir"
)

type locked struct {
	claim  Claimed
	unlock func() error
	err    error
}

// lockAsync runs LockClaimed on its own goroutine; the first channel
// tells whom it waits for, if it must wait.
func lockAsync(dir string) (<-chan Holder, <-chan locked) {
	waits, got := make(chan Holder, 1), make(chan locked, 1)
	go func() {
		c, u, err := LockClaimed(dir, func(by Holder) { waits <- by })
		got <- locked{c, u, err}
	}()
	return waits, got
}

// mustWait checks that a LockClaimed under way waits (for another
// refresh) and is not granted.
func mustWait(t *testing.T, waits <-chan Holder, got <-chan locked) {
	t.Helper()
	select {
	case by := <-waits:
		if by != HeldByRefresh {
			t.Fatalf("waits on %v, want another refresh", by)
		}
	case l := <-got:
		t.Fatalf("granted while another refresh holds the lock (%v)", l.err)
	case <-time.After(10 * time.Second):
		t.Fatal("neither waits nor is granted")
	}
	select {
	case l := <-got:
		t.Fatalf("granted while another refresh holds the lock (%v)", l.err)
	case <-time.After(50 * time.Millisecond):
	}
}

// notGranted checks that a LockClaimed under way is not granted.
func notGranted(t *testing.T, got <-chan locked) {
	t.Helper()
	select {
	case l := <-got:
		t.Fatalf("granted while another refresh holds the lock (%v)", l.err)
	case <-time.After(100 * time.Millisecond):
	}
}

// TestUndoWhileOthersLock: a first index that failed removes the store it
// made (Undo), lock file and folder, while it holds the lock. A refresh
// that waited on that lock file is not left holding it once granted: it
// claims the folder again and takes the lock of the store as it is now.
// Here a third refresh made a new store meanwhile and holds its lock, so
// the one that waited waits for it (were it granted the removed file, both
// would run), and then goes on in the third's store, whose claim is not
// its own to undo.
func TestUndoWhileOthersLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "made", ".docir")
	a, unlockA, err := LockClaimed(dir, nil)
	if err != nil || !a.New() {
		t.Fatalf("first claim: new %v, %v", a.New(), err)
	}
	waitsB, gotB := lockAsync(dir)
	mustWait(t, waitsB, gotB)
	if err := a.Undo(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(dir)); !os.IsNotExist(err) {
		t.Fatalf("Undo left the folder it made: %v", err)
	}
	c, unlockC, err := LockClaimed(dir, func(Holder) { t.Error("a new store's lock was held") })
	if err != nil || !c.New() {
		t.Fatalf("a claim after Undo: new %v, %v", c.New(), err)
	}
	if err := unlockA(); err != nil {
		t.Fatal(err)
	}
	notGranted(t, gotB)
	if err := unlockC(); err != nil {
		t.Fatal(err)
	}
	b := <-gotB
	if b.err != nil || b.claim.New() {
		t.Fatalf("the waiting refresh: new %v, %v", b.claim.New(), b.err)
	}
	// Only a claim that made the store undoes it.
	if err := b.claim.Undo(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, identityFile)); err != nil {
		t.Fatalf("a claim that made nothing undid the store: %v", err)
	}
	b.unlock()

	// With no one else about, the waiting one makes the store anew.
	a, unlockA, err = LockClaimed(dir+"2", nil)
	if err != nil || !a.New() {
		t.Fatalf("first claim: new %v, %v", a.New(), err)
	}
	waitsB, gotB = lockAsync(dir + "2")
	mustWait(t, waitsB, gotB)
	if err := errors.Join(a.Undo(), unlockA()); err != nil {
		t.Fatal(err)
	}
	b = <-gotB
	if b.err != nil || !b.claim.New() {
		t.Fatalf("the waiting refresh: new %v, %v", b.claim.New(), b.err)
	}
	waitsC, gotC := lockAsync(dir + "2")
	mustWait(t, waitsC, gotC)
	b.unlock()
	if l := <-gotC; l.err != nil {
		t.Fatal(l.err)
	} else {
		l.unlock()
	}
}

// TestClaimDuringUndo: a refresh that claims the folder while a failed
// first index is undoing its store (IDENTITY gone, the lock file still
// there and held) makes the store itself, waits on the lock file that is
// then removed, and claims again: the store it goes on with is still the
// one it made, so a failure of its own undoes it.
func TestClaimDuringUndo(t *testing.T) {
	dir := t.TempDir()
	a, unlockA, err := LockClaimed(dir, nil)
	if err != nil || !a.New() {
		t.Fatalf("first claim: new %v, %v", a.New(), err)
	}
	for _, name := range []string{ignoreFile, identityFile} { // Undo, half done
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	waitsB, gotB := lockAsync(dir)
	mustWait(t, waitsB, gotB)
	if err := errors.Join(os.Remove(filepath.Join(dir, lockFile)), unlockA()); err != nil {
		t.Fatal(err)
	}
	b := <-gotB
	if b.err != nil || !b.claim.New() {
		t.Fatalf("the refresh that claimed during Undo: new %v, %v", b.claim.New(), b.err)
	}
	if err := errors.Join(b.claim.Undo(), b.unlock()); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Undo left %v", entries)
	}
}

// TestHoldAcrossUndo: a read that waits to hold refreshes off while a
// failed first index removes its store is not left holding the removed
// lock file: it holds the folder's lock, which a refresh then waits for.
func TestHoldAcrossUndo(t *testing.T) {
	dir := t.TempDir() // there before: Undo leaves the folder
	a, unlockA, err := LockClaimed(dir, nil)
	if err != nil || !a.New() {
		t.Fatalf("first claim: new %v, %v", a.New(), err)
	}
	held := make(chan func() error, 1)
	go func() {
		release, err := HoldRefresh(dir)
		if err != nil {
			t.Error(err)
		}
		held <- release
	}()
	time.Sleep(50 * time.Millisecond) // let it wait on the lock file
	if err := a.Undo(); err != nil {
		t.Fatal(err)
	}
	if err := unlockA(); err != nil {
		t.Fatal(err)
	}
	release := <-held
	if release == nil {
		return
	}
	waits, got := lockAsync(dir)
	select {
	case by := <-waits:
		if by != HeldByReads {
			t.Errorf("waits on %v, want the read", by)
		}
	case l := <-got:
		t.Fatalf("a refresh took the lock a read holds (%v)", l.err)
	}
	release()
	if l := <-got; l.err != nil || !l.claim.New() {
		t.Fatalf("the refresh: new %v, %v", l.claim.New(), l.err)
	} else {
		l.unlock()
	}
}

// TestClaimEmptyLock: a folder holding nothing but dotfiles and empty
// lock files (lock or holds.lock: what Undo or a bind leaves for an
// instant, or a kill then) is claimed; one with a lock file that holds
// anything is not docir's.
func TestClaimEmptyLock(t *testing.T) {
	for _, name := range []string{lockFile, holdsLockFile} {
		for _, c := range []struct {
			lock string
			ok   bool
		}{{"", true}, {"mine\n", false}} {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, name), []byte(c.lock), 0o644); err != nil {
				t.Fatal(err)
			}
			claim, err := Claim(dir)
			if c.ok && (err != nil || !claim.New()) {
				t.Errorf("%s %q: new %v, %v", name, c.lock, claim.New(), err)
			}
			if !c.ok && docir.CodeOf(err) != docir.CodeUsage {
				t.Errorf("%s %q: %v, want a usage error", name, c.lock, err)
			}
		}
	}
}

// TestUndoRemovesHoldsLock: a failed first index removes a holds.lock
// in the store it made (one a bind killed before it removed it left, see
// changeHolds), taking its flock first, and so leaves no folder.
func TestUndoRemovesHoldsLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s", ".docir")
	claim, unlock, err := LockClaimed(dir, nil)
	if err != nil || !claim.New() {
		t.Fatalf("first claim: new %v, %v", claim.New(), err)
	}
	unlockHolds, err := lockHolds(dir) // a bind, killed holding it
	if err != nil {
		t.Fatal(err)
	}
	if err := unlockHolds(); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(claim.Undo(), unlock()); err != nil {
		t.Fatal(err)
	}
	if entries, err := os.ReadDir(filepath.Dir(dir)); !os.IsNotExist(err) {
		t.Errorf("the failed first index left %v (%v)", entries, err)
	}
}

// TestHoldsDuringFailedFirstIndex: a bind or a release whose check of
// CURRENT passed on a store that was then removed, and whose folder a new
// first index has claimed meanwhile, comes to change the holds record of
// a store that is not published. It must refuse (ErrNoStore) and leave no
// file there, neither holds.lock nor holds: then the first index, failing,
// leaves no store (Undo), and the next one claims the folder (it refused
// the holds.lock such a bind left).
func TestHoldsDuringFailedFirstIndex(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		name   string
		change func([]Hold) ([]Hold, bool, error)
	}{
		{"release", func(h []Hold) ([]Hold, bool, error) { return h, false, nil }},
		{"bind", func(h []Hold) ([]Hold, bool, error) {
			return append(h, Hold{Binding: digestN(0), Generation: 1, Binds: 1, Created: now, Expires: now.Add(time.Hour)}), true, nil
		}},
	} {
		dir := filepath.Join(t.TempDir(), "s", ".docir")
		claim, unlock, err := LockClaimed(dir, nil)
		if err != nil || !claim.New() {
			t.Fatalf("%s: first claim: new %v, %v", c.name, claim.New(), err)
		}
		if _, _, err := AddHold(dir, 1, digestN(0), now.Add(time.Hour), now); !errors.Is(err, ErrNoStore) {
			t.Errorf("%s: a bind took a hold in a store not published: %v", c.name, err)
		}
		if _, _, err := ReleaseHold(dir, digestN(0), now); !errors.Is(err, ErrNoStore) {
			t.Errorf("%s: a release in a store not published: %v", c.name, err)
		}
		// a bind or a release whose check passed before the folder was
		// claimed anew
		if err := changeHolds(dir, now, c.change); !errors.Is(err, ErrNoStore) {
			t.Errorf("%s: changed the holds of a store not published: %v, want %v", c.name, err, ErrNoStore)
		}
		if err := errors.Join(claim.Undo(), unlock()); err != nil {
			t.Fatal(err)
		}
		if entries, err := os.ReadDir(dir); !os.IsNotExist(err) {
			t.Errorf("%s: the failed first index left %v (%v)", c.name, entries, err)
		}
		claim, unlock, err = LockClaimed(dir, nil)
		if err != nil || !claim.New() {
			t.Fatalf("%s: the next index: new %v, %v", c.name, claim.New(), err)
		}
		if err := errors.Join(claim.Undo(), unlock()); err != nil {
			t.Fatal(err)
		}
	}
}
