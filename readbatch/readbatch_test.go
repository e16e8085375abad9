package readbatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// fake serves the read methods as a session's reads would: an encoded
// result, or an error for the address "nope". It records every call.
type fake struct {
	mu    sync.Mutex
	calls []call
	// before, when set, runs first on every call.
	before func(ctx context.Context, c call)
}

// call is one read a fake served: its method and params as given.
type call struct {
	method string
	params string
}

func (f *fake) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, *wire.Error) {
	c := call{method: method, params: string(params)}
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
	if f.before != nil {
		f.before(ctx, c)
	}
	if method == "docir/get" && bytes.Contains(params, []byte(`"nope"`)) {
		return nil, wire.NewError(docir.CodeNotFound, "docir/get: no document \"nope\"")
	}
	var p any
	if params != nil {
		json.Unmarshal(params, &p)
	}
	out, err := wire.EncodeResult(map[string]any{"method": method, "params": p, "body": "<a> & b"})
	if err != nil {
		return nil, wire.NewError(docir.CodeInternal, "%v", err)
	}
	return out, nil
}

func (f *fake) methods() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		out = append(out, c.method)
	}
	return out
}

// alone is what the ordinary one-frame path writes for a frame sent alone
// to a session serving r: nil for a blank frame or a notification, else
// the reply line and its "\n".
func alone(r Reads, line string) *string {
	if wire.Blank([]byte(line)) {
		return nil
	}
	req, id, werr := wire.DecodeRequest([]byte(line))
	if werr != nil {
		return str(string(wire.ErrorLine(id, werr)) + "\n")
	}
	result, werr := r.Call(context.Background(), req.Method, req.Params)
	reply := wire.Reply(req, result, werr, wire.MaxReplyBytes)
	if reply == nil {
		return nil
	}
	return str(string(reply) + "\n")
}

func config(f *fake) Config {
	return Config{
		Reads:        f,
		Allow:        ReadMethods(),
		Workers:      2,
		Revision:     7,
		Authenticate: func(context.Context) error { return nil },
		MaxReply:     wire.MaxReplyBytes,
		MaxResult:    1 << 20,
	}
}

// batchParams encodes params for frames at revision 7.
func batchParams(frames ...string) json.RawMessage {
	p, err := json.Marshal(map[string]any{"image_revision": 7, "batch": map[string]any{"frames": frames}})
	if err != nil {
		panic(err)
	}
	return p
}

// rows decodes a result, strictly, and pins its fixed members.
func rows(t *testing.T, raw json.RawMessage) []*string {
	t.Helper()
	var r Result
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	if r.Schema != Schema || r.SourceAuthority {
		t.Fatalf("result %s: schema %q, source_authority %v", raw, r.Schema, r.SourceAuthority)
	}
	// The bytes Run assembles are the encoding of the declared shape.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(r)
	if got := strings.TrimSuffix(buf.String(), "\n"); got != string(raw) {
		t.Fatalf("result is not the encoding of Result:\n got %s\nwant %s", raw, got)
	}
	return r.Responses
}

func str(s string) *string { return &s }

func TestParity(t *testing.T) {
	frames := []string{
		`{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_id":"a"}}`,
		`{"jsonrpc":"2.0","id":"two","method":"docir/get","params":{"doc_ids":["a","b#x"]}}` + "\n",
		`{"jsonrpc":"2.0","id":3,"method":"docir/search","params":{"query":"retry"}}` + "\r\n",
		`{"jsonrpc":"2.0","id":4,"method":"docir/query","params":{"expr":"kind:adr"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"docir/context","params":{"query":"disk","budget":100}}`,
		`{"jsonrpc":"2.0","id":6,"method":"workspace/status"}`,
		`{"jsonrpc":"2.0","id":7,"method":"workspace/discover"}`,
		`{"jsonrpc":"2.0","id":8,"method":"docir/get","params":{"doc_id":"nope"}}`, // a failed call
		`{"jsonrpc":"2.0","id":9,"method":"docir/get"`,                             // not JSON
		`{"jsonrpc":"2.0","id":10,"method":"docir/get","extra":1}`,                 // not a request
		`[1,2]`,
		``,
		"  \t\n",
		`{"jsonrpc":"2.0","method":"docir/search","params":{"query":"x"}}`, // a notification
	}
	f := &fake{}
	out, err := Run(context.Background(), config(f), batchParams(frames...))
	if err != nil {
		t.Fatal(err)
	}
	var want []*string
	for _, fr := range frames {
		want = append(want, alone(&fake{}, strings.TrimSuffix(strings.TrimSuffix(fr, "\n"), "\r")))
	}
	if diff := cmp.Diff(want, rows(t, out)); diff != "" {
		t.Errorf("rows differ from each frame sent alone (-want +got):\n%s", diff)
	}
	// Every well-formed request runs (the failed get and the
	// notification too); the blank, malformed and invalid frames do not.
	if n := len(f.methods()); n != 9 {
		t.Errorf("%d reads ran; want 9", n)
	}
}

