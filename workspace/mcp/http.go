package mcp

import (
	"net/http"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/workspace/session"
)

// sessionIdle closes an MCP-over-HTTP session no request has used for
// this long.
const sessionIdle = 30 * time.Minute

// HTTPHandler serves the same tools over the SDK's Streamable HTTP
// transport (`docir serve --mcp --http ADDR`, at session.MCPPath). The
// caller mounts it behind the checks of session.HTTPOptions (token, Host,
// Origin). Every HTTP session shares one server.
func HTTPHandler(e *session.Engine, o Options) (http.Handler, error) {
	s, err := newServer(e, o)
	if err != nil {
		return nil, err
	}
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{
		Logger:              o.Log,
		SessionTimeout:      sessionIdle,
		MaxRequestBodyBytes: wire.MaxFrameBytes,
	}), nil
}
