package readbatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/docir/docir/docir"
)

// Schema names the shape of a read-batch result.
//
// Change log:
//
//	docir.read-batch.v1  first version: schema, responses (one raw reply
//	                     line or null per frame, in input order),
//	                     source_authority (always false).
const Schema = "docir.read-batch.v1"

// Method is the name the batch is served under.
const Method = "workspace/read-batch"

// Bounds of one batch.
const (
	MaxFrames     = 16       // frames in one batch
	MaxFrameBytes = 64 << 10 // one inner frame, decoded, without its line ending
	MinWorkers    = 1
	MaxWorkers    = 4
)

// ReadMethods returns the read allowlist of the contract: the only methods
// a batch may run, sorted. A server passes these (or the part of them it
// serves) as Config.Allow.
func ReadMethods() []string {
	return []string{"docir/context", "docir/get", "docir/query", "docir/search", "workspace/discover", "workspace/status"}
}

// Dispatcher runs one inner frame exactly as the ordinary NDJSON path would
// and returns the exact bytes that path writes for it (the reply line
// including its trailing "\n"), or nil when the path writes nothing (a
// notification). The frame it is handed has no line ending. It is called
// from up to Config.Workers goroutines at once.
type Dispatcher func(ctx context.Context, frame []byte) []byte

// Config is what one batch runs with.
type Config struct {
	// Dispatch is the ordinary one-frame path.
	Dispatch Dispatcher
	// Allow is the read allowlist (method names). A frame naming any other
	// method gets a -32601 method_not_found row and is not dispatched.
	// It must not name Method itself.
	Allow []string
	// Workers is how many inner calls may run at once: 1 to 4.
	Workers int
	// Revision is the generation the session holds; params.image_revision
	// must equal it.
	Revision uint64
	// Authenticate checks the held source. It is called before any frame
	// runs and again after every worker has joined and the result is
	// assembled (also when it is too large or a worker panicked), with the
	// ctx Run was given; its error is returned as is and no row is.
	Authenticate func(ctx context.Context) error
	// MaxResult bounds the assembled result in bytes; assembly stops once
	// it is passed and the batch answers batch_too_large.
	MaxResult int
}

// Result is the wire shape of a read-batch result. Run assembles its bytes
// directly, in this member order; the type declares the shape for readers
// and tests.
type Result struct {
	Schema string `json:"schema"`
	// Responses holds one raw reply line (with its "\n") per frame, in
	// input order, or null for a blank frame or a notification.
	Responses       []*string `json:"responses"`
	SourceAuthority bool      `json:"source_authority"`
}

// PanicError is the cause of a batch_worker_failed error: the first panic
// that escaped the dispatcher, with the frame it ran and the stack.
type PanicError struct {
	Frame int // index into batch.frames
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("frame %d: panic: %v", e.Frame, e.Value)
}

// Run decodes params ({image_revision, batch: {frames: [1..16 strings]}},
// closed at both levels) and runs the batch. It returns the encoded result
// ({schema, responses, source_authority: false}) or an error: a
// *docir.Error with code batch_malformed (params not as declared, 0 or more
// than 16 frames, an image_revision that is not cfg.Revision),
// batch_too_large (the result passed cfg.MaxResult), batch_worker_failed (a
// worker panicked; its cause is a *PanicError), internal (a Config out of
// its bounds, or ctx done), or the authenticator's error as it returned it.
// No error carries a row.
func Run(ctx context.Context, cfg Config, params json.RawMessage) (json.RawMessage, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	p, err := decodeParams(params)
	if err != nil {
		return nil, err
	}
	if p.revision != cfg.Revision {
		return nil, docir.Errorf(docir.CodeBatchMalformed, "%s: image_revision %d is not the held generation %d; read workspace/status and send the batch again", Method, p.revision, cfg.Revision)
	}
	if err := cfg.Authenticate(ctx); err != nil {
		return nil, err
	}
	b := &batch{cfg: cfg, allow: map[string]bool{}, frames: p.frames, rows: make([][]byte, len(p.frames))}
	for _, m := range cfg.Allow {
		b.allow[m] = true
	}
	b.allowText = strings.Join(slices.Sorted(maps.Keys(b.allow)), ", ")
	b.run(ctx)
	if err := cfg.Authenticate(ctx); err != nil {
		return nil, err
	}
	switch {
	case b.panicked != nil:
		return nil, &docir.Error{Code: docir.CodeBatchWorkerFailed,
			Message: fmt.Sprintf("%s: a worker failed on frame %d (%v); every worker was joined and no rows are returned", Method, b.panicked.Frame, b.panicked.Value),
			Err:     b.panicked}
	case b.tooLarge:
		return nil, docir.Errorf(docir.CodeBatchTooLarge, "%s: the assembled result passed the %d-byte bound (%d bytes after %d of %d frames); no rows are returned: send fewer frames or ask each for less", Method, cfg.MaxResult, b.size, b.done, len(b.frames))
	case ctx.Err() != nil:
		return nil, &docir.Error{Code: docir.CodeInternal, Message: fmt.Sprintf("%s: %v; no rows are returned", Method, ctx.Err()), Err: ctx.Err()}
	}
	return b.assemble(), nil
}

