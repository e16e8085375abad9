package readbatch

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports holds the engine to its place: package docir, the standard
// library and x/sync, nothing of stores, transports or the CLI.
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(path, "/")
			switch {
			case !strings.Contains(first, "."): // the standard library
			case path == "github.com/docir/docir/docir", path == "github.com/docir/docir/docir/wire", strings.HasPrefix(path, "golang.org/x/sync/"):
			default:
				t.Errorf("%s imports %s; readbatch imports only docir, docir/wire, the standard library and x/sync", f, path)
			}
		}
	}
}
