package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

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

// TestResourceURIRule: a URI is read only when it is a URI; a character a
// URI may not hold raw (a space, a non-ASCII character, {) is
// malformed_address, whether or not the address would resolve, and the
// message gives the URI percent-encoded, which reads. Before, such a URI
// whose address parsed got the SDK's "Resource not found" with no
// data.code, while docir:///a b was malformed_address.
func TestResourceURIRule(t *testing.T) {
	checkLeaks(t)
	s := newRawSession(t, fixture(t, ""))
	s.initialize("2025-06-18")
	tests := []struct{ uri, code, message string }{
		{"docir:///guides/démarrage-rapide#Première lecture", "malformed_address",
			`'é' is not a URI character: a URI holds it percent-encoded: docir:///guides/d%C3%A9marrage-rapide#Premi%C3%A8re%20lecture`},
		{"docir:///runbooks/disk-full#Mitigate it", "malformed_address", `' ' is not a URI character`},
		{"docir:///a{b}", "malformed_address", `'{' is not a URI character`},
		{"docir:///a\\b", "malformed_address", `is not a URI character`},
		{"docir:///a b", "malformed_address", "whitespace in document id"},
		{"docir:///nope", "not_found", "Resource not found"},
	}
	for i, tt := range tests {
		uri, _ := json.Marshal(tt.uri)
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":%s}}`, i, uri))
		got := s.next()
		if _, code, data := errorOf(t, got); code != -32602 || !strings.Contains(data, `"code":"`+tt.code+`"`) || !strings.Contains(got, tt.message) {
			t.Errorf("%s:\n got %s\nwant -32602 %s with %q", tt.uri, got, tt.code, tt.message)
		}
	}
	s.send(`{"jsonrpc":"2.0","id":"ok","method":"resources/read","params":{"uri":"docir:///guides/d%C3%A9marrage-rapide#Premi%C3%A8re%20lecture"}}`)
	if got := s.next(); !strings.Contains(got, `"id":"ok","result"`) || !strings.Contains(got, "## Première lecture") {
		t.Errorf("the URI the message gives: %s", got)
	}
}

// TestURIByteIsTheSDKsMatcher: uriByte takes exactly the characters the
// SDK's matcher of docir:///{+address} takes, byte by byte (and no
// non-ASCII one), so that no URI addressOf lets through is refused by the
// SDK without docir's code.
func TestURIByteIsTheSDKsMatcher(t *testing.T) {
	checkLeaks(t)
	s := sdk.NewServer(&sdk.Implementation{Name: "t", Version: "0"}, nil)
	s.AddResourceTemplate(&sdk.ResourceTemplate{Name: "t", URITemplate: ResourceTemplate}, func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, Text: "x"}}}, nil
	})
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for c := range 256 {
		ch := string(rune(c)) // above 0x7f: its UTF-8, as a host sends it
		switch {
		case c < 0x20 || c == 0x7f:
			// The SDK's not-found error would write the URI as Go's %q,
			// which is not JSON, and end the session: its matcher's
			// pattern has no control character.
			if uriByte(byte(c)) {
				t.Errorf("%q: uriByte takes a control character", ch)
			}
			continue
		case c == '%':
			ch = "%41"
		}
		_, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: ResourcePrefix + "a" + ch})
		if matched := err == nil; matched != uriByte(byte(c)) || c >= utf8.RuneSelf && matched {
			t.Errorf("%q: the SDK's matcher takes it: %v; uriByte: %v (%v)", ch, matched, uriByte(byte(c)), err)
		}
	}
}

// TestSDKErrorsGetACode: an SDK error whose data has no code gets the
// code its number means beside its own members, and the SDK's
// resource-not-found is docir's not_found: every error carries data.code.
func TestSDKErrorsGetACode(t *testing.T) {
	err := coded(&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "m", Data: json.RawMessage(`{"uri":"x"}`)})
	if je := err.(*jsonrpc.Error); string(je.Data) != `{"code":"invalid_params","uri":"x"}` {
		t.Errorf("coded: %s", je.Data)
	}
	next := func(context.Context, string, sdk.Request) (sdk.Result, error) {
		return nil, sdk.ResourceNotFoundError("docir:///x")
	}
	_, err = codedErrors(next)(context.Background(), "resources/read", &sdk.ReadResourceRequest{Params: &sdk.ReadResourceParams{URI: "docir:///x"}})
	if je := err.(*jsonrpc.Error); je.Code != sdk.CodeResourceNotFound || string(je.Data) != `{"uri":"docir:///x","code":"not_found"}` {
		t.Errorf("the SDK's resource-not-found: %d %s", je.Code, je.Data)
	}
}