func (cfg *Config) check() error {
	switch {
	case cfg.Dispatch == nil:
		return docir.Errorf(docir.CodeInternal, "%s: no dispatcher", Method)
	case cfg.Authenticate == nil:
		return docir.Errorf(docir.CodeInternal, "%s: no authenticator", Method)
	case cfg.Workers < MinWorkers || cfg.Workers > MaxWorkers:
		return docir.Errorf(docir.CodeInternal, "%s: %d workers; want %d to %d", Method, cfg.Workers, MinWorkers, MaxWorkers)
	case cfg.MaxResult <= 0:
		return docir.Errorf(docir.CodeInternal, "%s: result bound %d; want a positive number of bytes", Method, cfg.MaxResult)
	case slices.Contains(cfg.Allow, Method):
		return docir.Errorf(docir.CodeInternal, "%s: the allowlist names the batch itself; a batch never nests", Method)
	}
	return nil
}

// The fixed parts of an encoded result.
const (
	resultHead = `{"schema":"` + Schema + `","responses":[`
	resultTail = `],"source_authority":false}`
)

// batch is one run: the frames, and each row as its encoded JSON value.
type batch struct {
	cfg       Config
	allow     map[string]bool
	allowText string // the allowlist, sorted, for messages
	frames    []string
	rows      [][]byte // encoded: a JSON string or null

	mu       sync.Mutex
	size     int // bytes of the result so far
	done     int // rows finished
	tooLarge bool
	panicked *PanicError
}

// run fills rows, at most cfg.Workers frames at once, until every frame is
// done, the result passes its bound, a worker panics, or ctx is done. It
// returns once every worker has joined.
func (b *batch) run(ctx context.Context) {
	b.size = len(resultHead) + len(resultTail) + len(b.frames) - 1 // and the commas
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(b.cfg.Workers)
	for i := range b.frames {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() (err error) {
			if gctx.Err() != nil {
				return nil
			}
			defer func() {
				if r := recover(); r != nil {
					pe := &PanicError{Frame: i, Value: r, Stack: debug.Stack()}
					b.mu.Lock()
					if b.panicked == nil {
						b.panicked = pe
					}
					b.mu.Unlock()
					err = pe // cancels the others
				}
			}()
			row := encodeRow(b.row(gctx, b.frames[i]))
			b.mu.Lock()
			defer b.mu.Unlock()
			b.rows[i] = row
			b.size += len(row)
			b.done++
			if b.size > b.cfg.MaxResult && !b.tooLarge {
				b.tooLarge = true
				cancel()
			}
			return nil
		})
	}
	_ = g.Wait() // a panic is kept in b.panicked
}

// row runs one frame and returns the bytes its row holds, nil for null.
func (b *batch) row(ctx context.Context, frame string) []byte {
	line := []byte(frame)
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) > MaxFrameBytes { // checked first, as the ordinary path does
		return errorLine(prefixID(line[:MaxFrameBytes]), docir.CodeFrameTooLarge,
			fmt.Sprintf("frame of %d bytes is over the %d-byte bound; it was skipped unread", len(line), MaxFrameBytes))
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return nil // the ordinary path skips a blank line
	}
	if method, id, denied := b.denied(line); denied {
		if id == nil {
			return nil // a notification: the ordinary path writes nothing
		}
		return errorLine(id, docir.CodeMethodNotFound, fmt.Sprintf("method %q is not allowed inside %s (allowed: %s); it was not run", method, Method, b.allowText))
	}
	return b.cfg.Dispatch(ctx, line)
}

