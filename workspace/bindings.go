package workspace

import (
	"context"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
	"github.com/docir/docir/workspace/binding"
)

// Bindings returns the service as execution bindings see it
// (binding.Service): the store's workspace identity, its retained
// generations with their manifest digests, and a hold on refreshes.
func (s *Service) Bindings() binding.Service { return binder{s} }

type binder struct{ s *Service }

// Workspace is the store's workspace identity. The store is opened first
// (indexing it, as any read does, when it is new).
func (b binder) Workspace(ctx context.Context) (string, error) {
	if _, err := b.s.Snapshot(ctx); err != nil {
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
	if _, err := b.s.Snapshot(ctx); err != nil {
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
		return nil, docir.Errorf(docir.CodeInternal, "hold refreshes of %s: %v", b.s.cfg.Dir, err)
	}
	return func() { _ = release() }, nil
}
