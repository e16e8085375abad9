package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/store"
	"github.com/docir/docir/workspace"
	"github.com/docir/docir/workspace/session"
)

// fixtureStore is a workspace over an indexed store of the fixture corpus.
func fixtureStore(t *testing.T) *workspace.Service {
	t.Helper()
	src := t.TempDir()
	err := corpustest.CopyTree("../../testdata/corpus", src)
	if err != nil {
		t.Fatal(err)
	}
	return storeOf(t, src)
}

// storeOf is a workspace over an indexed store of the markdown in src.
func storeOf(t *testing.T, src string) *workspace.Service {
	t.Helper()
	ws := workspace.New(workspace.Config{Dir: t.TempDir(), Sources: []store.Source{{Path: src}}})
	t.Cleanup(func() { ws.Close() })
	if _, err := ws.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	return ws
}

// fixture is an engine over a store of the fixture corpus.
func fixture(t *testing.T, policy string) *session.Engine {
	t.Helper()
	ws := fixtureStore(t)
	cfg := session.Config{Reader: ws, Refresh: ws.Refresh, Fields: ws.Fields, Version: "test"}
	if policy != "" {
		p, err := session.ParsePolicy([]byte(policy))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Policy = p
	}
	return session.New(cfg)
}

// checkLeaks fails t if goroutines it started outlive it and its cleanups.
func checkLeaks(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

// serve runs Serve over pipes until the test ends; it returns the client's
// ends: where to write frames and where to read replies.
func serve(t *testing.T, e *session.Engine, opts ...Options) (io.WriteCloser, io.ReadCloser) {
	t.Helper()
	o := Options{Version: "test"}
	if len(opts) > 0 {
		o = opts[0]
	}
	return serveUntil(t, context.Background(), e, o)
}

// serveUntil is serve with Serve's context ctx.
func serveUntil(t *testing.T, ctx context.Context, e *session.Engine, o Options) (io.WriteCloser, io.ReadCloser) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, e, o, inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return at the end of input")
		}
	})
	return inW, outR
}

