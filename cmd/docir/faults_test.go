package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Faults seen from the command line (issues 28 and 24): what docir prints
// and exits with when a fault or a signal stops it, and what it leaves.
// Each runs real docir processes: this test binary, as testscript put it
// on PATH, which takes a fault hook from DOCIR_FAULT (store/faultfs).

// docirRun is one docir process: its exit code, stdout and stderr.
type docirRun struct {
	code           int
	stdout, stderr string
}

// startDocir starts docir in dir with args and the extra environment env.
func startDocir(t *testing.T, dir string, env []string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	bin, err := exec.LookPath("docir")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stdout, &stderr
}

// runDocir runs docir to its end.
func runDocir(t *testing.T, dir string, env []string, args ...string) docirRun {
	t.Helper()
	cmd, stdout, stderr := startDocir(t, dir, env, args...)
	return waitDocir(t, cmd, stdout, stderr)
}

func waitDocir(t *testing.T, cmd *exec.Cmd, stdout, stderr *bytes.Buffer) docirRun {
	t.Helper()
	err := cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return docirRun{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
}

// writeCorpus writes n markdown files under dir, each at version v.
func writeCorpus(t *testing.T, dir string, n, v int) {
	t.Helper()
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%03d.md", i))
		body := fmt.Sprintf("# Doc %d\n\nversion %d %s\n\n## Part\n\nversion %d again\n", i, v, strings.Repeat(fmt.Sprintf("words%d ", i%50), 60), v)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// waitForLog waits until the fault log at path has a line.
func waitForLog(t *testing.T, path string, cmd *exec.Cmd) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if b, _ := os.ReadFile(path); len(b) > 0 {
			return
		}
	}
	_ = cmd.Process.Kill()
	t.Fatal("the fault point was never reached")
}

// TestInterruptedIndex: Ctrl-C during `docir index` printed "context
// canceled", exited 1 and left a 50 MB temporary generation. It now says
// "interrupted; nothing published", exits 130, and leaves no build behind,
// on a first index and on a refresh. The signal is sent while the refresh
// pauses at the creation of its build folder (DOCIR_FAULT=pause@1).
func TestInterruptedIndex(t *testing.T) {
	work := t.TempDir()
	src, storeDir := filepath.Join(work, "src"), filepath.Join(work, "store")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	writeCorpus(t, src, 200, 1)
	interrupt := func(what string) {
		t.Helper()
		log := filepath.Join(t.TempDir(), "faults")
		env := []string{"DOCIR_FAULT=pause@1", "DOCIR_FAULT_OPS=mkdir", "DOCIR_FAULT_PATH=" + tmpMarker(), "DOCIR_FAULT_LOG=" + log}
		cmd, stdout, stderr := startDocir(t, work, env, "--store", storeDir, "index", src)
		waitForLog(t, log, cmd)
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		r := waitDocir(t, cmd, stdout, stderr)
		if r.code != 130 || r.stderr != "docir: interrupted; nothing published\n" || r.stdout != "" {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", what, r.code, r.stdout, r.stderr)
		}
		entries, _ := os.ReadDir(filepath.Join(storeDir, "gen"))
		for _, e := range entries {
			if strings.Contains(e.Name(), tmpMarker()) {
				t.Errorf("%s: left behind gen/%s", what, e.Name())
			}
		}
	}

	interrupt("first index")
	if _, err := os.Stat(filepath.Join(storeDir, "CURRENT")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an interrupted first index published: %v", err)
	}
	if r := runDocir(t, work, nil, "--store", storeDir, "--format", "json", "index", src); r.code != 0 || !strings.Contains(r.stdout, `"generation": 1`) {
		t.Fatalf("index after the interruption: %+v", r)
	}
	writeCorpus(t, src, 200, 2)
	interrupt("refresh")
	r := runDocir(t, work, nil, "--store", storeDir, "--format", "json", "get", "d007")
	if r.code != 0 || !strings.Contains(r.stdout, "version 1") || !strings.Contains(r.stdout, `"generation": 1`) {
		t.Fatalf("get after an interrupted refresh: %+v", r)
	}
}

// tmpMarker is what names a build folder (store's tmpMarker).
func tmpMarker() string { return ".tmp-" }

// TestFailureAfterPublishKeepsTheConfig: a failure after publishing (the
// folder state's rename) reported exit 1 while the new generation, with
// the new source, was current, and docir.yaml did not list that source:
// every later index was refused ("would drop b"). Publishing is the commit
// point: the command succeeds with a warning, and docir.yaml is written
// just before it.
func TestFailureAfterPublishKeepsTheConfig(t *testing.T) {
	work := t.TempDir()
	for _, d := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, d, d+".md"), []byte("# "+d+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if r := runDocir(t, work, nil, "--format", "json", "index", "a"); r.code != 0 {
		t.Fatalf("index a: %+v", r)
	}
	env := []string{"DOCIR_FAULT=eio@1", "DOCIR_FAULT_OPS=rename", "DOCIR_FAULT_PATH=folders.state"}
	r := runDocir(t, work, env, "--format", "json", "index", "b")
	if r.code != 0 || !strings.Contains(r.stdout, `"published": true`) || !strings.Contains(r.stderr, "published, but could not record the folder state") {
		t.Fatalf("index b failing after its commit point: %+v", r)
	}
	if cfg, err := os.ReadFile(filepath.Join(work, "docir.yaml")); err != nil || !strings.Contains(string(cfg), "- path: b") {
		t.Fatalf("docir.yaml after publishing b: %q, %v", cfg, err)
	}
	if r := runDocir(t, work, nil, "--format", "json", "index"); r.code != 0 {
		t.Fatalf("the next index: %+v", r)
	}
}

// TestStoreReadErrorIsNotAUsageError: an EIO reading the store folder
// exited 2, the code of a usage error. It is an I/O error: exit 1.
func TestStoreReadErrorIsNotAUsageError(t *testing.T) {
	work := t.TempDir()
	storeDir := filepath.Join(work, "store")
	writeCorpus(t, work, 2, 1)
	if r := runDocir(t, work, nil, "--store", storeDir, "index", "."); r.code != 0 {
		t.Fatalf("index: %+v", r)
	}
	env := []string{"DOCIR_FAULT=eio@1", "DOCIR_FAULT_OPS=readdir", "DOCIR_FAULT_PATH=" + storeDir}
	r := runDocir(t, work, env, "--store", storeDir, "index", ".")
	if r.code != 1 || !strings.Contains(r.stderr, storeDir) || !strings.Contains(r.stderr, "input/output error") {
		t.Fatalf("index with the store unreadable: %+v", r)
	}
}

// TestFileNamesCannotDriveTheTerminal: raw ESC and RLO characters of file
// names reached stderr in warnings. They are escaped.
func TestFileNamesCannotDriveTheTerminal(t *testing.T) {
	work := t.TempDir()
	name := "red\x1b[31m\u202etxt.md"
	if err := os.WriteFile(filepath.Join(work, name), []byte("# A\x00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "ok.md"), []byte("# OK\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runDocir(t, work, nil, "--store", filepath.Join(t.TempDir(), "s"), "index", ".")
	if r.code != 0 || strings.ContainsAny(r.stderr, "\x1b\u202e") || !strings.Contains(r.stderr, `red\x1b[31m\u202etxt.md`) {
		t.Fatalf("index: exit %d, stderr %q", r.code, r.stderr)
	}
	if got := forTerminal("a\x1bb\u202ec\u0085d\te\nf\x7f"); got != `a\x1bb\u202ec\u0085d`+"\te\n"+`f\x7f` {
		t.Errorf("forTerminal: %q", got)
	}
}
