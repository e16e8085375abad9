// Package mcp serves a session's engine to MCP hosts (`docir serve --mcp`)
// with the official Go SDK (github.com/modelcontextprotocol/go-sdk). It is
// a thin adapter: every tool hands its arguments, as sent, to the same
// session.Engine method that NDJSON and HTTP call, and puts the engine's
// result, unchanged, in structuredContent. So a tool's input is as closed
// as the method's params, and its output is the JSON-RPC result shape.
//
// The SDK is confined to this package: nothing else imports it. Logs go to
// the logger given (stderr in the binary), never to stdout, which carries
// only frames.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/workspace/session"
)

// Tool names.
const (
	ToolGet       = "get"
	ToolSearch    = "search"
	ToolQuery     = "query"
	ToolContext   = "context"
	ToolStatus    = "status"
	ToolRefresh   = "refresh"    // only when the host policy grants refresh
	ToolReadBatch = "read_batch" // only when the host policy selects read_batch_workers
	ToolFields    = "fields"     // when the session has a local store to scan
)

// Options describe the server to hosts.
type Options struct {
	Version string
	// Name and Description say which corpus this is (docir.yaml's name
	// and description; the binary defaults them to the source folders).
	// The server's instructions and the tools' descriptions name it.
	Name, Description string
	// Log receives the SDK's logs (stderr in the binary); nil discards.
	Log *slog.Logger
	// Indexing, when set, says how far a background index has come
	// (running false once it is done): a tool call with a progress token
	// that comes meanwhile gets MCP progress notifications while it waits.
	Indexing func() (stage string, done, total int, running bool)
}

// progressEvery is how often a waiting call is told how indexing goes.
const progressEvery = 250 * time.Millisecond

// SearchSyntax and QuerySyntax spell out the two languages for an LLM.
const (
	SearchSyntax = `Free text: plain words, matched as written less plurals (a word no section holds as written, in its other forms; every word where the store sets search.stemming) in every section (its title, headings and body). ` +
		`A section holding more of the words, rarer ones, and in the query's order, ranks higher; a query equal to a page's title ranks that page first. ` +
		`"exact phrase" in double quotes (not in a question: its quotes quote) matches only sections with those words adjacent, in order; -word or -"a phrase" leaves out the sections that hold it (a -word the documents write as a command-line option, such as -Depth, is that option, a word; -"word" always leaves it out). ` +
		`Each hit names its best section as matched_section; a document whose matched section repeats a hit above it is listed in that hit's also, not as a hit.`
	QuerySyntax = `Space-separated field:value terms, all of which must hold: kind:adr status:accepted. ` +
		`Any of several values: status:accepted,proposed. Negation: -status:superseded. ` +
		`Globs: path:runbooks/* title:*retry*. Comparisons: date:>=2024-01-01 size:<4096. ` +
		`Ranges: date:2024-01..2024-06 (either end open). A list field matches when an element does: tags:process. ` +
		`Nested: author.name:ada. Presence: owner:* (absent: -owner:*). Quotes keep spaces: title:"retry budget". ` +
		`Fields are the documents' front matter plus id, path, title and size; values compare as numbers, ` +
		`dates or case-insensitive text. Call fields first to see which fields and values exist.`
)

// instructions tell an agent what the corpus is and how the tools fit
// together.
func instructions(o Options, hasFields bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "docir serves %s", corpusName(o))
	if o.Description != "" {
		fmt.Fprintf(&b, ": %s", o.Description)
	}
	b.WriteString(`. It is a markdown corpus split into sections by heading.
Find with search (free text), query (front-matter filters) or context (ranked documents with outlines
and the addresses to read next within a token budget); these never return bodies. Then read with get:
doc_ids takes several addresses at once and reports the ones that did not resolve in "missing" beside
the documents that did. To answer a question, call context and get the addresses of its plan one by one,
best first, until answered. An address is <id> or <id>#<heading>, exactly as the matched_section and
addresses fields of the other tools give them. links shows where a page's links lead and what links to it;
check lists the broken links; changes names what changed since a generation your earlier reads came from.
search: ` + SearchSyntax + `
query: ` + QuerySyntax)
	if !hasFields {
		b.WriteString(" (this session has no fields tool: use status and search to learn the corpus)")
	}
	return b.String()
}

func corpusName(o Options) string {
	if o.Name == "" {
		return "a markdown corpus"
	}
	return "the corpus " + strconv.Quote(o.Name)
}

// newServer builds the MCP server over e. Each tool's input schema comes
// from the method's params shape and its output schema from the result
// shape, both in package docir.
func newServer(e *session.Engine, o Options) (*sdk.Server, error) {
	log := o.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "docir", Title: "docir", Version: o.Version}, &sdk.ServerOptions{
		Logger:       log,
		Instructions: instructions(o, e.Has(wire.MethodFields)),
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}, Resources: &sdk.ResourceCapabilities{}},
	})
	cs := newConns(e)
	for _, t := range tools(e, o) {
		in, err := inputSchema(t)
		if err != nil {
			return nil, fmt.Errorf("tool %s: input schema: %w", t.name, err)
		}
		out, err := t.output()
		if err != nil {
			return nil, fmt.Errorf("tool %s: output schema: %w", t.name, err)
		}
		s.AddTool(&sdk.Tool{
			Name:         t.name,
			Title:        t.title,
			Description:  t.description,
			InputSchema:  in,
			OutputSchema: out,
			Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: t.readOnly, DestructiveHint: new(false), IdempotentHint: true, OpenWorldHint: new(false)},
		}, handler(cs, t.method, o.Indexing))
	}
	addResources(s, cs, o)
	s.AddReceivingMiddleware(codedErrors)
	return s, nil
}

