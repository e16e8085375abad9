package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestTextToAFullStdoutFails: text printers wrote line by line and
// dropped the write errors: `docir status --format text > /dev/full`
// exited 0, and so did `docir links ID` for a document no link reaches
// (only the incoming lines were checked). Every text output now fails on
// a stdout that takes nothing, exit 1, as the JSON output does.
func TestTextToAFullStdoutFails(t *testing.T) {
	docir := inFixtureCorpus(t)
	if code, stderr := docir(&bytes.Buffer{}, "index", "."); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	for _, args := range [][]string{
		{"status"},
		{"links", "runbooks/windows-crlf"},
		{"check"},
		{"sources"},
		{"fields"},
		{"search", "disk"},
		{"index"},
		{"get", "runbooks/disk-full"},
	} {
		var out bytes.Buffer
		if code, stderr := docir(&out, append([]string{"--format", "text"}, args...)...); code != 0 && args[0] != "check" {
			t.Fatalf("docir %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		code, stderr := docir(fullWriter{}, append([]string{"--format", "text"}, args...)...)
		if code != 1 || !strings.Contains(stderr, "no space left on device") {
			t.Errorf("docir --format text %s to a full stdout: exit %d, stderr %q; want exit 1 naming the write error", strings.Join(args, " "), code, stderr)
		}
	}
}
