package federation

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
)

// DefaultParallel is how many stores a skeleton read or a status asks at
// once when Config.Parallel is 0.
const DefaultParallel = 4

// Config is what a federation is made of.
type Config struct {
	// Local is the local store's reader; it is asked first and is never
	// subject to a peer's timeout (its first read may index).
	Local docir.Reader
	// LocalDir is the local store folder, reported by Status when nothing
	// is indexed locally yet.
	LocalDir string
	// Peers in declaration order: the order of priority after local.
	Peers []*Peer
	// Parallel bounds the stores asked at once by skeleton reads and
	// Status; 0 means DefaultParallel.
	Parallel int
	// Instance is what this process's requests to HTTP peers carry in
	// wire.HeaderPeer; "" means Instance(). A server given the same id in
	// its HTTPOptions knows a request that carries it came from itself.
	Instance string
}

// Reader is a docir.Reader over the local store and the declared peers.
// It is safe for concurrent use.
type Reader struct {
	local    docir.Reader
	localDir string
	peers    []*Peer
	parallel int
	// pinned is set on a read pinned to one generation of the local
	// store (Pinned): each peer that answers is named in a warning, since
	// a pin does not reach a peer.
	pinned bool
}

var _ docir.Reader = (*Reader)(nil)

// New returns the federation of cfg.Local and cfg.Peers.
func New(cfg Config) *Reader {
	n := cfg.Parallel
	if n <= 0 {
		n = DefaultParallel
	}
	id := cfg.Instance
	if id == "" {
		id = Instance()
	}
	for _, p := range cfg.Peers {
		if hp, ok := p.r.(*httpPeer); ok {
			hp.instance = id
		}
	}
	return &Reader{local: cfg.Local, localDir: cfg.LocalDir, peers: cfg.Peers, parallel: n}
}

// WithLocal returns the federation of local (a view of one generation,
// say) with the same peers. The peers are r's: close r, not the copy.
func (r *Reader) WithLocal(local docir.Reader) *Reader {
	c := *r
	c.local = local
	return &c
}

// Pinned returns the federation of local, a view pinned to one generation
// of the local store (--at, --receipt, a binding), with the same peers.
// A pin is the local store's: the peers answer from their current
// generation, so each read says, in a warning naming the peer, that the
// peer's part of it was read unpinned. The peers are r's: close r, not
// the copy.
func (r *Reader) Pinned(local docir.Reader) *Reader {
	c := r.WithLocal(local)
	c.pinned = true
	return c
}

// UnpinnedWarning is the warning of a pinned read that peer answered part
// of: the peer answered from its current generation.
func UnpinnedWarning(peer string) string {
	return fmt.Sprintf("peer %s: read at its current generation, not pinned: a pin covers the local store only", peer)
}

// Close releases what the peers hold (idle HTTP connections). It does not
// close the local reader, which the caller made and owns.
func (r *Reader) Close() error {
	for _, p := range r.peers {
		if p.close != nil {
			p.close()
		}
	}
	return nil
}

// Resolve reads addrs per address: local first, then each peer in order,
// each asked once, in one batched call, for what is still unresolved, and
// not at all once nothing is left (perAddress). It returns one resolution
// per address, in order, each document labelled with the store that
// answered it, and a warning for each peer that failed. Its documents and
// misses count against maxBytes as the local store's do (docir.Tally).
func (r *Reader) Resolve(ctx context.Context, addrs []address.Address, maxBytes int) (docir.Resolved, error) {
	answers, warnings, err := perAddress(ctx, r, addrs,
		func(ctx context.Context, rd docir.Reader, as []address.Address) ([]answer[docir.Document], []string, error) {
			res, err := rd.Resolve(ctx, as, maxBytes)
			out := make([]answer[docir.Document], len(res.Items))
			for i, it := range res.Items {
				out[i] = answer[docir.Document]{Value: it.Document, Reason: it.Reason, Suggestions: it.Suggestions}
			}
			return out, res.Warnings, err
		},
		func(d *docir.Document, a address.Address, peer string) { d.Address, d.Store = a.String(), peer })
	if err != nil {
		return docir.Resolved{}, err
	}
	out := make([]docir.Resolution, len(addrs))
	tally := &docir.Tally{Bound: maxBytes}
	for i, an := range answers {
		if an.Value == nil {
			if err := tally.AddMiss(addrs[i].String(), an.Reason, an.Suggestions, i+1, len(addrs)); err != nil {
				return docir.Resolved{}, err
			}
			out[i] = docir.Resolution{Reason: an.Reason, Suggestions: an.Suggestions}
			continue
		}
		if err := tally.Add(an.Value, i+1, len(addrs)); err != nil {
			return docir.Resolved{}, err
		}
		out[i] = docir.Resolution{Document: an.Value}
	}
	return docir.Resolved{Items: out, Warnings: warnings}, nil
}

