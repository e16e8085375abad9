// Command docir-clientgen writes the typed client modules of `docir serve`
// from the published JSON Schemas: docs/clients/docir.ts (TypeScript) and
// docs/clients/docir_client.py (Python, standard library only). Each module
// builds request frames and decodes replies, checking both against the
// schemas it embeds, and performs no I/O.
//
//	go run ./cmd/docir-clientgen                 # from the module root
//	go run ./cmd/docir-clientgen -schemas DIR -out DIR
//
// The schemas (docs/schemas/index.json and the files it names) are the
// source; the modules are committed, and a test fails when they differ from
// what this command writes. The schemas themselves are pinned by this
// package's tests against the Go shapes of package docir and against what
// a real `docir serve` sends.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// The files written, under -out.
const (
	TSFile = "docir.ts"
	PyFile = "docir_client.py"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("docir-clientgen", flag.ContinueOnError)
	schemas := fs.String("schemas", "docs/schemas", "the schema `DIR` (holding index.json)")
	out := fs.String("out", "docs/clients", "the `DIR` the modules are written to")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "docir-clientgen: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if err := generate(*schemas, *out); err != nil {
		fmt.Fprintf(os.Stderr, "docir-clientgen: %v\n", err)
		return 1
	}
	return 0
}

// Generate returns the modules the schemas in dir describe, by file name.
func Generate(dir string) (map[string][]byte, error) {
	set, err := Load(dir)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{TSFile: TypeScript(set), PyFile: Python(set)}, nil
}

func generate(schemas, out string) error {
	files, err := Generate(schemas)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, name := range []string{TSFile, PyFile} {
		if err := os.WriteFile(filepath.Join(out, name), files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}
