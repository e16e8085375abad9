// Package binding owns execution bindings: a task pinned to one exact,
// retained generation of a workspace, the receipt that names it (canonical
// JSON that anyone holding the store can verify), and the evidence receipts
// of reads run under it.
//
// It opens no store and holds no authority. It is handed the workspace
// service through the small Service interface, and everything it attests it
// rebuilds from that service's own state: Replay never trusts a receipt's
// fields, it reselects the generation the receipt names and compares the
// receipt it rebuilds with the one it was given, byte for byte. It must not
// read files, open stores or run reads itself; VerifyEvidence is handed a
// Runner for that.
//
// The formats (docs/bindings.md):
//
//   - a binding receipt is the RFC 8785 form of {schema, workspace, revision,
//     manifest_digest, authority: false}; its digest is
//     sha256(schema || 0x00 || canonical bytes), in hex;
//   - a receipt file is the RFC 8785 form of {digest, receipt} and one
//     optional trailing newline; any other bytes (keys reordered, spaces,
//     escapes changed) are rejected, so a file is verified byte for byte;
//   - an evidence receipt is the RFC 8785 form of {schema, binding_digest,
//     method, request_digest, response_digest, authority: false}, same digest
//     rule; an evidence file is the RFC 8785 form of {binding, digest,
//     evidence, request}, binding being a receipt file's object and request
//     the request bytes in standard base64.
//
// Failures carry docir.CodeBindingRejected (a receipt or pin that does not
// match what the store retains) or pass on the service's own code.
package binding
