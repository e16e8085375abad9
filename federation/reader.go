package federation

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/workspace"
)

// DefaultParallel is how many stores a skeleton read or a status asks at
// once when Config.Parallel is 0.
const DefaultParallel = 4

// Config is what a federation is made of.
type Config struct {
	// Local is the local store's reader; it is asked first and is never
	// subject to a peer's timeout (its first read may index).
	Local workspace.Reader
	// LocalDir is the local store folder, reported by Status when nothing
	// is indexed locally yet.
	LocalDir string
	// Peers in declaration order: the order of priority after local.
	Peers []*Peer
	// Parallel bounds the stores asked at once by skeleton reads and
	// Status; 0 means DefaultParallel.
	Parallel int
}

// Reader is a workspace.Reader over the local store and the declared peers.
// It is safe for concurrent use.
type Reader struct {
	local    workspace.Reader
	localDir string
	peers    []*Peer
	parallel int
}

var _ workspace.Reader = (*Reader)(nil)

// New returns the federation of cfg.Local and cfg.Peers.
func New(cfg Config) *Reader {
	n := cfg.Parallel
	if n <= 0 {
		n = DefaultParallel
	}
	return &Reader{local: cfg.Local, localDir: cfg.LocalDir, peers: cfg.Peers, parallel: n}
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

// checkAddresses refuses an address that does not print back to itself: a
// value that did not come from address.Parse. Callers parse first, so this
// only stops a bug from reading as a miss.
func checkAddresses(addrs []address.Address) error {
	for _, a := range addrs {
		b, err := address.Parse(a.String())
		if err != nil {
			return err
		}
		if b != a {
			return &address.ParseError{Input: a.String(), Err: fmt.Errorf("address %#v does not read back as itself", a)}
		}
	}
	return nil
}

// state is what the federation knows of one distinct address.
type state struct {
	doc         *docir.Document
	sawDocument bool // some store holds the document but not the section
	unavailable bool // a store that might hold it could not answer
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

func (s *state) learn(o outcome) {
	switch o.reason {
	case docir.ReasonNoSection:
		s.sawDocument = true
	case docir.ReasonUnavailable:
		s.unavailable = true
	}
}

// resolve reads addrs per address: local first, then each peer in order,
// each asked once for what is still unresolved. It returns one resolution
// per address, in order, and the warnings of the peers that failed.
func (r *Reader) resolve(ctx context.Context, addrs []address.Address) ([]workspace.Resolution, []string, error) {
	if err := checkAddresses(addrs); err != nil {
		return nil, nil, err
	}
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
		res, err := r.local.Get(ctx, uniq)
		switch {
		case docir.CodeOf(err) == docir.CodeNoStore:
			// Nothing indexed locally and nothing to index (a config of
			// peers only): the local store holds nothing.
		case err != nil:
			return nil, nil, err
		default:
			got, err := account(uniq, res)
			if err != nil {
				return nil, nil, fmt.Errorf("local store: %w", err)
			}
			for a, o := range got {
				if o.doc != nil {
					states[a].doc = o.doc
				} else {
					states[a].learn(o)
				}
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
			return nil, nil, ctx.Err()
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
		for a, o := range got {
			if o.doc == nil {
				states[a].learn(o)
				continue
			}
			d := *o.doc
			d.Address, d.Store = a.String(), p.Name
			states[a].doc = &d
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

	out := make([]workspace.Resolution, len(addrs))
	for i, a := range addrs {
		s := states[a]
		if s.doc != nil {
			out[i] = workspace.Resolution{Document: s.doc}
		} else {
			out[i] = workspace.Resolution{Reason: s.reason()}
		}
	}
	return out, warnings, nil
}

// askPeer asks one peer for addrs in one batched call and checks the reply.
func (r *Reader) askPeer(ctx context.Context, p *Peer, addrs []address.Address) (map[address.Address]outcome, []string, error) {
	res, err := call(ctx, p, func(ctx context.Context, pr workspace.Reader) (docir.GetResult, error) {
		return pr.Get(ctx, addrs)
	})
	if err != nil {
		return nil, nil, err
	}
	got, err := account(addrs, res)
	if err != nil {
		return nil, nil, &PeerError{Peer: p.Name, Err: err}
	}
	var warnings []string
	for _, w := range res.Warnings {
		warnings = append(warnings, peerReports(p.Name, w))
	}
	return got, warnings, nil
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

// Get is a `doc_ids` read across the stores: documents in request order,
// each labelled with the store that answered it; misses as data; a warning
// for each peer that failed.
func (r *Reader) Get(ctx context.Context, addrs []address.Address) (docir.GetResult, error) {
	res, warnings, err := r.resolve(ctx, addrs)
	if err != nil {
		return docir.GetResult{}, err
	}
	out := workspace.Assemble(addrs, res)
	out.Warnings = warnings
	return out, nil
}

// GetOne is a `doc_id` read across the stores, in the same order as Get. A
// miss is a not_found error; when a peer failed, its warning is part of the
// message.
func (r *Reader) GetOne(ctx context.Context, a address.Address) (docir.Document, error) {
	res, warnings, err := r.resolve(ctx, []address.Address{a})
	if err != nil {
		return docir.Document{}, err
	}
	if res[0].Document != nil {
		return *res[0].Document, nil
	}
	nf := workspace.NotFound(a, res[0].Reason)
	if len(warnings) == 0 {
		return docir.Document{}, nf
	}
	return docir.Document{}, &docir.Error{Code: docir.CodeNotFound, Message: nf.Error() + "; " + strings.Join(warnings, "; "), Err: nf}
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
			pst, err := call(ctx, p, func(ctx context.Context, pr workspace.Reader) (docir.Status, error) {
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
