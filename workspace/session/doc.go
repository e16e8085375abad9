// Package session is the engine of `docir serve`: JSON-RPC 2.0 wire types,
// NDJSON framing with a bounded line reader, the dispatcher that every
// transport calls, the host policy loader, and the HTTP handler.
//
// The layers are kept apart. Framing (LineReader) knows lines and bounds,
// not JSON-RPC. The wire (DecodeRequest, Response, WireError) knows
// JSON-RPC, not methods. The Engine knows methods and calls a
// workspace.Reader; it is the same for NDJSON (Serve), HTTP (HTTPHandler)
// and MCP (package workspace/mcp calls Engine.Call). The methods a session
// serves follow from its Policy, fixed when the Engine is built; nothing
// over the wire changes them.
//
// Errors travel as WireError: the JSON-RPC number from docir.RPCNumber and
// docir's stable string code in error.data.code. docs/protocol.md lists
// every method, shape and code.
//
// This package must not import cobra, viper, cmd/ or the MCP SDK.
package session