// connect is a go-sdk client session with the server over pipes.
func connect(t *testing.T, e *session.Engine) *sdk.ClientSession {
	t.Helper()
	w, r := serve(t, e)
	c := sdk.NewClient(&sdk.Implementation{Name: "docir-test", Version: "0"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.IOTransport{Reader: r, Writer: w}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestTools(t *testing.T) {
	checkLeaks(t)
	cs := connect(t, fixture(t, ""))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		in, _ := json.Marshal(tool.InputSchema)
		out, _ := json.Marshal(tool.OutputSchema)
		if !strings.Contains(string(in), `"type":"object"`) || !strings.Contains(string(in), `"additionalProperties":false`) {
			t.Errorf("%s: input schema %s", tool.Name, in)
		}
		var outSchema struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(out, &outSchema); err != nil || outSchema.Type != "object" {
			t.Errorf("%s: output schema %s", tool.Name, out)
		}
		if tool.Annotations != nil && (tool.Annotations.DestructiveHint == nil || *tool.Annotations.DestructiveHint) {
			t.Errorf("%s: destructiveHint %v, want false", tool.Name, tool.Annotations.DestructiveHint)
		}
		if tool.Description == "" || tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s: description %q, annotations %+v", tool.Name, tool.Description, tool.Annotations)
		}
	}
	slices.Sort(names)
	if diff := cmp.Diff([]string{"changes", "check", "context", "fields", "get", "links", "query", "search", "status"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

// TestRefreshTool: a host that grants refresh gets a refresh tool too.
func TestRefreshTool(t *testing.T) {
	checkLeaks(t)
	cs := connect(t, fixture(t, `{"schema":"docir.host-policy.v1","grants":["refresh"]}`))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 10 || !slices.ContainsFunc(res.Tools, func(tool *sdk.Tool) bool { return tool.Name == "refresh" }) {
		t.Fatalf("%d tools, no refresh", len(res.Tools))
	}
	r, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "refresh"})
	if err != nil || r.IsError {
		t.Fatalf("refresh: %v %+v", err, r)
	}
}

// TestToolsAreTheEngine: each tool's structuredContent is exactly the
// JSON-RPC result of its method for the same arguments, and an error of the
// method is a tool error (isError) carrying its message and code.
func TestToolsAreTheEngine(t *testing.T) {
	checkLeaks(t)
	e := fixture(t, "")
	cs := connect(t, e)
	tests := []struct {
		tool, method string
		args         string
		isError      string // a fragment of the error text; "" for a result
	}{
		{"get", "docir/get", `{"doc_ids":["runbooks/disk-full#mitigate","adr/0001-record-architecture-decisions","nope"]}`, ""},
		{"get", "docir/get", `{"doc_id":"runbooks/disk-full#Escalate"}`, ""},
		{"get", "docir/get", `{"doc_ids":[]}`, ""},
		{"get", "docir/get", `{"doc_id":"nope"}`, "nope: no document nope (no_document) (not_found, JSON-RPC -32001)"},
		{"get", "docir/get", `{"doc_ids":["runbooks/disk-full","a b"]}`, `docir/get: malformed address "a b": whitespace in document id; did you mean "a-b"? (malformed_address, JSON-RPC -32602)`},
		{"get", "docir/get", `{"doc_id":"a","doc_ids":["b"]}`, "give doc_id or doc_ids, not both (invalid_params"},
		{"get", "docir/get", `{"doc_idz":"a"}`, `unknown field "doc_idz" in params (known: doc_id, doc_ids, image_revision, binding, require_current) (invalid_params`},
		{"get", "docir/get", `{}`, "want doc_id (one address) or doc_ids"},
		{"search", "docir/search", `{"query":"retry budget","limit":3}`, ""},
		{"search", "docir/search", `{"query":""}`, "search: empty query (invalid_params"},
		{"query", "docir/query", `{"expr":"kind:adr","sort":"-date"}`, ""},
		{"query", "docir/query", `{"expr":"kind:"}`, "invalid_query"},
		{"context", "docir/context", `{"query":"disk full","budget":200}`, ""},
		{"status", "workspace/status", `{}`, ""},
		{"fields", "docir/fields", `{}`, ""},
		{"fields", "docir/fields", `{"x":1}`, `unknown field "x"`},
		{"status", "workspace/status", `{"x":1}`, `unknown field "x"`},
		{"links", "docir/links", `{"doc_id":"runbooks/disk-full#mitigate"}`, ""},
		{"links", "docir/links", `{"doc_ids":["runbooks/disk-full","nope"]}`, ""},
		{"links", "docir/links", `{"doc_id":"nope"}`, "nope: no document nope (no_document) (not_found, JSON-RPC -32001)"},
		{"check", "docir/check", `{"external":true}`, ""},
		{"changes", "docir/changes", `{"since":1}`, ""},
		{"changes", "docir/changes", `{"since":5}`, "invalid_params"},
	}
	for _, tt := range tests {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tt.tool, Arguments: json.RawMessage(tt.args)})
		if err != nil {
			t.Errorf("%s %s: protocol error %v", tt.tool, tt.args, err)
			continue
		}
		text := ""
		if len(res.Content) == 1 {
			if tc, ok := res.Content[0].(*sdk.TextContent); ok {
				text = tc.Text
			}
		}
		if tt.isError != "" {
			if !res.IsError || !strings.Contains(text, tt.isError) || res.StructuredContent != nil {
				t.Errorf("%s %s: isError %v, text %q, structured %v; want an error with %q", tt.tool, tt.args, res.IsError, text, res.StructuredContent, tt.isError)
			}
			continue
		}
		want, werr := e.Call(context.Background(), tt.method, json.RawMessage(tt.args))
		if werr != nil {
			t.Fatalf("%s: %v", tt.method, werr)
		}
		got, _ := json.Marshal(res.StructuredContent)
		var a, b any
		_ = json.Unmarshal(want, &a)
		_ = json.Unmarshal(got, &b)
		if res.IsError || !cmp.Equal(a, b) {
			t.Errorf("%s %s: isError %v\nstructured %s\nwant       %s", tt.tool, tt.args, res.IsError, got, want)
		}
		// The text is the markdown rendering, never the JSON again.
		wantText, err := textOf(tt.method, want)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantText, text); diff != "" {
			t.Errorf("%s %s: text content (-want +got):\n%s", tt.tool, tt.args, diff)
		}
		if json.Valid([]byte(strings.TrimSpace(text))) {
			t.Errorf("%s %s: the text content is JSON: %s", tt.tool, tt.args, text)
		}
	}
}

