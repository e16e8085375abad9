package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite docs/clients from docs/schemas")

const (
	schemaDir = "../../docs/schemas"
	clientDir = "../../docs/clients"
)

// TestCommittedModules is the drift check: the committed client modules are
// exactly what the generator writes from the committed schemas.
func TestCommittedModules(t *testing.T) {
	if *update {
		if err := generate(schemaDir, clientDir); err != nil {
			t.Fatal(err)
		}
	}
	files, err := Generate(schemaDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{TSFile, PyFile} {
		got, err := os.ReadFile(filepath.Join(clientDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(files[name]), string(got)); diff != "" {
			t.Errorf("docs/clients/%s is not what docir-clientgen writes (run go run ./cmd/docir-clientgen, or this test with -update) (-generated +committed):\n%s", name, diff)
		}
	}
}

func TestNames(t *testing.T) {
	for _, tt := range []struct{ in, pascal, camel, snake string }{
		{"docir/get", "DocirGet", "docirGet", "docir_get"},
		{"workspace/read-batch", "WorkspaceReadBatch", "workspaceReadBatch", "workspace_read_batch"},
	} {
		if got := [3]string{Pascal(tt.in), Camel(tt.in), Snake(tt.in)}; got != [3]string{tt.pascal, tt.camel, tt.snake} {
			t.Errorf("%s: %v", tt.in, got)
		}
	}
}

// TestLoadRefuses keeps the generator's subset closed: a keyword it does not
// know, or a $ref to no def, is an error naming the file.
func TestLoadRefuses(t *testing.T) {
	for name, edit := range map[string][2]string{
		"unknown keyword": {`"maxItems": 1000`, `"maxItems": 1000, "uniqueItems": true`},
		"dangling ref":    {`"docir.defs.json#/$defs/Document"`, `"docir.defs.json#/$defs/Nope"`},
		"open object":     {`"additionalProperties": false`, `"additionalProperties": true`},
		"unknown in not":  {`"not": {`, `"not": {"uniqueItems": true,`},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			entries, err := os.ReadDir(schemaDir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				data, err := os.ReadFile(filepath.Join(schemaDir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				if e.Name() == "docir.get.params.json" || e.Name() == "docir.get.result.json" {
					data = []byte(strings.Replace(string(data), edit[0], edit[1], 1))
				}
				os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644)
			}
			if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "docir.get.") {
				t.Errorf("err %v; want an error naming the file", err)
			}
		})
	}
}
