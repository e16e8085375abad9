package binding

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/docir/docir/docir"
)

// fakeService is a Service over generations held in memory: publish is a
// refresh (it takes the refresh lock exclusively, as the workspace does),
// HoldRefresh takes it shared.
type fakeService struct {
	workspace string
	retain    int

	refresh sync.RWMutex

	mu    sync.Mutex
	gens  []Generation // retained, ascending; the last is current
	next  uint64
	holds map[string]*Hold // by binding digest
}

// newFake returns a service of one workspace with generation 1 published.
func newFake(workspace string, retain int) *fakeService {
	f := &fakeService{workspace: workspace, retain: retain}
	f.publish()
	return f
}

func fakeDigest(workspace string, rev uint64) string {
	s := sha256.Sum256(fmt.Appendf(nil, "manifest of %s at %d", workspace, rev))
	return hex.EncodeToString(s[:])
}

// publish is a refresh: it waits for every HoldRefresh to be released.
func (f *fakeService) publish() Generation {
	f.refresh.Lock()
	defer f.refresh.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	g := Generation{Revision: f.next, ManifestDigest: fakeDigest(f.workspace, f.next)}
	f.gens = append(f.gens, g)
	// Keep the newest retain, and those a hold names.
	held := map[uint64]bool{}
	for _, h := range f.holds {
		held[h.Generation] = true
	}
	var kept []Generation
	for i, old := range f.gens {
		if i >= len(f.gens)-f.retain || held[old.Revision] {
			kept = append(kept, old)
		}
	}
	f.gens = kept
	return g
}

func (f *fakeService) Hold(_ context.Context, rev uint64, binding string, ttl time.Duration) (Hold, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !slices.ContainsFunc(f.gens, func(g Generation) bool { return g.Revision == rev }) {
		return Hold{}, docir.Errorf(docir.CodeStaleRevision, "generation %d is not retained", rev)
	}
	if f.holds == nil {
		f.holds = map[string]*Hold{}
	}
	h := f.holds[binding]
	if h == nil {
		h = &Hold{Binding: binding, Generation: rev, Created: time.Now()}
		f.holds[binding] = h
	}
	h.Binds++
	h.Expires = time.Now().Add(ttl)
	return *h, nil
}

func (f *fakeService) Release(_ context.Context, binding string) (*Hold, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := f.holds[binding]
	if h == nil {
		return nil, false, nil
	}
	if h.Binds--; h.Binds == 0 {
		delete(f.holds, binding)
		return nil, true, nil
	}
	left := *h
	return &left, true, nil
}

func (f *fakeService) Holds(context.Context) ([]Hold, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Hold
	for _, h := range f.holds {
		out = append(out, *h)
	}
	return out, nil
}

func (f *fakeService) Workspace(context.Context) (string, error) { return f.workspace, nil }

func (f *fakeService) Generation(_ context.Context, rev uint64) (Generation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, g := range f.gens {
		if g.Revision == rev {
			return g, nil
		}
	}
	return Generation{}, docir.Errorf(docir.CodeStaleRevision, "generation %d is not retained", rev)
}

func (f *fakeService) Current(context.Context) (Generation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gens[len(f.gens)-1], nil
}

func (f *fakeService) HoldRefresh(context.Context) (func(), error) {
	f.refresh.RLock()
	return sync.OnceFunc(f.refresh.RUnlock), nil
}
