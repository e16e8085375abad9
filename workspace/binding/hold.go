package binding

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/docir/docir/docir"
)

// Hold is a binding's hold on its generation, as the store records it:
// the store keeps the generation until every bind holding it is released
// or the hold expires. Binds of one binding (one receipt: a binding's
// receipt is the same for every bind of its generation) share one hold.
type Hold struct {
	Binding    string // the binding receipt's digest
	Generation uint64
	Binds      int       // binds holding it; each release ends one
	Created    time.Time // when its first bind took it
	Expires    time.Time // the latest expiry its binds asked for
}

// Hold durations. Every hold expires: one a task forgot to release keeps
// its generation's bytes a day by default, never longer than MaxHoldTTL.
// A bind with a TTL of 0 takes no hold (its receipt replays while the
// store retains the generation anyway).
const (
	DefaultHoldTTL = 24 * time.Hour
	MaxHoldTTL     = 30 * 24 * time.Hour
	// MinHoldTTL is the shortest hold: a hold's expiry is recorded to the
	// second (store.AddHold), so a shorter one would expire as it is
	// taken ("1ns" was an internal error).
	MinHoldTTL = time.Second
)

// ParseTTL reads a hold's duration as the CLI's --ttl and workspace/bind's
// ttl give it: a Go duration ("90m", "2h30m", "0") or a whole number of
// days ("7d"), 0 (no hold) to MaxHoldTTL.
func ParseTTL(s string) (time.Duration, error) {
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok && days != "" && strings.Trim(days, "0123456789") == "" {
		n, err := strconv.ParseUint(days, 10, 16)
		if err != nil {
			return 0, fmt.Errorf("ttl %q: %w", s, err)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("ttl %q: want a duration such as 90m, 24h or 7d (0: no hold)", s)
		}
	}
	if d < 0 || d > MaxHoldTTL || d > 0 && d < MinHoldTTL {
		return 0, fmt.Errorf("ttl %q: want 0 (no hold), or %s to %s (%d days)", s, MinHoldTTL, MaxHoldTTL, MaxHoldTTL/(24*time.Hour))
	}
	return d, nil
}

// Hold takes one hold of the binding's generation for ttl: the store keeps
// it (past retain) until the bind is released or the hold expires. A ttl
// of 0 takes none (nil). A generation pruned since the binding was made is
// docir.CodeStaleRevision.
func (b *Binding) Hold(ctx context.Context, ttl time.Duration) (*Hold, error) {
	if ttl == 0 {
		return nil, nil
	}
	if ttl < MinHoldTTL || ttl > MaxHoldTTL {
		return nil, docir.Errorf(docir.CodeInvalidParams, "binding: hold for %s: want 0 (none), or %s to %s", ttl, MinHoldTTL, MaxHoldTTL)
	}
	h, err := b.svc.Hold(ctx, b.gen.Revision, b.receipt.digest, ttl)
	if err != nil {
		return nil, err
	}
	if h.Binding != b.receipt.digest || h.Generation != b.gen.Revision {
		return nil, docir.Errorf(docir.CodeInternal, "binding: asked to hold generation %d for %s, the service held generation %d for %s", b.gen.Revision, b.receipt.digest, h.Generation, h.Binding)
	}
	return &h, nil
}

// Held is the binding's live hold, nil when none holds its generation.
func (b *Binding) Held(ctx context.Context) (*Hold, error) {
	return heldBy(ctx, b.svc, b.receipt.digest)
}

func heldBy(ctx context.Context, svc Service, digest string) (*Hold, error) {
	holds, err := svc.Holds(ctx)
	if err != nil {
		return nil, err
	}
	for _, h := range holds {
		if h.Binding == digest {
			return &h, nil
		}
	}
	return nil, nil
}

// Release ends one bind's hold of the binding a receipt file names (as
// `docir bind --release FILE` and workspace/bind's release do) and answers
// the binding with what remains of its hold (Hold nil: nothing holds it
// now). The file must be a well-formed receipt of the service's workspace
// (docir.CodeBindingRejected otherwise); its generation need not be
// retained any more. released is false when nothing held it (never held,
// already released, or expired).
func Release(ctx context.Context, svc Service, file []byte) (res docir.BindingResult, released bool, err error) {
	c, err := ParseReceipt(file)
	if err != nil {
		return res, false, err
	}
	have, err := svc.Workspace(ctx)
	if err != nil {
		return res, false, err
	}
	if have != c.Workspace {
		return res, false, docir.Errorf(docir.CodeBindingRejected, "binding: the receipt is for workspace %s; this store is workspace %s", c.Workspace, have)
	}
	left, released, err := svc.Release(ctx, c.Digest)
	if err != nil {
		return res, false, err
	}
	r := Receipt{schema: SchemaBinding, canonical: c.canonical, digest: c.Digest}
	res, err = result(ctx, svc, r, c.Workspace, c.Revision, c.ManifestDigest, left)
	return res, released, err
}

// Result is the binding as workspace/bind and workspace/replay answer it
// (and `docir replay` prints it): its receipt file and fields, whether its
// generation is the current one, and h, its hold (nil: none).
func (b *Binding) Result(ctx context.Context, h *Hold) (docir.BindingResult, error) {
	return result(ctx, b.svc, b.receipt, b.workspace, b.gen.Revision, b.gen.ManifestDigest, h)
}

func result(ctx context.Context, svc Service, r Receipt, workspace string, revision uint64, manifest string, h *Hold) (docir.BindingResult, error) {
	cur, err := svc.Current(ctx)
	if err != nil {
		return docir.BindingResult{}, err
	}
	res := docir.BindingResult{Receipt: string(r.Marshal()), Digest: r.digest, Workspace: workspace,
		Revision: revision, ManifestDigest: manifest, Current: cur.Revision == revision}
	if h != nil {
		res.Hold = &docir.BindingHold{Binds: h.Binds, Created: h.Created.UTC(), Expires: h.Expires.UTC()}
	}
	return res, nil
}