// TestBadLinesDoNotEndTheSession speaks raw lines, as a client that still
// sends initialize would, with bad lines in between: each bad line gets
// its error and the session goes on (upstream go-sdk issue #1209).
func TestBadLinesDoNotEndTheSession(t *testing.T) {
	checkLeaks(t)
	w, r := serve(t, fixture(t, ""))
	replies := bufio.NewScanner(r)
	replies.Buffer(nil, 2<<20)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(w, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() string {
		t.Helper()
		if !replies.Scan() {
			t.Fatalf("the session ended: %v", replies.Err())
		}
		return replies.Text()
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if got := next(); !strings.Contains(got, `"id":1,"result":{`) || !strings.Contains(got, `"serverInfo":{"name":"docir"`) {
		t.Fatalf("initialize: %s", got)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	steps := []struct{ send, want string }{
		{`{bad json`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: invalid character 'b' looking for beginning of object key string (at byte 2)","data":{"code":"parse_error"}}}`},
		{`[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`, `"data":{"code":"batch_unsupported"}`},
		{`42`, `"id":null,"error":{"code":-32600`},
		{`{"jsonrpc":"1.0","id":3,"method":"tools/list"}`, `"id":3,"error":{"code":-32600`},
		// Over the bound, with the id written last as the TypeScript SDK
		// writes it: the error is addressed to it.
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"get","arguments":{"doc_id":"` + strings.Repeat("x", 2<<20) + `"}},"id":4}`,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"frame of 2097248 bytes is over the 1048576-byte bound; it was skipped unread","data":{"code":"frame_too_large"}}}`},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"get","arguments":{"doc_id":"` + strings.Repeat("x", 2<<20) + `"}},"id":4.5}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"frame of 2097250 bytes`},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get","arguments":{"doc_ids":["runbooks/disk-full#escalate","nope"]}}}`,
			`"structuredContent":{"documents":[{"address":"runbooks/disk-full#escalate"`},
		{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"get","arguments":{"doc_id":"a b"}}}`, `"isError":true`},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, `"id":7,`},
	}
	for _, s := range steps {
		send(s.send)
		if got := next(); !strings.Contains(got, s.want) {
			t.Errorf("after %.60s\n got %s\nwant %s", s.send, got, s.want)
		}
	}
	send("") // a blank line is skipped
	send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	if got := next(); got != `{"jsonrpc":"2.0","id":8,"result":{}}` {
		t.Errorf("ping: %s", got)
	}
}

// TestOutboundBound: a reply over the bound is replaced by one error to the
// same id.
func TestOutboundBound(t *testing.T) {
	var out strings.Builder
	c := &lineConn{w: &out, in: make(chan wire.FrameEvent), closed: make(chan struct{})}
	id, _ := jsonrpc.MakeID(float64(9))
	big := json.RawMessage(`"` + strings.Repeat("x", wire.MaxReplyBytes) + `"`)
	if err := c.Write(context.Background(), &jsonrpc.Response{ID: id, Result: big}); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":9,"error":{"code":-32003,"message":"reply of 1048612 bytes is over the 1048576-byte bound; ask for fewer addresses or a lower limit","data":{"code":"reply_too_large"}}}` + "\n"
	if out.String() != want {
		t.Errorf("got %s\nwant %s", out.String(), want)
	}
}

