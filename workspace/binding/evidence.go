package binding

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// MaxEvidenceFileBytes bounds an evidence file: a receipt, the evidence
// and a request of up to the server's 64 KiB frame bound, in base64.
const MaxEvidenceFileBytes = 256 << 10

// EvidenceMethods are the reads an evidence receipt may attest, sorted:
// the ones workspace/evidence runs and `docir get|search|query|context|
// status --evidence` records. An evidence file naming any other method is
// rejected before anything runs.
func EvidenceMethods() []string {
	return []string{wire.MethodCheck, wire.MethodContext, wire.MethodGet, wire.MethodLinks, wire.MethodQuery, wire.MethodSearch, wire.MethodStatus}
}

// Evidence is the engine's evidence receipt of one read run under a
// binding: made only by (*Binding).Evidence from the exact request and
// response bytes.
type Evidence struct {
	ev      Receipt // the docir.read-evidence.v1 object and its digest
	binding Receipt
	method  string
	request []byte
}

// evidenceJSON is the evidence receipt's wire shape.
type evidenceJSON struct {
	Schema         string `json:"schema"`
	BindingDigest  string `json:"binding_digest"`
	Method         string `json:"method"`
	RequestDigest  string `json:"request_digest"`
	ResponseDigest string `json:"response_digest"`
	Authority      bool   `json:"authority"`
}

func newEvidence(bindingDigest, method, requestDigest, responseDigest string) Receipt {
	return seal(SchemaEvidence, evidenceJSON{
		Schema: SchemaEvidence, BindingDigest: bindingDigest, Method: method,
		RequestDigest: requestDigest, ResponseDigest: responseDigest,
	})
}

// Evidence makes the evidence receipt of a read of method run on the
// binding's generation: request is the exact bytes of the request's params
// as received, response the exact bytes of its result as sent. Digests are
// plain sha256 of those bytes, hex; the engine computes them, never the
// caller.
func (b *Binding) Evidence(method string, request, response []byte) Evidence {
	return Evidence{
		ev:      newEvidence(b.receipt.digest, method, sha256Hex(request), sha256Hex(response)),
		binding: b.receipt,
		method:  method,
		request: bytes.Clone(request),
	}
}

// Canonical returns the evidence receipt's canonical bytes (a copy).
func (e Evidence) Canonical() []byte { return e.ev.Canonical() }

// Digest returns the evidence receipt's digest, hex.
func (e Evidence) Digest() string { return e.ev.digest }

// Method is the read method the evidence is of.
func (e Evidence) Method() string { return e.method }

// Binding is the receipt of the binding the read ran under.
func (e Evidence) Binding() Receipt { return e.binding }

// Marshal returns the evidence file, everything `docir replay --evidence`
// needs: the RFC 8785 form of {binding, digest, evidence, request} and a
// newline, binding being the receipt file's object and request the
// request bytes in standard base64.
func (e Evidence) Marshal() []byte {
	b := make([]byte, 0, 512+base64.StdEncoding.EncodedLen(len(e.request)))
	b = append(b, `{"binding":`...)
	b = append(b, e.binding.object()...)
	b = append(b, `,"digest":"`...)
	b = append(b, e.ev.digest...)
	b = append(b, `","evidence":`...)
	b = append(b, e.ev.canonical...)
	b = append(b, `,"request":"`...)
	b = base64.StdEncoding.AppendEncode(b, e.request)
	return append(b, "\"}\n"...)
}

// EvidenceClaim is what an evidence file says, parsed and checked for form
// and self-consistency but not against any store.
type EvidenceClaim struct {
	Binding        Claim
	Method         string
	Request        []byte
	ResponseDigest string
	Digest         string

	binding []byte // the receipt file's object
}

