package session

import (
	"context"
	"encoding/json"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/workspace/binding"
)

// reads serves the read methods of the contract's allowlist (docir/get,
// search, query, context, workspace/status, workspace/discover) on one
// reader. The engine serves its outer reads through one on the session's
// reader; a read batch's workers and workspace/evidence get one on a held
// generation. It holds no engine: refresh, bind, evidence, the policy and
// the drift state are not reachable from it, so whatever a frame says, a
// worker can only read.
type reads struct {
	r        docir.Reader // what an unpinned read answers from
	pins     pins         // what a pinned read (image_revision, binding) answers from
	maxReply int
	discover func() docir.Discovery
	// held is set when r is already held on the one generation its reads
	// may answer from (evidence: the binding's): a cursor then pins
	// nothing, and one of another generation is refused.
	held bool
	// room bounds a paged read's page (0: maxReply): evidence embeds the
	// response as a string beside its record, so its page is smaller.
	room int
}

// pageRoom is the room a paged read's page has (pageBytes).
func (rd *reads) pageRoom() int {
	if rd.room > 0 {
		return rd.room
	}
	return rd.maxReply
}

// pins opens the generation a read's selector names: a retained generation
// by number, or a binding receipt's once it replays exactly. Both are
// immutable reads of the store.
type pins struct {
	hold     func(ctx context.Context, revision uint64) (Held, error) // nil: no local store
	bindings binding.Service                                          // nil: no bindings
	log      *docir.ReadLog                                           // non-nil: a pinned read records what it read here
}

// Call runs one read method and returns its encoded result, or the error
// to reply with; a result over maxReply bytes is a reply_too_large error.
// It is what a read batch's workers call (readbatch.Reads).
func (rd *reads) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, *wire.Error) {
	v, err := rd.run(ctx, method, params)
	if err != nil {
		return nil, wire.ToWire(err)
	}
	return encodeBounded(method, v, rd.maxReply)
}

// run runs one read method and returns its result.
func (rd *reads) run(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case wire.MethodGet:
		return rd.get(ctx, params)
	case wire.MethodSearch:
		return selected(ctx, rd, method, params, []string{"limit"}, func(p *docir.SearchParams) *docir.Selector { return &p.Selector },
			func(ctx context.Context, r docir.Reader, p docir.SearchParams) (docir.SearchResult, error) {
				return r.Search(ctx, p)
			})
	case wire.MethodQuery:
		return selected(ctx, rd, method, params, []string{"limit"}, func(p *docir.QueryParams) *docir.Selector { return &p.Selector },
			func(ctx context.Context, r docir.Reader, p docir.QueryParams) (docir.SearchResult, error) {
				return r.Query(ctx, p)
			})
	case wire.MethodContext:
		return selected(ctx, rd, method, params, []string{"limit", "budget"}, func(p *docir.ContextParams) *docir.Selector { return &p.Selector },
			func(ctx context.Context, r docir.Reader, p docir.ContextParams) (docir.ContextResult, error) {
				return r.Context(ctx, p)
			})
	case wire.MethodStatus:
		return selected(ctx, rd, method, params, nil, func(p *docir.StatusParams) *docir.Selector { return &p.Selector },
			func(ctx context.Context, r docir.Reader, _ docir.StatusParams) (docir.Status, error) {
				return r.Status(ctx)
			})
	case wire.MethodCheck:
		return rd.check(ctx, params, rd.pageRoom())
	case wire.MethodLinks:
		return rd.links(ctx, params, rd.pageRoom())
	case wire.MethodDiscover:
		if err := wire.DecodeParams(wire.MethodDiscover, params, &noParams{}); err != nil {
			return nil, err
		}
		return rd.discover(), nil
	}
	return nil, docir.Errorf(docir.CodeMethodNotFound, "no read method %q", method)
}

// encodeBounded encodes a method's result; one over bound bytes is a
// reply_too_large error.
func encodeBounded(method string, v any, bound int) (json.RawMessage, *wire.Error) {
	out, err := wire.EncodeResult(v)
	if err != nil {
		return nil, wire.NewError(docir.CodeInternal, "%s: encoding the result: %v", method, err)
	}
	if len(out) > bound {
		return nil, wire.ReplyTooLargeFor(method, len(out), bound)
	}
	return out, nil
}

func (rd *reads) get(ctx context.Context, params json.RawMessage) (any, error) {
	var p docir.GetParams
	if err := decodeAddressed(wire.MethodGet, params, &p); err != nil {
		return nil, err
	}
	// Stop gathering bodies once they could not fit in a reply.
	return keyed(ctx, rd, wire.MethodGet, p.DocID, p.DocIDs, p.Selector,
		func(ctx context.Context, r docir.Reader, a address.Address) (docir.Document, error) {
			return docir.GetOne(ctx, r, a, rd.maxReply)
		},
		func(ctx context.Context, r docir.Reader, addrs []address.Address) (docir.GetResult, error) {
			return docir.Get(ctx, r, addrs, rd.maxReply)
		})
}

