package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docir/docir/docir/corpustest"
)

// TestMCPClientReadBatch: with a host policy that selects read-batch
// workers, the real TypeScript SDK client sees a read_batch tool and runs a
// batch through it: each row the exact reply of its frame, a malformed
// frame its own error row; the SDK checks the result against the tool's
// output schema. (TestMCPClient, without a policy, sees no such tool.)
func TestMCPClientReadBatch(t *testing.T) {
	dir := mcpClientDir(t)
	docir, err := exec.LookPath("docir")
	if err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join(t.TempDir(), "corpus")
	if err := corpustest.CopyTree("../../testdata/corpus", corpus); err != nil {
		t.Fatal(err)
	}
	index := exec.Command(docir, "index", ".")
	index.Dir = corpus
	if out, err := index.CombinedOutput(); err != nil {
		t.Fatalf("docir index: %v\n%s", err, out)
	}
	policy := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(policy, []byte(`{"schema":"docir.host-policy.v2","grants":[],"read_batch_workers":2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "client.mjs"), docir, corpus, policy)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the MCP client failed: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}
	var got struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		ReadBatch *struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				Schema    string    `json:"schema"`
				Responses []*string `json:"responses"`
			} `json:"structuredContent"`
		} `json:"readBatch"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("client output: %v\n%s", err, stdout.String())
	}
	if got.ReadBatch == nil {
		t.Fatalf("no read_batch tool with a v2 policy selecting workers: %+v", got.Tools)
	}
	rb := got.ReadBatch
	if rb.IsError || rb.StructuredContent.Schema != "docir.read-batch.v1" || len(rb.StructuredContent.Responses) != 3 {
		t.Fatalf("read_batch: %+v", rb)
	}
	rows := rb.StructuredContent.Responses
	for i, want := range []string{`"id":1,"result":{"address":"runbooks/disk-full#Mitigate"`, `"id":2,"result":{"query":"retry budget"`, `"code":-32700`} {
		if rows[i] == nil || !strings.Contains(*rows[i], want) || !strings.HasSuffix(*rows[i], "\n") {
			t.Errorf("row %d: %v, want it to hold %s", i, rows[i], want)
		}
	}
}