func TestAllowlist(t *testing.T) {
	refused := func(id, method string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":"method \"` + method +
			`\" is not allowed inside workspace/read-batch (allowed: docir/check, docir/context, docir/get, docir/links, docir/query, docir/search, workspace/discover, workspace/status); it was not run","data":{"code":"method_not_found"}}}` + "\n"
	}
	// invalid is a row that refuses the frame as no request at all, with
	// the code and the id it names.
	invalid := func(id string, code docir.Code) string { return "invalid " + id + " " + string(code) }
	tests := []struct {
		name  string
		frame string
		want  string // a full row, an invalid(...) check, or "" for null
	}{
		{"nested batch", `{"jsonrpc":"2.0","id":1,"method":"workspace/read-batch","params":{"image_revision":7,"batch":{"frames":["{}"]}}}`, refused("1", "workspace/read-batch")},
		{"refresh", `{"jsonrpc":"2.0","id":"r","method":"workspace/refresh"}`, refused(`"r"`, "workspace/refresh")},
		{"bind", `{"jsonrpc":"2.0","id":3,"method":"workspace/bind","params":{}}`, refused("3", "workspace/bind")},
		{"replay", `{"jsonrpc":"2.0","id":4,"method":"workspace/replay","params":{}}`, refused("4", "workspace/replay")},
		{"evidence", `{"jsonrpc":"2.0","id":4,"method":"workspace/evidence","params":{}}`, refused("4", "workspace/evidence")},
		{"fields", `{"jsonrpc":"2.0","id":4,"method":"docir/fields"}`, refused("4", "docir/fields")},
		{"unknown", `{"jsonrpc":"2.0","id":5,"method":"rm -rf"}`, refused("5", "rm -rf")},
		{"id compacted", `{"jsonrpc":"2.0", "id" : 6.50 ,"method":"workspace/refresh"}`, refused("6.50", "workspace/refresh")},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"workspace/refresh"}`, refused("null", "workspace/refresh")},
		{"escaped name", `{"jsonrpc":"2.0","id":9,"\u006dethod":"workspace/refresh"}`, refused("9", "workspace/refresh")},
		{"escaped value", `{"jsonrpc":"2.0","id":9,"method":"workspace\/refresh"}`, refused("9", "workspace/refresh")},
		{"escaped letters", `{"jsonrpc":"2.0","id":9,"method":"workspace/\u0072efresh"}`, refused("9", "workspace/refresh")},
		{"id of a bad type", `{"jsonrpc":"2.0","id":{"a":1},"method":"workspace/refresh"}`, invalid("null", docir.CodeInvalidRequest)},
		{"other case", `{"jsonrpc":"2.0","id":7,"METHOD":"workspace/refresh"}`, invalid("7", docir.CodeInvalidRequest)},
		{"spaced", "{ \"jsonrpc\" : \"2.0\" ,\n \"id\" : [1] , \"method\" : \"workspace/bind\" }", invalid("null", docir.CodeInvalidRequest)},
		{"second method member", `{"jsonrpc":"2.0","id":8,"method":"docir/get","method":"workspace/refresh"}`, invalid("null", docir.CodeInvalidRequest)},
		{"second method member, allowed last", `{"jsonrpc":"2.0","id":8,"method":"workspace/refresh","method":"docir/get"}`, invalid("null", docir.CodeInvalidRequest)},
		{"no-break space", "\u00a0" + `{"jsonrpc":"2.0","id":9,"method":"workspace/refresh"}`, invalid("null", docir.CodeParseError)},
		{"line separator", "\u2028" + `{"jsonrpc":"2.0","id":9,"method":"workspace/bind"}`, invalid("null", docir.CodeParseError)},
		{"vertical tab", "\v" + `{"jsonrpc":"2.0","id":9,"method":"workspace/bind"}`, invalid("null", docir.CodeParseError)},
		{"form feed", "\f" + `{"jsonrpc":"2.0","id":9,"method":"docir/fields"}`, invalid("null", docir.CodeParseError)},
		{"byte-order mark", "\ufeff" + `{"jsonrpc":"2.0","id":9,"method":"workspace/evidence"}`, invalid("null", docir.CodeParseError)},
		{"trailing no-break space", `{"jsonrpc":"2.0","id":9,"method":"workspace/refresh"}` + "\u00a0", invalid("null", docir.CodeParseError)},
		{"a JSON array", `[{"jsonrpc":"2.0","id":9,"method":"workspace/refresh"}]`, invalid("null", docir.CodeBatchUnsupported)},
		{"a string frame", `"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"workspace/refresh\"}"`, invalid("null", docir.CodeInvalidRequest)},
		{"notification", `{"jsonrpc":"2.0","method":"workspace/refresh"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{}
			out, err := Run(context.Background(), config(f), batchParams(tt.frame))
			if err != nil {
				t.Fatal(err)
			}
			got := rows(t, out)[0]
			switch {
			case tt.want == "":
				if got != nil {
					t.Errorf("row %q; want null", *got)
				}
			case strings.HasPrefix(tt.want, "invalid "):
				var r wire.Response
				if got == nil || json.Unmarshal([]byte(*got), &r) != nil || r.Error == nil {
					t.Fatalf("row %v; want an error row", got)
				}
				if have := "invalid " + string(r.ID) + " " + string(r.Error.StableCode()); have != tt.want {
					t.Errorf("row %s: %s; want %s", *got, have, tt.want)
				}
			default:
				if got == nil || *got != tt.want {
					t.Errorf("row %v;\nwant %s", got, tt.want)
				}
			}
			if calls := f.methods(); len(calls) != 0 {
				t.Errorf("a refused frame ran: %q", calls)
			}
		})
	}
	t.Run("allowlist names the batch", func(t *testing.T) {
		cfg := config(&fake{})
		cfg.Allow = append(cfg.Allow, Method)
		_, err := Run(context.Background(), cfg, batchParams(`{}`))
		if docir.CodeOf(err) != docir.CodeInternal {
			t.Errorf("err %v; want internal", err)
		}
	})
}

