package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/docir/docir/docir/corpustest"
)

// TestReadmeHostConfigs starts exactly the command lines of the README's
// "Use it from an agent" host configurations (mcpServers for Claude
// Desktop, Claude Code and Cursor; servers for VS Code), with the
// placeholders put to a fixture corpus and a docir.yaml naming it, from
// the folder the host would start them in: / for an absolute --config,
// the project for Claude Code. Each answers initialize and a search.
func TestReadmeHostConfigs(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Use it from an agent\n")
	if !ok {
		t.Fatal(`README.md has no "## Use it from an agent" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	blocks := regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(section, -1)
	if len(blocks) != 3 {
		t.Fatalf("%d JSON blocks in the section, want 3 (Claude Desktop/Cursor, Claude Code, VS Code)", len(blocks))
	}
	project := filepath.Join(t.TempDir(), "project")
	if err := corpustest.CopyTree("../../testdata/corpus", filepath.Join(project, "docs")); err != nil {
		t.Fatal(err)
	}
	yaml := "name: Storage team handbook\ndescription: runbooks and ADRs\nsources:\n  - path: docs\n"
	if err := os.WriteFile(filepath.Join(project, "docir.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	type server struct {
		Type    string   `json:"type"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	for i, b := range blocks {
		var cfg struct {
			MCPServers map[string]server `json:"mcpServers"`
			Servers    map[string]server `json:"servers"` // VS Code
		}
		dec := json.NewDecoder(strings.NewReader(b[1]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			t.Fatalf("block %d: %v\n%s", i, err, b[1])
		}
		srv, ok := cfg.MCPServers["docir"]
		if !ok {
			srv, ok = cfg.Servers["docir"]
		}
		if !ok || srv.Command != "docir" || (srv.Type != "" && srv.Type != "stdio") {
			t.Fatalf("block %d: no docir stdio server: %s", i, b[1])
		}
		t.Run(strings.Join(srv.Args, " "), func(t *testing.T) {
			var args []string
			absolute := false
			for _, a := range srv.Args {
				if strings.Contains(a, "/path/to/your/docs") || strings.Contains(a, "${workspaceFolder}") {
					absolute = true
				}
				a = strings.ReplaceAll(a, "/path/to/your/docs", project)
				args = append(args, strings.ReplaceAll(a, "${workspaceFolder}", project))
			}
			if args[0] != "serve" || args[1] != "--mcp" {
				t.Fatalf("args %q: want serve --mcp first", args)
			}
			dir := project
			if absolute {
				dir = "/"
			}
			p := startMCP(t, dir, []string{"HOME=" + t.TempDir()}, args[2:]...)
			p.send(mcpInitialize)
			init := p.reply()
			if !strings.Contains(mustJSON(init), `Storage team handbook`) {
				t.Errorf("initialize does not name the corpus: %v", init)
			}
			p.send(mcpInitialized)
			deadline := time.Now().Add(time.Minute)
			for id := 10; ; id++ {
				res := p.callTool(id, "search", `{"query":"disk full"}`)
				if res["isError"] != true {
					if !strings.Contains(toolText(res), "runbooks/disk-full") {
						t.Errorf("search: %v", res)
					}
					break
				}
				if !strings.Contains(toolText(res), "indexing") || time.Now().After(deadline) {
					t.Fatalf("search: %v", res)
				}
			}
		})
	}
}
