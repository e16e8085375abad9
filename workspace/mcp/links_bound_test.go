package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLinksToolBound: the links tool's doc_ids has the bound of get's over
// MCP (MaxToolAddresses) in its schema, its description says so, and the
// tool enforces it. Before, the schema said maxItems 100, the description
// "at most 1000", and a call of 150 addresses was served.
func TestLinksToolBound(t *testing.T) {
	checkLeaks(t)
	cs := connect(t, fixture(t, ""))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name != ToolLinks {
			continue
		}
		in, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Properties struct {
				DocIDs struct {
					MaxItems    int    `json:"maxItems"`
					Description string `json:"description"`
				} `json:"doc_ids"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(in, &s); err != nil {
			t.Fatal(err)
		}
		d := s.Properties.DocIDs
		if d.MaxItems != MaxToolAddresses || !strings.Contains(d.Description, fmt.Sprintf("at most %d)", MaxToolAddresses)) {
			t.Errorf("links doc_ids: maxItems %d, description %q; want %d in both", d.MaxItems, d.Description, MaxToolAddresses)
		}
	}
	call := func(n int) *sdk.CallToolResult {
		t.Helper()
		ids := make([]string, n)
		for i := range ids {
			ids[i] = "runbooks/disk-full"
		}
		r, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolLinks, Arguments: map[string]any{"doc_ids": ids}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := call(MaxToolAddresses); r.IsError {
		t.Errorf("links of %d addresses: %v", MaxToolAddresses, r.Content)
	}
	r := call(MaxToolAddresses + 50)
	text := ""
	if len(r.Content) == 1 {
		if tc, ok := r.Content[0].(*sdk.TextContent); ok {
			text = tc.Text
		}
	}
	if !r.IsError || !strings.Contains(text, "(invalid_params, JSON-RPC -32602)") || !strings.Contains(text, fmt.Sprintf("%d addresses in doc_ids", MaxToolAddresses+50)) {
		t.Errorf("links of %d addresses: isError %v, %.200q", MaxToolAddresses+50, r.IsError, text)
	}
}
