// Package wire is docir's JSON-RPC 2.0 codec: the method names, the
// request, response and error types, the strict decoding of frames and
// params (closed shapes, no member twice), and NDJSON framing with a bounded
// line reader. The server (package session), the MCP adapter, federation's
// HTTP peer client and the read-batch engine (package readbatch, which
// decides on the request this package decoded) all speak through it; a
// method name is never a string literal outside this package.
//
// It knows JSON-RPC and bounds, not what a method does: dispatch lives in
// package session. It imports only docir and the standard library.
package wire

// Method names.
const (
	MethodGet       = "docir/get"
	MethodSearch    = "docir/search"
	MethodQuery     = "docir/query"
	MethodContext   = "docir/context"
	MethodStatus    = "workspace/status"
	MethodDiscover  = "workspace/discover"
	MethodBind      = "workspace/bind"
	MethodReplay    = "workspace/replay"
	MethodEvidence  = "workspace/evidence"   // a read under a binding, with its evidence receipt
	MethodRefresh   = "workspace/refresh"    // only when the host policy grants "refresh"
	MethodReadBatch = "workspace/read-batch" // only when the host policy selects read_batch_workers
	MethodFields    = "docir/fields"         // when the session has a local store to scan
	MethodLinks     = "docir/links"          // links leaving and reaching documents or sections
	MethodCheck     = "docir/check"          // the broken links of the local store
	MethodChanges   = "docir/changes"        // what changed between two generations of the local store
)

// HeaderPeer marks an HTTP request that one docir makes of another as a
// peer (federation). Its value is the asking process's instance id. A server
// answers such a request from its local store only — it never federates a
// request that came from a peer, so peers that name each other cannot loop —
// and refuses one that carries its own instance id: that peer is itself.
const HeaderPeer = "Docir-Peer"
