package readbatch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// getDispatcher answers docir/get frames the way a deep read does, without
// a store: it decodes the frame, reads the addressed file of the fixture
// corpus from disk, hashes it and encodes a reply that carries its body.
func getDispatcher(root string) Dispatcher {
	return func(ctx context.Context, frame []byte) []byte {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				DocID string `json:"doc_id"`
			} `json:"params"`
		}
		if err := json.Unmarshal(frame, &req); err != nil {
			return errorLine(nil, "parse_error", err.Error())
		}
		body, err := os.ReadFile(filepath.Join(root, req.Params.DocID+".md"))
		if err != nil {
			return errorLine(req.ID, "not_found", err.Error())
		}
		sum := sha256.Sum256(body)
		line := encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{
			"id": req.Params.DocID, "digest": hex.EncodeToString(sum[:]), "body": string(body),
		}})
		return append(line, '\n')
	}
}

// BenchmarkGet16 runs 16 get frames as one batch with 1, 2 and 4 workers,
// and as 16 sequential calls of the same dispatcher (the floor a batch is
// measured against).
func BenchmarkGet16(b *testing.B) {
	root := "../testdata/corpus"
	ids := []string{
		"adr/0001-record-architecture-decisions", "adr/0002-store-bodies-beside-the-index", "adr/0003-retry-budget",
		"runbooks/disk-full", "runbooks/windows-crlf", "guides/démarrage-rapide", "guides/检索", "guides/поиск",
	}
	frames := make([]string, MaxFrames)
	for i := range frames {
		frames[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"docir/get","params":{"doc_id":%q}}`, i, ids[i%len(ids)])
	}
	params := batchParams(frames...)
	dispatch := getDispatcher(root)
	ctx := context.Background()

	b.Run("sequential", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, f := range frames {
				if dispatch(ctx, []byte(f)) == nil {
					b.Fatal("no reply")
				}
			}
		}
	})
	for _, workers := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			cfg := Config{Dispatch: dispatch, Allow: ReadMethods(), Workers: workers, Revision: 7,
				Authenticate: func(context.Context) error { return nil }, MaxResult: 1 << 20}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(ctx, cfg, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOverhead is the engine's own cost for 16 frames: decoding the
// params, the allowlist check, the workers and the assembly, with a
// dispatcher that answers a fixed line.
func BenchmarkOverhead(b *testing.B) {
	reply := []byte(`{"jsonrpc":"2.0","id":1,"result":{"query":"x","hits":[],"total":0}}` + "\n")
	frames := make([]string, MaxFrames)
	for i := range frames {
		frames[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"docir/search","params":{"query":"x"}}`, i)
	}
	params := batchParams(frames...)
	for _, workers := range []int{1, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			cfg := Config{Dispatch: func(context.Context, []byte) []byte { return reply }, Allow: ReadMethods(), Workers: workers, Revision: 7,
				Authenticate: func(context.Context) error { return nil }, MaxResult: 1 << 20}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(context.Background(), cfg, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