// FuzzFrame runs one arbitrary frame in a batch whose reads record what
// they ran, against an oracle that decodes the frame on its own terms: no
// method off the allowlist ever runs; a read runs only for a frame that is
// exactly one JSON object (JSON whitespace around it) whose one "method"
// member, spelled exactly, names that read; and the row is always one
// JSON-RPC reply line or null.
func FuzzFrame(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_id":"a"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"workspace/refresh"}`,
		"\u00a0{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"workspace/refresh\"}",
		"\v{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"workspace/bind\"}",
		`{"jsonrpc":"2.0","id":8,"method":"docir/get","method":"workspace/refresh"}`,
		`{"jsonrpc":"2.0","id":8,"Method":"workspace/refresh"}`,
		`{"jsonrpc":"2.0","id":8,"\u006dethod":"workspace\/refresh"}`,
		`{"jsonrpc":"2.0","method":"docir/search","params":{"query":"x"}}`,
		` {"jsonrpc":"2.0","id":"x","method":"workspace/status"} ` + "\r",
		`[]`, ``, `{`,
	} {
		f.Add(s)
	}
	allowed := map[string]bool{}
	for _, m := range ReadMethods() {
		allowed[m] = true
	}
	f.Fuzz(func(t *testing.T, frame string) {
		rd := &fake{}
		out, err := Run(context.Background(), config(rd), batchParams(frame))
		if err != nil {
			if docir.CodeOf(err) == docir.CodeBatchTooLarge {
				return
			}
			t.Fatalf("frame %q: %v", frame, err)
		}
		ran := rd.methods()
		for _, m := range ran {
			if !allowed[m] {
				t.Fatalf("frame %q ran %q, off the allowlist", frame, m)
			}
		}
		if len(ran) > 1 {
			t.Fatalf("frame %q ran %d reads", frame, len(ran))
		}
		if len(ran) == 1 {
			// The oracle: the frame, less one line ending, is JSON
			// whitespace around exactly one object whose only member
			// named exactly "method" says the read that ran.
			line := strings.TrimSuffix(strings.TrimSuffix(frame, "\n"), "\r")
			trimmed := strings.Trim(line, " \t\r\n")
			if !strings.HasPrefix(trimmed, "{") || !strings.HasSuffix(trimmed, "}") {
				t.Fatalf("frame %q ran %q but is not one JSON object", frame, ran[0])
			}
			dec := json.NewDecoder(strings.NewReader(trimmed))
			tok, err := dec.Token()
			if err != nil || tok != json.Delim('{') {
				t.Fatalf("frame %q ran %q but does not open an object", frame, ran[0])
			}
			methods := 0
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					t.Fatalf("frame %q: %v", frame, err)
				}
				var v json.RawMessage
				if err := dec.Decode(&v); err != nil {
					t.Fatalf("frame %q: %v", frame, err)
				}
				if k == "method" {
					methods++
					var m string
					if json.Unmarshal(v, &m) != nil || m != ran[0] {
						t.Fatalf("frame %q ran %q; its method member says %s", frame, ran[0], v)
					}
				}
			}
			if methods != 1 {
				t.Fatalf("frame %q ran %q with %d method members", frame, ran[0], methods)
			}
		}
		row := rows(t, out)[0]
		if row == nil {
			return
		}
		var r wire.Response
		if err := json.Unmarshal([]byte(*row), &r); err != nil || !strings.HasSuffix(*row, "\n") || (r.Error == nil) == (r.Result == nil) {
			t.Fatalf("frame %q: row %q is not one reply line", frame, *row)
		}
	})
}