// decodeAddressed decodes the params of a read keyed by addresses, whose
// text is checked first: an address damaged on the way must not read as
// another one.
func decodeAddressed(method string, params json.RawMessage, p any) error {
	if err := wire.CheckText(params); err != nil {
		return docir.Errorf(docir.CodeMalformedAddress, "%s: malformed address: %w", method, err)
	}
	return wire.DecodeParams(method, params, p)
}

// keyed runs a read keyed by its request (DESIGN's "reply shapes follow
// the key"): doc_id answers with one (a miss is not_found), doc_ids with
// a list and its misses. Every address is parsed before anything is read.
func keyed[One, Many any](ctx context.Context, rd *reads, method string, docID *string, docIDs []string, sel docir.Selector,
	one func(context.Context, docir.Reader, address.Address) (One, error),
	many func(context.Context, docir.Reader, []address.Address) (Many, error)) (any, error) {
	switch {
	case docID != nil && docIDs != nil:
		return nil, docir.Errorf(docir.CodeInvalidParams, "%s: give doc_id or doc_ids, not both", method)
	case docID != nil:
		a, err := address.Parse(*docID)
		if err != nil {
			return nil, malformedIn(method, err)
		}
		return on(ctx, rd, method, sel, func(ctx context.Context, r docir.Reader) (One, error) {
			return one(ctx, r, a)
		})
	case docIDs != nil:
		if len(docIDs) > docir.MaxBatch {
			return nil, docir.Errorf(docir.CodeInvalidParams, "%s: %d addresses in doc_ids; at most %d in one call", method, len(docIDs), docir.MaxBatch)
		}
		addrs, err := address.ParseAll(docIDs)
		if err != nil {
			return nil, malformedIn(method, err)
		}
		return on(ctx, rd, method, sel, func(ctx context.Context, r docir.Reader) (Many, error) {
			return many(ctx, r, addrs)
		})
	}
	return nil, docir.Errorf(docir.CodeInvalidParams, "%s: want doc_id (one address) or doc_ids (a list of addresses)", method)
}

// on runs a read on the reader its selector names: a held generation of
// the local store (image_revision, or a binding's generation once its
// receipt replays exactly), else rd's reader. A pin is the local store's:
// it is not sent on to peers, and a peer that answers is named in a warning
// (Held.Pinned). With require_current (a binding's run_current
// form), refreshes are held off from the check to the end of the read, so
// the generation checked current is the one read.
func on[T any](ctx context.Context, rd *reads, method string, sel docir.Selector, read func(context.Context, docir.Reader) (T, error)) (T, error) {
	var zero T
	if sel.RequireCurrent && sel.Binding == "" {
		return zero, docir.Errorf(docir.CodeInvalidParams, "%s: require_current applies to a read under a binding; give binding too", method)
	}
	if !sel.Pinned() {
		return read(ctx, rd.r)
	}
	if sel.ImageRevision != 0 && sel.Binding != "" {
		return zero, docir.Errorf(docir.CodeInvalidParams, "%s: give image_revision or binding, not both", method)
	}
	if rd.pins.hold == nil {
		return zero, docir.Errorf(docir.CodeNoStore, "%s: this session has no local store to pin", method)
	}
	rev := uint64(sel.ImageRevision)
	if sel.Binding != "" {
		if sel.RequireCurrent {
			if rd.pins.bindings == nil {
				return zero, docir.Errorf(docir.CodeNoStore, "%s: this session has no local store to bind to", method)
			}
			release, err := rd.pins.bindings.HoldRefresh(ctx)
			if err != nil {
				return zero, err
			}
			defer release()
		}
		b, err := replay(ctx, rd.pins.bindings, []byte(sel.Binding))
		if err != nil {
			return zero, err
		}
		if sel.RequireCurrent {
			if err := b.RequireCurrent(ctx); err != nil {
				return zero, err
			}
		}
		rev = b.Revision()
	}
	h, err := rd.pins.hold(ctx, rev)
	if err != nil {
		return zero, err
	}
	defer h.Close()
	return read(ctx, h.Pinned(rd.pins.log))
}

// replay checks a binding receipt against the local store.
func replay(ctx context.Context, svc binding.Service, receipt []byte) (*binding.Binding, error) {
	if svc == nil {
		return nil, docir.Errorf(docir.CodeNoStore, "this session has no local store to bind to")
	}
	return binding.Replay(ctx, svc, receipt)
}

// selected runs a read whose params carry a selector: decoded (closed), an
// explicit 0 refused for zeroKeys (limit, budget), and read on the reader
// its selector names (see on) with the selector taken off the params, so
// that a pin is never sent on to a peer.
func selected[P, R any](ctx context.Context, rd *reads, method string, params json.RawMessage, zeroKeys []string,
	selector func(*P) *docir.Selector, read func(context.Context, docir.Reader, P) (R, error)) (any, error) {
	var p P
	if err := wire.DecodeParams(method, params, &p); err != nil {
		return nil, err
	}
	if err := noZero(method, params, zeroKeys...); err != nil {
		return nil, err
	}
	sel := selector(&p)
	pin := *sel
	*sel = docir.Selector{}
	return on(ctx, rd, method, pin, func(ctx context.Context, r docir.Reader) (R, error) { return read(ctx, r, p) })
}