// listAddresses names a few addresses for a warning.
func listAddresses(addrs []address.Address) string {
	const show = 5
	var b strings.Builder
	for i, a := range addrs {
		if i == show {
			fmt.Fprintf(&b, " and %d more", len(addrs)-show)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.String())
	}
	return b.String()
}

// Status is the local store's status with every peer's, in declaration
// order. A peer that cannot answer is listed as failed, with why.
func (r *Reader) Status(ctx context.Context) (docir.Status, error) {
	st, err := r.local.Status(ctx)
	switch {
	case docir.CodeOf(err) == docir.CodeNoStore:
		st = docir.Status{Store: r.localDir, Sources: []docir.SourceInfo{}}
	case err != nil:
		return docir.Status{}, err
	}
	st.Peers = make([]docir.PeerStatus, len(r.peers))
	var g errgroup.Group
	g.SetLimit(r.parallel)
	for i, p := range r.peers {
		g.Go(func() error {
			ps := docir.PeerStatus{Name: p.Name, Kind: p.Kind, Location: p.Location, Status: StatusOK}
			pst, err := call(ctx, p, func(ctx context.Context, pr docir.Reader) (docir.Status, error) {
				return pr.Status(ctx)
			})
			if err != nil {
				ps.Status, ps.Error = StatusFailed, peerCause(err)
			} else {
				ps.Generation, ps.Documents = pst.Generation, pst.Documents
			}
			st.Peers[i] = ps
			return nil
		})
	}
	_ = g.Wait()
	if err := cancelled(ctx); err != nil {
		return docir.Status{}, err
	}
	return st, nil
}

// Store statuses of skeleton reads and peer statuses.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
)

// peerCause is why a peer failed, without the "peer NAME: " its error
// starts with (the status row names the peer already).
func peerCause(err error) string {
	var pe *PeerError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// peerReports is the warning that passes on a peer's own warning w.
func peerReports(peer, w string) string {
	return fmt.Sprintf("peer %s reports: %s", peer, oneLine(docir.Clip(w, maxPeerWarning)))
}

// maxPeerWarning bounds the bytes of a peer's warning passed on.
const maxPeerWarning = 500

// MaxPeerWarnings bounds how many of a peer's own warnings one read passes
// on; the rest are counted in one more warning. A docir store says a few
// warnings of a read (a notice for each of its first 5 misses, a few of
// the query's words), so every warning of a real peer passes; a peer that
// said 150,000 short ones (well under MaxReply) made the served read's
// warnings alone pass its 1 MiB reply bound, and the read failed whole
// (reply_too_large), local documents lost. At 20 of at most
// maxPeerWarning bytes, one peer adds at most 10 KiB, a hundredth of a
// reply.
const MaxPeerWarnings = 20

// passOn words a peer's own warnings for the read, skipping those skip
// says another store said already: the first MaxPeerWarnings, then one
// that counts the rest.
func passOn(peer string, ws []string, skip func(string) bool) []string {
	var out []string
	left := 0
	for _, w := range ws {
		switch {
		case skip != nil && skip(w):
		case len(out) < MaxPeerWarnings:
			out = append(out, peerReports(peer, w))
		default:
			left++
		}
	}
	if left > 0 {
		out = append(out, fmt.Sprintf("peer %s: … and %d more warnings", peer, left))
	}
	return out
}
