package session

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// TestDiscoveryShape pins the fields of workspace/discover's reply.
func TestDiscoveryShape(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"discovery", docir.Discovery{Schema: docir.DiscoverySchema, Server: "docir", Version: "v", Policy: new(PolicyV2),
			Methods: []string{"m"}, Capabilities: []string{"c"}, ReadBatchWorkers: new(2),
			Limits: docir.SessionLimits{MaxFrameBytes: 1, MaxReplyBytes: 2, MaxDocIDs: 3}},
			`{"schema":"docir.discover.v1","server":"docir","version":"v","policy":"docir.host-policy.v2","methods":["m"],"capabilities":["c"],"read_batch_workers":2,"limits":{"max_frame_bytes":1,"max_reply_bytes":2,"max_doc_ids":3}}`},
		{"discovery default", docir.Discovery{Schema: docir.DiscoverySchema, Server: "docir", Methods: []string{}, Capabilities: []string{}},
			`{"schema":"docir.discover.v1","server":"docir","version":"","policy":null,"methods":[],"capabilities":[],"limits":{"max_frame_bytes":0,"max_reply_bytes":0,"max_doc_ids":0}}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// FuzzHandle: whatever a frame holds, the engine answers with one reply
// line (or nothing, for a notification) that is JSON-RPC 2.0, addressed to
// the frame's id when it has one, and within the reply bound; it never
// panics.
func FuzzHandle(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_ids":["runbooks/disk-full","nope","a b"]}}`,
		`{"jsonrpc":"2.0","id":"x","method":"docir/get","params":{"doc_id":"runbooks/disk-full#Mitigate"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"docir/search","params":{"query":"disk","limit":3}}`,
		`{"jsonrpc":"2.0","id":3,"method":"docir/query","params":{"expr":"kind:adr"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"docir/context","params":{"query":"retry","budget":50}}`,
		`{"jsonrpc":"2.0","id":5,"method":"workspace/status"}`,
		`{"jsonrpc":"2.0","id":6,"method":"workspace/discover"}`,
		`{"jsonrpc":"2.0","method":"workspace/refresh"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"m"}]`, `{`, `null`, `{"jsonrpc":"2.0","id":{},"method":"m"}`,
	} {
		f.Add([]byte(s))
	}
	e, _ := newTestEngine(f, nil, nil)
	f.Fuzz(func(t *testing.T, frame []byte) {
		reply := e.Handle(context.Background(), frame)
		req, _, werr := wire.DecodeRequest(frame)
		if reply == nil {
			if werr != nil || !req.IsNotification() {
				t.Fatalf("no reply to %q", frame)
			}
			return
		}
		if len(reply) > wire.MaxReplyBytes || strings.ContainsAny(string(reply), "\n\r") {
			t.Fatalf("reply of %d bytes, or with a line break", len(reply))
		}
		var r struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
			Error   *wire.Error     `json:"error"`
		}
		if err := json.Unmarshal(reply, &r); err != nil || r.JSONRPC != "2.0" || (r.Result == nil) == (r.Error == nil) {
			t.Fatalf("reply %s is not one JSON-RPC response", reply)
		}
		if r.Error != nil && (r.Error.Data == nil || r.Error.Data.Code == "") {
			t.Fatalf("error without a code: %s", reply)
		}
		if werr == nil && string(r.ID) != string(req.ID) {
			t.Fatalf("reply id %s, request id %s", r.ID, req.ID)
		}
	})
}
