package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/docir/docir/docir/corpustest"
)

// TestCrashAtEveryStep kills `docir index` (SIGKILL, through the store's
// fault seam: DOCIR_FAULT=kill@K) at each rename, unlink and fsync of a
// refresh in turn: every one that docir itself does (bleve's and bbolt's
// own, inside the build folder, are left to TestKilledIndexNeverTearsAReader
// in store/ingest). The refresh publishes generation 3 over generations 1
// and 2 with retain 2, so it prunes too. After each kill:
//
//   - the store opens (status), and its current generation (2 or 3) is
//     whole: every document reads from it at its version, and search works;
//   - a generation folder past the current one is not readable (get --at)
//     nor bindable (bind --revision);
//   - receipts made before replay, or are rejected cleanly (exit 4);
//   - the next refresh publishes a number above every generation folder
//     the kill left: numbers are never reused.
func TestCrashAtEveryStep(t *testing.T) {
	if testing.Short() {
		t.Skip("runs docir about 300 times; skipped with -short")
	}
	// The store records its sources by absolute path: every run works in
	// the one folder w, restored each time from a copy of the state before
	// the refresh.
	w := filepath.Join(t.TempDir(), "work")
	base := w
	src := filepath.Join(base, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "docir.yaml"), []byte("sources:\n  - path: src\nretain: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const docs = 12
	var receipts []string
	for v := 1; v <= 2; v++ {
		writeCorpus(t, src, docs, v)
		if r := runDocir(t, base, nil, "--format", "json", "index"); r.code != 0 {
			t.Fatalf("index of version %d: %+v", v, r)
		}
		// (--ttl 0: no hold, so that the refresh prunes generation 1.)
		r := runDocir(t, base, nil, "bind", "--ttl", "0")
		if r.code != 0 {
			t.Fatalf("bind: %+v", r)
		}
		name := filepath.Join(t.TempDir(), fmt.Sprintf("r%d.receipt", v))
		if err := os.WriteFile(name, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		receipts = append(receipts, name)
	}
	writeCorpus(t, src, docs, 3)
	identity, err := os.ReadFile(filepath.Join(base, ".docir", "IDENTITY"))
	if err != nil {
		t.Fatal(err)
	}
	pristine := filepath.Join(t.TempDir(), "pristine")
	if err := corpustest.CopyAll(w, pristine); err != nil {
		t.Fatal(err)
	}

	// The operations of one refresh, counted.
	log := filepath.Join(t.TempDir(), "ops")
	if r := runDocir(t, w, []string{"DOCIR_FAULT=count", "DOCIR_FAULT_LOG=" + log}, "--format", "json", "index"); r.code != 0 || !strings.Contains(r.stdout, `"generation": 3`) {
		t.Fatalf("the counted refresh: %+v", r)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	ops := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(ops) < 15 {
		t.Fatalf("only %d operations: %q", len(ops), ops)
	}
	t.Logf("%d operations killed at in turn: %q", len(ops), ops)

	for k := 1; k <= len(ops); k++ {
		op := strings.ReplaceAll(strings.SplitN(ops[k-1], " ", 2)[1], w, "")
		if err := os.RemoveAll(w); err != nil {
			t.Fatal(err)
		}
		if err := corpustest.CopyAll(pristine, w); err != nil {
			t.Fatal(err)
		}
		cmd, stdout, stderr := startDocir(t, w, []string{fmt.Sprintf("DOCIR_FAULT=kill@%d", k)}, "--format", "json", "index")
		if r := waitDocir(t, cmd, stdout, stderr); r.code != -1 {
			t.Fatalf("kill at %s: not killed: %+v", op, r)
		}
		checkAfterKill(t, w, op, docs, string(identity), receipts)
	}
}

// checkAfterKill checks the store in w after a refresh was killed at op:
// the current generation is whole and searchable, nothing past it reads
// or binds, the receipts replay or are rejected cleanly, and the next
// refresh publishes a number no generation folder had.
func checkAfterKill(t *testing.T, w, op string, docs int, identity string, receipts []string) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("killed at %s: %s", op, fmt.Sprintf(format, args...))
	}

	// The store opens; its current generation is whole.
	r := runDocir(t, w, nil, "--format", "json", "status")
	var st struct{ Generation uint64 }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &st) != nil || st.Generation < 2 || st.Generation > 3 {
		fail("status: %+v", r)
		return
	}
	gen := st.Generation
	args := []string{"--format", "json", "get"}
	for i := range docs {
		args = append(args, fmt.Sprintf("d%03d", i))
	}
	r = runDocir(t, w, nil, args...)
	var got struct {
		Documents []struct {
			Generation uint64
			Body       string
		}
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil || len(got.Documents) != docs {
		fail("get: %+v", r)
		return
	}
	for _, d := range got.Documents {
		if m := versionRE.FindStringSubmatch(d.Body); d.Generation != gen || m == nil || m[1] != strconv.FormatUint(gen, 10) {
			fail("generation %d holds %q (generation %d)", gen, d.Body[:min(40, len(d.Body))], d.Generation)
		}
	}
	if r := runDocir(t, w, nil, "--format", "json", "search", "version"); r.code != 0 || !strings.Contains(r.stdout, `"total": `) || strings.Contains(r.stdout, `"total": 0`) {
		fail("search: %+v", r)
	}

	// Nothing past the current generation reads or binds.
	folders := genFolders(t, filepath.Join(w, ".docir", "gen"))
	for _, n := range folders {
		if n <= gen {
			return
		}
		if r := runDocir(t, w, nil, "--format", "json", "--at", fmt.Sprint(n), "get", "d000"); r.code != 4 {
			fail("get --at %d, a generation never published: %+v", n, r)
		}
		if r := runDocir(t, w, nil, "bind", "--revision", fmt.Sprint(n), "--workspace", strings.TrimSpace(identity)); r.code != 4 {
			fail("bind --revision %d, a generation never published: %+v", n, r)
		}
	}

	// Receipts made before replay, or are rejected cleanly.
	for i, rc := range receipts {
		r := runDocir(t, w, nil, "replay", rc)
		switch {
		case r.code == 0:
		case r.code == 4 && i == 0 && strings.Contains(r.stderr, "retain"):
		default:
			fail("replay of the receipt of generation %d: %+v", i+1, r)
		}
	}

	// The next refresh publishes a number no folder had.
	writeCorpus(t, filepath.Join(w, "src"), docs, 4)
	r = runDocir(t, w, nil, "--format", "json", "index")
	var sum struct{ Generation uint64 }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &sum) != nil {
		fail("the next index: %+v", r)
		return
	}
	if high := slices.Max(append(folders, gen)); sum.Generation <= high {
		fail("the next refresh published generation %d; generation folders up to %d were there", sum.Generation, high)
	}
	if r := runDocir(t, w, nil, "--format", "json", "get", "d005"); r.code != 0 || !strings.Contains(r.stdout, "version 4 ") {
		fail("get after the next refresh: %+v", r)
	}
}

// versionRE finds the version writeCorpus wrote into a body.
var versionRE = regexp.MustCompile(`version (\d+) `)

// genFolders lists the numbers of the generation folders in dir (not the
// builds).
func genFolders(t *testing.T, dir string) []uint64 {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	for _, e := range entries {
		if n, err := strconv.ParseUint(e.Name(), 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out
}