func TestParams(t *testing.T) {
	frame := `{"jsonrpc":"2.0","id":1,"method":"workspace/status"}`
	sixteen := make([]string, 16)
	for i := range sixteen {
		sixteen[i] = frame
	}
	tests := []struct {
		name   string
		params string
		want   string // a part of the message; "" when accepted
	}{
		{"sixteen frames", string(batchParams(sixteen...)), ""},
		{"seventeen frames", string(batchParams(append(sixteen, frame)...)), "holds 17 frames; want 1 to 16"},
		{"no frames", `{"image_revision":7,"batch":{"frames":[]}}`, "holds 0 frames"},
		{"absent", ``, "no params"},
		{"null", `null`, "no params"},
		{"a list", `[1]`, "params must be an object, not an array"},
		{"unknown outer member", `{"image_revision":7,"batch":{"frames":["x"]},"workers":4}`, `unknown member "workers" in params`},
		{"unknown inner member", `{"image_revision":7,"batch":{"frames":["x"],"workers":4}}`, `unknown member "workers" in batch`},
		{"duplicate outer member", `{"image_revision":7,"image_revision":7,"batch":{"frames":["x"]}}`, `params is not one JSON object (member "image_revision" appears twice)`},
		{"duplicate inner member", `{"image_revision":7,"batch":{"frames":["x"],"frames":["x"]}}`, `batch is not one JSON object (member "frames" appears twice)`},
		{"member case", `{"Image_Revision":7,"batch":{"frames":["x"]}}`, `unknown member "Image_Revision"`},
		{"no revision", `{"batch":{"frames":["x"]}}`, `params has no "image_revision"`},
		{"no batch", `{"image_revision":7}`, `params has no "batch"`},
		{"no frames member", `{"image_revision":7,"batch":{}}`, `batch has no "frames"`},
		{"batch a list", `{"image_revision":7,"batch":["x"]}`, "batch must be an object, not an array"},
		{"frames null", `{"image_revision":7,"batch":{"frames":null}}`, "batch.frames: want a list of request lines (strings), not null"},
		{"frame null", `{"image_revision":7,"batch":{"frames":["x",null]}}`, "batch.frames[1]: want a request line (a string), not null"},
		{"frame object", `{"image_revision":7,"batch":{"frames":[{"jsonrpc":"2.0"}]}}`, "batch.frames[0]: want a request line (a string), not an object"},
		{"revision string", `{"image_revision":"7","batch":{"frames":["x"]}}`, `image_revision "7": want a positive integer`},
		{"revision zero", `{"image_revision":0,"batch":{"frames":["x"]}}`, "image_revision 0: want a positive integer"},
		{"revision negative", `{"image_revision":-7,"batch":{"frames":["x"]}}`, "want a positive integer"},
		{"revision fraction", `{"image_revision":7.0,"batch":{"frames":["x"]}}`, "want a positive integer"},
		{"revision exponent", `{"image_revision":7e0,"batch":{"frames":["x"]}}`, "want a positive integer"},
		{"revision overflow", `{"image_revision":18446744073709551616,"batch":{"frames":["x"]}}`, "over the largest generation"},
		{"stale revision", `{"image_revision":6,"batch":{"frames":["x"]}}`, "image_revision 6 is not the held generation 7"},
		{"trailing data", `{"image_revision":7,"batch":{"frames":["x"]}} {}`, "params is not one JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			auths := 0
			cfg := config(&fake{})
			cfg.Authenticate = func(context.Context) error { auths++; return nil }
			_, err := Run(context.Background(), cfg, json.RawMessage(tt.params))
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if docir.CodeOf(err) != docir.CodeBatchMalformed || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), Method+": ") {
				t.Errorf("err %v; want batch_malformed with %q", err, tt.want)
			}
			if auths != 0 {
				t.Errorf("a rejected batch was authenticated %d times", auths)
			}
		})
	}
}

