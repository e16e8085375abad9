package federation

import (
	"context"
	"encoding/json"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/workspace"
)

// Links reads the links of each address from the store that holds it, as
// Resolve reads documents: local first, then the peers in order, each
// asked once for what is still unanswered. A link is resolved within the
// store that holds its source, so a link set (its outgoing and incoming
// links) is the answering store's alone, labelled with it.
func (r *Reader) Links(ctx context.Context, addrs []address.Address, maxBytes int) (docir.LinksResolved, error) {
	answers, warnings, err := perAddress(ctx, r, addrs,
		func(ctx context.Context, rd docir.Reader, as []address.Address) ([]answer[docir.LinkSet], []string, error) {
			res, err := rd.Links(ctx, as, maxBytes)
			out := make([]answer[docir.LinkSet], len(res.Items))
			for i, it := range res.Items {
				out[i] = answer[docir.LinkSet]{Value: it.Set, Reason: it.Reason, Suggestions: it.Suggestions}
			}
			return out, res.Warnings, err
		},
		func(s *docir.LinkSet, a address.Address, peer string) { s.Address, s.Store = a.String(), peer })
	if err != nil {
		return docir.LinksResolved{}, err
	}
	out := make([]docir.LinkResolution, len(answers))
	for i, an := range answers {
		out[i] = docir.LinkResolution{Set: an.Value, Reason: an.Reason, Suggestions: an.Suggestions}
	}
	return docir.LinksResolved{Items: out, Warnings: warnings}, nil
}

// LinksPage pages the local store's link sets only, as Check answers for
// the local store: a cursor pins a local generation, as image_revision
// does, which peers never see. A first page with neither limit nor cursor
// of an address the local store lacks is read from the peers as Links
// reads it: whole, reply_too_large past maxBytes, and never paged. With a
// limit or a cursor the local miss answers, with a warning that says so.
func (r *Reader) LinksPage(ctx context.Context, a address.Address, p docir.Page, maxBytes int) (docir.LinksResolved, error) {
	res, err := r.local.LinksPage(ctx, a, p, maxBytes)
	switch {
	case docir.CodeOf(err) == docir.CodeNoStore && len(r.peers) > 0:
		res = docir.LinksResolved{Items: []docir.LinkResolution{{Reason: docir.ReasonNoDocument}}}
	case err != nil:
		return docir.LinksResolved{}, err
	}
	if len(res.Items) != 1 || res.Items[0].Set != nil || len(r.peers) == 0 {
		return res, nil
	}
	if p != (docir.Page{}) {
		res.Warnings = append(res.Warnings, "limit and cursor page the local store's links only: read a peer's document without them")
		return res, nil
	}
	switch { // a page's bound, as Links takes it
	case maxBytes == 0:
		maxBytes = wire.MaxPageBytes
	case maxBytes < 0:
		maxBytes = 0
	}
	return r.Links(ctx, []address.Address{a}, maxBytes)
}

// Check is the local store's: a peer's links are checked where the peer
// is indexed (its sources and link rules are its own), and a check must
// not fail for a peer that is down.
func (r *Reader) Check(ctx context.Context, p docir.CheckParams) (docir.CheckResult, error) {
	return r.local.Check(ctx, p)
}

// Changes is the local store's: generation numbers and receipts name the
// local store's generations.
func (r *Reader) Changes(ctx context.Context, p docir.ChangesParams) (docir.ChangesResult, error) {
	return r.local.Changes(ctx, p)
}

func (p *pathPeer) Links(ctx context.Context, addrs []address.Address, maxBytes int) (res docir.LinksResolved, err error) {
	err = p.with(ctx, func(s *workspace.Service) error {
		res, err = s.Links(ctx, addrs, maxBytes)
		return err
	})
	return res, err
}

func (p *pathPeer) LinksPage(ctx context.Context, a address.Address, q docir.Page, maxBytes int) (res docir.LinksResolved, err error) {
	err = p.with(ctx, func(s *workspace.Service) error {
		res, err = s.LinksPage(ctx, a, q, maxBytes)
		return err
	})
	return res, err
}

func (p *pathPeer) Check(ctx context.Context, q docir.CheckParams) (res docir.CheckResult, err error) {
	err = p.with(ctx, func(s *workspace.Service) error {
		res, err = s.Check(ctx, q)
		return err
	})
	return res, err
}

func (p *pathPeer) Changes(ctx context.Context, q docir.ChangesParams) (res docir.ChangesResult, err error) {
	err = p.with(ctx, func(s *workspace.Service) error {
		res, err = s.Changes(ctx, q)
		return err
	})
	return res, err
}

// Links asks the peer for addrs in docir/links doc_ids calls of at most
// docir.MaxBatch addresses (inBatches) and reads its replies per address.
func (h *httpPeer) Links(ctx context.Context, addrs []address.Address, _ int) (docir.LinksResolved, error) {
	items, warnings, err := inBatches(addrs, func(batch []address.Address) ([]answer[docir.LinkSet], []string, error) {
		raw, err := h.rpc(ctx, wire.MethodLinks, docir.LinksParams{DocIDs: addrStrings(batch)})
		if err != nil {
			return nil, nil, err
		}
		return decodeLinksResult(raw, batch)
	}, answer[docir.LinkSet]{Reason: docir.ReasonUnavailable})
	if err != nil {
		return docir.LinksResolved{}, err
	}
	out := make([]docir.LinkResolution, len(items))
	for i, an := range items {
		out[i] = docir.LinkResolution{Set: an.Value, Reason: an.Reason, Suggestions: an.Suggestions}
	}
	return docir.LinksResolved{Items: out, Warnings: warnings}, nil
}

