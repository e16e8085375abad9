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

// state is what the federation knows of one distinct address.
type state struct {
	doc         *docir.Document
	suggestions []string // the nearest store's, for a no_document miss
	sawDocument bool     // some store holds the document but not the section
	unavailable bool     // a store that might hold it could not answer
}

func (s *state) reason() string {
	switch {
	case s.unavailable:
		return docir.ReasonUnavailable
	case s.sawDocument:
		return docir.ReasonNoSection
	default:
		return docir.ReasonNoDocument
	}
}

// learn records what one store said of the address.
func (s *state) learn(o docir.Resolution) {
	if o.Document != nil {
		s.doc = o.Document
		return
	}
	if len(s.suggestions) == 0 {
		s.suggestions = o.Suggestions
	}
	switch o.Reason {
	case docir.ReasonNoSection:
		s.sawDocument = true
	case docir.ReasonUnavailable:
		s.unavailable = true
	}
}

// Resolve reads addrs per address: local first, then each peer in order,
// each asked once, in one batched call, for what is still unresolved, and
// not at all once nothing is left. It returns one resolution per address,
// in order, each document labelled with the store that answered it, and a
// warning for each peer that failed.
func (r *Reader) Resolve(ctx context.Context, addrs []address.Address) (docir.Resolved, error) {
	var uniq []address.Address
	states := make(map[address.Address]*state, len(addrs))
	for _, a := range addrs {
		if states[a] == nil {
			states[a] = &state{}
			uniq = append(uniq, a)
		}
	}
	// Warnings in peer order: a peer's own, or a failure, whose warning
	// names the addresses it leaves unavailable, known only once every
	// later peer has answered.
	type note struct {
		warning string
		failed  error
		left    []address.Address
	}
	var notes []note

	if len(uniq) > 0 {
		res, err := r.local.Resolve(ctx, uniq)
		switch {
		case docir.CodeOf(err) == docir.CodeNoStore:
			// Nothing indexed locally and nothing to index (a config of
			// peers only): the local store holds nothing.
		case err != nil:
			return docir.Resolved{}, err
		case len(res.Items) != len(uniq):
			return docir.Resolved{}, fmt.Errorf("local store: %d resolutions for %d addresses", len(res.Items), len(uniq))
		default:
			for i, a := range uniq {
				states[a].learn(res.Items[i])
			}
		}
	}

	for _, p := range r.peers {
		var left []address.Address
		for _, a := range uniq {
			if states[a].doc == nil {
				left = append(left, a)
			}
		}
		if len(left) == 0 {
			break
		}
		got, peerWarnings, err := r.askPeer(ctx, p, left)
		if ctx.Err() != nil {
			return docir.Resolved{}, ctx.Err()
		}
		if err != nil {
			for _, a := range left {
				states[a].unavailable = true
			}
			notes = append(notes, note{failed: err, left: left})
			continue
		}
		for _, w := range peerWarnings {
			notes = append(notes, note{warning: w})
		}
		for i, a := range left {
			if d := got[i].Document; d != nil {
				d.Address, d.Store = a.String(), p.Name
			}
			states[a].learn(got[i])
		}
	}

	var warnings []string
	for _, n := range notes {
		if n.failed == nil {
			warnings = append(warnings, n.warning)
			continue
		}
		var still []address.Address
		for _, a := range n.left {
			if states[a].doc == nil {
				still = append(still, a)
			}
		}
		if len(still) == 0 {
			warnings = append(warnings, fmt.Sprintf("%v; later peers answered all it was asked", n.failed))
		} else {
			warnings = append(warnings, fmt.Sprintf("%v; unavailable: %s", n.failed, listAddresses(still)))
		}
	}

	out := make([]docir.Resolution, len(addrs))
	tally := docir.NewTally(ctx)
	for i, a := range addrs {
		s := states[a]
		if s.doc == nil {
			out[i] = docir.Resolution{Reason: s.reason()}
			if out[i].Reason == docir.ReasonNoDocument {
				out[i].Suggestions = s.suggestions
			}
			continue
		}
		if err := tally.Add(s.doc, i+1, len(addrs)); err != nil {
			return docir.Resolved{}, err
		}
		out[i] = docir.Resolution{Document: s.doc}
	}
	return docir.Resolved{Items: out, Warnings: warnings}, nil
}

// askPeer asks one peer for addrs in one batched call and checks that it
// answered each address once.
func (r *Reader) askPeer(ctx context.Context, p *Peer, addrs []address.Address) ([]docir.Resolution, []string, error) {
	res, err := call(ctx, p, func(ctx context.Context, pr docir.Reader) (docir.Resolved, error) {
		return pr.Resolve(ctx, addrs)
	})
	if err != nil {
		return nil, nil, err
	}
	if len(res.Items) != len(addrs) {
		return nil, nil, &PeerError{Peer: p.Name, Err: garbage("%d resolutions for %d addresses", len(res.Items), len(addrs))}
	}
	var warnings []string
	for _, w := range res.Warnings {
		warnings = append(warnings, peerReports(p.Name, w))
	}
	return res.Items, warnings, nil
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
	if err := ctx.Err(); err != nil {
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
	return fmt.Sprintf("peer %s reports: %s", peer, clip(w, 500))
}
