// Package federation owns reads across the local store and the peers a
// config declares, in priority order: local first, then each peer in
// declaration order.
//
// A deep read resolves per address: the first store that holds an address
// answers it. A peer is asked once, in one batched call, only for the
// addresses nothing nearer answered, and not at all once nothing is left. A
// peer that fails (unreachable, timed out, refused, or answering garbage)
// is data, never an error of the read: the addresses it might have held are
// reported missing with reason `unavailable`, a warning names the peer, and
// every document that did resolve is returned. Skeleton reads ask every
// store at once (bounded), merge the rankings by reciprocal-rank fusion and
// report how each store answered beside the hits.
//
// Peers are a store folder on disk (opened read-only through a
// workspace.Service that never indexes), or a `docir serve --http` endpoint
// spoken to with JSON-RPC 2.0 over HTTP. Every reply of an HTTP peer is
// outside input: it is decoded and checked here before any of it is used.
//
// The package receives plain structs (PeerConfig); it never imports cobra,
// viper or cmd/, never reads the environment, and never writes to a store,
// local or peer. docs/federation.md states the rules for users.
package federation
