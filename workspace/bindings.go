package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/workspace/binding"
)

// Bindings returns the service as execution bindings see it
// (binding.Service): the store's workspace identity, its retained
// generations with their manifest digests, a hold on refreshes, and the
// holds that keep bound generations from being pruned (the store's holds
// record).
func (s *Service) Bindings() binding.Service { return binder{s} }

type binder struct{ s *Service }

// Workspace is the store's workspace identity. The store is opened first
// (indexing it, as any read does, when it is new).
func (b binder) Workspace(ctx context.Context) (string, error) {
	if err := b.s.ready(ctx); err != nil {
		return "", err
	}
	return store.Identity(b.s.cfg.Dir)
}

// Generation is a retained generation and its manifest digest;
// stale_revision when the store no longer retains it.
func (b binder) Generation(ctx context.Context, revision uint64) (binding.Generation, error) {
	v, err := b.s.Pin(ctx, revision)
	if err != nil {
		return binding.Generation{}, err
	}
	defer v.Close()
	d, err := v.Snapshot().ManifestDigest()
	if err != nil {
		return binding.Generation{}, err
	}
	return binding.Generation{Revision: revision, ManifestDigest: d}, nil
}

// Current is the store's current generation.
func (b binder) Current(ctx context.Context) (binding.Generation, error) {
	if err := b.s.ready(ctx); err != nil {
		return binding.Generation{}, err
	}
	cur, err := store.CurrentGeneration(b.s.cfg.Dir)
	if err != nil {
		return binding.Generation{}, err
	}
	return b.Generation(ctx, cur)
}

// HoldRefresh holds off refreshes of the store, in this process and in
// others, until release.
func (b binder) HoldRefresh(ctx context.Context) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	release, err := store.HoldRefresh(b.s.cfg.Dir)
	if err != nil {
		return nil, docir.Errorf(docir.CodeInternal, "hold refreshes of %s: %w", b.s.cfg.Dir, err)
	}
	return func() { _ = release() }, nil
}

// Hold records one bind's hold of a binding on generation revision for
// ttl, in the store's holds record: prune skips the generation until the
// hold is released or expires. A generation pruned meanwhile is
// stale_revision. When the store's cap of live holds is passed, the
// oldest other holds are let go; a note says which.
func (b binder) Hold(ctx context.Context, revision uint64, digest string, ttl time.Duration) (binding.Hold, error) {
	if err := b.s.ready(ctx); err != nil {
		return binding.Hold{}, err
	}
	now := time.Now()
	h, evicted, err := store.AddHold(b.s.cfg.Dir, revision, digest, now.Add(ttl), now)
	if errors.Is(err, fs.ErrNotExist) {
		return binding.Hold{}, b.s.notRetained(revision)
	}
	if err != nil {
		return binding.Hold{}, docir.Errorf(docir.CodeOf(err), "hold generation %d of %s: %w (a bind with ttl 0 takes no hold)", revision, b.s.cfg.Dir, err)
	}
	for _, e := range evicted {
		b.s.notify(fmt.Sprintf("docir: %d holds is the cap: the hold of binding %s on generation %d (taken %s) was let go", store.MaxHolds, e.Binding, e.Generation, e.Created.Format(time.RFC3339)))
	}
	return binding.Hold(h), nil
}

// Release ends one bind's hold of a binding.
func (b binder) Release(ctx context.Context, digest string) (*binding.Hold, bool, error) {
	if err := b.s.ready(ctx); err != nil {
		return nil, false, err
	}
	left, released, err := store.ReleaseHold(b.s.cfg.Dir, digest, time.Now())
	if err != nil {
		return nil, false, docir.Errorf(docir.CodeOf(err), "release the hold of %s in %s: %w", digest, b.s.cfg.Dir, err)
	}
	if left == nil {
		return nil, released, nil
	}
	h := binding.Hold(*left)
	return &h, released, nil
}

// Holds lists the store's live holds.
func (b binder) Holds(ctx context.Context) ([]binding.Hold, error) {
	if err := b.s.ready(ctx); err != nil {
		return nil, err
	}
	holds, err := store.Holds(b.s.cfg.Dir, time.Now())
	if err != nil {
		return nil, err
	}
	out := make([]binding.Hold, len(holds))
	for i, h := range holds {
		out[i] = binding.Hold(h)
	}
	return out, nil
}

// HeldGeneration is one live hold as `docir status` lists it: the hold,
// and the bytes its generation alone keeps on disk (what pruning it would
// free once the hold ends).
type HeldGeneration struct {
	binding.Hold
	KeptBytes int64
}

// Holds lists the store's live holds, by generation, with what each
// generation alone keeps on disk.
func (s *Service) Holds(ctx context.Context) ([]HeldGeneration, error) {
	holds, err := s.Bindings().Holds(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]HeldGeneration, len(holds))
	kept := map[uint64]int64{}
	for i, h := range holds {
		n, ok := kept[h.Generation]
		if !ok {
			if n, err = store.KeptBytes(s.cfg.Dir, h.Generation); err != nil {
				return nil, err
			}
			kept[h.Generation] = n
		}
		out[i] = HeldGeneration{Hold: h, KeptBytes: n}
	}
	return out, nil
}