// codedErrors gives every error a method answers a JSON-RPC number and
// docir's code in data.code, so that no error has code 0 (the SDK answers
// errors it has no number for with 0, and a host cannot then tell "try
// again shortly" from "bad request"). A resource that is not found is
// -32602 with data.code not_found, as MCP says since SEP-2164 (and the SDK
// does).
//
//   - a second initialize in a session is invalid_request (-32600);
//   - resources/read of a URI that is not docir's, or of a malformed
//     address, is answered before the SDK looks it up: not_found or
//     malformed_address (see addressOf); the SDK's resource-not-found
//     error, which carries no docir code, is docir's (not_found);
//   - a list method's refusal of its cursor (the SDK's bare -32602
//     "invalid params", its decoder's reason dropped) names the cursor and
//     says why (see badCursor); an error of a list method without a number
//     is invalid_params (-32602); any other is internal (-32603);
//   - an error with a number and no data.code gets data.code from the
//     number (see coded).
func codedErrors(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if ss, ok := req.GetSession().(*sdk.ServerSession); ok && method == "initialize" && ss.InitializeParams() != nil {
			return nil, sdkError(wire.NewError(docir.CodeInvalidRequest,
				"invalid request: a second initialize: this session is initialized (start a new session to initialize again)"))
		}
		if r, ok := req.(*sdk.ReadResourceRequest); ok {
			if r.Params != nil && !strings.HasPrefix(r.Params.URI, ResourcePrefix) {
				return nil, resourceNotFound(r.Params.URI)
			}
			if r.Params != nil {
				if _, werr := addressOf(r.Params.URI); werr != nil {
					return nil, sdkError(werr)
				}
			}
		}
		res, err := next(ctx, method, req)
		if err == nil {
			return res, nil
		}
		var je *jsonrpc.Error
		if r, ok := req.(*sdk.ReadResourceRequest); ok && r.Params != nil && errors.As(err, &je) && je.Code == sdk.CodeResourceNotFound && !hasDataCode(je.Data) {
			return nil, resourceNotFound(r.Params.URI) // the SDK's own, without docir's code
		}
		if cursor := listCursor(req); cursor != "" && errors.As(err, &je) && je.Code == jsonrpc.CodeInvalidParams && !hasDataCode(je.Data) {
			return nil, sdkError(badCursor(method, cursor))
		}
		if !errors.As(err, &je) || je.Code == 0 {
			code := docir.CodeInternal
			if strings.HasSuffix(method, "/list") {
				code = docir.CodeInvalidParams
			}
			return nil, sdkError(wire.NewError(code, "%s: %v", method, err))
		}
		return nil, coded(je)
	}
}

// listCursor is the cursor of a list request ("" for none, or for a
// request that is not a list).
func listCursor(req sdk.Request) string {
	switch p := req.GetParams().(type) {
	case *sdk.ListToolsParams:
		if p != nil {
			return p.Cursor
		}
	case *sdk.ListResourcesParams:
		if p != nil {
			return p.Cursor
		}
	case *sdk.ListResourceTemplatesParams:
		if p != nil {
			return p.Cursor
		}
	case *sdk.ListPromptsParams:
		if p != nil {
			return p.Cursor
		}
	}
	return ""
}

// badCursor is the refusal of a list request's cursor that the SDK could
// not read as one of its pages' (go-sdk v1.8.0 paginateList: a cursor
// that is not base64url of a page token it encoded answers a bare
// ErrInvalidParams, the reason dropped). MCP's pagination: "Invalid
// cursors SHOULD result in an error with code -32602 (Invalid params)";
// the code stays, the message says which cursor and why.
func badCursor(method, cursor string) *wire.Error {
	return wire.NewError(docir.CodeInvalidParams,
		"invalid params: %s: cursor %s is not a cursor this server gave: a cursor is the nextCursor of an earlier page of the same list, passed back exactly (leave cursor out for the first page)",
		docir.Clip(method, 64), strconv.Quote(docir.Clip(cursor, 64)))
}

