package binding

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/docir/docir/docir"
)

// Generation is one retained generation as the service knows it.
type Generation struct {
	Revision       uint64
	ManifestDigest string // hex sha256 of the generation's canonical manifest
}

// Service is what a binding needs of the workspace: its identity, its
// retained generations, a way to hold refreshes off, and the holds that
// keep a bound generation from being pruned. The workspace service
// implements it; the binding never opens the store itself.
type Service interface {
	// Workspace returns the store's workspace identity.
	Workspace(ctx context.Context) (string, error)
	// Generation returns a retained generation; docir.CodeStaleRevision
	// when revision is not (or no longer) retained.
	Generation(ctx context.Context, revision uint64) (Generation, error)
	// Current returns the current generation.
	Current(ctx context.Context) (Generation, error)
	// HoldRefresh holds refreshes off until release is called: a refresh
	// started meanwhile waits, it never interleaves.
	HoldRefresh(ctx context.Context) (release func(), err error)

	// Hold records one bind's hold of the binding whose receipt digest is
	// binding on generation revision, for ttl (more than 0): the store
	// keeps the generation until the hold is released or expires. A
	// generation no longer retained is docir.CodeStaleRevision.
	Hold(ctx context.Context, revision uint64, binding string, ttl time.Duration) (Hold, error)
	// Release ends one bind's hold of the binding whose receipt digest is
	// binding. left is what remains of the hold (nil: nothing holds the
	// binding now); released is false when nothing held it.
	Release(ctx context.Context, binding string) (left *Hold, released bool, err error)
	// Holds lists the store's live holds.
	Holds(ctx context.Context) ([]Hold, error)
}

// Binding is a task pinned to one retained generation of one workspace. It
// is made only by Select, Bind and Replay, from the service's own state.
type Binding struct {
	svc       Service
	workspace string
	gen       Generation
	receipt   Receipt
}

// Select binds to generation expectedRevision of workspace
// expectedWorkspace, or answers docir.CodeBindingRejected when the service
// is another workspace, and docir.CodeStaleRevision when it no longer
// retains that generation. Errors of the service itself (no store, say)
// pass through with their own code.
func Select(ctx context.Context, svc Service, expectedWorkspace string, expectedRevision uint64) (*Binding, error) {
	if !validWorkspace(expectedWorkspace) {
		return nil, docir.Errorf(docir.CodeBindingRejected, "binding: workspace %q is not a workspace identity (32 lowercase hex digits)", docir.Clip(expectedWorkspace, maxQuoted))
	}
	if expectedRevision == 0 || expectedRevision > maxRevision {
		return nil, docir.Errorf(docir.CodeBindingRejected, "binding: revision %d names no generation", expectedRevision)
	}
	have, err := svc.Workspace(ctx)
	if err != nil {
		return nil, err
	}
	if have != expectedWorkspace {
		return nil, docir.Errorf(docir.CodeBindingRejected, "binding: the receipt is for workspace %s; this store is workspace %s", expectedWorkspace, have)
	}
	g, err := svc.Generation(ctx, expectedRevision)
	switch docir.CodeOf(err) {
	case "":
	case docir.CodeStaleRevision:
		// A generation this store never reached is a forgery; one it
		// pruned (its holds released or expired) is stale: the receipt
		// may be genuine, but nothing is left to check it against.
		if cur, cerr := svc.Current(ctx); cerr == nil && expectedRevision > cur.Revision {
			return nil, &docir.Error{Code: docir.CodeBindingRejected, Message: fmt.Sprintf("binding: workspace %s never published generation %d (current: %d)", have, expectedRevision, cur.Revision), Err: err}
		}
		return nil, &docir.Error{Code: docir.CodeStaleRevision, Message: fmt.Sprintf("binding: workspace %s: %v (no hold keeps it: released, expired or never taken)", have, err), Err: err}
	case docir.CodeBindingRejected:
		return nil, &docir.Error{Code: docir.CodeBindingRejected, Message: fmt.Sprintf("binding: workspace %s: %v", have, err), Err: err}
	default:
		return nil, err
	}
	return newBinding(svc, have, g, expectedRevision)
}

