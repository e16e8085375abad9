package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docir/docir/docir/corpustest"
)

// TestMCPClient runs a real MCP host against the real binary: the official
// TypeScript SDK (@modelcontextprotocol/sdk from npm, on the machine's
// Node) spawns `docir serve --mcp` over a copy of the fixture corpus, says
// initialize, lists the tools and calls them (testdata/mcpclient/client.mjs).
// The SDK checks each structuredContent against the tool's outputSchema.
//
// It is skipped, with a message, when node or npm is not on PATH, or when
// DOCIR_MCP_CLIENT=skip. The npm package is installed (npm ci, from the
// committed package-lock.json) into the user's cache folder, once per
// lock file; nothing is written under the repository.
func TestMCPClient(t *testing.T) {
	dir := mcpClientDir(t)
	docir, err := exec.LookPath("docir") // the test binary, put on PATH by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join(t.TempDir(), "corpus")
	if err := corpustest.CopyTree("../../testdata/corpus", corpus); err != nil {
		t.Fatal(err)
	}
	index := exec.Command(docir, "index", ".")
	index.Dir = corpus
	if out, err := index.CombinedOutput(); err != nil {
		t.Fatalf("docir index: %v\n%s", err, out)
	}

	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) { checkMCPClient(t, dir, docir, corpus, transport) })
	}
}

// mcpContent, mcpToolResult and mcpCaught are parts of an mcpClientReport:
// a content item, a tool call's result, and a call the client caught.
type mcpContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}
type mcpToolResult struct {
	Content           []mcpContent    `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}
type mcpCaught struct {
	Answered *mcpToolResult `json:"answered"`
	Code     int            `json:"code"`
	Message  string         `json:"message"`
}

// mcpClientReport is what client.mjs prints: what it saw of the server.
type mcpClientReport struct {
	Server struct {
		Name string `json:"name"`
	} `json:"server"`
	Tools []struct {
		Name         string         `json:"name"`
		InputSchema  map[string]any `json:"inputSchema"`
		OutputSchema map[string]any `json:"outputSchema"`
	} `json:"tools"`
	Instructions string `json:"instructions"`
	Health       struct {
		Status int            `json:"status"`
		Body   map[string]any `json:"body"`
	} `json:"health"`
	Templates []struct {
		URITemplate string `json:"uriTemplate"`
	} `json:"templates"`
	Resource struct {
		Contents []struct {
			URI, MimeType, Text string
		} `json:"contents"`
	} `json:"resource"`
	NoTokenStatus                                                                          int `json:"noTokenStatus"`
	Get, GetOne, Search, Context, Query, Status, Fields, InspectorGet, Malformed, NotFound mcpToolResult
	Call100k                                                                               struct {
		Bytes int       `json:"bytes"`
		Reply mcpCaught `json:"reply"`
	} `json:"call100k"`
	Call50k, Call2m, ControlURI, PingAfter mcpCaught
	NoSession, BigID                       struct {
		Status int    `json:"status"`
		Body   string `json:"body"`
	}
}

// checkMCPClient runs client.mjs over transport (stdio, or Streamable
// HTTP) and checks what it saw.
func checkMCPClient(t *testing.T, dir, docir, corpus, transport string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "client.mjs"), docir, corpus)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DOCIR_MCP_TRANSPORT="+transport)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the MCP client failed: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}

	var got mcpClientReport
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("client output: %v\n%s", err, stdout.String())
	}
	if got.Server.Name != "docir" {
		t.Errorf("server name %q", got.Server.Name)
	}
	if !strings.Contains(got.Instructions, `docir serves the corpus "corpus"`) {
		t.Errorf("instructions do not name the corpus: %q", got.Instructions)
	}
	if transport == "http" && (got.Health.Status != 200 || got.Health.Body["status"] != "ok" || got.NoTokenStatus != 401) {
		t.Errorf("http: /health %d %v, /mcp without the token %d", got.Health.Status, got.Health.Body, got.NoTokenStatus)
	}
	var names []string
	for _, tool := range got.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema["type"] != "object" || tool.OutputSchema["type"] != "object" {
			t.Errorf("tool %s: schemas %v / %v", tool.Name, tool.InputSchema, tool.OutputSchema)
		}
	}
	slices.Sort(names)
	if strings.Join(names, " ") != "changes check context fields get links query search status" {
		t.Errorf("tools %v", names)
	}

	checkMCPGet(t, &got)
	if got.GetOne.IsError || !strings.Contains(string(got.GetOne.StructuredContent), `"slug":"概述"`) {
		t.Errorf("get doc_id: %+v", got.GetOne)
	}
	if len(got.Templates) != 1 || got.Templates[0].URITemplate != "docir:///{+address}" || len(got.Resource.Contents) != 1 ||
		!strings.HasPrefix(got.Resource.Contents[0].Text, "## Mitigate\n") || got.Resource.Contents[0].MimeType != "text/markdown" {
		t.Errorf("resources: %+v %+v", got.Templates, got.Resource)
	}
	if got.InspectorGet.IsError || !strings.Contains(string(got.InspectorGet.StructuredContent), `"id":"runbooks/disk-full"`) {
		t.Errorf("get with a doc_ids array, as the Inspector sends it: %+v", got.InspectorGet)
	}
	if !strings.Contains(string(got.Fields.StructuredContent), `{"name":"kind","documents":`) {
		t.Errorf("fields: %s", got.Fields.StructuredContent)
	}
	for name, r := range map[string]mcpToolResult{"search": got.Search, "context": got.Context, "query": got.Query, "status": got.Status, "fields": got.Fields} {
		if r.IsError || len(r.StructuredContent) == 0 {
			t.Errorf("%s: %+v", name, r)
		}
		if name != "status" && name != "fields" && strings.Contains(string(r.StructuredContent), `"body"`) {
			t.Errorf("%s returned a body: %s", name, r.StructuredContent)
		}
	}
	if !strings.Contains(string(got.Search.StructuredContent), `"matched_section":"runbooks/retry-budget#`) {
		t.Errorf("search: %s", got.Search.StructuredContent)
	}
	// A malformed address is the caller's error: isError, with the parse error.
	if !got.Malformed.IsError || got.Malformed.StructuredContent != nil || len(got.Malformed.Content) != 1 ||
		!strings.Contains(got.Malformed.Content[0].Text, `malformed address "a b": whitespace in document id`) {
		t.Errorf("malformed: %+v", got.Malformed)
	}
	if !got.NotFound.IsError || !strings.Contains(got.NotFound.Content[0].Text, "not_found") {
		t.Errorf("doc_id miss: %+v", got.NotFound)
	}

	checkMCPBounds(t, &got, transport)
}

