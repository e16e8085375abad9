package session

import (
	"context"
	"encoding/json"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// changes runs docir/changes: what changed in the local store between two
// retained generations, since a generation or since the generation of a
// binding receipt (which must replay exactly), until a generation or the
// current one. It reads two generations, so it is no read a batch runs.
// It answers a page (limit, cursor): a cursor names both generations, and
// the page after it reads them, stale_revision once either is pruned.
func (e *Engine) changes(ctx context.Context, params json.RawMessage, room int) (any, error) {
	var p docir.ChangesParams
	if err := wire.DecodeParams(wire.MethodChanges, params, &p); err != nil {
		return nil, err
	}
	for _, k := range []string{"since", "until"} {
		if zeroIn(params, k) {
			// Generations are numbered from 1; 0 is not "absent".
			return nil, docir.Errorf(docir.CodeInvalidParams, "%s: %s 0: generations are numbered from 1 (leave until out for the current one)", wire.MethodChanges, k)
		}
	}
	switch {
	case p.Since != 0 && p.SinceReceipt != "":
		return nil, docir.Errorf(docir.CodeInvalidParams, "%s: give since or since_receipt, not both", wire.MethodChanges)
	case p.SinceReceipt != "":
		b, err := e.replay(ctx, []byte(p.SinceReceipt))
		if err != nil {
			return nil, err
		}
		p.Since, p.SinceReceipt = b.Revision(), ""
	case p.Since == 0:
		return nil, docir.Errorf(docir.CodeInvalidParams, "%s: want since (a generation) or since_receipt (a binding receipt)", wire.MethodChanges)
	}
	if err := pageChanges(params, &p); err != nil {
		return nil, err
	}
	p.MaxBytes = pageBytes(room, e.maxReply)
	res, err := e.reads.r.Changes(ctx, p)
	if err != nil {
		return nil, err
	}
	if res.More != nil {
		res.Next = docir.Cursor{Of: docir.PagedChanges, Generation: res.Until, Since: res.Since, Pos: *res.More}.Encode()
	}
	return res, nil
}