// Bind binds to the current generation of the service's workspace.
func Bind(ctx context.Context, svc Service) (*Binding, error) {
	ws, err := svc.Workspace(ctx)
	if err != nil {
		return nil, err
	}
	g, err := svc.Current(ctx)
	if err != nil {
		return nil, err
	}
	return newBinding(svc, ws, g, g.Revision)
}

// newBinding checks what the service answered and builds the receipt.
func newBinding(svc Service, ws string, g Generation, want uint64) (*Binding, error) {
	if !validWorkspace(ws) {
		return nil, docir.Errorf(docir.CodeInternal, "binding: the service's workspace identity %q is not 32 lowercase hex digits", docir.Clip(ws, maxQuoted))
	}
	if g.Revision != want || g.Revision == 0 || g.Revision > maxRevision {
		return nil, docir.Errorf(docir.CodeInternal, "binding: asked for generation %d, the service answered generation %d", want, g.Revision)
	}
	if !validDigest(g.ManifestDigest) {
		return nil, docir.Errorf(docir.CodeInternal, "binding: generation %d has manifest digest %q, not 64 lowercase hex digits", g.Revision, docir.Clip(g.ManifestDigest, maxQuoted))
	}
	return &Binding{svc: svc, workspace: ws, gen: g, receipt: newReceipt(ws, g.Revision, g.ManifestDigest)}, nil
}

// Workspace is the identity of the workspace the binding is pinned to.
func (b *Binding) Workspace() string { return b.workspace }

// Revision is the number of the generation the binding is pinned to.
func (b *Binding) Revision() uint64 { return b.gen.Revision }

// ManifestDigest is the manifest digest of the bound generation.
func (b *Binding) ManifestDigest() string { return b.gen.ManifestDigest }

// Receipt is the binding's receipt.
func (b *Binding) Receipt() Receipt { return b.receipt }

// Replay verifies a receipt file against the service: it parses it (closed,
// canonical bytes only), reselects the generation it names, rebuilds the
// receipt from the service's own state, and compares bytes and digest
// exactly. An edited field, reordered keys, a remint over edited content or
// a foreign workspace are docir.CodeBindingRejected; a generation pruned
// since is docir.CodeStaleRevision (the receipt may be genuine, but there
// is nothing left to check it against).
func Replay(ctx context.Context, svc Service, file []byte) (*Binding, error) {
	c, err := ParseReceipt(file)
	if err != nil {
		return nil, err
	}
	b, err := Select(ctx, svc, c.Workspace, c.Revision)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(b.receipt.canonical, c.canonical) || b.receipt.digest != c.Digest {
		return nil, docir.Errorf(docir.CodeBindingRejected, "binding: the receipt does not match generation %d of workspace %s: it records manifest_digest %s, the store's is %s", c.Revision, c.Workspace, c.ManifestDigest, b.gen.ManifestDigest)
	}
	return b, nil
}

// RequireCurrent rejects the binding (docir.CodeBindingRejected) when its
// generation is no longer the service's current one.
func (b *Binding) RequireCurrent(ctx context.Context) error {
	cur, err := b.svc.Current(ctx)
	if err != nil {
		return err
	}
	if cur.Revision != b.gen.Revision {
		return docir.Errorf(docir.CodeBindingRejected, "binding: pinned to generation %d, but generation %d is current", b.gen.Revision, cur.Revision)
	}
	if cur.ManifestDigest != b.gen.ManifestDigest {
		return docir.Errorf(docir.CodeBindingRejected, "binding: generation %d now has manifest digest %s, the binding records %s", cur.Revision, cur.ManifestDigest, b.gen.ManifestDigest)
	}
	return nil
}

// RunCurrent runs fn with refreshes held off: it takes the hold, checks
// that the binding's generation is current while holding it, and rejects a
// stale binding before fn runs. A refresh started meanwhile waits for fn.
func (b *Binding) RunCurrent(ctx context.Context, fn func(context.Context) error) error {
	release, err := b.svc.HoldRefresh(ctx)
	if err != nil {
		return err
	}
	defer release()
	if err := b.RequireCurrent(ctx); err != nil {
		return err
	}
	return fn(ctx)
}

// maxQuoted bounds what a message quotes of outside input (docir.Clip).
const maxQuoted = 80
