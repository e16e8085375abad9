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

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// getReads answers docir/get the way a deep read does, without a store: it
// reads the addressed file of the fixture corpus from disk, hashes it and
// encodes a result that carries its body.
type getReads struct{ root string }

func (g getReads) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, *wire.Error) {
	var p struct {
		DocID string `json:"doc_id"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, wire.NewError(docir.CodeInvalidParams, "%v", err)
	}
	body, err := os.ReadFile(filepath.Join(g.root, p.DocID+".md"))
	if err != nil {
		return nil, wire.NewError(docir.CodeNotFound, "%v", err)
	}
	sum := sha256.Sum256(body)
	out, err := wire.EncodeResult(map[string]any{"id": p.DocID, "digest": hex.EncodeToString(sum[:]), "body": string(body)})
	if err != nil {
		return nil, wire.NewError(docir.CodeInternal, "%v", err)
	}
	return out, nil
}

// fixedReads answers every read with one fixed result.
type fixedReads struct{ result json.RawMessage }

func (f fixedReads) Call(context.Context, string, json.RawMessage) (json.RawMessage, *wire.Error) {
	return f.result, nil
}

// BenchmarkGet16 runs 16 get frames as one batch with 1, 2 and 4 workers,
// and as 16 sequential frames decoded and answered by the same reads (the
// floor a batch is measured against).
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
	reads := getReads{root: root}
	ctx := context.Background()

	b.Run("sequential", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, f := range frames {
				req, _, werr := wire.DecodeRequest([]byte(f))
				if werr != nil {
					b.Fatal(werr)
				}
				result, werr := reads.Call(ctx, req.Method, req.Params)
				if wire.Reply(req, result, werr, wire.MaxReplyBytes) == nil {
					b.Fatal("no reply")
				}
			}
		}
	})
	for _, workers := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			cfg := Config{Reads: reads, Allow: ReadMethods(), Workers: workers, Revision: 7,
				Authenticate: func(context.Context) error { return nil }, MaxReply: wire.MaxReplyBytes, MaxResult: 1 << 20}
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
// reads that answer a fixed result.
func BenchmarkOverhead(b *testing.B) {
	reads := fixedReads{result: json.RawMessage(`{"query":"x","hits":[],"total":0}`)}
	frames := make([]string, MaxFrames)
	for i := range frames {
		frames[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"docir/search","params":{"query":"x"}}`, i)
	}
	params := batchParams(frames...)
	for _, workers := range []int{1, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			cfg := Config{Reads: reads, Allow: ReadMethods(), Workers: workers, Revision: 7,
				Authenticate: func(context.Context) error { return nil }, MaxReply: wire.MaxReplyBytes, MaxResult: 1 << 20}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(context.Background(), cfg, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
