package session

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHealthAndMCPMount: GET /health answers without a token; /mcp
// reaches the mounted handler only past the Host, Origin and token checks;
// other paths name the endpoints.
func TestHealthAndMCPMount(t *testing.T) {
	e, _ := newTestEngine(t, nil, nil)
	mcp := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "mcp here") })
	h := e.HTTPHandler(HTTPOptions{Token: "tok", Loopback: true, MCP: mcp})
	tests := []struct {
		name, method, path, host, origin, token string
		status                                  int
		body                                    string
	}{
		{"health", "GET", "/health", "127.0.0.1:1", "", "", 200, `{"status":"ok"}` + "\n"},
		{"health HEAD", "HEAD", "/health", "localhost:1", "", "", 200, `{"status":"ok"}` + "\n"}, // net/http drops a HEAD body
		{"health POST", "POST", "/health", "127.0.0.1:1", "", "", 405, "docir serve: /health takes GET\n"},
		{"health, rebound Host", "GET", "/health", "evil.example:1", "", "", 403, "docir serve: Host \"evil.example:1\" is not a loopback name\n"},
		{"mcp", "POST", "/mcp", "127.0.0.1:1", "", "tok", 200, "mcp here"},
		{"mcp, loopback Origin", "POST", "/mcp", "127.0.0.1:1", "http://localhost:3000", "tok", 200, "mcp here"},
		{"mcp, no token", "POST", "/mcp", "127.0.0.1:1", "", "", 401, `{"jsonrpc":"2.0","id":null,"error":{"code":-32006,"message":"missing or wrong bearer token","data":{"code":"unauthorized"}}}` + "\n"},
		{"mcp, foreign Origin", "POST", "/mcp", "127.0.0.1:1", "https://evil.example", "tok", 403, "docir serve: Origin \"https://evil.example\" is not a loopback origin\n"},
		{"rpc, foreign Origin", "POST", "/rpc", "127.0.0.1:1", "https://evil.example", "tok", 403, "docir serve: Origin \"https://evil.example\" is not a loopback origin\n"},
		{"elsewhere", "GET", "/x", "127.0.0.1:1", "", "tok", 404, "docir serve: the endpoints are POST /rpc, GET /health, /mcp (MCP Streamable HTTP)\n"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, "http://"+tt.host+tt.path, strings.NewReader(""))
		r.Host = tt.host
		if tt.origin != "" {
			r.Header.Set("Origin", tt.origin)
		}
		if tt.token != "" {
			r.Header.Set("Authorization", "Bearer "+tt.token)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tt.status || w.Body.String() != tt.body {
			t.Errorf("%s: %d %q, want %d %q", tt.name, w.Code, w.Body.String(), tt.status, tt.body)
		}
	}
	// Without an MCP handler, /mcp is not served.
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", "http://127.0.0.1:1/mcp", nil)
	e.HTTPHandler(HTTPOptions{Loopback: true}).ServeHTTP(w, r)
	if w.Code != 404 {
		t.Errorf("/mcp without MCP: %d", w.Code)
	}
}
