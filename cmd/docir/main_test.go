package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/store/faultfs"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"docir": func() {
			// DOCIR_FAULT makes this docir fail or crash at a chosen file
			// operation (store/faultfs).
			if err := faultfs.SetFromEnv(); err != nil {
				fmt.Fprintln(os.Stderr, "docir:", err)
				os.Exit(2)
			}
			os.Exit(Main())
		},
	})
}

// TestScripts runs the CLI end to end: every testdata/script/*.txtar is a
// session of real docir processes. $CORPUS is a fresh copy of
// testdata/corpus, the fixture corpus.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams("../../testdata/script", func(env *testscript.Env) error {
		dst := filepath.Join(env.WorkDir, "corpus")
		env.Setenv("CORPUS", dst)
		return corpustest.CopyTree("../../testdata/corpus", dst)
	}))
}

// scriptParams runs the scripts in dir with docir and exitcode, each after
// setup.
func scriptParams(dir string, setup func(*testscript.Env) error) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Setup:               setup,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode": cmdExitCode,
		},
	}
}

// cmdExitCode runs a program and checks its exit code:
//
//	exitcode 2 docir get 'a b'
//
// stdout and stderr are kept for the stdout/stderr commands that follow.
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d\nstderr: %s", args[1], got, want, ts.ReadFile("stderr"))
	}
}