func TestFrameTooLarge(t *testing.T) {
	pad := func(id string, n int) string {
		head := `{"jsonrpc":"2.0","id":` + id + `,"method":"docir/search","params":{"query":"`
		tail := `"}}`
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	}
	atBound, over := pad("1", MaxFrameBytes), pad(`"big"`, MaxFrameBytes+1)
	f := &fake{}
	out, err := Run(context.Background(), config(f), batchParams(atBound+"\n", over+"\r\n", strings.Repeat(" ", MaxFrameBytes+1)))
	if err != nil {
		t.Fatal(err)
	}
	got := rows(t, out)
	want := `{"jsonrpc":"2.0","id":"big","error":{"code":-32600,"message":"frame of 65537 bytes is over the 65536-byte bound; it was skipped unread","data":{"code":"frame_too_large"}}}` + "\n"
	if got[1] == nil || *got[1] != want {
		t.Errorf("row 1 %v; want %s", got[1], want)
	}
	if got[0] == nil || !strings.HasPrefix(*got[0], `{"jsonrpc":"2.0","id":1,"result"`) {
		t.Errorf("a frame of exactly the bound was not run: %v", got[0])
	}
	if got[2] == nil || !strings.Contains(*got[2], `"id":null`) || !strings.Contains(*got[2], "frame_too_large") {
		t.Errorf("a blank frame over the bound: %v; want frame_too_large to null", got[2])
	}
	if calls := f.methods(); len(calls) != 1 {
		t.Errorf("%d frames ran; want only the one at the bound", len(calls))
	}
}

func TestMaxResult(t *testing.T) {
	frames := []string{
		`{"jsonrpc":"2.0","id":1,"method":"workspace/status"}`,
		``,
		`{"jsonrpc":"2.0","id":2,"method":"workspace/discover"}`,
	}
	f := &fake{}
	full, err := Run(context.Background(), config(f), batchParams(frames...))
	if err != nil {
		t.Fatal(err)
	}
	cfg := config(f)
	cfg.MaxResult = len(full)
	if got, err := Run(context.Background(), cfg, batchParams(frames...)); err != nil || !bytes.Equal(got, full) {
		t.Fatalf("a result of exactly the bound: %v", err)
	}
	auths := 0
	cfg.MaxResult = len(full) - 1
	cfg.Authenticate = func(context.Context) error { auths++; return nil }
	got, err := Run(context.Background(), cfg, batchParams(frames...))
	if got != nil || docir.CodeOf(err) != docir.CodeBatchTooLarge || !strings.Contains(err.Error(), "no rows are returned") {
		t.Errorf("one byte over: %s, %v; want batch_too_large and no rows", got, err)
	}
	if auths != 2 {
		t.Errorf("authenticated %d times; want 2", auths)
	}

	// Assembly stops once the bound is passed: with one worker, the frames
	// after the one that passed it are never run.
	f = &fake{}
	cfg = config(f)
	cfg.Workers = 1
	cfg.MaxResult = 300
	many := make([]string, 16)
	for i := range many {
		many[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"docir/search","params":{"query":%q}}`, i, strings.Repeat("q", 100))
	}
	if _, err := Run(context.Background(), cfg, batchParams(many...)); docir.CodeOf(err) != docir.CodeBatchTooLarge {
		t.Fatalf("err %v; want batch_too_large", err)
	}
	if n := len(f.methods()); n != 1 {
		t.Errorf("%d frames ran; want 1 (the first passes the bound)", n)
	}
}

func TestWorkerPanic(t *testing.T) {
	var inflight, after atomic.Int32
	f := &fake{before: func(ctx context.Context, c call) {
		inflight.Add(1)
		defer inflight.Add(-1)
		if c.method == "docir/query" {
			panic("boom")
		}
	}}
	frames := make([]string, 16)
	for i := range frames {
		frames[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"docir/search","params":{"query":"x"}}`, i)
	}
	frames[5] = `{"jsonrpc":"2.0","id":5,"method":"docir/query","params":{"expr":"x"}}`
	cfg := config(f)
	cfg.Workers = 4
	got, err := Run(context.Background(), cfg, batchParams(frames...))
	after.Store(inflight.Load())
	if got != nil || docir.CodeOf(err) != docir.CodeBatchWorkerFailed {
		t.Fatalf("%s, %v; want batch_worker_failed and no rows", got, err)
	}
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Frame != 5 || pe.Value != "boom" || len(pe.Stack) == 0 {
		t.Errorf("cause %#v; want the panic of frame 5 with its stack", pe)
	}
	if !strings.Contains(err.Error(), "failed on frame 5 (boom); every worker was joined and no rows are returned") {
		t.Errorf("message %q", err)
	}
	if n := after.Load(); n != 0 {
		t.Errorf("%d dispatches still running when Run returned", n)
	}
}

