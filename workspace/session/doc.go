// Package session is the engine of `docir serve`: the dispatcher that
// every transport calls, the NDJSON session loop, the host policy loader,
// the HTTP handler, and serve's background jobs (background.go): the Gate
// that holds reads until a background index is done, its Progress, and the
// --watch refresher. The JSON-RPC codec and framing it speaks are in
// package wire.
//
// The layers are kept apart. Framing (wire.LineReader) knows lines and
// bounds, not JSON-RPC. The codec (wire.DecodeRequest, wire.Response,
// wire.Error) knows JSON-RPC, not methods. The Engine knows methods and
// calls a docir.Reader; it is the same for NDJSON (Serve), HTTP
// (HTTPHandler) and MCP (package workspace/mcp calls Engine.Call). One
// Engine serves every client of a process; what a session keeps between
// its calls (the drift a read batch found) is its Conn's: an NDJSON
// connection is one Conn, and a call on the Engine itself (a POST /rpc
// request, an MCP tool call) is a Conn of its own that ends with it. The
// read methods are served by a reads value on one reader (reads.go); a read
// batch's workers get one on the held generation, never the Engine: what
// they can reach is the read allowlist and nothing else, and they never
// take the engine lock a second time. Their rows end in wire.Reply, the
// step that ends Handle too, so a row is the ordinary path's exact bytes.
// The methods a session
// serves follow from its Policy, fixed when the Engine is built; nothing
// over the wire changes them.
//
// Errors travel as wire.Error: the JSON-RPC number from docir.RPCNumber
// and docir's stable string code in error.data.code. docs/protocol.md lists
// every method, shape and code.
//
// This package must not import cobra, viper, cmd/ or the MCP SDK.
package session
