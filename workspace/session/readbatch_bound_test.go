package session

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestBatchTooLargeWithALongID: a read batch whose assembled result fits
// the reply bound on its own, but not with its outer id around it (a 7 KB
// id), answers batch_too_large, as the contract says of a batch past the
// bound, not the generic reply_too_large.
func TestBatchTooLargeWithALongID(t *testing.T) {
	e, _ := newTestEngine(t, &Policy{Schema: PolicyV2, Grants: []string{}, ReadBatchWorkers: 2}, nil)
	var frames []string
	for i := range 16 {
		frames = append(frames, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"docir/get","params":{"doc_id":"runbooks/disk-full"}}`, i))
	}
	batch := func(id string) string {
		params, _ := json.Marshal(map[string]any{"image_revision": 1, "batch": map[string]any{"frames": frames}})
		return string(e.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"workspace/read-batch","params":`+string(params)+`}`)))
	}
	short := batch(`1`)
	if !strings.Contains(short, `"result"`) {
		t.Fatalf("the batch alone: %.300s", short)
	}
	// The bound is lowered to just fit this batch with a short id.
	e.maxReply = len(short) + 16
	if got := batch(`2`); !strings.Contains(got, `"result"`) {
		t.Fatalf("with the bound just above it: %.300s", got)
	}
	long := `"` + strings.Repeat("i", 7<<10) + `"`
	got := batch(long)
	if !strings.Contains(got, `"code":"batch_too_large"`) || !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":`+long) || len(got) > e.maxReply {
		t.Fatalf("with a 7 KB id: %.300s…; want batch_too_large to that id, within %d bytes", got, e.maxReply)
	}
}
