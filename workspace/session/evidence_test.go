package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/workspace/binding"
)

// workspace/evidence: a read under a binding comes back with its exact
// result and an evidence receipt the engine made of the exact params and
// result bytes; the receipt verifies against the store after the corpus
// changed (the read re-runs on the pinned generation), and an edited one
// does not.
func TestEvidenceOverRPC(t *testing.T) {
	e, dir := newTestEngine(t, &Policy{Schema: PolicyV1, Grants: []string{GrantRefresh}}, nil)
	call := func(frame string, v any) {
		t.Helper()
		var r struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(e.Handle(context.Background(), []byte(frame)), &r); err != nil || r.Error != nil {
			t.Fatalf("%s: %v %+v", frame, err, r.Error)
		}
		if err := json.Unmarshal(r.Result, v); err != nil {
			t.Fatal(err)
		}
	}
	var bound docir.BindingResult
	call(`{"jsonrpc":"2.0","id":1,"method":"workspace/bind"}`, &bound)
	receipt, _ := json.Marshal(bound.Receipt)
	var ev docir.EvidenceResult
	call(`{"jsonrpc":"2.0","id":2,"method":"workspace/evidence","params":{"binding":`+string(receipt)+`,"method":"docir/get","params":{"doc_id":"runbooks/disk-full#escalate"}}}`, &ev)
	if !strings.Contains(ev.Response, "page the storage on-call") || !strings.HasPrefix(ev.Evidence, `{"binding":`) {
		t.Fatalf("evidence: %+v", ev)
	}
	// The corpus changes; the evidence still verifies on generation 1.
	src := filepath.Join(dir, "corpus", "runbooks", "disk-full.md")
	body, _ := os.ReadFile(src)
	if err := os.WriteFile(src, []byte(strings.ReplaceAll(string(body), "storage on-call", "platform on-call")), 0o644); err != nil {
		t.Fatal(err)
	}
	var sum docir.IndexSummary
	call(`{"jsonrpc":"2.0","id":3,"method":"workspace/refresh"}`, &sum)
	if sum.Generation != 2 {
		t.Fatalf("refresh: %+v", sum)
	}
	run := func(ctx context.Context, b *binding.Binding, method string, request []byte) ([]byte, error) {
		out := e.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":9,"method":"workspace/evidence","params":{"binding":`+string(receipt)+`,"method":"`+method+`","params":`+string(request)+`}}`))
		var res struct {
			Result docir.EvidenceResult `json:"result"`
		}
		if err := json.Unmarshal(out, &res); err != nil {
			return nil, err
		}
		return []byte(res.Result.Response), nil
	}
	if _, err := binding.VerifyEvidence(context.Background(), e.cfg.Bindings, []byte(ev.Evidence), run); err != nil {
		t.Fatalf("the evidence does not verify after a refresh: %v", err)
	}
	forged := strings.Replace(ev.Evidence, `"method":"docir/get"`, `"method":"docir/search"`, 1)
	if _, err := binding.VerifyEvidence(context.Background(), e.cfg.Bindings, []byte(forged), run); docir.CodeOf(err) != docir.CodeBindingRejected {
		t.Fatalf("an edited evidence: %v, want binding_rejected", err)
	}
}
