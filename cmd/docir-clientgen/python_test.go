package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPython runs testdata/py/live.py, which drives a live `docir serve`
// (a v2 policy selecting 2 read-batch workers) with the committed
// docs/clients/docir_client.py: 16 frames from its builders, each reply
// decoded by its decoders, and then the same 16 frames as one read batch
// whose rows must equal the replies of the frames sent alone. It skips, with
// a message, when python3 is not on PATH.
func TestPython(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("skipping the Python client check: python3 is not on PATH")
	}
	bin := docirBinary(t)
	corpus, policy := fixture(t, bin)
	clients, err := filepath.Abs(clientDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"frames", "batch"} {
		t.Run(mode, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "python3", "testdata/py/live.py", mode, bin, corpus, policy, clients)
			var stderr strings.Builder
			cmd.Stderr = &stderr // the server's notes (a stale-sources warning, say) are not the result
			out, err := cmd.Output()
			if err != nil || strings.TrimSpace(string(out)) != "ok" {
				t.Fatalf("live.py %s: %v\n%s\nstderr:\n%s", mode, err, out, stderr.String())
			}
		})
	}
}