// checkMCPGet: one get call, two documents and a miss: the miss is data,
// not an error, and the text is the documents as markdown.
func checkMCPGet(t *testing.T, got *mcpClientReport) {
	t.Helper()
	var get struct {
		Documents []struct {
			Address string `json:"address"`
			ID      string `json:"id"`
			Body    string `json:"body"`
		} `json:"documents"`
		Missing []struct {
			Address string `json:"address"`
			Reason  string `json:"reason"`
		} `json:"missing"`
	}
	if got.Get.IsError {
		t.Fatalf("get doc_ids is an error: %+v", got.Get)
	}
	if err := json.Unmarshal(got.Get.StructuredContent, &get); err != nil {
		t.Fatal(err)
	}
	if len(get.Documents) != 2 || get.Documents[0].Address != "runbooks/disk-full#Mitigate" || !strings.HasPrefix(get.Documents[0].Body, "## Mitigate\n") ||
		get.Documents[1].ID != "adr/0001-record-architecture-decisions" || len(get.Missing) != 1 || get.Missing[0].Address != "nope" || get.Missing[0].Reason != "no_document" {
		t.Errorf("get doc_ids: %s", got.Get.StructuredContent)
	}
	// The text is the documents as markdown, not the JSON a second time.
	if len(got.Get.Content) != 1 || jsonEqual(got.Get.Content[0].Text, string(got.Get.StructuredContent)) ||
		!strings.Contains(got.Get.Content[0].Text, get.Documents[0].Body) || !strings.Contains(got.Get.Content[0].Text, "- `nope`: no_document") {
		t.Errorf("get: the text content is not the documents as markdown: %+v", got.Get.Content)
	}
}

