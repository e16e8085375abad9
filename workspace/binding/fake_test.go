package binding

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/docir/docir/docir"
)

// fakeService is a Service over generations held in memory: publish is a
// refresh (it takes the refresh lock exclusively, as the workspace does),
// HoldRefresh takes it shared.
type fakeService struct {
	workspace string
	retain    int

	refresh sync.RWMutex

	mu   sync.Mutex
	gens []Generation // retained, ascending; the last is current
	next uint64
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
	if len(f.gens) > f.retain {
		f.gens = f.gens[len(f.gens)-f.retain:]
	}
	return g
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
