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
func (e *Engine) changes(ctx context.Context, params json.RawMessage) (any, error) {
	var p docir.ChangesParams
	if err := wire.DecodeParams(wire.MethodChanges, params, &p); err != nil {
		return nil, err
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
	return e.reads.r.Changes(ctx, p)
}
