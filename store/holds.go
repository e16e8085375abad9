package store

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/docir/docir/docir"
)

// HoldsSchema names the holds record's shape.
//
// Change log:
//
//	docir.holds.v1  {schema, holds: [{binding, generation, binds, created,
//	                expires}]}: times RFC 3339 in UTC, whole seconds.
const HoldsSchema = "docir.holds.v1"

// Bounds of the holds record. A hold pins a generation's bytes on disk,
// and any session may bind (workspace/bind needs no grant), so the record
// is bounded: at most MaxHolds live holds (the oldest is let go first
// when a new one would pass the cap; expired ones go before that), each
// counting at most MaxHoldBinds binds.
const (
	MaxHolds     = 64
	MaxHoldBinds = 1 << 20
	// maxHoldsBytes bounds the file: MaxHolds holds are about 14 KiB.
	maxHoldsBytes = 64 << 10
)

const (
	holdsFile     = "holds"
	holdsLockFile = "holds.lock"
)

// Hold is a binding's hold on one published generation: prune skips the
// generation until every bind holding it is released or the hold expires.
// Holds are per binding: binds of one binding (the same receipt) share
// one hold, counted by Binds; each release ends one of them.
type Hold struct {
	Binding    string    `json:"binding"` // the binding receipt's digest, 64 hex digits
	Generation uint64    `json:"generation"`
	Binds      int       `json:"binds"`
	Created    time.Time `json:"created"` // when its first bind took it
	Expires    time.Time `json:"expires"` // the latest expiry any of its binds asked for
}

// live reports whether the hold still holds at now: it has not expired.
func (h Hold) live(now time.Time) bool { return h.Expires.After(now) }

// holdsRecord is the file's shape.
type holdsRecord struct {
	Schema string `json:"schema"`
	Holds  []Hold `json:"holds"`
}

// ErrHoldsRecord is wrapped by the error of a holds record docir cannot
// read: prune then keeps every generation (it cannot tell which are held),
// and the fix, which the message names, is to remove the file (its holds
// end).
var ErrHoldsRecord = errors.New("unreadable holds record")

