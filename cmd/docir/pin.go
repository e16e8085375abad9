package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/federation"
	"github.com/docir/docir/workspace"
	"github.com/docir/docir/workspace/binding"
)

// pinFlags are the flags every read takes to run on one generation: --at
// REVISION or --receipt FILE, --require-current, and --evidence FILE (with
// --receipt) to write an evidence receipt of the read.
type pinFlags struct {
	at             uint64
	receipt        string
	requireCurrent bool
	evidence       string

	binding *binding.Binding // set once --receipt replayed
	closers []func()
}

func (p *pinFlags) set() bool {
	return p.at != 0 || p.receipt != "" || p.requireCurrent || p.evidence != ""
}

func (p *pinFlags) add(pf interface {
	Uint64Var(*uint64, string, uint64, string)
	StringVar(*string, string, string, string)
	BoolVar(*bool, string, bool, string)
}) {
	pf.Uint64Var(&p.at, "at", 0, "read generation `REVISION` of the store (it must still be retained)")
	pf.StringVar(&p.receipt, "receipt", "", "read the generation a binding receipt `FILE` names (docir bind prints one); the receipt must replay exactly")
	pf.BoolVar(&p.requireCurrent, "require-current", false, "refuse (exit 4) unless the pinned generation is the current one; refreshes wait while the read runs")
	pf.StringVar(&p.evidence, "evidence", "", "with --receipt: write an evidence receipt of this read to `FILE` (docir replay --evidence checks it)")
}

// check refuses pin flags that do not go together. Only the reads declare
// them (get, search, query, context, status); replay declares its own
// --require-current and --evidence, which mean something else there.
func (p *pinFlags) check(cmd *cobra.Command) error {
	if cmd.Flags().Lookup("at") == nil {
		return nil
	}
	if p.at == 0 && cmd.Flags().Changed("at") {
		return docir.Errorf(docir.CodeUsage, "--at 0: generations are numbered from 1")
	}
	if p.evidence != "" && p.receipt == "" {
		return docir.Errorf(docir.CodeUsage, "--evidence needs --receipt: evidence is made under a binding")
	}
	if p.at != 0 && p.receipt != "" {
		return docir.Errorf(docir.CodeUsage, "give --at or --receipt, not both")
	}
	return nil
}

func (p *pinFlags) close() {
	for i := len(p.closers) - 1; i >= 0; i-- {
		p.closers[i]()
	}
	p.closers = nil
}

// pinned is the reader a pinned read answers from: the view of the
// generation the flags name, federated with the peers (each peer that
// answers is named in a warning: the pin does not reach it), unless
// evidence is asked for: evidence covers the local store's bytes only, so
// the peers are not asked, and a warning says so. With
// --require-current, refreshes are held off until the command ends.
func (f *Factory) pinned(ctx context.Context, ws *workspace.Service) (docir.Reader, error) {
	p := &f.pin
	svc := ws.Bindings()
	rev := p.at
	if p.receipt != "" {
		data, err := workspace.ReadFile(p.receipt, binding.MaxReceiptBytes)
		if err != nil {
			return nil, docir.Errorf(docir.CodeUsage, "--receipt: %w", err)
		}
		b, err := binding.Replay(ctx, svc, data)
		if err != nil {
			return nil, fmt.Errorf("--receipt %s: %w", p.receipt, err)
		}
		p.binding, rev = b, b.Revision()
	}
	if p.requireCurrent {
		release, err := svc.HoldRefresh(ctx)
		if err != nil {
			return nil, err
		}
		p.closers = append(p.closers, release)
		cur, err := svc.Current(ctx)
		if err != nil {
			return nil, err
		}
		if rev == 0 {
			rev = cur.Revision
		}
		if p.binding != nil {
			if err := p.binding.RequireCurrent(ctx); err != nil {
				return nil, err
			}
		} else if cur.Revision != rev {
			return nil, docir.Errorf(docir.CodeBindingRejected, "--at %d: generation %d is current (--require-current)", rev, cur.Revision)
		}
	}
	v, err := ws.Hold(ctx, rev)
	if err != nil {
		return nil, err
	}
	p.closers = append(p.closers, func() { _ = v.Close() })
	if len(f.config.peers) == 0 {
		return v, nil
	}
	if p.evidence != "" {
		fmt.Fprintln(f.IO.ErrOut, "docir: warning: --evidence: peers not asked; evidence covers the local store only, so a peer's document reads as missing")
		return v, nil
	}
	peers, err := federation.OpenPeers(f.config.peers)
	if err != nil {
		return nil, err
	}
	fed := federation.New(federation.Config{Local: v, LocalDir: f.config.StoreDir(), Peers: peers})
	p.closers = append(p.closers, func() { _ = fed.Close() })
	return fed.Pinned(v), nil
}

// recordEvidence writes the evidence receipt of a read when --evidence
// asked for one: the server's engine runs the exact request the method
// takes (params, as JSON-RPC sends them) on the pinned generation, and the
// binding makes the evidence from that request and the engine's exact
// result bytes — the bytes `docir replay --evidence` re-runs and compares.
// What the command printed must be those bytes' content.
func (f *Factory) recordEvidence(method string, params, result any) error {
	p := &f.pin
	if p.evidence == "" || p.binding == nil {
		return nil
	}
	req, err := json.Marshal(params)
	if err != nil {
		return err
	}
	ws, err := f.Workspace()
	if err != nil {
		return err
	}
	resp, err := rerun(ws)(context.Background(), p.binding, method, req)
	if err != nil {
		return err
	}
	printed, err := wire.EncodeResult(result)
	if err != nil {
		return err
	}
	if !bytes.Equal(printed, resp) {
		return docir.Errorf(docir.CodeInternal, "--evidence: the engine answers %s on generation %d with other bytes than this read printed; no evidence written", method, p.binding.Revision())
	}
	ev := p.binding.Evidence(method, req, resp)
	if err := os.WriteFile(p.evidence, ev.Marshal(), 0o644); err != nil {
		return docir.Errorf(docir.CodeUsage, "--evidence: %w", err)
	}
	return nil
}