// decodeLinksResult reads a peer's reply to a doc_ids links read of asked
// and accounts for every address asked: each set names the document of
// its address and has both its lists.
func decodeLinksResult(raw []byte, asked []address.Address) ([]answer[docir.LinkSet], []string, error) {
	var w struct {
		Links    *[]docir.LinkSet `json:"links"`
		Missing  *[]docir.Missing `json:"missing"`
		Warnings []string         `json:"warnings"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, nil, garbage("links result: %v", err)
	}
	if w.Links == nil || w.Missing == nil {
		return nil, nil, garbage("links result without links or missing")
	}
	found := make([]accounted[docir.LinkSet], len(*w.Links))
	for i := range *w.Links {
		s := &(*w.Links)[i]
		a, err := address.Parse(s.Address)
		if err != nil || s.ID == "" || a.ID != s.ID || s.Outgoing == nil || s.Incoming == nil {
			return nil, nil, garbage("link set %q without its id or its lists", s.Address)
		}
		found[i] = accounted[docir.LinkSet]{address: s.Address, value: s}
	}
	items, err := accountAll(asked, found, *w.Missing)
	return items, w.Warnings, err
}

// LinksPage is the peer's whole set (Links): a federation pages its local
// store's sets only (Reader.LinksPage).
func (h *httpPeer) LinksPage(ctx context.Context, a address.Address, p docir.Page, maxBytes int) (docir.LinksResolved, error) {
	if p != (docir.Page{}) {
		return docir.LinksResolved{}, docir.Errorf(docir.CodeInvalidParams, "links: a peer's link set is not paged")
	}
	return h.Links(ctx, []address.Address{a}, maxBytes)
}

// Check asks the peer for its own check.
func (h *httpPeer) Check(ctx context.Context, p docir.CheckParams) (docir.CheckResult, error) {
	raw, err := h.rpc(ctx, wire.MethodCheck, docir.CheckParams{External: p.External})
	if err != nil {
		return docir.CheckResult{}, err
	}
	var res docir.CheckResult
	if err := json.Unmarshal(raw, &res); err != nil || res.Broken == nil {
		return docir.CheckResult{}, garbage("check result: %v", err)
	}
	return res, nil
}

// Changes asks the peer what changed between two of its generations.
func (h *httpPeer) Changes(ctx context.Context, p docir.ChangesParams) (docir.ChangesResult, error) {
	raw, err := h.rpc(ctx, wire.MethodChanges, p)
	if err != nil {
		return docir.ChangesResult{}, err
	}
	var res docir.ChangesResult
	if err := json.Unmarshal(raw, &res); err != nil || res.Documents.Added == nil || res.Sections.Added == nil {
		return docir.ChangesResult{}, garbage("changes result: %v", err)
	}
	return res, nil
}

// How many suggestions a read passes on, as the local store bounds its
// own (workspace: the nearest 3 ids of a miss, for the first 5 distinct
// addresses of a read that miss): a peer's "did you mean" is shown as the
// local store's is, and a peer cannot lengthen a reply with it.
const (
	maxSuggestions = 3 // of one miss
	maxSuggested   = 5 // distinct addresses of one read
)

// peerSuggestions are the suggestions of a peer's miss m, each parsed as
// an address (a peer's that does not parse answered garbage, as a reply
// naming a malformed address does) and printed back, at most
// maxSuggestions of them. They were dropped: a path peer's "did you mean"
// came through, an HTTP peer's never did.
func peerSuggestions(m docir.Missing) ([]string, error) {
	var out []string
	for i, s := range m.Suggestions {
		a, err := address.Parse(s)
		if err != nil {
			return nil, garbage("miss %q: suggestion %d: %v", m.Address, i, err)
		}
		if len(out) < maxSuggestions {
			out = append(out, a.String())
		}
	}
	return out, nil
}

// accounted is a value a store's reply gave for the address it names.
type accounted[T any] struct {
	address string
	value   *T
}

// accountAll checks a store's reply to a per-address read of asked
// (distinct addresses) and returns what it said of each, in the order
// asked: every address asked is answered exactly once, as a value or as a
// miss with a known reason, and nothing else is answered.
func accountAll[T any](asked []address.Address, found []accounted[T], missing []docir.Missing) ([]answer[T], error) {
	at := make(map[address.Address]int, len(asked))
	for i, a := range asked {
		at[a] = i
	}
	out := make([]answer[T], len(asked))
	seen := make([]bool, len(asked))
	take := func(s string, o answer[T]) error {
		a, err := address.Parse(s)
		if err != nil {
			return garbage("reply names %v", err)
		}
		i, ok := at[a]
		if !ok {
			return garbage("reply answers %q, which was not asked", s)
		}
		if seen[i] {
			return garbage("reply answers %q twice", s)
		}
		out[i], seen[i] = o, true
		return nil
	}
	for _, f := range found {
		if err := take(f.address, answer[T]{Value: f.value}); err != nil {
			return nil, err
		}
	}
	for _, m := range missing {
		switch m.Reason {
		case docir.ReasonNoDocument, docir.ReasonNoSection, docir.ReasonUnavailable:
		default:
			return nil, garbage("miss %q with unknown reason %q", m.Address, m.Reason)
		}
		sugg, err := peerSuggestions(m)
		if err != nil {
			return nil, err
		}
		if err := take(m.Address, answer[T]{Reason: m.Reason, Suggestions: sugg}); err != nil {
			return nil, err
		}
	}
	for i, ok := range seen {
		if !ok {
			return nil, garbage("reply says nothing of %q", asked[i])
		}
	}
	return out, nil
}
