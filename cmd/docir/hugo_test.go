package main

import (
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/docir/docir/docir/corpustest"
)

// TestSharedCorpusScripts runs testdata/script-shared/*.txtar: CLI
// sessions on the real corpora of ../shared, unpacked into $WORK ($WORK/hugo-docs
// for the Hugo docs). They skip, with a message, without ../shared.
func TestSharedCorpusScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping in -short mode: indexes the Hugo docs")
	}
	tarball := filepath.Join(corpustest.Shared(t), "corpora", corpustest.HugoDocs)
	testscript.Run(t, scriptParams("../../testdata/script-shared", func(env *testscript.Env) error {
		return corpustest.UnpackTo(tarball, env.WorkDir)
	}))
}
