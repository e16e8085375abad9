package session

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// TestSelectorMemberNamed: a wrongly typed image_revision, binding or
// require_current is invalid_params naming that member, as any other
// member's is, on every method whose params embed docir.Selector: never
// "Selector", the Go struct that carries them.
func TestSelectorMemberNamed(t *testing.T) {
	e, _ := newTestEngine(t, &Policy{Schema: PolicyV2, Grants: []string{GrantRefresh}, ReadBatchWorkers: 2}, nil)
	methods := map[string]string{ // method → params it needs besides the selector
		wire.MethodGet:     `"doc_id":"runbooks/disk-full"`,
		wire.MethodLinks:   `"doc_id":"runbooks/disk-full"`,
		wire.MethodSearch:  `"query":"disk"`,
		wire.MethodQuery:   `"expr":"kind:adr"`,
		wire.MethodContext: `"query":"disk"`,
		wire.MethodStatus:  ``,
		wire.MethodCheck:   ``,
	}
	members := []struct{ name, value, want string }{
		{"image_revision", `"4"`, "want an integer, got a JSON string"},
		{"image_revision", `-1`, "want an integer, got a JSON number -1"},
		{"binding", `5`, "want a string, got a JSON number"},
		{"require_current", `"yes"`, "want a boolean, got a JSON string"},
	}
	// Every method the engine serves that takes image_revision is in
	// methods: one added later is caught here.
	for _, method := range e.Methods() {
		frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{"image_revision":"4"}}`, method)
		reply := string(e.Handle(context.Background(), []byte(frame)))
		if _, listed := methods[method]; !listed && !strings.Contains(reply, "unknown field") && !strings.Contains(reply, "batch_malformed") {
			t.Errorf("%s takes image_revision but is not tested here: %s", method, reply)
		}
	}
	for method, base := range methods {
		for _, m := range members {
			params := "{" + base
			if base != "" {
				params += ","
			}
			params += fmt.Sprintf("%q:%s}", m.name, m.value)
			frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
			var reply struct {
				Error *wire.Error `json:"error"`
			}
			if err := json.Unmarshal(e.Handle(context.Background(), []byte(frame)), &reply); err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("%s: field %q: %s", method, m.name, m.want)
			if reply.Error == nil || reply.Error.Message != want || reply.Error.StableCode() != docir.CodeInvalidParams {
				t.Errorf("%s: got %+v, want invalid_params %q", frame, reply.Error, want)
			}
		}
		// image_revision 0 names no generation (the schemas' minimum is
		// 1): refused, where it read the current generation.
		params := "{" + base
		if base != "" {
			params += ","
		}
		frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s"image_revision":0}}`, method, params)
		var reply struct {
			Error *wire.Error `json:"error"`
		}
		if err := json.Unmarshal(e.Handle(context.Background(), []byte(frame)), &reply); err != nil {
			t.Fatal(err)
		}
		if reply.Error == nil || reply.Error.StableCode() != docir.CodeInvalidParams || !strings.Contains(reply.Error.Message, `"image_revision": 0 names no generation`) {
			t.Errorf("%s: got %+v, want invalid_params naming image_revision 0", frame, reply.Error)
		}
		// null is the member left out, as for limit or until: the current
		// generation. (It was refused as 0, a value never written.)
		frame = fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s"image_revision":null}}`, method, params)
		reply.Error = nil
		if err := json.Unmarshal(e.Handle(context.Background(), []byte(frame)), &reply); err != nil {
			t.Fatal(err)
		}
		if reply.Error != nil {
			t.Errorf("%s: got %+v, want the read of the current generation", frame, reply.Error)
		}
	}
}

// TestBindRevisionZero: workspace/bind's revision counts generations from
// 1 (its schema's minimum), so a revision written as 0, alone or with
// workspace (or as 0.0), is invalid_params naming the member and its
// value, and nothing is bound or held; null is the member left out. Before, "revision": 0 alone
// bound the current generation, as if no revision had been given, and
// with workspace the host was told to give both, which it had.
func TestBindRevisionZero(t *testing.T) {
	e, _ := newTestEngine(t, nil, nil)
	for _, params := range []string{
		`{"revision":0}`,
		`{"revision":0,"workspace":"0123456789abcdef0123456789abcdef"}`,
		`{"revision":0.0}`,
	} {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(params), &raw); err != nil {
			t.Fatal(err)
		}
		frame := `{"jsonrpc":"2.0","id":1,"method":"workspace/bind","params":` + params + `}`
		var reply struct {
			Result json.RawMessage `json:"result"`
			Error  *wire.Error     `json:"error"`
		}
		if err := json.Unmarshal(e.Handle(context.Background(), []byte(frame)), &reply); err != nil {
			t.Fatal(err)
		}
		want := "workspace/bind: revision " + string(raw["revision"]) + " names no generation"
		if reply.Error == nil || reply.Error.StableCode() != docir.CodeInvalidParams || !strings.HasPrefix(reply.Error.Message, want) {
			t.Errorf("%s: got %+v %s, want invalid_params %q", params, reply.Error, reply.Result, want)
		}
	}
	// Left out, or null, it is the current generation, as before.
	for _, params := range []map[string]any{{}, {"revision": nil}} {
		if r := handle(t, e, wire.MethodBind, params); r.code != "" {
			t.Errorf("bind %v: %s", params, r.line)
		}
	}
}