// checkMCPBounds: every call is answered, whatever its size, and a
// malformed resource URI leaves the session going; over HTTP, a POST
// without a session and an id past 2^53 are refused.
func checkMCPBounds(t *testing.T, got *mcpClientReport, transport string) {
	t.Helper()
	// Every call answered, whatever its size (issue 25): a 100 KB call and
	// one over the 1 MiB bound, their ids written last, as this SDK does;
	// before, both timed out on stdio.
	if r := got.Call100k.Reply.Answered; got.Call100k.Bytes < 100_000 || r == nil || !r.IsError || !strings.Contains(r.Content[0].Text, "(invalid_params, JSON-RPC -32602)") {
		t.Errorf("a %d-byte call: %+v", got.Call100k.Bytes, got.Call100k.Reply)
	}
	if r := got.Call50k.Answered; r == nil || r.IsError || strings.Count(string(r.StructuredContent), `"reason":"no_section"`) != 64 {
		t.Errorf("a get of 64 addresses: %+v", got.Call50k)
	}
	if transport == "stdio" && (got.Call2m.Code != -32600 || !strings.Contains(got.Call2m.Message, "over the 1048576-byte bound")) ||
		transport == "http" && (got.Call2m.Code != 413 || !strings.Contains(got.Call2m.Message, `"data":{"code":"frame_too_large"}`) || strings.Contains(got.Call2m.Message, `"id":null`)) {
		t.Errorf("a call over the bound: %+v", got.Call2m)
	}
	// A control character in a resource URI is a malformed address; the
	// session goes on (issue 28.9: the process exited).
	if got.ControlURI.Code != -32602 || !strings.Contains(got.ControlURI.Message, "malformed address") || got.PingAfter.Answered == nil {
		t.Errorf("docir:///\\u0000: %+v, then ping: %+v", got.ControlURI, got.PingAfter)
	}
	if transport == "http" {
		if got.NoSession.Status != 400 || !strings.Contains(got.NoSession.Body, `"id":5,"error":{"code":-32600,"message":"invalid request: no Mcp-Session-Id header`) {
			t.Errorf("a POST without Mcp-Session-Id: %+v", got.NoSession)
		}
		if got.BigID.Status != 400 || !strings.Contains(got.BigID.Body, `"id":null,"error":{"code":-32600,"message":"invalid request: id 12345678901234567890`) {
			t.Errorf("id 12345678901234567890: %+v", got.BigID)
		}
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && mustJSON(x) == mustJSON(y)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// mcpClientDir returns a folder holding testdata/mcpclient's client.mjs
// with its npm dependencies installed, or skips the test.
func mcpClientDir(t *testing.T) string {
	t.Helper()
	if os.Getenv("DOCIR_MCP_CLIENT") == "skip" {
		t.Skip("skipping the MCP client test: DOCIR_MCP_CLIENT=skip")
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipping the MCP client test: %s is not on PATH (it needs Node.js 18 or later and npm)", tool)
		}
	}
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		t.Skipf("skipping the MCP client test: node --version: %v", err)
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	if major, _ := strconv.Atoi(strings.Split(v, ".")[0]); major < 18 {
		t.Skipf("skipping the MCP client test: node %s is older than 18", v)
	}

	src := "../../testdata/mcpclient"
	h := sha256.New()
	var files [][]byte
	for _, name := range []string{"package.json", "package-lock.json", "client.mjs"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, data)
		if name != "client.mjs" {
			h.Write(data)
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	root := filepath.Join(cache, "docir-test")
	dir := filepath.Join(root, "mcpclient-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		tmp, err := os.MkdirTemp(root, "install-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(tmp)
		for i, name := range []string{"package.json", "package-lock.json"} {
			if err := os.WriteFile(filepath.Join(tmp, name), files[i], 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		npm := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
		npm.Dir = tmp
		if out, err := npm.CombinedOutput(); err != nil {
			t.Fatalf("npm ci of testdata/mcpclient failed (set DOCIR_MCP_CLIENT=skip to skip this test): %v\n%s", err, out)
		}
		// Another test process may have installed it meanwhile; either copy
		// is whole.
		if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, os.ErrExist) {
			if _, serr := os.Stat(dir); serr != nil {
				t.Fatal(err)
			}
		}
	}
	// client.mjs is not part of the key: write this tree's copy each run.
	f, err := os.CreateTemp(dir, "client-*.mjs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(files[2]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Rename(f.Name(), filepath.Join(dir, "client.mjs")); err != nil {
		t.Fatal(err)
	}
	return dir
}
