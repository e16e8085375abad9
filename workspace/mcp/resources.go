package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// ResourcePrefix starts every docir resource URI: docir:///<address>, a
// document as docir:///<id> and a section as docir:///<id>#<heading>, the
// address percent-encoded where a URI needs it.
const ResourcePrefix = "docir:///"

// ResourceTemplate is the one template over every address.
const ResourceTemplate = ResourcePrefix + "{+address}"

// addResources lets hosts attach any document or section as a resource:
// reading docir:///<address> is a get of that address, its body as
// text/markdown.
func addResources(s *sdk.Server, cs *conns, o Options) {
	s.AddResourceTemplate(&sdk.ResourceTemplate{
		Name:        "document",
		Title:       "A document or section of " + corpusName(o),
		URITemplate: ResourceTemplate,
		MIMEType:    "text/markdown",
		Description: "docir:///<id> is a whole document, docir:///<id>#<heading> one section with its subsections; " +
			"the addresses are those search, query and context return (percent-encode what a URI needs).",
	}, func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		uri := req.Params.URI
		addr, werr := addressOf(uri)
		if werr != nil {
			return nil, sdkError(werr)
		}
		params, _ := json.Marshal(docir.GetParams{DocID: &addr})
		result, werr := cs.conn(req.Session).Call(ctx, wire.MethodGet, params)
		if werr != nil {
			if werr.StableCode() == docir.CodeNotFound {
				return nil, resourceNotFound(uri)
			}
			return nil, sdkError(werr)
		}
		var doc docir.Document
		if err := json.Unmarshal(result, &doc); err != nil {
			return nil, sdkError(wire.NewError(docir.CodeInternal, "resources/read %s: %v", uri, err))
		}
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: doc.Body}}}, nil
	})
}

// addressOf is the address a docir:/// URI names, parsed: a URI that names
// none, or an address that is malformed, is the caller's error
// (malformed_address, as get answers it).
func addressOf(uri string) (string, *wire.Error) {
	rest, ok := strings.CutPrefix(uri, ResourcePrefix)
	if !ok || rest == "" {
		return "", wire.NewError(docir.CodeMalformedAddress, "resource %q: want %s<id> or %s<id>#<heading>", uri, ResourcePrefix, ResourcePrefix)
	}
	addr, err := url.PathUnescape(rest)
	if err != nil {
		return "", wire.NewError(docir.CodeMalformedAddress, "resource %q: %v", uri, err)
	}
	if _, err := address.Parse(addr); err != nil {
		return "", wire.NewError(docir.CodeMalformedAddress, "resource %q: %v", uri, err)
	}
	if i := strings.IndexFunc(rest, func(r rune) bool { return r >= utf8.RuneSelf || !uriByte(byte(r)) }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(rest[i:])
		return "", wire.NewError(docir.CodeMalformedAddress, "resource %q: %q is not a URI character: a URI holds it percent-encoded: %s%s",
			uri, r, ResourcePrefix, percentEncode(rest))
	}
	return addr, nil
}

// uriByte reports whether c may stand unencoded in a URI (RFC 3986: an
// unreserved or a reserved character; '%' starts an escape, which
// url.PathUnescape checks). These are exactly the characters the SDK's
// matcher of the template docir:///{+address} takes (RFC 6570 reserved
// expansion): a URI with any other (a space, a non-ASCII character, one of
// " < > \ ^ ` { | }) it answers "Resource not found" without docir's code,
// so it is malformed_address here, as an address that does not parse is
// (TestResourceURICharacters holds the two to each other).
func uriByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~:/?#[]@!$&'()*+,;=%", c) >= 0
}

// percentEncode is s with every byte a URI may not hold raw written %XX.
func percentEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; uriByte(c) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// resourceNotFound is MCP's resource-not-found error (-32602 since
// SEP-2164) with the URI and docir's code in its data. (The SDK's own writes the URI with Go's
// %q, which is not JSON for a control character: one such URI once ended
// the session.)
func resourceNotFound(uri string) *jsonrpc.Error {
	data, _ := json.Marshal(struct {
		URI  string     `json:"uri"`
		Code docir.Code `json:"code"`
	}{uri, docir.CodeNotFound})
	return &jsonrpc.Error{Code: sdk.CodeResourceNotFound, Message: "Resource not found", Data: data}
}
