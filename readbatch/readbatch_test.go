package readbatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
)

// fake is a small JSON-RPC dispatcher with the ordinary path's habits: a
// reply line with its "\n", nothing for a notification, an error line for a
// frame it cannot read. It records every frame it was handed.
type fake struct {
	mu     sync.Mutex
	frames []string
	// before, when set, runs first on every call.
	before func(ctx context.Context, req *fakeRequest)
}

type fakeRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

func (f *fake) dispatch(ctx context.Context, frame []byte) []byte {
	f.mu.Lock()
	f.frames = append(f.frames, string(frame))
	f.mu.Unlock()
	var req fakeRequest
	dec := json.NewDecoder(bytes.NewReader(frame))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		if !json.Valid(frame) {
			return errorLine(nil, docir.CodeParseError, "parse error")
		}
		return errorLine(nil, docir.CodeInvalidRequest, "invalid request: "+err.Error())
	}
	if f.before != nil {
		f.before(ctx, &req)
	}
	if req.ID == nil {
		return nil
	}
	switch req.Method {
	case "docir/get":
		if bytes.Contains(req.Params, []byte(`"nope"`)) {
			return errorLine(req.ID, docir.CodeNotFound, "docir/get: no document \"nope\"")
		}
	case "docir/search", "docir/query", "docir/context", "workspace/status", "workspace/discover":
	default:
		return errorLine(req.ID, docir.CodeMethodNotFound, "no method")
	}
	var params any
	if req.Params != nil {
		json.Unmarshal(req.Params, &params)
	}
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{"method": req.Method, "params": params, "body": "<a> & b"}})
	return append(line, '\n')
}

func (f *fake) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.frames...)
}

func config(f *fake) Config {
	return Config{
		Dispatch:     f.dispatch,
		Allow:        ReadMethods(),
		Workers:      2,
		Revision:     7,
		Authenticate: func(context.Context) error { return nil },
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
		line := strings.TrimSuffix(strings.TrimSuffix(fr, "\n"), "\r")
		if strings.TrimSpace(line) == "" {
			want = append(want, nil)
			continue
		}
		alone := (&fake{}).dispatch(context.Background(), []byte(line))
		if alone == nil {
			want = append(want, nil)
		} else {
			want = append(want, str(string(alone)))
		}
	}
	if diff := cmp.Diff(want, rows(t, out)); diff != "" {
		t.Errorf("rows differ from each frame sent alone (-want +got):\n%s", diff)
	}
	if n := len(f.calls()); n != len(frames)-2 {
		t.Errorf("%d frames dispatched; want %d (every frame but the two blank ones)", n, len(frames)-2)
	}
}