var errDrift = &docir.Error{Code: docir.CodeSourceDrift, Message: "adr/0001.md changed"}

func TestAuthenticate(t *testing.T) {
	frame := `{"jsonrpc":"2.0","id":1,"method":"workspace/status"}`
	tests := []struct {
		name     string
		frames   []string
		failAt   int // which call fails (1 or 2); 0 none
		wantErr  bool
		wantRuns int // frames dispatched
	}{
		{"ordinary", []string{frame, frame}, 0, false, 2},
		{"only blank frames", []string{"", "\n"}, 0, false, 0},
		{"only malformed and silent frames", []string{"{", `{"jsonrpc":"2.0","method":"workspace/status"}`}, 0, false, 1},
		{"drift before the work", []string{frame, frame}, 1, true, 0},
		{"drift after the work", []string{frame, frame}, 2, true, 2},
		{"drift after only blank frames", []string{""}, 2, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{}
			cfg := config(f)
			calls := 0
			cfg.Authenticate = func(ctx context.Context) error {
				calls++
				if calls == 2 && len(f.methods()) != tt.wantRuns {
					t.Errorf("second authentication before every worker joined")
				}
				if calls == tt.failAt {
					return errDrift
				}
				return nil
			}
			got, err := Run(context.Background(), cfg, batchParams(tt.frames...))
			wantCalls := 2
			if tt.failAt == 1 {
				wantCalls = 1
			}
			if calls != wantCalls {
				t.Errorf("authenticated %d times; want %d", calls, wantCalls)
			}
			if n := len(f.methods()); n != tt.wantRuns {
				t.Errorf("%d frames dispatched; want %d", n, tt.wantRuns)
			}
			if !tt.wantErr {
				if err != nil {
					t.Fatal(err)
				}
				if len(rows(t, got)) != len(tt.frames) {
					t.Errorf("rows %s", got)
				}
				return
			}
			if err != errDrift || got != nil { // returned as is, no rows
				t.Errorf("%s, %v; want the authenticator's error and no rows", got, err)
			}
		})
	}
}

func TestConcurrencyBound(t *testing.T) {
	for workers := MinWorkers; workers <= MaxWorkers; workers++ {
		t.Run(fmt.Sprint(workers), func(t *testing.T) {
			var inflight, peak atomic.Int32
			full := make(chan struct{})
			var once sync.Once
			f := &fake{before: func(ctx context.Context, c call) {
				n := inflight.Add(1)
				defer inflight.Add(-1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				if n == int32(workers) {
					once.Do(func() { close(full) })
				}
				// The first frames wait until the limit is reached, so the
				// peak is exactly the limit, not a lucky schedule.
				var p struct {
					DocID string `json:"doc_id"`
				}
				json.Unmarshal([]byte(c.params), &p)
				if id, _ := strconv.Atoi(p.DocID); id < workers {
					<-full
				}
			}}
			frames := make([]string, MaxFrames)
			for i := range frames {
				frames[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"docir/get","params":{"doc_id":"%d"}}`, i, i)
			}
			cfg := config(f)
			cfg.Workers = workers
			out, err := Run(context.Background(), cfg, batchParams(frames...))
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range rows(t, out) {
				if r == nil || !strings.HasPrefix(*r, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,`, i)) {
					t.Errorf("row %d out of order: %v", i, r)
				}
			}
			if p := peak.Load(); p != int32(workers) {
				t.Errorf("peak of %d calls at once; want exactly %d", p, workers)
			}
		})
	}
}

