package federation

import (
	"context"
	"fmt"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
)

// answer is what a store said of one address of a per-address read (a
// deep read, a links read): the value, or why not.
type answer[T any] struct {
	Value       *T
	Reason      string
	Suggestions []string
}

// state is what the federation knows of one distinct address.
type state[T any] struct {
	value       *T
	suggestions []string // the nearest store's, for a no_document miss
	sections    []string // the nearest store's, for a no_section miss (its nearest sections)
	sawDocument bool     // some store holds the document but not the section
	unavailable bool     // a store that might hold it could not answer
}

func (s *state[T]) reason() string {
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
func (s *state[T]) learn(o answer[T]) {
	if o.Value != nil {
		s.value = o.Value
		return
	}
	switch {
	case len(s.suggestions) == 0 && o.Reason == docir.ReasonNoDocument:
		s.suggestions = o.Suggestions
	case len(s.sections) == 0 && o.Reason == docir.ReasonNoSection:
		s.sections = o.Suggestions
	}
	switch o.Reason {
	case docir.ReasonNoSection:
		s.sawDocument = true
	case docir.ReasonUnavailable:
		s.unavailable = true
	}
}

// perAddress runs a per-address read over the federation: each distinct
// address is answered by the first store that holds it, local first, then
// each peer in order, each asked once, in one batched call (ask), for what
// is still unanswered, and not at all once nothing is left. label marks a
// value a peer answered with the address asked and the peer's name. It
// returns one answer per address of addrs, in order, and the warnings: a
// peer's own, passed on, and each failure, naming the addresses it leaves
// unavailable (known only once every later peer has answered).
func perAddress[T any](ctx context.Context, r *Reader, addrs []address.Address,
	ask func(context.Context, docir.Reader, []address.Address) ([]answer[T], []string, error),
	label func(v *T, a address.Address, peer string)) ([]answer[T], []string, error) {
	var uniq []address.Address
	states := make(map[address.Address]*state[T], len(addrs))
	for _, a := range addrs {
		if states[a] == nil {
			states[a] = &state[T]{}
			uniq = append(uniq, a)
		}
	}
	var notes []peerNote
	var local []string // the local store's own warnings: first, as without peers

	if len(uniq) > 0 {
		res, warned, err := ask(ctx, r.local, uniq)
		local = warned
		switch {
		case docir.CodeOf(err) == docir.CodeNoStore:
			// Nothing indexed locally and nothing to index (a config of
			// peers only): the local store holds nothing.
		case err != nil:
			return nil, nil, err
		case len(res) != len(uniq):
			return nil, nil, fmt.Errorf("local store: %d answers for %d addresses", len(res), len(uniq))
		default:
			for i, a := range uniq {
				states[a].learn(res[i])
			}
		}
	}

	for _, p := range r.peers {
		var left []address.Address
		for _, a := range uniq {
			if states[a].value == nil {
				left = append(left, a)
			}
		}
		if len(left) == 0 {
			break
		}
		got, peerWarnings, err := askPeer(ctx, p, left, ask)
		if err := cancelled(ctx); err != nil {
			return nil, nil, err
		}
		if err != nil {
			for _, a := range left {
				states[a].unavailable = true
			}
			notes = append(notes, peerNote{failed: err, left: left})
			continue
		}
		if r.pinned {
			notes = append(notes, peerNote{warning: UnpinnedWarning(p.Name)})
		}
		for _, w := range peerWarnings {
			notes = append(notes, peerNote{warning: w})
		}
		for i, a := range left {
			if v := got[i].Value; v != nil {
				label(v, a, p.Name)
			}
			states[a].learn(got[i])
		}
	}

	// The local store's warnings were dropped once a peer was declared (a
	// get of a heading two sections share said nothing of it then).
	warnings := append(local, noteWarnings(notes, func(a address.Address) bool { return states[a].value != nil })...)
	out := make([]answer[T], len(addrs))
	suggested := map[address.Address]bool{} // at most maxSuggested, as the local store's
	for i, a := range addrs {
		s := states[a]
		if s.value != nil {
			out[i] = answer[T]{Value: s.value}
			continue
		}
		out[i] = answer[T]{Reason: s.reason()}
		// The suggestions of the miss it is: a no_section miss names the
		// nearest sections of the nearest store that holds the document
		// (they were dropped once a peer was declared), a no_document one
		// the nearest ids.
		sugg := s.suggestions
		if out[i].Reason == docir.ReasonNoSection {
			sugg = s.sections
		}
		if out[i].Reason != docir.ReasonUnavailable && len(sugg) > 0 && (suggested[a] || len(suggested) < maxSuggested) {
			suggested[a] = true
			out[i].Suggestions = sugg
		}
	}
	return out, warnings, nil
}

// peerNote is what a per-address read has to say of a peer: a warning it
// gave (or that it read unpinned), or its failure and the addresses it was
// asked for then.
type peerNote struct {
	warning string
	failed  error
	left    []address.Address
}

// noteWarnings words the notes as warnings, in order: a failure names the
// addresses it left that no later peer answered (answered tells).
func noteWarnings(notes []peerNote, answered func(address.Address) bool) []string {
	var warnings []string
	for _, n := range notes {
		if n.failed == nil {
			warnings = append(warnings, n.warning)
			continue
		}
		var still []address.Address
		for _, a := range n.left {
			if !answered(a) {
				still = append(still, a)
			}
		}
		if len(still) == 0 {
			warnings = append(warnings, fmt.Sprintf("%v; later peers answered all it was asked", n.failed))
		} else {
			warnings = append(warnings, fmt.Sprintf("%v; unavailable: %s", n.failed, listAddresses(still)))
		}
	}
	return warnings
}

// askPeer asks one peer for addrs in one batched call and checks that it
// answered each address once.
func askPeer[T any](ctx context.Context, p *Peer, addrs []address.Address,
	ask func(context.Context, docir.Reader, []address.Address) ([]answer[T], []string, error)) ([]answer[T], []string, error) {
	type reply struct {
		items    []answer[T]
		warnings []string
	}
	res, err := call(ctx, p, func(ctx context.Context, pr docir.Reader) (reply, error) {
		items, warnings, err := ask(ctx, pr, addrs)
		return reply{items, warnings}, err
	})
	if err != nil {
		return nil, nil, err
	}
	if len(res.items) != len(addrs) {
		return nil, nil, &PeerError{Peer: p.Name, Err: garbage("%d answers for %d addresses", len(res.items), len(addrs))}
	}
	return res.items, passOn(p.Name, res.warnings, nil), nil
}
