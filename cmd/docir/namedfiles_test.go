package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNamedFilesAreBounded: a file named on the command line (a config, a
// receipt, an evidence file) that is a FIFO was opened and read without
// end, and a huge one was read whole before its size was checked; a
// FIFO hung docir until SIGKILL. Each is now refused at once, with an
// error that names the file and (for size) the bound.
func TestNamedFilesAreBounded(t *testing.T) {
	docir := inFixtureCorpus(t)
	if code, stderr := docir(&bytes.Buffer{}, "index", "."); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	var receipt bytes.Buffer
	if code, stderr := docir(&receipt, "bind", "--ttl", "0"); code != 0 {
		t.Fatalf("bind: exit %d: %s", code, stderr)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "task.receipt")
	if err := os.WriteFile(good, receipt.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	// Sparse files one byte over each bound.
	sized := func(name string, size int64) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, size); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bigConfig := sized("big.yaml", 1<<20+1)
	bigReceipt := sized("big.receipt", 16384+1)
	tests := []struct {
		args []string
		want []string // in stderr
	}{
		{[]string{"--config", fifo, "search", "retry"}, []string{fifo, "a FIFO, not a regular file"}},
		{[]string{"replay", fifo}, []string{fifo, "a FIFO, not a regular file"}},
		{[]string{"get", "--receipt", fifo, "runbooks/disk-full"}, []string{fifo, "a FIFO, not a regular file"}},
		{[]string{"changes", "--since", fifo}, []string{fifo, "a FIFO, not a regular file"}},
		{[]string{"bind", "--release", fifo}, []string{fifo, "a FIFO, not a regular file"}},
		{[]string{"replay", good, "--evidence", fifo}, []string{fifo, "a FIFO, not a regular file"}},
		{[]string{"--config", bigConfig, "search", "retry"}, []string{bigConfig, "over the 1048576-byte"}},
		{[]string{"replay", bigReceipt}, []string{bigReceipt, "over the 16384-byte"}},
	}
	for _, tt := range tests {
		done := make(chan string, 1)
		go func() {
			code, stderr := docir(&bytes.Buffer{}, tt.args...)
			if code == 0 {
				stderr += " (exit 0)"
			}
			done <- stderr
		}()
		select {
		case stderr := <-done:
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) || strings.Contains(stderr, "exit 0") {
					t.Errorf("docir %s: stderr %q; want an error with %q", strings.Join(tt.args, " "), stderr, w)
				}
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("docir %s: no answer in 20 s (the read does not end)", strings.Join(tt.args, " "))
		}
	}
}