// handler calls the engine's method with the arguments as sent, in the
// engine session of the call's MCP session.
func handler(cs *conns, method string, indexing func() (string, int, int, bool)) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if indexing != nil && req.Session != nil {
			if token := req.Params.GetProgressToken(); token != nil {
				stop := reportIndexing(ctx, req.Session, token, indexing)
				defer stop()
			}
		}
		werr := toolBounds(method, req.Params.Arguments)
		var result json.RawMessage
		if werr == nil {
			if method == wire.MethodCheck || method == wire.MethodChanges || method == wire.MethodLinks {
				result, werr = cs.conn(req.Session).CallWithin(ctx, method, req.Params.Arguments, PageBytes)
			} else {
				result, werr = cs.conn(req.Session).Call(ctx, method, req.Params.Arguments)
			}
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			// The call was cancelled while it ran — by the client's
			// notifications/cancelled, which the SDK may act on before the
			// guard has seen the call (two POSTs), or by its connection or
			// session ending: it gets no reply (guard.outbound).
			return unanswered(), nil
		}
		var text string
		if werr == nil {
			var err error
			if method == wire.MethodReadBatch {
				text, err = batchText(req.Params.Arguments, result, wire.MaxReplyBytes-4096-htmlEscapedLen(result))
			} else {
				text, err = textOf(method, result)
			}
			if err != nil {
				werr = wire.NewError(docir.CodeInternal, "%s: rendering the reply: %v", method, err)
			}
		}
		if n := encodedLen(text) + htmlEscapedLen(result); werr == nil && n+4096 > wire.MaxReplyBytes {
			// The reply carries the result as JSON (structuredContent)
			// and as markdown (its text), each as the SDK encodes it.
			werr = wire.ReplyTooLargeFor(method, n, wire.MaxReplyBytes)
		}
		if werr != nil {
			// A tool error, not a protocol error: the agent reads it and
			// can correct its call. No structuredContent: clients check it
			// against the output schema.
			return &sdk.CallToolResult{
				IsError: true,
				Content: []sdk.Content{&sdk.TextContent{Text: toolErrorText(werr)}},
			}, nil
		}
		return &sdk.CallToolResult{
			Content:           []sdk.Content{&sdk.TextContent{Text: text}},
			StructuredContent: result,
		}, nil
	}
}

// toolBounds enforces the bounds the tools' input schemas add to their
// methods' (see MaxToolAddresses): more addresses or longer frames than a
// schema allows are invalid_params. Arguments that do not decode are left
// to the engine, which says what is wrong with them.
func toolBounds(method string, args json.RawMessage) *wire.Error {
	switch method {
	case wire.MethodGet, wire.MethodLinks:
		var p struct {
			DocIDs []json.RawMessage `json:"doc_ids"`
		}
		tool := ToolGet
		if method == wire.MethodLinks {
			tool = ToolLinks
		}
		if json.Unmarshal(args, &p) == nil && len(p.DocIDs) > MaxToolAddresses {
			return wire.NewError(docir.CodeInvalidParams, "%s: %d addresses in doc_ids, over the %d one %s tool call takes: split the call", method, len(p.DocIDs), MaxToolAddresses, tool)
		}
	case wire.MethodReadBatch:
		var p struct {
			Batch struct {
				Frames []string `json:"frames"`
			} `json:"batch"`
		}
		if json.Unmarshal(args, &p) != nil {
			return nil
		}
		for i, f := range p.Batch.Frames {
			if n := utf8.RuneCountInString(f); n > MaxToolFrameChars {
				return wire.NewError(docir.CodeBatchMalformed, "%s: frame %d has %d characters, over the %d a read_batch tool call takes", method, i, n, MaxToolFrameChars)
			}
		}
	}
	return nil
}

// reportIndexing sends progress notifications for token while a
// background index runs, until stop is called.
func reportIndexing(ctx context.Context, ss *sdk.ServerSession, token any, indexing func() (string, int, int, bool)) (stop func()) {
	if _, _, _, running := indexing(); !running {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		last := -1.0
		for {
			stage, n, total, running := indexing()
			if !running {
				return
			}
			// Progress must increase: stages restart their counts.
			if p := float64(n); p > last {
				last = p
				msg := "indexing the corpus"
				if stage != "" {
					msg = fmt.Sprintf("indexing the corpus: %s %d of %d", stage, n, total)
				}
				_ = ss.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: p, Total: float64(total), Message: msg})
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// Serve runs one MCP session over r and w (stdin and stdout in the binary)
// until r ends or ctx is done. On a done ctx nothing more is read or run,
// and the requests in hand are finished and answered first. It returns nil
// on either.
func Serve(ctx context.Context, e *session.Engine, o Options, r io.Reader, w io.Writer) error {
	log := o.Log
	s, err := newServer(e, o)
	if err != nil {
		return err
	}
	// A done ctx stops the transport, which ends the session once the
	// requests in hand are answered (see lineTransport). Closing the
	// session instead (as before) let them finish but wrote no reply: the
	// SDK writes nothing once it is closing.
	ss, err := s.Connect(context.WithoutCancel(ctx), &lineTransport{r: r, w: w, log: log, stop: ctx.Done()}, nil)
	if err != nil {
		return err
	}
	waitc := make(chan error, 1)
	go func() { waitc <- ss.Wait() }()
	select {
	case err = <-waitc:
	case <-ctx.Done():
		select {
		case err = <-waitc:
		case <-time.After(drainPatience + 5*time.Second):
			err = ss.Close() // a transport that did not end: as before, without the replies
			<-waitc
		}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || errors.Is(err, sdk.ErrConnectionClosed) {
		return nil
	}
	return err
}