// denied reads the method of a frame that is a JSON object and reports
// whether it names a method off the allowlist, with that method and the id
// to address the refusal to ("null" when the id is not a string or a
// number, nil when there is none). Every top-level member spelled "method"
// in any case counts, so that no decoder of the frame, however lenient,
// can find a method this check did not refuse. A frame that is not an
// object is the dispatcher's to refuse: it runs nothing.
func (b *batch) denied(line []byte) (method string, id json.RawMessage, deny bool) {
	if !json.Valid(line) {
		return "", nil, false
	}
	idSeen := false
	scanMembers(line, func(name, value []byte) {
		switch {
		case string(name) == "id" && !idSeen:
			idSeen = true
			id = json.RawMessage("null")
			if c := value[0]; c == '"' || c == '-' || c >= '0' && c <= '9' {
				id = value // a scalar: compact as it stands
			}
		case !deny && isMethodName(name):
			var m string
			if value[0] == '"' && json.Unmarshal(value, &m) == nil && !b.allow[m] {
				method, deny = m, true
			}
		}
	})
	return method, id, deny
}

// isMethodName reports whether a member name (its JSON text inside the
// quotes) reads as "method" in any letter case, escapes decoded.
func isMethodName(name []byte) bool {
	if bytes.IndexByte(name, '\\') < 0 {
		return strings.EqualFold(string(name), "method")
	}
	var s string
	return json.Unmarshal(append(append([]byte{'"'}, name...), '"'), &s) == nil && strings.EqualFold(s, "method")
}

// scanMembers calls fn with each top-level member of data, a valid JSON
// value, in order, duplicates kept: the name as written between its quotes
// and the value's bytes. It does nothing when data is not an object.
func scanMembers(data []byte, fn func(name, value []byte)) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(data, i)
		if i >= len(data) || data[i] != '"' {
			return // '}': the end
		}
		end := stringEnd(data, i)
		name := data[i+1 : end-1]
		i = skipSpace(data, end) + 1 // past ':'
		i = skipSpace(data, i)
		vend := valueEnd(data, i)
		fn(name, data[i:vend])
		i = skipSpace(data, vend)
		if i >= len(data) || data[i] != ',' {
			return
		}
		i++
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the string that starts at data[i].
func stringEnd(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}

// valueEnd returns the index after the value that starts at data[i].
func valueEnd(data []byte, i int) int {
	depth := 0
	for i < len(data) {
		switch c := data[i]; c {
		case '"':
			i = stringEnd(data, i)
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}

// assemble writes the result: the rows in input order.
func (b *batch) assemble() json.RawMessage {
	out := make([]byte, 0, b.size)
	out = append(out, resultHead...)
	for i, row := range b.rows {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, row...)
	}
	return append(out, resultTail...)
}

// encodeRow encodes a row as a JSON string (not escaping <, > and &, as
// every reply of the server), or null.
func encodeRow(line []byte) []byte {
	if line == nil {
		return []byte("null")
	}
	return encode(string(line))
}

func encode(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("readbatch: encoding %T: %v", v, err)) // strings and plain structs only
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// errorLine is the reply line the ordinary path writes for an error to id:
// {"jsonrpc":"2.0","id":...,"error":{"code":N,"message":"...","data":{"code":"..."}}} and "\n".
func errorLine(id json.RawMessage, code docir.Code, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	type data struct {
		Code docir.Code `json:"code"`
	}
	type wireError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    data   `json:"data"`
	}
	type response struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}
	line := encode(response{JSONRPC: "2.0", ID: id, Error: wireError{Code: docir.RPCNumber(code), Message: message, Data: data{Code: code}}})
	return append(line, '\n')
}

// member is one top-level member of a JSON object, its value compacted.
type member struct {
	name string
	raw  json.RawMessage
}

// objectMembers splits a JSON object into its members in order, duplicates
// kept. ok is false when data is not one JSON object.
func objectMembers(data []byte) (members []member, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		name, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return nil, false
		}
		members = append(members, member{name: name, raw: buf.Bytes()})
	}
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, false
	}
	return members, true
}
