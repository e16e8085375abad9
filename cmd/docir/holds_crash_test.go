package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docir/docir/docir/corpustest"
)

// TestBindKilledAtEveryStep kills `docir bind` (SIGKILL, through the
// store's fault seam) at each rename, unlink and fsync it does in turn, all
// of them writes of the holds record. After each kill the store opens, the
// holds record reads (status lists the holds before the bind, or with it),
// the next bind succeeds and holds, and the next refresh tidies what the
// kill left.
func TestBindKilledAtEveryStep(t *testing.T) {
	if testing.Short() {
		t.Skip("runs docir about 30 times; skipped with -short")
	}
	w := filepath.Join(t.TempDir(), "work")
	if err := corpustest.CopyTree("../../testdata/corpus", w); err != nil {
		t.Fatal(err)
	}
	if r := runDocir(t, w, nil, "index", "."); r.code != 0 {
		t.Fatalf("index: %+v", r)
	}
	if r := runDocir(t, w, nil, "bind", "--ttl", "1h"); r.code != 0 {
		t.Fatalf("bind: %+v", r)
	}
	pristine := filepath.Join(t.TempDir(), "pristine")
	if err := corpustest.CopyAll(w, pristine); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "ops")
	if r := runDocir(t, w, []string{"DOCIR_FAULT=count", "DOCIR_FAULT_LOG=" + log}, "bind", "--ttl", "2h"); r.code != 0 {
		t.Fatalf("the counted bind: %+v", r)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	ops := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(ops) < 3 {
		t.Fatalf("only %d operations: %q", len(ops), ops)
	}
	t.Logf("%d operations killed at in turn: %q", len(ops), ops)
	holds := func(what string) int {
		t.Helper()
		r := runDocir(t, w, nil, "--format", "json", "status")
		var st struct {
			Holds []struct{ Binds int } `json:"holds"`
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &st) != nil || len(st.Holds) != 1 {
			t.Errorf("%s: status: %+v", what, r)
			return 0
		}
		return st.Holds[0].Binds
	}
	for k := 1; k <= len(ops); k++ {
		op := strings.ReplaceAll(strings.SplitN(ops[k-1], " ", 2)[1], w, "")
		what := "killed at " + op
		if err := os.RemoveAll(w); err != nil {
			t.Fatal(err)
		}
		if err := corpustest.CopyAll(pristine, w); err != nil {
			t.Fatal(err)
		}
		cmd, stdout, stderr := startDocir(t, w, []string{fmt.Sprintf("DOCIR_FAULT=kill@%d", k)}, "bind", "--ttl", "2h")
		if r := waitDocir(t, cmd, stdout, stderr); r.code != -1 {
			t.Fatalf("%s: not killed: %+v", what, r)
		}
		before := holds(what)
		if before != 1 && before != 2 {
			t.Errorf("%s: %d binds hold the generation; want the one before the bind, or two", what, before)
		}
		if r := runDocir(t, w, nil, "bind"); r.code != 0 {
			t.Errorf("%s: the next bind: %+v", what, r)
		}
		if after := holds(what + ", then a bind"); after != before+1 {
			t.Errorf("%s: the next bind: %d binds, want %d", what, after, before+1)
		}
		if r := runDocir(t, w, nil, "index"); r.code != 0 {
			t.Errorf("%s: the next refresh: %+v", what, r)
		}
		if left, _ := filepath.Glob(filepath.Join(w, ".docir", "holds.tmp-*")); len(left) != 0 {
			t.Errorf("%s: left after a refresh: %v", what, left)
		}
	}
}
