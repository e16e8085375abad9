package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/docir/docir/docir/wire"
)

// TestBatchReplyOverTheBound: when a batch's replies pass the bound
// together, each reply replaced states its own size (and the array's);
// the array fits. Before, the message gave the array's size as the
// reply's.
func TestBatchReplyOverTheBound(t *testing.T) {
	var replies [][]byte
	for id, size := range []int{500_000, 400_000, 300_000, 450_000} {
		replies = append(replies, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":"%s"}`, id, strings.Repeat("x", size))))
	}
	sizes := map[string]int{}
	for _, r := range replies {
		sizes[string(wire.ScanID(r, true))] = len(r)
	}
	line := batchLine(replies)
	if len(line) > wire.MaxReplyBytes {
		t.Errorf("the array is %d bytes", len(line))
	}
	var got []struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(line, &got); err != nil || len(got) != 4 {
		t.Fatalf("%v: %.300s", err, line)
	}
	replaced := 0
	for _, r := range got {
		if r.Error == nil {
			continue
		}
		replaced++
		prefix := fmt.Sprintf("reply of %d bytes does not fit in its batch's reply (", sizes[string(r.ID)])
		if !strings.HasPrefix(r.Error.Message, prefix) {
			t.Errorf("id %s: %q, want it to start %q", r.ID, r.Error.Message, prefix)
		}
	}
	if replaced != 2 {
		t.Errorf("%d replies replaced, want the 2 largest", replaced)
	}
}
