package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docir/docir/docir/corpustest"
)

// fullWriter is a stdout that takes nothing (a full disk, a closed pipe).
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// inFixtureCorpus changes the test's folder to a copy of testdata/corpus
// and returns docir run in process there, writing to out: its exit code
// and stderr.
func inFixtureCorpus(t *testing.T) func(out io.Writer, args ...string) (int, string) {
	dir := filepath.Join(t.TempDir(), "corpus")
	if err := corpustest.CopyTree("../../testdata/corpus", dir); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	return func(out io.Writer, args ...string) (int, string) {
		var errOut bytes.Buffer
		code := run(context.Background(), args, &IOStreams{In: strings.NewReader(""), Out: out, ErrOut: &errOut})
		return code, errOut.String()
	}
}

// TestBindWriteFailureHoldsNothing: a bind whose receipt cannot be written
// fails, and leaves no hold behind (no one has the receipt that would
// release it); the next bind holds as usual.
func TestBindWriteFailureHoldsNothing(t *testing.T) {
	docir := inFixtureCorpus(t)
	holds := func() string {
		t.Helper()
		var out bytes.Buffer
		if code, stderr := docir(&out, "status", "--jq", ".holds | length"); code != 0 {
			t.Fatalf("status: exit %d: %s", code, stderr)
		}
		return strings.TrimSpace(out.String())
	}
	if code, stderr := docir(&bytes.Buffer{}, "index", "."); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	code, stderr := docir(fullWriter{}, "bind")
	if code == 0 || !strings.Contains(stderr, "writing the receipt") || strings.Contains(stderr, "held until") {
		t.Errorf("bind to a full stdout: exit %d, stderr %q; want a failure that says the receipt was not written, and no hold announced", code, stderr)
	}
	if n := holds(); n != "0" {
		t.Errorf("after the failed bind %s holds, want 0", n)
	}
	if code, stderr := docir(&bytes.Buffer{}, "bind"); code != 0 {
		t.Fatalf("bind: exit %d: %s", code, stderr)
	}
	if n := holds(); n != "1" {
		t.Errorf("after a bind %s holds, want 1", n)
	}
}
