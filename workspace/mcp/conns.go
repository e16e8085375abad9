package mcp

import (
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docir/docir/workspace/session"
)

// conns are the engine sessions of one MCP server's sessions, one each
// (session.Conn), so that what an MCP session keeps from one call to the
// next (a read batch's source_drift) is its own: a stdio session, and each
// Mcp-Session-Id over Streamable HTTP. A session's is dropped when the
// session ends.
type conns struct {
	e  *session.Engine
	mu sync.Mutex
	of map[*sdk.ServerSession]*session.Conn
}

func newConns(e *session.Engine) *conns {
	return &conns{e: e, of: map[*sdk.ServerSession]*session.Conn{}}
}

// conn is the engine session of MCP session ss (a session of its own for a
// call with none).
func (c *conns) conn(ss *sdk.ServerSession) *session.Conn {
	if ss == nil {
		return c.e.NewConn()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if k, ok := c.of[ss]; ok {
		return k
	}
	k := c.e.NewConn()
	c.of[ss] = k
	go func() {
		_ = ss.Wait() // the session ended: its state goes with it
		c.mu.Lock()
		delete(c.of, ss)
		c.mu.Unlock()
	}()
	return k
}
