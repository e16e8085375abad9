package docir

import (
	"context"
	"errors"
	"fmt"

	"github.com/docir/docir/address"
)

// Code is a stable string naming a class of failure. It travels on the wire
// in error.data.code and decides the CLI exit code; its text never changes
// once released.
type Code string

// The codes. docs/protocol.md and docs/cli.md list each with its numbers.
const (
	CodeMalformedAddress Code = "malformed_address" // the caller's address is not well formed
	CodeNotFound         Code = "not_found"         // a single-address read found nothing
	CodeInvalidParams    Code = "invalid_params"    // params missing, extra or of the wrong type
	CodeInvalidQuery     Code = "invalid_query"     // a query expression that does not parse
	CodeUsage            Code = "usage"             // a CLI invocation that makes no sense
	CodeParseError       Code = "parse_error"       // a frame that is not JSON
	CodeInvalidRequest   Code = "invalid_request"   // JSON that is not a JSON-RPC request
	CodeMethodNotFound   Code = "method_not_found"  // no such method, or not granted
	CodeFrameTooLarge    Code = "frame_too_large"   // an inbound frame over the bound
	CodeReplyTooLarge    Code = "reply_too_large"   // an outbound reply over the bound
	CodeBatchUnsupported Code = "batch_unsupported" // a JSON-RPC array
	CodeNoStore          Code = "no_store"          // nothing indexed and nothing to index
	CodeStoreFormat      Code = "store_format"      // a store written by an unknown format version
	CodeConfig           Code = "config"            // a bad config file or policy
	CodeSource           Code = "source"            // a source tree that cannot be ingested
	CodeUnavailable      Code = "unavailable"       // a store or peer that could not answer
	CodeInternal         Code = "internal"          // anything else
	CodeNotImplemented   Code = "not_implemented"   // a method this build lists but cannot run yet
	CodeUnauthorized     Code = "unauthorized"      // an HTTP request without the right bearer token

	// Execution bindings and the read batch (docs/bindings.md, docs/protocol.md).
	CodeBindingRejected   Code = "binding_rejected"    // a receipt or pin that does not match the store: edited, foreign, drifted, pruned
	CodeStaleRevision     Code = "stale_revision"      // a read pinned to a generation that is no longer retained
	CodeSourceDrift       Code = "source_drift"        // the held generation's sources changed under a read batch
	CodeBatchMalformed    Code = "batch_malformed"     // read-batch params not as declared, or a stale image_revision
	CodeBatchTooLarge     Code = "batch_too_large"     // an assembled read-batch result over the reply bound
	CodeBatchWorkerFailed Code = "batch_worker_failed" // a read-batch worker panicked; no rows are returned
	CodeIndexing          Code = "indexing"            // the store is still being built in the background

	// Links (docs/links.md).
	CodeBrokenLinks Code = "broken_links" // `docir check` found broken links (CLI only: over the wire they are data)
)

// Error is the one coded error type. Engines return it (or wrap it) where a
// caller must branch; transports read its Code to pick numbers.
type Error struct {
	Code    Code
	Message string
	Err     error // the cause, if any
}

// Errorf builds an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: code, Message: err.Error(), Err: errors.Unwrap(err)}
}

func (e *Error) Error() string {
	if e.Message != "" {
		return e.Message
	}
	if e.Err != nil {
		return e.Err.Error()
	}
	return string(e.Code)
}

func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, &docir.Error{Code: docir.CodeNotFound}) branches on codes.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// CodeOf returns the code err carries: the code of the first *Error in its
// chain, malformed_address for an address parse error, unavailable for a
// request that ran past its deadline (a server's time for one reply: ask
// again, or ask for less) or was cancelled before it was answered (its
// client went away: an HTTP client that half-closes after its request is
// cancelled so by Go's server; nothing failed inside), else internal.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var pe *address.ParseError
	if errors.As(err, &pe) {
		return CodeMalformedAddress
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return CodeUnavailable
	}
	return CodeInternal
}

// ExitCode maps an error to the CLI's exit code: 0 done, 2 a usage error or a
// malformed address, 3 a single-address read that found nothing, 4 a pinned
// read whose generation was rejected or is no longer retained, 1 the rest.
func ExitCode(err error) int {
	switch CodeOf(err) {
	case "":
		return 0
	case CodeMalformedAddress, CodeUsage, CodeInvalidQuery, CodeInvalidParams:
		return 2
	case CodeNotFound:
		return 3
	case CodeBindingRejected, CodeStaleRevision, CodeSourceDrift:
		return 4
	default:
		return 1
	}
}

// JSON-RPC 2.0 error numbers. The standard ones, then docir's own in the
// implementation-defined server range.
const (
	RPCParseError     = -32700
	RPCInvalidRequest = -32600
	RPCMethodNotFound = -32601
	RPCInvalidParams  = -32602
	RPCInternalError  = -32603
	RPCNotFound       = -32001
	RPCUnavailable    = -32002
	RPCTooLarge       = -32003
	RPCStore          = -32004
	RPCNotImplemented = -32005
	RPCUnauthorized   = -32006
	RPCBinding        = -32007 // binding_rejected, stale_revision
	RPCSourceDrift    = -32008
	RPCBatch          = -32009 // batch_too_large, batch_worker_failed
	RPCIndexing       = -32010
)

// RPCNumber maps a code to its JSON-RPC error number.
func RPCNumber(c Code) int {
	switch c {
	case CodeParseError:
		return RPCParseError
	case CodeInvalidRequest, CodeBatchUnsupported, CodeFrameTooLarge:
		return RPCInvalidRequest
	case CodeMethodNotFound:
		return RPCMethodNotFound
	case CodeInvalidParams, CodeMalformedAddress, CodeInvalidQuery, CodeUsage:
		return RPCInvalidParams
	case CodeNotFound:
		return RPCNotFound
	case CodeUnavailable:
		return RPCUnavailable
	case CodeReplyTooLarge:
		return RPCTooLarge
	case CodeNoStore, CodeStoreFormat, CodeSource, CodeConfig:
		return RPCStore
	case CodeNotImplemented:
		return RPCNotImplemented
	case CodeUnauthorized:
		return RPCUnauthorized
	case CodeBindingRejected, CodeStaleRevision:
		return RPCBinding
	case CodeSourceDrift:
		return RPCSourceDrift
	case CodeBatchMalformed:
		return RPCInvalidParams
	case CodeBatchTooLarge, CodeBatchWorkerFailed:
		return RPCBatch
	case CodeIndexing:
		return RPCIndexing
	default:
		return RPCInternalError
	}
}
