// Package readbatch owns the engine of workspace/read-batch, the
// host-selected parallel read (../shared/DESIGN.md, "workspace/read-batch";
// docs/protocol.md). It decodes the batch params, decodes each inner frame
// once with the codec every transport dispatches with (package docir/wire),
// decides on that decoded method against the read allowlist, runs the
// allowed reads through the Reads it is handed, at most Config.Workers at
// once, keeps every row in input order, and authenticates the held source
// before any work and again once the whole result is assembled.
//
// It knows nothing of stores or transports: the server gives it the read
// methods on the generation it holds (a value that can serve nothing but
// reads), the read allowlist and an authenticator, and sends the result it
// returns. It imports only package docir and its codec docir/wire, the
// standard library and golang.org/x/sync. It never refreshes, writes or
// binds: a frame that is not one JSON-RPC request object is an error row,
// and one whose method is not on the allowlist is answered -32601; neither
// reaches the reads. A row ends in wire.Reply, the step that ends the
// ordinary path, so a row is byte-identical to that path's reply.
package readbatch