// ParseHolds reads a holds record: the closed docir.holds.v1 shape, every
// hold well formed (a 64-hex binding digest, a generation, 1 to
// MaxHoldBinds binds, times set, each binding once), at most MaxHolds of
// them. Any other bytes are an error wrapping ErrHoldsRecord.
func ParseHolds(data []byte) ([]Hold, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrHoldsRecord, fmt.Sprintf(format, args...))
	}
	if len(data) > maxHoldsBytes {
		return nil, bad("%d bytes, over the %d-byte bound", len(data), maxHoldsBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var rec holdsRecord
	if err := dec.Decode(&rec); err != nil {
		return nil, bad("%v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad("data after the record")
	}
	if rec.Schema != HoldsSchema {
		return nil, bad("schema %q, want %q", rec.Schema, HoldsSchema)
	}
	if len(rec.Holds) > MaxHolds {
		return nil, bad("%d holds, over the cap of %d", len(rec.Holds), MaxHolds)
	}
	seen := map[string]bool{}
	for _, h := range rec.Holds {
		switch {
		case !isDigest(h.Binding):
			return nil, bad("binding %q is not 64 lowercase hex digits", docir.Clip(h.Binding, 80))
		case seen[h.Binding]:
			return nil, bad("binding %s held twice", h.Binding)
		case h.Generation == 0:
			return nil, bad("binding %s holds generation 0", h.Binding)
		case h.Binds < 1 || h.Binds > MaxHoldBinds:
			return nil, bad("binding %s: %d binds, want 1 to %d", h.Binding, h.Binds, MaxHoldBinds)
		case h.Created.IsZero() || h.Expires.IsZero():
			return nil, bad("binding %s: no created or expires time", h.Binding)
		}
		seen[h.Binding] = true
	}
	return rec.Holds, nil
}

func isDigest(s string) bool {
	return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == ""
}

// readHolds reads the holds record of the store in dir: none when the
// file is absent.
func readHolds(dir string) ([]Hold, error) {
	name := filepath.Join(dir, holdsFile)
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("holds record %s: %w", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxHoldsBytes+1))
	if err != nil {
		return nil, fmt.Errorf("holds record %s: %w", name, err)
	}
	holds, err := ParseHolds(data)
	if err != nil {
		return nil, docir.Errorf(docir.CodeStoreFormat, "holds record %s: %w; remove the file to end every hold it records", name, err)
	}
	return holds, nil
}

// writeHolds replaces the holds record, crash-safe: written aside, synced,
// renamed into place, the folder synced (a crash leaves the old record or
// the new one).
func writeHolds(dir string, holds []Hold) error {
	if holds == nil {
		holds = []Hold{}
	}
	b, err := json.Marshal(holdsRecord{Schema: HoldsSchema, Holds: holds})
	if err != nil {
		return err
	}
	_, err = writeFileAtomic(filepath.Join(dir, holdsFile), append(b, '\n'))
	return err
}

// lockHolds takes the lock that orders changes of the holds record (a
// read, a change and a write): binds and releases in any process, and a
// refresh's Tidy. It is held for a few file operations, never across a
// refresh. It creates holds.lock when it is not there.
func lockHolds(dir string) (unlock func() error, err error) {
	return flockPath(filepath.Join(dir, holdsLockFile), os.O_CREATE, syscall.LOCK_EX)
}

// changeHolds runs change on the live holds of the record (expired ones,
// and holds of generations no longer on disk, dropped) under the holds
// lock, and writes what it returns when write is true.
//
// Holds are changed only in a published store, and that is checked again
// once the lock is held: a bind or a release checks CURRENT first, but the
// store it found may be removed and its folder claimed by a first index
// meanwhile, before the lock file is made. Finding no CURRENT under the
// lock, it removes holds.lock (which it may have made), while it still
// holds its flock as every remover of a lock file does, and refuses with
// the ErrNoStore error, so that a first index that fails leaves no store
// (Claimed.Undo) and the next one can claim the folder. No holds record
// is ever written into a store before its first publish.
func changeHolds(dir string, now time.Time, change func(holds []Hold) ([]Hold, bool, error)) error {
	unlock, err := lockHolds(dir)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := readCurrent(dir); errors.Is(err, ErrNoStore) {
		return errors.Join(err, removeMissing(filepath.Join(dir, holdsLockFile)))
	} else if err != nil {
		return err
	}
	holds, err := readHolds(dir)
	if err != nil {
		return err
	}
	n := len(holds)
	holds = slices.DeleteFunc(holds, func(h Hold) bool {
		_, err := os.Lstat(genPath(dir, h.Generation))
		return !h.live(now) || errors.Is(err, fs.ErrNotExist)
	})
	holds, write, err := change(holds)
	if err != nil {
		return err
	}
	if !write && len(holds) == n {
		return nil
	}
	return writeHolds(dir, holds)
}

// AddHold records one bind's hold of the binding whose receipt digest is
// binding on generation gen of the store in dir, until expires: prune
// skips the generation until then or until the bind is released
// (ReleaseHold). A hold the binding already has counts one more bind and
// keeps the later expiry. When the record would pass MaxHolds live holds,
// the oldest others are let go (evicted lists them).
//
// gen must be published and still on disk: the hold is recorded while a
// reader's hold (holdGeneration) keeps prune off it, and prune reads the
// record only once it holds the generation alone, so a generation a bind
// was told is held is never pruned after it. A generation pruned (or
// never published) is an error wrapping fs.ErrNotExist.
func AddHold(dir string, gen uint64, binding string, expires, now time.Time) (hold Hold, evicted []Hold, err error) {
	now, expires = now.UTC().Truncate(time.Second), expires.UTC().Truncate(time.Second)
	switch {
	case !isDigest(binding):
		return Hold{}, nil, fmt.Errorf("hold: binding %q is not 64 lowercase hex digits", docir.Clip(binding, 80))
	case !expires.After(now):
		return Hold{}, nil, fmt.Errorf("hold: expires at %s, not after now (%s)", expires.Format(time.RFC3339), now.Format(time.RFC3339))
	}
	if err := published(dir, gen); err != nil {
		return Hold{}, nil, err
	}
	h, err := holdGeneration(genPath(dir, gen))
	if err != nil {
		return Hold{}, nil, fmt.Errorf("hold generation %d: %w", gen, err)
	}
	defer h.Close()
	err = changeHolds(dir, now, func(holds []Hold) ([]Hold, bool, error) {
		i := slices.IndexFunc(holds, func(h Hold) bool { return h.Binding == binding })
		if i < 0 {
			holds = append(holds, Hold{Binding: binding, Generation: gen, Binds: 1, Created: now, Expires: expires})
			i = len(holds) - 1
		} else if holds[i].Generation != gen {
			return nil, false, fmt.Errorf("hold: binding %s holds generation %d, not %d", binding, holds[i].Generation, gen)
		} else {
			holds[i].Binds = min(holds[i].Binds+1, MaxHoldBinds)
			holds[i].Expires = later(holds[i].Expires, expires)
		}
		hold = holds[i]
		for len(holds) > MaxHolds {
			oldest := -1
			for j, h := range holds {
				if h.Binding != binding && (oldest < 0 || h.Created.Before(holds[oldest].Created)) {
					oldest = j
				}
			}
			evicted = append(evicted, holds[oldest])
			holds = slices.Delete(holds, oldest, oldest+1)
		}
		return holds, true, nil
	})
	if err != nil {
		return Hold{}, nil, err
	}
	return hold, evicted, nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// published checks that generation gen of the store in dir was
// published: an error wrapping ErrNotPublished for one past CURRENT.
func published(dir string, gen uint64) error {
	c, err := readCurrent(dir)
	if err != nil {
		return err
	}
	if gen == 0 || gen > c.Generation {
		return fmt.Errorf("hold generation %d of %s (current: %d): %w", gen, dir, c.Generation, ErrNotPublished)
	}
	return nil
}

// ReleaseHold ends one bind's hold of the binding whose receipt digest is
// binding: the hold ends with its last bind. left is what remains of it
// (nil when nothing holds the binding now); released is false when it
// held nothing (never held, released, or expired).
func ReleaseHold(dir, binding string, now time.Time) (left *Hold, released bool, err error) {
	now = now.UTC()
	if _, err := readCurrent(dir); err != nil {
		return nil, false, err
	}
	err = changeHolds(dir, now, func(holds []Hold) ([]Hold, bool, error) {
		i := slices.IndexFunc(holds, func(h Hold) bool { return h.Binding == binding })
		if i < 0 {
			return holds, false, nil
		}
		released = true
		if holds[i].Binds--; holds[i].Binds == 0 {
			return slices.Delete(holds, i, i+1), true, nil
		}
		h := holds[i]
		left = &h
		return holds, true, nil
	})
	if err != nil {
		return nil, false, err
	}
	return left, released, nil
}

// Holds lists the live holds of the store in dir at now, by generation,
// then by when they were taken.
func Holds(dir string, now time.Time) ([]Hold, error) {
	holds, err := readHolds(dir)
	if err != nil {
		return nil, err
	}
	holds = slices.DeleteFunc(holds, func(h Hold) bool { return !h.live(now) })
	slices.SortFunc(holds, func(a, b Hold) int {
		return cmp.Or(cmp.Compare(a.Generation, b.Generation), a.Created.Compare(b.Created), strings.Compare(a.Binding, b.Binding))
	})
	return holds, nil
}

// heldAt reports whether a live hold names generation gen.
func heldAt(dir string, gen uint64, now time.Time) (bool, error) {
	holds, err := readHolds(dir)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(holds, func(h Hold) bool { return h.Generation == gen && h.live(now) }), nil
}

// KeptBytes is what generation gen of the store in dir alone keeps on
// disk: the bytes of its files that no other generation shares (a hard
// link's other name), which pruning it would free. 0 when it is gone.
func KeptBytes(dir string, gen uint64) (int64, error) {
	var n int64
	err := filepath.WalkDir(genPath(dir, gen), func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
			return nil
		}
		n += info.Size()
		return nil
	})
	return n, err
}

// removeHoldsLock removes the store dir's holds.lock, if it is there,
// while it holds the file's flock: a bind that waits on it then finds,
// once granted, that it is no longer the store's and opens the name again
// (flockPath). Only Claimed.Undo calls it: the holds.lock of a store not
// published is one a bind made for an instant (changeHolds) and was
// killed before it removed it, or one the refresh's Tidy made.
func removeHoldsLock(dir string) error {
	name := filepath.Join(dir, holdsLockFile)
	unlock, err := flockPath(name, 0, syscall.LOCK_EX)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return errors.Join(removeMissing(name), unlock())
}

// tidyHolds removes the temporary files of holds-record writes that a
// killed process left, under the holds lock (so never one being written).
func tidyHolds(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var tmps []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), holdsFile+tmpMarker) && !e.IsDir() {
			tmps = append(tmps, e.Name())
		}
	}
	if len(tmps) == 0 {
		return nil
	}
	unlock, err := lockHolds(dir)
	if err != nil {
		return err
	}
	defer unlock()
	var errs []error
	for _, t := range tmps {
		errs = append(errs, removeMissing(filepath.Join(dir, t)))
	}
	return errors.Join(errs...)
}
