package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/store"
	"github.com/docir/docir/workspace"
	"github.com/docir/docir/workspace/session"
)

// TestReplySizesRFCs measures the bytes of the MCP tool replies on a real
// corpus (the Rust RFCs): before, the result's JSON twice (text and
// structuredContent); now, markdown text beside the JSON once. It logs the
// table docs/protocol.md shows (go test -run TestReplySizesRFCs -v) and
// fails if a reply grew.
func TestReplySizesRFCs(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: indexes 648 RFCs (-short)")
	}
	root := filepath.Join(corpustest.Unpack(t, corpustest.RustRFCs), "rfcs")
	ws := workspace.New(workspace.Config{Dir: t.TempDir(), Sources: []store.Source{{Path: root}}})
	defer ws.Close()
	if _, err := ws.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	e := session.New(session.Config{Reader: ws, Version: "test"})
	cs := connect(t, e)
	calls := []struct{ tool, args string }{
		{"get", `{"doc_id":"0002-rfc-process"}`},
		{"get", `{"doc_ids":["2094-nll","1522-conservative-impl-trait"]}`},
		{"search", `{"query":"borrow checker non-lexical lifetimes"}`},
		{"context", `{"query":"object safety"}`},
		{"context", `{"query":"async fn in traits","budget":1000}`},
	}
	var table strings.Builder
	table.WriteString("| tool | arguments | before (JSON twice) | after (markdown + JSON) | text alone |\n| --- | --- | ---: | ---: | ---: |\n")
	for _, c := range calls {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("%s %s: %v", c.tool, c.args, res.Content[0].(*sdk.TextContent).Text)
		}
		structured, _ := json.Marshal(res.StructuredContent)
		text := res.Content[0].(*sdk.TextContent).Text
		textJSON, _ := json.Marshal(text)
		after := len(structured) + len(textJSON)
		oldText, _ := json.Marshal(string(structured)) // the old text: the JSON as a JSON string
		before := len(structured) + len(oldText)
		fmt.Fprintf(&table, "| %s | `%s` | %d | %d | %d |\n", c.tool, c.args, before, after, len(text))
		if after > before {
			t.Errorf("%s %s: the reply grew: %d bytes, was %d", c.tool, c.args, after, before)
		}
	}
	t.Logf("reply bytes on the Rust RFCs:\n%s", table.String())
}
