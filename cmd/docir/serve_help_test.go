package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/docir/docir/docir/corpustest"
)

// TestServeHelpListsEverything (newcomer review, finding 1): `docir help
// serve` listed 6 of the 13 NDJSON methods and 6 of the 9 MCP tools, and
// docs/cli.md the same 6 methods. Every method a session with a full
// policy serves (workspace/discover) and every tool it lists (tools/list)
// must be named in the help, and the help and cli.md name no method the
// session lacks.
func TestServeHelpListsEverything(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "corpus")
	if err := corpustest.CopyTree("../../testdata/corpus", dir); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	policy := filepath.Join(dir, "..", "host.json")
	if err := os.WriteFile(policy, []byte(`{"schema": "docir.host-policy.v2", "grants": ["refresh"], "read_batch_workers": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	docir := func(in string, args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := run(context.Background(), args, &IOStreams{In: strings.NewReader(in), Out: &out, ErrOut: &errOut}); code != 0 {
			t.Fatalf("docir %s: exit %d: %s", strings.Join(args, " "), code, errOut.String())
		}
		return out.String()
	}
	docir("", "index", ".")
	var discover struct {
		Result struct{ Methods []string }
	}
	if err := json.Unmarshal([]byte(docir(`{"jsonrpc":"2.0","id":1,"method":"workspace/discover"}`+"\n", "serve", "--policy", policy)), &discover); err != nil {
		t.Fatal(err)
	}
	mcpOut := docir(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	}, "\n")+"\n", "serve", "--mcp", "--policy", policy)
	var tools []string
	for line := range strings.Lines(mcpOut) {
		var reply struct {
			ID     int
			Result struct{ Tools []struct{ Name string } }
		}
		if json.Unmarshal([]byte(line), &reply) == nil && reply.ID == 2 {
			for _, tl := range reply.Result.Tools {
				tools = append(tools, tl.Name)
			}
		}
	}
	if len(discover.Result.Methods) < 10 || len(tools) < 8 {
		t.Fatalf("the session lists methods %v and tools %v: too few to check the help against", discover.Result.Methods, tools)
	}
	help := strings.Join(strings.Fields(docir("", "help", "serve")), " ")
	methods, _, _ := strings.Cut(help[strings.Index(help, "Methods: "):], " One request")
	named := regexp.MustCompile(`\b(?:docir|workspace)/[a-z-]+`).FindAllString(methods, -1)
	slices.Sort(named)
	if !slices.Equal(named, discover.Result.Methods) {
		t.Errorf("help serve names the methods %v; the session serves %v", named, discover.Result.Methods)
	}
	// cli.md's list of serve's methods, likewise.
	_, bullet, _ := strings.Cut(string(doc), "\n- Methods: ")
	bullet, _, _ = strings.Cut(bullet, "\n- ")
	named = regexp.MustCompile(`\b(?:docir|workspace)/[a-z-]+`).FindAllString(bullet, -1)
	slices.Sort(named)
	if !slices.Equal(slices.Compact(named), discover.Result.Methods) {
		t.Errorf("docs/cli.md's serve section names the methods %v; the session serves %v", named, discover.Result.Methods)
	}
	_, toolText, _ := strings.Cut(help, "(tools ")
	toolText, _, _ = strings.Cut(toolText, ")")
	words := strings.FieldsFunc(toolText, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r == '_') })
	for _, name := range tools {
		if !slices.Contains(words, name) {
			t.Errorf("help serve does not name the MCP tool %s (it says: tools %s)", name, toolText)
		}
	}
}
