package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/workspace/session"
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
func addResources(s *sdk.Server, e *session.Engine, o Options) {
	s.AddResourceTemplate(&sdk.ResourceTemplate{
		Name:        "document",
		Title:       "A document or section of " + corpusName(o),
		URITemplate: ResourceTemplate,
		MIMEType:    "text/markdown",
		Description: "docir:///<id> is a whole document, docir:///<id>#<heading> one section with its subsections; " +
			"the addresses are those search, query and context return (percent-encode what a URI needs).",
	}, func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		uri := req.Params.URI
		addr, err := addressOf(uri)
		if err != nil {
			return nil, err
		}
		params, _ := json.Marshal(docir.GetParams{DocID: &addr})
		result, werr := e.Call(ctx, wire.MethodGet, params)
		if werr != nil {
			if werr.StableCode() == docir.CodeNotFound {
				return nil, sdk.ResourceNotFoundError(uri)
			}
			return nil, fmt.Errorf("%s (%s)", werr.Message, werr.StableCode())
		}
		var doc docir.Document
		if err := json.Unmarshal(result, &doc); err != nil {
			return nil, err
		}
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: doc.Body}}}, nil
	})
}

// addressOf is the address a docir:/// URI names.
func addressOf(uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, ResourcePrefix)
	if !ok || rest == "" {
		return "", fmt.Errorf("resource %q: want %s<id> or %s<id>#<heading>", uri, ResourcePrefix, ResourcePrefix)
	}
	addr, err := url.PathUnescape(rest)
	if err != nil {
		return "", fmt.Errorf("resource %q: %v", uri, err)
	}
	return addr, nil
}