// ParseEvidence reads an evidence file. It accepts exactly the bytes
// Marshal writes (one trailing newline optional); the embedded binding
// receipt is checked as ParseReceipt checks a receipt file, and the
// evidence's binding_digest, request_digest and digest must be the ones
// its content gives. Anything else is docir.CodeBindingRejected.
func ParseEvidence(file []byte) (EvidenceClaim, error) {
	if len(file) > MaxEvidenceFileBytes {
		return EvidenceClaim{}, rejectf("evidence: %d bytes, over the %d-byte bound", len(file), MaxEvidenceFileBytes)
	}
	var env struct {
		Binding  json.RawMessage `json:"binding"`
		Digest   *string         `json:"digest"`
		Evidence json.RawMessage `json:"evidence"`
		Request  *string         `json:"request"`
	}
	if err := decodeCanonical("evidence", file, &env, "binding", "digest", "evidence", "request"); err != nil {
		return EvidenceClaim{}, err
	}
	if env.Binding == nil || env.Digest == nil || env.Evidence == nil || env.Request == nil {
		return EvidenceClaim{}, rejectf("evidence: want the fields binding, digest, evidence and request")
	}
	bc, err := ParseReceipt(env.Binding)
	if err != nil {
		return EvidenceClaim{}, fmt.Errorf("evidence: binding: %w", err)
	}
	var e struct {
		Schema         *string `json:"schema"`
		BindingDigest  *string `json:"binding_digest"`
		Method         *string `json:"method"`
		RequestDigest  *string `json:"request_digest"`
		ResponseDigest *string `json:"response_digest"`
		Authority      *bool   `json:"authority"`
	}
	if err := decodeClosed("evidence", env.Evidence, &e, "schema", "binding_digest", "method", "request_digest", "response_digest", "authority"); err != nil {
		return EvidenceClaim{}, err
	}
	if e.Schema == nil || e.BindingDigest == nil || e.Method == nil || e.RequestDigest == nil || e.ResponseDigest == nil || e.Authority == nil {
		return EvidenceClaim{}, rejectf("evidence: want the fields schema, binding_digest, method, request_digest, response_digest and authority")
	}
	request, err := base64.StdEncoding.Strict().DecodeString(*env.Request)
	if err != nil {
		return EvidenceClaim{}, rejectf("evidence: request is not standard base64: %v", err)
	}
	switch {
	case *e.Schema != SchemaEvidence:
		return EvidenceClaim{}, rejectf("evidence: schema %q; this docir reads %s", docir.Clip(*e.Schema, maxQuoted), SchemaEvidence)
	case *e.Authority:
		return EvidenceClaim{}, rejectf("evidence: authority is true; evidence grants no authority")
	case !slices.Contains(EvidenceMethods(), *e.Method):
		return EvidenceClaim{}, rejectf("evidence: method %q is not a read docir attests (%s)", docir.Clip(*e.Method, maxQuoted), strings.Join(EvidenceMethods(), ", "))
	case !validDigest(*e.ResponseDigest):
		return EvidenceClaim{}, rejectf("evidence: response_digest %q is not 64 lowercase hex digits", docir.Clip(*e.ResponseDigest, maxQuoted))
	case *e.BindingDigest != bc.Digest:
		return EvidenceClaim{}, rejectf("evidence: binding_digest %q is not the digest of the binding it carries", docir.Clip(*e.BindingDigest, maxQuoted))
	case *e.RequestDigest != sha256Hex(request):
		return EvidenceClaim{}, rejectf("evidence: request_digest %q is not the digest of the request it carries", docir.Clip(*e.RequestDigest, maxQuoted))
	}
	want := newEvidence(bc.Digest, *e.Method, *e.RequestDigest, *e.ResponseDigest)
	if !bytes.Equal(want.canonical, env.Evidence) {
		return EvidenceClaim{}, rejectf("evidence: the evidence object is not the canonical %s form of its fields", SchemaEvidence)
	}
	if *env.Digest != want.digest {
		return EvidenceClaim{}, rejectf("evidence: digest %q is not the evidence's digest", docir.Clip(*env.Digest, maxQuoted))
	}
	c := EvidenceClaim{
		Binding: bc, Method: *e.Method, Request: request, ResponseDigest: *e.ResponseDigest,
		Digest: want.digest, binding: env.Binding,
	}
	again := Evidence{ev: want, binding: Receipt{schema: SchemaBinding, canonical: bc.canonical, digest: bc.Digest}, method: c.Method, request: request}
	if !bytes.Equal(bytes.TrimSuffix(file, []byte("\n")), bytes.TrimSuffix(again.Marshal(), []byte("\n"))) {
		return EvidenceClaim{}, rejectf("evidence: not the bytes docir writes for it")
	}
	return c, nil
}

// Runner re-runs one read on a binding's generation: the method with the
// exact request (params) bytes, returning the exact result bytes the
// engine sends for it. The workspace provides it (package binding runs no
// reads).
type Runner func(ctx context.Context, b *Binding, method string, request []byte) (response []byte, err error)

// Verified is an evidence file confirmed against the store.
type Verified struct {
	Binding  *Binding
	Evidence Evidence
	Response []byte // the response the pinned generation answers now
}

// VerifyEvidence confirms an evidence file, as `docir replay --evidence
// FILE` does: it parses it, replays its binding receipt through svc (so
// the generation must still be retained and match), re-runs the request on
// that generation with run, rebuilds the evidence from the request and the
// response it got, and compares bytes and digest exactly. A different
// response is docir.CodeBindingRejected naming both response digests; an
// error of run passes through.
func VerifyEvidence(ctx context.Context, svc Service, file []byte, run Runner) (Verified, error) {
	c, err := ParseEvidence(file)
	if err != nil {
		return Verified{}, err
	}
	b, err := Replay(ctx, svc, c.binding)
	if err != nil {
		return Verified{}, err
	}
	resp, err := run(ctx, b, c.Method, c.Request)
	if err != nil {
		return Verified{}, fmt.Errorf("evidence: re-running %s on generation %d: %w", c.Method, b.Revision(), err)
	}
	e := b.Evidence(c.Method, c.Request, resp)
	if got := sha256Hex(resp); got != c.ResponseDigest {
		return Verified{}, docir.Errorf(docir.CodeBindingRejected, "evidence: generation %d answers %s with a response of digest %s; the evidence records %s", b.Revision(), c.Method, got, c.ResponseDigest)
	}
	if e.ev.digest != c.Digest {
		return Verified{}, docir.Errorf(docir.CodeBindingRejected, "evidence: the rebuilt evidence has digest %s; the file records %s", e.ev.digest, c.Digest)
	}
	return Verified{Binding: b, Evidence: e, Response: resp}, nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