// FuzzLineConn: whatever the input, the connection hands the SDK only
// messages it decoded, answers every other line with one JSON-RPC error
// line, and reports nothing but the end of input.
func FuzzLineConn(f *testing.F) {
	for _, s := range []string{
		"{bad\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]` + "\n42\n\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}` + "\r\n" + `{"jsonrpc":"1.0","id":3,"method":"x"}`,
		strings.Repeat("x", 70000) + "\n" + `{"jsonrpc":"2.0","id":"s","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"x"}` + "\n" + `{"jsonrpc":"2.0","id":8}` + "\n" + `{"jsonrpc":"2.0","id":null,"method":"initialize"}`,
		`{"jsonrpc":"2.0","id":12345678901234567890,"method":"tools/list"}` + "\n" + `{"jsonrpc":"2.0","id":-0,"method":"ping"}`,
		// A batch with a member not JSON-RPC 2.0, and a response that
		// cannot be decoded.
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}` + "\n" +
			`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"id":2,"method":"ping","error":5}]` + "\n" + `{"jsonrpc":"2.0","id":3,"error":5}`,
		// A batch right after initialize waits for its reply.
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}` + "\n" +
			`[{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{"cursor":5}}]` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"zzz"}}`,
		// A batch held for the initialize reply, and a cancellation and a
		// call read while it is held.
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}` + "\n" +
			`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var out strings.Builder
		tr := &lineTransport{r: strings.NewReader(string(in)), w: &out}
		conn, err := tr.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		decoded := 0
		for {
			msg, err := conn.Read(context.Background())
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			decoded++
			if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
				if err := conn.Write(context.Background(), &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)}); err != nil {
					t.Fatal(err)
				}
			}
		}
		lines := 0
		for l := range strings.Lines(string(in)) {
			if strings.TrimSpace(l) != "" {
				lines++
			}
		}
		replies := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if out.Len() == 0 {
			replies = nil
		}
		for _, r := range replies {
			var m map[string]any
			if err := json.Unmarshal([]byte(r), &m); err != nil || m["jsonrpc"] != "2.0" {
				t.Fatalf("written line %q is not JSON-RPC", r)
			}
		}
		if decoded > lines {
			t.Fatalf("%d messages from %d lines", decoded, lines)
		}
	})
}

// TestContextCarriesSearchHits: what the context tool's description
// advertises (no need to search first) holds: for the same query and limit,
// context's structuredContent holds search's hits, in its order, each the
// same hit (context adds its tokens and outline).
func TestContextCarriesSearchHits(t *testing.T) {
	checkLeaks(t)
	cs := connect(t, fixture(t, ""))
	for _, args := range []string{`{"query":"retry budget"}`, `{"query":"disk full storage node","limit":3}`, `{"query":"generation"}`} {
		var search struct {
			Hits []docir.Hit `json:"hits"`
		}
		var ctx struct {
			Hits []docir.ContextHit `json:"hits"`
		}
		for tool, into := range map[string]any{"search": &search, "context": &ctx} {
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
			if err != nil || res.IsError {
				t.Fatalf("%s %s: %v %+v", tool, args, err, res)
			}
			data, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(data, into); err != nil {
				t.Fatal(err)
			}
		}
		var got []docir.Hit
		for _, h := range ctx.Hits {
			got = append(got, h.Hit)
		}
		if len(search.Hits) == 0 {
			t.Errorf("%s: search found nothing", args)
		}
		if diff := cmp.Diff(search.Hits, got); diff != "" {
			t.Errorf("%s: context's hits (-search +context):\n%s", args, diff)
		}
	}
}
