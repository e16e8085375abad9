package session

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/docir/docir/docir/wire"
)

// Every reply line is UTF-8 JSON, also to a request whose string id is not
// valid UTF-8 (it is refused to id null, not echoed as raw bytes), on
// NDJSON (a frame within the bound and one over it) and HTTP alike.
func TestRepliesAreUTF8ForInvalidIDs(t *testing.T) {
	e, _ := newTestEngine(t, nil, nil)
	small := "{\"jsonrpc\":\"2.0\",\"id\":\"a\xff\",\"method\":\"workspace/status\"}"
	big := "{\"jsonrpc\":\"2.0\",\"method\":\"docir/get\",\"params\":{\"doc_id\":\"" + strings.Repeat("x", wire.MaxFrameBytes) + "\"},\"id\":\"a\xff\"}"
	var out bytes.Buffer
	if err := Serve(context.Background(), e, strings.NewReader(small+"\n"+big+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{"invalid_request", "frame_too_large"}
	if len(lines) != len(want) {
		t.Fatalf("got %d reply lines; want %d:\n%s", len(lines), len(want), out.String())
	}
	check := func(how string, line []byte, code string) {
		t.Helper()
		var r struct {
			ID    json.RawMessage `json:"id"`
			Error *wire.Error     `json:"error"`
		}
		if !utf8.Valid(line) || json.Unmarshal(line, &r) != nil {
			t.Errorf("%s: the reply is not UTF-8 JSON: %q", how, line)
			return
		}
		if string(r.ID) != "null" || r.Error == nil || string(r.Error.StableCode()) != code {
			t.Errorf("%s: reply %s; want %s to id null", how, line, code)
		}
	}
	for i, line := range lines {
		check("ndjson", []byte(line), want[i])
	}
	h := e.HTTPHandler(HTTPOptions{Loopback: true})
	for i, body := range []string{small, big} {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/rpc", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		check("http", bytes.TrimSuffix(rec.Body.Bytes(), []byte("\n")), want[i])
	}
}
