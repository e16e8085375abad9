// Package readbatch owns the engine of workspace/read-batch, the
// host-selected parallel read (../shared/DESIGN.md, "workspace/read-batch";
// docs/protocol.md). It decodes the batch params, runs each inner frame
// through a Dispatcher handed to it, at most Config.Workers at once, keeps
// every row in input order, and authenticates the held source before any
// work and again once the whole result is assembled.
//
// It knows nothing of stores or transports: the server gives it the ordinary
// one-frame dispatch path, the read allowlist and an authenticator, and
// sends the result it returns. It imports only package docir, the standard
// library and golang.org/x/sync. It never refreshes, writes or binds: a
// frame whose method is not on the allowlist is answered -32601 here and
// never reaches the dispatcher.
package readbatch