func TestConfigBounds(t *testing.T) {
	for _, mod := range []func(*Config){
		func(c *Config) { c.Workers = 0 },
		func(c *Config) { c.Workers = 5 },
		func(c *Config) { c.Reads = nil },
		func(c *Config) { c.MaxReply = 0 },
		func(c *Config) { c.Authenticate = nil },
		func(c *Config) { c.MaxResult = 0 },
	} {
		cfg := config(&fake{})
		mod(&cfg)
		if _, err := Run(context.Background(), cfg, batchParams("")); docir.CodeOf(err) != docir.CodeInternal {
			t.Errorf("err %v; want internal", err)
		}
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := Run(ctx, config(&fake{}), batchParams(`{"jsonrpc":"2.0","id":1,"method":"workspace/status"}`))
	if got != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("%s, %v; want no rows and the cancellation", got, err)
	}
}

func TestReadMethods(t *testing.T) {
	want := []string{"docir/check", "docir/context", "docir/get", "docir/links", "docir/query", "docir/search", "workspace/discover", "workspace/status"}
	if diff := cmp.Diff(want, ReadMethods()); diff != "" {
		t.Error(diff)
	}
}

// FuzzParams runs arbitrary params: Run never panics; it refuses them as
// batch_malformed or answers one row per frame.
func FuzzParams(f *testing.F) {
	for _, s := range []string{
		string(batchParams(`{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_id":"a"}}`, "", "{")),
		`{"image_revision":7,"batch":{"frames":["{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"workspace/refresh\"}"]}}`,
		`{"image_revision":7,"batch":{"frames":[]}}`,
		`{"image_revision":7,"batch":{"frames":[null]}}`,
		`{"image_revision":1e3}`,
		`null`, `[]`, `{"a":1,"a":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		out, err := Run(context.Background(), config(&fake{}), params)
		if err != nil {
			if c := docir.CodeOf(err); c != docir.CodeBatchMalformed && c != docir.CodeBatchTooLarge {
				t.Fatalf("params %q: %v (%s)", params, err, c)
			}
			return
		}
		var in struct {
			Batch struct {
				Frames []string `json:"frames"`
			} `json:"batch"`
		}
		if err := json.Unmarshal(params, &in); err != nil {
			t.Fatalf("accepted params that do not decode: %q: %v", params, err)
		}
		if n := len(rows(t, out)); n != len(in.Batch.Frames) || n < 1 || n > MaxFrames {
			t.Fatalf("%d rows for %d frames", n, len(in.Batch.Frames))
		}
	})
}

// ctxReads reports whether each read saw the values of the ctx Run was
// given (a server tracks what each row read through them).
type ctxReads struct {
	key  any
	seen atomic.Int32
}

func (r *ctxReads) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, *wire.Error) {
	if ctx.Value(r.key) == "held" {
		r.seen.Add(1)
	}
	return json.RawMessage(`{}`), nil
}

// TestContextValues: the reads and the authenticator see the values of
// the ctx Run was given.
func TestContextValues(t *testing.T) {
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "held")
	cfg := config(&fake{})
	rd := &ctxReads{key: key{}}
	cfg.Reads = rd
	cfg.Authenticate = func(ctx context.Context) error {
		if ctx.Value(key{}) != "held" {
			t.Error("the authenticator lost the ctx values")
		}
		return nil
	}
	frame := `{"jsonrpc":"2.0","id":1,"method":"workspace/status"}`
	if _, err := Run(ctx, cfg, batchParams(frame, frame)); err != nil {
		t.Fatal(err)
	}
	if rd.seen.Load() != 2 {
		t.Errorf("%d of 2 reads saw the ctx values", rd.seen.Load())
	}
}