func TestAllowlist(t *testing.T) {
	refused := func(id, method string) *string {
		return str(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":"method \"` + method +
			`\" is not allowed inside workspace/read-batch (allowed: docir/context, docir/get, docir/query, docir/search, workspace/discover, workspace/status); it was not run","data":{"code":"method_not_found"}}}` + "\n")
	}
	tests := []struct {
		name  string
		frame string
		want  *string
	}{
		{"nested batch", `{"jsonrpc":"2.0","id":1,"method":"workspace/read-batch","params":{"image_revision":7,"batch":{"frames":["{}"]}}}`, refused("1", "workspace/read-batch")},
		{"refresh", `{"jsonrpc":"2.0","id":"r","method":"workspace/refresh"}`, refused(`"r"`, "workspace/refresh")},
		{"bind", `{"jsonrpc":"2.0","id":3,"method":"workspace/bind","params":{}}`, refused("3", "workspace/bind")},
		{"replay", `{"jsonrpc":"2.0","id":4,"method":"workspace/replay","params":{}}`, refused("4", "workspace/replay")},
		{"unknown", `{"jsonrpc":"2.0","id":5,"method":"rm -rf"}`, refused("5", "rm -rf")},
		{"id compacted", `{"jsonrpc":"2.0", "id" : 6.50 ,"method":"workspace/refresh"}`, refused("6.50", "workspace/refresh")},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"workspace/refresh"}`, refused("null", "workspace/refresh")},
		{"id of a bad type", `{"jsonrpc":"2.0","id":{"a":1},"method":"workspace/refresh"}`, refused("null", "workspace/refresh")},
		{"other case", `{"jsonrpc":"2.0","id":7,"METHOD":"workspace/refresh"}`, refused("7", "workspace/refresh")},
		{"escaped name", `{"jsonrpc":"2.0","id":9,"\u006dethod":"workspace/refresh"}`, refused("9", "workspace/refresh")},
		{"spaced", "{ \"jsonrpc\" : \"2.0\" ,\n \"id\" : [1] , \"method\" : \"workspace/bind\" }", refused("null", "workspace/bind")},
		{"second method member", `{"jsonrpc":"2.0","id":8,"method":"docir/get","method":"workspace/refresh"}`, refused("8", "workspace/refresh")},
		{"notification", `{"jsonrpc":"2.0","method":"workspace/refresh"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{}
			out, err := Run(context.Background(), config(f), batchParams(tt.frame))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]*string{tt.want}, rows(t, out)); diff != "" {
				t.Errorf("row (-want +got):\n%s", diff)
			}
			if calls := f.calls(); len(calls) != 0 {
				t.Errorf("a refused frame reached the dispatcher: %q", calls)
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
		{"a list", `[1]`, "params must be an object, not a list"},
		{"unknown outer member", `{"image_revision":7,"batch":{"frames":["x"]},"workers":4}`, `unknown member "workers" in params`},
		{"unknown inner member", `{"image_revision":7,"batch":{"frames":["x"],"workers":4}}`, `unknown member "workers" in batch`},
		{"duplicate outer member", `{"image_revision":7,"image_revision":7,"batch":{"frames":["x"]}}`, `"image_revision" appears twice in params`},
		{"duplicate inner member", `{"image_revision":7,"batch":{"frames":["x"],"frames":["x"]}}`, `"frames" appears twice in batch`},
		{"member case", `{"Image_Revision":7,"batch":{"frames":["x"]}}`, `unknown member "Image_Revision"`},
		{"no revision", `{"batch":{"frames":["x"]}}`, `params has no "image_revision"`},
		{"no batch", `{"image_revision":7}`, `params has no "batch"`},
		{"no frames member", `{"image_revision":7,"batch":{}}`, `batch has no "frames"`},
		{"batch a list", `{"image_revision":7,"batch":["x"]}`, "batch must be an object, not a list"},
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
	if got[0] == nil || !strings.HasPrefix(*got[0], `{"id":1,"jsonrpc":"2.0","result"`) {
		t.Errorf("a frame of exactly the bound was not run: %v", got[0])
	}
	if got[2] == nil || !strings.Contains(*got[2], `"id":null`) || !strings.Contains(*got[2], "frame_too_large") {
		t.Errorf("a blank frame over the bound: %v; want frame_too_large to null", got[2])
	}
	if calls := f.calls(); len(calls) != 1 || calls[0] != atBound {
		t.Errorf("dispatched %d frames; want only the one at the bound, without its line ending", len(calls))
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
	if n := len(f.calls()); n != 1 {
		t.Errorf("%d frames ran; want 1 (the first passes the bound)", n)
	}
}

func TestWorkerPanic(t *testing.T) {
	var inflight, after atomic.Int32
	f := &fake{before: func(ctx context.Context, req *fakeRequest) {
		inflight.Add(1)
		defer inflight.Add(-1)
		if req.Method == "docir/query" {
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
		{"only malformed and silent frames", []string{"{", `{"jsonrpc":"2.0","method":"workspace/status"}`}, 0, false, 2},
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
				if calls == 2 && len(f.calls()) != tt.wantRuns {
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
			if n := len(f.calls()); n != tt.wantRuns {
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
			f := &fake{before: func(ctx context.Context, req *fakeRequest) {
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
				var id int
				json.Unmarshal(req.ID, &id)
				if id < workers {
					<-full
				}
			}}
			frames := make([]string, MaxFrames)
			for i := range frames {
				frames[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"docir/get","params":{"doc_id":"a"}}`, i)
			}
			cfg := config(f)
			cfg.Workers = workers
			out, err := Run(context.Background(), cfg, batchParams(frames...))
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range rows(t, out) {
				if r == nil || !strings.HasPrefix(*r, fmt.Sprintf(`{"id":%d,`, i)) {
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
		func(c *Config) { c.Dispatch = nil },
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
	want := []string{"docir/context", "docir/get", "docir/query", "docir/search", "workspace/discover", "workspace/status"}
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

// TestContextValues: the dispatcher and the authenticator see the values of
// the ctx Run was given (a server tracks what each row read through them).
func TestContextValues(t *testing.T) {
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "held")
	var seen atomic.Int32
	cfg := config(&fake{})
	cfg.Dispatch = func(ctx context.Context, frame []byte) []byte {
		if ctx.Value(key{}) == "held" {
			seen.Add(1)
		}
		return nil
	}
	cfg.Authenticate = func(ctx context.Context) error {
		if ctx.Value(key{}) != "held" {
			t.Error("the authenticator lost the ctx values")
		}
		return nil
	}
	if _, err := Run(ctx, cfg, batchParams("{}", "{}")); err != nil {
		t.Fatal(err)
	}
	if seen.Load() != 2 {
		t.Errorf("%d of 2 dispatches saw the ctx values", seen.Load())
	}
}

// FuzzScanMembers holds the allowlist's scanner to encoding/json: on any
// JSON object it finds the same members, in order, with the same values.
func FuzzScanMembers(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_id":"a"}}`,
		`{"a":[1,{"b":"}"}],"\u006dethod":"x", "c" : "\\\"" ,"d":null,"e":-1.5e3,"f":true}`,
		`{}`, `[]`, `"x"`, `{"a":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		want, ok := objectMembers(data)
		var got []member
		scanMembers(data, func(name, value []byte) {
			var n string
			if err := json.Unmarshal(append(append([]byte{'"'}, name...), '"'), &n); err != nil {
				t.Fatalf("name %q: %v", name, err)
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, value); err != nil {
				t.Fatalf("value %q of %q: %v", value, data, err)
			}
			got = append(got, member{name: n, raw: buf.Bytes()})
		})
		if !ok {
			if len(got) != 0 {
				t.Fatalf("%q is not an object, yet members were found", data)
			}
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d members; want %d", data, len(got), len(want))
		}
		for i := range want {
			if got[i].name != want[i].name || !bytes.Equal(got[i].raw, want[i].raw) {
				t.Fatalf("%q: member %d is %q=%s; want %q=%s", data, i, got[i].name, got[i].raw, want[i].name, want[i].raw)
			}
		}
	})
}
