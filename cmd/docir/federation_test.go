package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docir/docir/docir/corpustest"
)

// peerProject writes two projects under a temporary folder, team (the
// peer) and mine (whose docir.yaml declares team as a path peer, after
// the extra config lines), indexes both, and leaves the test in mine.
// It returns docir run in process there.
func peerProject(t *testing.T, extra string) func(in string, out *bytes.Buffer, args ...string) (int, string) {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"team/docs/t.md": "# Team doc\n\nteam text.\n",
		"mine/docs/m.md": "# Mine\n\nmine text.\n",
		"mine/docir.yaml": "sources:\n  - path: docs\n" + extra +
			"peers:\n  - name: team\n    path: ../team\n",
	}
	if err := corpustest.WriteFiles(root, files); err != nil {
		t.Fatal(err)
	}
	docir := func(in string, out *bytes.Buffer, args ...string) (int, string) {
		var errOut bytes.Buffer
		code := run(t.Context(), args, &IOStreams{In: strings.NewReader(in), Out: out, ErrOut: &errOut})
		return code, errOut.String()
	}
	t.Chdir(filepath.Join(root, "team"))
	if code, stderr := docir("", &bytes.Buffer{}, "index", "docs"); code != 0 {
		t.Fatalf("index team: exit %d: %s", code, stderr)
	}
	t.Chdir(filepath.Join(root, "mine"))
	if code, stderr := docir("", &bytes.Buffer{}, "index"); code != 0 {
		t.Fatalf("index mine: exit %d: %s", code, stderr)
	}
	return docir
}

// bindTask binds the current generation into task.receipt and returns the
// receipt file's text.
func bindTask(t *testing.T, docir func(string, *bytes.Buffer, ...string) (int, string)) string {
	t.Helper()
	var receipt bytes.Buffer
	if code, stderr := docir("", &receipt, "bind"); code != 0 {
		t.Fatalf("bind: exit %d: %s", code, stderr)
	}
	if err := os.WriteFile("task.receipt", receipt.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return receipt.String()
}

// TestServeEvidenceReplaysWithPeers: the evidence `docir serve` makes in a
// project with peers verifies with `docir replay --evidence`. Evidence
// covers the local store only on every surface, so the server's read is
// of the local store (a peer's document is not in it; a search is not
// fused with the peers'), as the CLI's re-run is.
func TestServeEvidenceReplaysWithPeers(t *testing.T) {
	docir := peerProject(t, "")
	receipt := bindTask(t, docir)
	rec, _ := json.Marshal(receipt)
	for i, read := range []string{
		`"method":"docir/get","params":{"doc_ids":["m","t"]}`,
		`"method":"docir/search","params":{"query":"mine"}`,
		`"method":"docir/context","params":{"query":"text"}`,
	} {
		var out bytes.Buffer
		frame := `{"jsonrpc":"2.0","id":1,"method":"workspace/evidence","params":{"binding":` + string(rec) + `,` + read + `}}` + "\n"
		if code, stderr := docir(frame, &out, "serve"); code != 0 {
			t.Fatalf("serve: exit %d: %s", code, stderr)
		}
		var reply struct {
			Result struct {
				Response string `json:"response"`
				Evidence string `json:"evidence"`
			} `json:"result"`
		}
		if err := json.Unmarshal(out.Bytes(), &reply); err != nil || reply.Result.Evidence == "" {
			t.Fatalf("%s: reply %s (%v)", read, out.String(), err)
		}
		if strings.Contains(reply.Result.Response, `"team"`) {
			t.Errorf("%s: the evidence read asked the peer: %s", read, reply.Result.Response)
		}
		name := "read" + string(rune('0'+i)) + ".evidence"
		if err := os.WriteFile(name, []byte(reply.Result.Evidence), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, stderr := docir("", &bytes.Buffer{}, "replay", "task.receipt", "--evidence", name); code != 0 {
			t.Errorf("%s: replay --evidence of the server's evidence: exit %d: %s", read, code, stderr)
		}
	}
}

// TestPinnedReadNamesUnpinnedPeers: a pin is the local store's; a read
// pinned by a receipt that a peer answers says so, naming the peer, on the
// CLI (single and batched reads, search) and over serve (a read with a
// binding). With --evidence, peers are not asked and stderr says so.
func TestPinnedReadNamesUnpinnedPeers(t *testing.T) {
	docir := peerProject(t, "")
	receipt := bindTask(t, docir)
	const unpinned = "warning: peer team: read at its current generation, not pinned"
	for _, args := range [][]string{
		{"get", "--receipt", "task.receipt", "t"},
		{"get", "--receipt", "task.receipt", "m", "t"},
		{"search", "--receipt", "task.receipt", "team"},
		{"get", "--at", "1", "t"},
	} {
		code, stderr := docir("", &bytes.Buffer{}, args...)
		if code != 0 || strings.Count(stderr, unpinned) != 1 {
			t.Errorf("%q: exit %d, stderr %q; want one warning that team was read unpinned", args, code, stderr)
		}
	}
	if _, stderr := docir("", &bytes.Buffer{}, "get", "m", "t"); stderr != "" {
		t.Errorf("an unpinned read warns: %q", stderr)
	}
	if _, stderr := docir("", &bytes.Buffer{}, "get", "--receipt", "task.receipt", "m"); stderr != "" {
		t.Errorf("a pinned read the local store answered warns: %q", stderr)
	}
	_, stderr := docir("", &bytes.Buffer{}, "get", "--receipt", "task.receipt", "--evidence", "e.evidence", "m", "t")
	if !strings.Contains(stderr, "warning: --evidence: peers not asked") {
		t.Errorf("--evidence with peers: stderr %q; want a warning that peers were not asked", stderr)
	}

	rec, _ := json.Marshal(receipt)
	var out bytes.Buffer
	frame := `{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"binding":` + string(rec) + `,"doc_ids":["m","t"]}}` + "\n"
	if code, stderr := docir(frame, &out, "serve"); code != 0 {
		t.Fatalf("serve: exit %d: %s", code, stderr)
	}
	if !strings.Contains(out.String(), `"warnings":["peer team: read at its current generation, not pinned`) {
		t.Errorf("serve, a read with a binding that team answered: %s; want a warning naming team", out.String())
	}
}
