package mcp

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestResources: one template over addresses; reading a document, a
// section (percent-encoded or not) gives its body as markdown; a miss is
// the SDK's resource-not-found error.
func TestResources(t *testing.T) {
	checkLeaks(t)
	cs := connect(t, fixture(t, ""))
	ts, err := cs.ListResourceTemplates(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts.ResourceTemplates) != 1 || ts.ResourceTemplates[0].URITemplate != "docir:///{+address}" || ts.ResourceTemplates[0].MIMEType != "text/markdown" {
		t.Fatalf("templates: %+v", ts.ResourceTemplates)
	}
	tests := []struct{ uri, prefix string }{
		{"docir:///runbooks/disk-full#mitigate", "## Mitigate\n"},
		{"docir:///adr/0001-record-architecture-decisions", "# 1. Record architecture decisions"},
		{"docir:///guides/%E6%A3%80%E7%B4%A2#%E6%A6%82%E8%BF%B0", "## 概述"},
	}
	for _, tt := range tests {
		res, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: tt.uri})
		if err != nil {
			t.Errorf("%s: %v", tt.uri, err)
			continue
		}
		if len(res.Contents) != 1 || res.Contents[0].URI != tt.uri || res.Contents[0].MIMEType != "text/markdown" || !strings.Contains(res.Contents[0].Text, tt.prefix) {
			t.Errorf("%s: %+v", tt.uri, res.Contents)
		}
	}
	_, err = cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "docir:///nope"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != sdk.CodeResourceNotFound {
		t.Errorf("a miss: %v", err)
	}
	if _, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "docir:///a%20b"}); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("a malformed address: %v", err)
	}
}

// FuzzAddressOf: any URI gives an address or an error naming the URI;
// an address comes only from a docir:/// URI.
func FuzzAddressOf(f *testing.F) {
	for _, s := range []string{"docir:///a#b", "docir:///%E6%A3%80", "docir:///", "docir:///%zz", "http://x/a", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		addr, err := addressOf(uri)
		if err != nil {
			if !strings.Contains(err.Error(), "resource ") {
				t.Errorf("%q: error %v does not name the resource", uri, err)
			}
			return
		}
		if !strings.HasPrefix(uri, ResourcePrefix) || addr == "" {
			t.Errorf("%q: address %q", uri, addr)
		}
	})
}
