package session

import (
	"context"
	"encoding/json"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// Paged reads: docir/check and docir/changes answer a page of their list,
// from limit and cursor, and a next cursor while items remain
// (docs/protocol.md, "Paging"). A cursor pins the generation(s) it was cut
// from as image_revision does: the next page reads them through the same
// pins, so it is stale_revision once they are no longer retained.

// pageBytes is the bound of a page whose result may take room bytes, in
// a session whose replies are bounded at maxReply: wire.MaxPageBytes, the
// same for every id a frame can carry (so that a page alone and as a
// read-batch row are the same bytes), or less where the transport asks for
// less (MCP's reply carries the page twice: CallWithin).
func pageBytes(room, maxReply int) int {
	n := wire.MaxPageBytes
	if maxReply < wire.MaxReplyBytes { // a test's lower bound
		n = maxReply / 2
	}
	return min(n, room)
}

// pageParams checks a paged read's limit (an explicit 0 is refused by
// noZero) and decodes its cursor, which must be one of method's (of):
// nil when there is none.
func pageParams(method string, params json.RawMessage, limit int, cursor string, of byte) (*docir.Cursor, error) {
	if limit < 0 || limit > docir.MaxPageLimit || (limit == 0 && zeroIn(params, "limit")) {
		return nil, docir.Errorf(docir.CodeInvalidParams, "%s: limit %d: want 1 to %d (leave it out for as many as fit the reply)", method, limit, docir.MaxPageLimit)
	}
	if cursor == "" {
		if given(params, "cursor") {
			return nil, docir.Errorf(docir.CodeInvalidParams, "%s: cursor \"\": want a reply's next (leave cursor out for the first page)", method)
		}
		return nil, nil
	}
	c, err := docir.DecodeCursor(cursor)
	if err != nil {
		return nil, docir.Errorf(docir.CodeInvalidParams, "%s: cursor: %v", method, err)
	}
	if c.Of != of {
		return nil, docir.Errorf(docir.CodeInvalidParams, "%s: cursor: it pages %s, not %s", method, docir.PagedName(c.Of), method)
	}
	return &c, nil
}

// given reports whether params has member key with a value: null is the
// key left out (hosts fill optional keys with null).
func given(params json.RawMessage, key string) bool {
	v, ok := member(params, key)
	return ok && string(v) != "null"
}

// member is the value of params's member key.
func member(params json.RawMessage, key string) (json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil {
		return nil, false
	}
	v, ok := m[key]
	return v, ok
}

// zeroIn reports whether params's member key is the number 0 (null is
// no number: a host that fills an optional key with null leaves it out).
func zeroIn(params json.RawMessage, key string) bool {
	var f float64
	v, ok := member(params, key)
	return ok && string(v) != "null" && json.Unmarshal(v, &f) == nil && f == 0
}

// check runs docir/check: one page of the broken (and external) links of
// the generation the selector names, or the cursor's, its result within
// room bytes (pageBytes).
func (rd *reads) check(ctx context.Context, params json.RawMessage, room int) (any, error) {
	const method = wire.MethodCheck
	var p docir.CheckParams
	if err := wire.DecodeParams(method, params, &p); err != nil {
		return nil, err
	}
	cur, err := pageParams(method, params, p.Limit, p.Cursor, docir.PagedCheck)
	if err != nil {
		return nil, err
	}
	sel := p.Selector
	p.Selector = docir.Selector{}
	if cur != nil && cur.External != p.External {
		return nil, docir.Errorf(docir.CodeInvalidParams, "%s: cursor: it was cut for external %v; this call asks external %v (give the params of the first page)", method, cur.External, p.External)
	}
	p.Page = rd.pageAt(cur, &sel, p.Limit)
	p.MaxBytes = pageBytes(room, rd.maxReply)
	res, err := on(ctx, rd, method, sel, func(ctx context.Context, r docir.Reader) (docir.CheckResult, error) {
		return r.Check(ctx, p)
	})
	if err != nil {
		return nil, err
	}
	if res.More != nil {
		res.Next = docir.Cursor{Of: docir.PagedCheck, Generation: res.Generation, External: p.External, Pos: *res.More}.Encode()
	}
	return res, nil
}

// pageAt is the page a cursor (nil: none) asks for, limit items at most,
// and pins sel to its generation, as image_revision pins it: unless the
// call pins one itself (the store then refuses another), the reads are
// already held on one (evidence: the binding's), or the session has no
// pins (the store then refuses a generation that moved on).
func (rd *reads) pageAt(cur *docir.Cursor, sel *docir.Selector, limit int) docir.Page {
	if cur == nil {
		return docir.Page{Limit: limit}
	}
	if !sel.Pinned() && !rd.held && rd.pins.hold != nil {
		sel.ImageRevision = docir.Revision(cur.Generation)
	}
	return docir.Page{From: cur.Pos, Generation: cur.Generation, Limit: limit}
}

// links runs docir/links: keyed like get, a skeleton read of the link
// index. A doc_id read answers a page of the set (limit, cursor), within
// room bytes (pageBytes); a doc_ids read answers each set whole, bounded
// by the reply, and takes no paging params.
func (rd *reads) links(ctx context.Context, params json.RawMessage, room int) (any, error) {
	const method = wire.MethodLinks
	var p docir.LinksParams
	if err := decodeAddressed(method, params, &p); err != nil {
		return nil, err
	}
	if p.DocID == nil && p.DocIDs != nil && (given(params, "limit") || given(params, "cursor")) {
		return nil, docir.Errorf(docir.CodeInvalidParams, "%s: limit and cursor: paging takes one doc_id (doc_ids reads each set whole)", method)
	}
	cur, err := pageParams(method, params, p.Limit, p.Cursor, docir.PagedLinks)
	if err != nil {
		return nil, err
	}
	var key uint64
	if p.DocID != nil && p.DocIDs == nil {
		a, err := address.Parse(*p.DocID)
		if err != nil {
			return nil, malformedIn(method, err)
		}
		key = docir.AddressKey(a.String())
		if cur != nil && cur.Key != key {
			return nil, docir.Errorf(docir.CodeInvalidParams, "%s: cursor: it was cut for another address than %s (give the doc_id of the first page)", method, a)
		}
	}
	sel := p.Selector
	page := rd.pageAt(cur, &sel, p.Limit)
	res, err := keyed(ctx, rd, method, p.DocID, p.DocIDs, sel,
		func(ctx context.Context, r docir.Reader, a address.Address) (docir.LinkResult, error) {
			return docir.GetLinksPage(ctx, r, a, page, pageBytes(room, rd.maxReply))
		},
		func(ctx context.Context, r docir.Reader, addrs []address.Address) (docir.LinksResult, error) {
			return docir.GetLinks(ctx, r, addrs, rd.maxReply)
		})
	if r, ok := res.(docir.LinkResult); ok && err == nil && r.Links.More != nil {
		r.Links.Next = docir.Cursor{Of: docir.PagedLinks, Generation: r.Links.Generation, Key: key, Pos: *r.Links.More}.Encode()
		return r, nil
	}
	return res, err
}

// pageChanges reads the cursor of a docir/changes call whose since is
// known (a receipt replayed): the page it asks for, on the generations it
// was cut from.
func pageChanges(params json.RawMessage, p *docir.ChangesParams) error {
	const method = wire.MethodChanges
	cur, err := pageParams(method, params, p.Limit, p.Cursor, docir.PagedChanges)
	if err != nil || cur == nil {
		p.Page.Limit = p.Limit
		return err
	}
	if cur.Since != p.Since {
		return docir.Errorf(docir.CodeInvalidParams, "%s: cursor: it was cut for since %d; this call asks since %d (give the params of the first page)", method, cur.Since, p.Since)
	}
	if p.Until != 0 && p.Until != cur.Generation {
		return docir.Errorf(docir.CodeInvalidParams, "%s: cursor: it was cut for until %d; this call asks until %d (give the params of the first page)", method, cur.Generation, p.Until)
	}
	p.Until = cur.Generation
	p.Page = docir.Page{From: cur.Pos, Limit: p.Limit}
	return nil
}
