package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/store"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// docirBinary builds ./cmd/docir once per test process.
func docirBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "docir-clientgen-")
		if buildErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(buildDir, "docir"), "../docir").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ./cmd/docir: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(buildDir, "docir")
}

// fixture copies testdata/corpus, indexes it, and writes a v2 policy that
// grants refresh and selects 2 read-batch workers. After the index it adds
// a folder the corpus's .gitignore leaves out and a binary .md file, so
// that a refresh reports ignored and warning_counts (and publishes nothing
// new: neither is a document). It returns the corpus folder and the policy
// file.
func fixture(t *testing.T, bin string) (corpus, policy string) {
	t.Helper()
	dir := t.TempDir()
	corpus = filepath.Join(dir, "corpus")
	if err := corpustest.CopyTree("../../testdata/corpus", corpus); err != nil {
		t.Fatal(err)
	}
	index := exec.Command(bin, "index", ".")
	index.Dir = corpus
	if out, err := index.CombinedOutput(); err != nil {
		t.Fatalf("docir index: %v\n%s", err, out)
	}
	for name, data := range map[string]string{
		".gitignore":      "drafts/\n",
		"drafts/draft.md": "# A draft\n",
		"blob.md":         "# Blob\n\x00\x01",
	} {
		path := filepath.Join(corpus, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	policy = filepath.Join(dir, "policy.json")
	if err := os.WriteFile(policy, []byte(`{"schema":"docir.host-policy.v2","grants":["refresh"],"read_batch_workers":2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return corpus, policy
}

// server is a running `docir serve`, one request line at a time.
type server struct {
	in  io.WriteCloser
	out *bufio.Reader
}

func serve(t *testing.T, bin, corpus, policy string) *server {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--policy", policy)
	cmd.Dir = corpus
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		cmd.Wait()
	})
	return &server{in: in, out: bufio.NewReaderSize(out, 2<<20)}
}

// call sends one frame and returns the reply line with its "\n".
func (s *server) call(t *testing.T, frame string) string {
	t.Helper()
	if _, err := io.WriteString(s.in, frame+"\n"); err != nil {
		t.Fatal(err)
	}
	line, err := s.out.ReadString('\n')
	if err != nil {
		t.Fatalf("reading the reply to %s: %v", frame, err)
	}
	return line
}

// compiled resolves the schema file name of docs/schemas, its $refs loaded
// from the same folder.
func compiled(t *testing.T, name string) *jsonschema.Resolved {
	t.Helper()
	abs, err := filepath.Abs(schemaDir)
	if err != nil {
		t.Fatal(err)
	}
	load := func(path string) (*jsonschema.Schema, error) {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return &s, nil
	}
	root, err := load(filepath.Join(abs, name))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := root.Resolve(&jsonschema.ResolveOptions{
		BaseURI: (&url.URL{Scheme: "file", Path: filepath.Join(abs, name)}).String(),
		Loader:  func(u *url.URL) (*jsonschema.Schema, error) { return load(u.Path) },
	})
	if err != nil {
		t.Fatalf("resolving %s: %v", name, err)
	}
	return rs
}

func validate(rs *jsonschema.Resolved, raw []byte) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	return rs.Validate(v)
}

type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Code string `json:"code"`
		} `json:"data"`
	} `json:"error"`
}

func file(method, kind string) string {
	return strings.ReplaceAll(method, "/", ".") + "." + kind + ".json"
}

// TestServerReplies sends real frames to a real `docir serve` and checks
// that each params the server accepts is valid under its params schema, and
// each result it sends is valid under its result schema. At each bound the
// server and the schema agree: both accept the bound, both refuse one past it.
func TestServerReplies(t *testing.T) {
	bin := docirBinary(t)
	corpus, policy := fixture(t, bin)
	srv := serve(t, bin, corpus, policy)
	var docIDs, tooMany []string
	for i := range 1001 {
		tooMany = append(tooMany, fmt.Sprintf("n%d", i))
	}
	docIDs = tooMany[:1000]
	ids := func(a []string) string { b, _ := json.Marshal(a); return string(b) }

	tests := []struct {
		method, params string
		ok             bool // false: the server answers invalid_params and the schema refuses
	}{
		{"docir/get", `{"doc_id":"runbooks/disk-full#Mitigate"}`, true},
		{"docir/get", `{"doc_id":"guides/检索"}`, true},
		{"docir/get", `{"doc_ids":["adr/0001-record-architecture-decisions","runbooks/disk-full#nope","nope"]}`, true},
		{"docir/get", `{"doc_ids":[]}`, true},
		{"docir/get", `{"doc_ids":` + ids(docIDs) + `}`, true},
		{"docir/get", `{"doc_ids":` + ids(tooMany) + `}`, false},
		{"docir/get", `{"doc_id":"a","doc_ids":["b"]}`, false},
		{"docir/get", `{}`, false},
		{"docir/search", `{"query":"retry budget","limit":3}`, true},
		{"docir/search", `{"query":"zzzqqq"}`, true},
		{"docir/search", `{"query":"disk","limit":1000}`, true},
		{"docir/search", `{"query":"disk","limit":1001}`, false},
		{"docir/search", `{"query":"disk","limit":-1}`, false},
		{"docir/search", `{"query":"  "}`, false},
		{"docir/search", `{"query":"disk","extra":1}`, false},
		{"docir/query", `{"expr":"kind:adr","limit":2,"sort":"-id"}`, true},
		{"docir/query", `{"expr":"kind:adr","limit":1001}`, false},
		{"docir/context", `{"query":"disk full","budget":100,"limit":2}`, true},
		{"docir/context", `{"query":"disk","budget":1048576}`, true},
		{"docir/context", `{"query":"disk","budget":1048577}`, false},
		{"workspace/status", ``, true},
		{"workspace/status", `{}`, true},
		{"workspace/status", `{"x":1}`, false},
		{"workspace/discover", ``, true},
		{"docir/links", `{"doc_id":"runbooks/disk-full#Mitigate"}`, true},
		{"docir/links", `{"doc_ids":["runbooks/disk-full","nope","runbooks/disk-full#nope"]}`, true},
		{"docir/links", `{"doc_ids":` + ids(tooMany) + `}`, false},
		{"docir/links", `{"doc_id":"a","doc_ids":["b"]}`, false},
		{"docir/links", `{"doc_id":"runbooks/disk-full","limit":1}`, true},
		{"docir/links", `{"doc_id":"runbooks/disk-full","limit":10000}`, true},
		{"docir/links", `{"doc_id":"runbooks/disk-full","limit":10001}`, false},
		{"docir/links", `{"doc_id":"runbooks/disk-full","limit":0}`, false},
		{"docir/links", `{"doc_ids":["runbooks/disk-full"],"limit":1}`, false},
		{"docir/links", `{"doc_ids":["runbooks/disk-full"],"cursor":"x"}`, false},
		{"docir/links", `{"doc_ids":["runbooks/disk-full"],"limit":1,"cursor":"x"}`, false},
		{"docir/check", ``, true},
		{"docir/check", `{"external":true,"image_revision":1}`, true},
		{"docir/check", `{"external":1}`, false},
		{"docir/changes", `{"since":1}`, true},
		{"docir/changes", `{"since":1,"until":1}`, true},
		{"docir/changes", `{}`, false},
		{"docir/changes", `{"since":0}`, false},
		{"workspace/refresh", ``, true},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprintf("%s %.60s", tt.method, tt.params), func(t *testing.T) {
			frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q`, i, tt.method)
			if tt.params != "" {
				frame += `,"params":` + tt.params
			}
			line := srv.call(t, frame+"}")
			var r reply
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatal(err)
			}
			params := tt.params
			if params == "" {
				params = "null"
			}
			perr := validate(compiled(t, file(tt.method, "params")), []byte(params))
			if !tt.ok {
				if r.Error == nil || (r.Error.Data.Code != "invalid_params") {
					t.Errorf("the server accepted params past a bound: %.300s", line)
				}
				if perr == nil {
					t.Errorf("the params schema accepts what the server refuses: %.200s", params)
				}
				return
			}
			if perr != nil {
				t.Errorf("the params schema refuses what the server accepts: %v", perr)
			}
			if r.Error != nil {
				t.Fatalf("error reply: %s", line)
			}
			if err := validate(compiled(t, file(tt.method, "result")), r.Result); err != nil {
				t.Errorf("result does not match %s: %v\n%.600s", file(tt.method, "result"), err, r.Result)
			}
		})
	}

	checkValidatorRefuses(t)
	t.Run("workspace/read-batch", func(t *testing.T) { checkReadBatchReplies(t, srv) })
}

// checkValidatorRefuses: the validator really refuses: a body in a
// skeleton, a hit without its members, a read-batch result of 17 rows.
func checkValidatorRefuses(t *testing.T) {
	t.Helper()
	for name, bad := range map[string]string{
		"docir.search.result.json":         `{"query":"x","hits":[],"total":0,"body":"x"}`,
		"docir.context.result.json":        `{"query":"x","budget":1,"hits":[{"id":"a"}],"addresses":[],"tokens":0,"generation":1}`,
		"workspace.read-batch.result.json": `{"schema":"docir.read-batch.v1","responses":[` + strings.Repeat(`null,`, 16) + `null],"source_authority":false}`,
		"docir.get.result.json":            `{"documents":[],"missing":[{"address":"a","reason":"gone"}]}`,
	} {
		if err := validate(compiled(t, name), []byte(bad)); err == nil {
			t.Errorf("%s accepts %s", name, bad)
		}
	}
}

// checkReadBatchReplies: a read batch's params and result match their
// schemas, and each row is the reply its frame gets alone (a blank frame
// null, a refresh method_not_found).
func checkReadBatchReplies(t *testing.T, srv *server) {
	t.Helper()
	var status struct {
		Result struct {
			Generation uint64 `json:"generation"`
		} `json:"result"`
	}
	json.Unmarshal([]byte(srv.call(t, `{"jsonrpc":"2.0","id":"s","method":"workspace/status"}`)), &status)
	frames := []string{
		`{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_id":"runbooks/disk-full"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"docir/search","params":{"query":"disk"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"docir/get"`,
		``,
		`{"jsonrpc":"2.0","id":5,"method":"workspace/refresh"}`,
	}
	params, _ := json.Marshal(map[string]any{"image_revision": status.Result.Generation, "batch": map[string]any{"frames": frames}})
	if err := validate(compiled(t, "workspace.read-batch.params.json"), params); err != nil {
		t.Fatalf("params schema: %v", err)
	}
	line := srv.call(t, `{"jsonrpc":"2.0","id":"b","method":"workspace/read-batch","params":`+string(params)+`}`)
	var r reply
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	if r.Error != nil {
		t.Fatalf("error reply: %s", line)
	}
	if err := validate(compiled(t, "workspace.read-batch.result.json"), r.Result); err != nil {
		t.Fatalf("result: %v\n%s", err, r.Result)
	}
	var res struct {
		Responses []*string `json:"responses"`
	}
	json.Unmarshal(r.Result, &res)
	for i, f := range frames {
		switch {
		case i == 3:
			if res.Responses[i] != nil {
				t.Errorf("row %d of a blank frame: %q", i, *res.Responses[i])
			}
		case i == 4:
			if res.Responses[i] == nil || !strings.Contains(*res.Responses[i], `"method_not_found"`) {
				t.Errorf("row %d of a refresh: %v; want method_not_found", i, res.Responses[i])
			}
		default:
			if alone := srv.call(t, f); res.Responses[i] == nil || *res.Responses[i] != alone {
				t.Errorf("row %d differs from the frame sent alone:\n got %v\nwant %q", i, res.Responses[i], alone)
			}
		}
	}
}

// schemaCalls sends requests to a server and checks each params sent and
// each result received against its schema.
type schemaCalls struct{ srv *server }

// ok sends params the schema and the server both accept and returns the
// result, checked against its schema.
func (c schemaCalls) ok(t *testing.T, method, params string) json.RawMessage {
	t.Helper()
	sent := params
	if sent == "" {
		sent = "null" // absent params are null to the schema
	}
	if err := validate(compiled(t, file(method, "params")), []byte(sent)); err != nil {
		t.Errorf("the params schema refuses %s: %v", sent, err)
	}
	r, line := c.srv.ask(t, method, params)
	if r.Error != nil {
		t.Fatalf("error reply to %s %.200s: %s", method, params, line)
	}
	if err := validate(compiled(t, file(method, "result")), r.Result); err != nil {
		t.Errorf("result does not match %s: %v\n%.600s", file(method, "result"), err, r.Result)
	}
	return r.Result
}

// refused sends params the server answers with code; the schema
// refuses them exactly when the code is invalid_params.
func (c schemaCalls) refused(t *testing.T, method, params, code string) {
	t.Helper()
	r, line := c.srv.ask(t, method, params)
	if r.Error == nil || r.Error.Data.Code != code {
		t.Errorf("%s %.200s: %.300s; want %s", method, params, line, code)
	}
	perr := validate(compiled(t, file(method, "params")), []byte(params))
	switch {
	case code == "invalid_params" && perr == nil:
		t.Errorf("the params schema accepts what the server refuses: %.200s", params)
	case code != "invalid_params" && perr != nil:
		t.Errorf("the params schema refuses a well-formed %s: %v", method, perr)
	}
}

// checkPinnedReads: every read answers the same unpinned and pinned both
// ways (by the receipt, by its generation); both pins at once, a negative
// or mistyped pin, an unretained generation and an edited receipt are
// refused.
func checkPinnedReads(t *testing.T, c schemaCalls, receipt, edited string, rev uint64) {
	t.Helper()
	ok, refused := c.ok, c.refused
	reads := []struct{ method, params string }{
		{"docir/get", `"doc_id":"runbooks/disk-full#Mitigate"`},
		{"docir/get", `"doc_ids":["adr/0001-record-architecture-decisions","adr/0001-record-architecture-decisio"]`},
		{"docir/search", `"query":"disk","limit":3`},
		{"docir/query", `"expr":"kind:adr","sort":"-id"`},
		{"docir/context", `"query":"disk full","budget":200`},
		{"workspace/status", ``},
	}
	pins := map[string]string{
		"binding":        `"binding":` + receipt,
		"image_revision": fmt.Sprintf(`"image_revision":%d`, rev),
	}
	join := func(a, b string) string {
		if a == "" || b == "" {
			return "{" + a + b + "}"
		}
		return "{" + a + "," + b + "}"
	}
	for _, rd := range reads {
		t.Run(fmt.Sprintf("%s %.40s", rd.method, rd.params), func(t *testing.T) {
			want := ok(t, rd.method, join(rd.params, ""))
			for name, pin := range pins {
				if got := ok(t, rd.method, join(rd.params, pin)); string(got) != string(want) {
					t.Errorf("pinned by %s:\n got %.300s\nwant %.300s", name, got, want)
				}
			}
			refused(t, rd.method, join(rd.params, pins["binding"]+","+pins["image_revision"]), "invalid_params")
			refused(t, rd.method, join(rd.params, `"image_revision":-1`), "invalid_params")
			refused(t, rd.method, join(rd.params, `"binding":1`), "invalid_params")
			refused(t, rd.method, join(rd.params, fmt.Sprintf(`"image_revision":%d`, rev+1000)), "stale_revision")
			refused(t, rd.method, join(rd.params, `"binding":`+edited), "binding_rejected")
		})
	}
}

// ask sends one request and decodes its reply.
func (s *server) ask(t *testing.T, method, params string) (reply, string) {
	t.Helper()
	frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q`, method)
	if params != "" {
		frame += `,"params":` + params
	}
	line := s.call(t, frame+"}")
	var r reply
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return r, line
}

// TestServerBindings drives the execution bindings of a real `docir
// serve`: discover lists exactly the indexed methods, workspace/bind gives
// a real receipt, workspace/replay verifies it, and every read method
// answers pinned by that receipt (binding) and by its generation
// (image_revision) exactly as it answers unpinned. Each params sent and each
// result received is checked against its schema; where the server refuses
// a shape (invalid_params) the schema refuses it too, and where the server
// refuses a well-formed pin against the store's state (stale_revision,
// binding_rejected) the schema accepts it: only the store can know.
func TestServerBindings(t *testing.T) {
	bin := docirBinary(t)
	corpus, policy := fixture(t, bin)
	srv := serve(t, bin, corpus, policy)

	set, err := Load(schemaDir)
	if err != nil {
		t.Fatal(err)
	}
	var indexed []string
	for _, m := range set.Methods {
		indexed = append(indexed, m.Method)
	}
	slices.Sort(indexed)

	c := schemaCalls{srv}
	ok, refused := c.ok, c.refused

	var disc struct {
		Methods []string `json:"methods"`
	}
	json.Unmarshal(ok(t, "workspace/discover", ""), &disc)
	if diff := cmp.Diff(indexed, disc.Methods); diff != "" {
		t.Errorf("methods (-index +discover):\n%s", diff)
	}

	var status struct {
		Generation uint64 `json:"generation"`
		Format     int    `json:"format"`
	}
	json.Unmarshal(ok(t, "workspace/status", ""), &status)
	if status.Format != store.FormatVersion {
		t.Errorf("status format %d; want %d", status.Format, store.FormatVersion)
	}

	var b struct {
		Receipt   string `json:"receipt"`
		Digest    string `json:"digest"`
		Workspace string `json:"workspace"`
		Revision  uint64 `json:"revision"`
		Current   bool   `json:"current"`
	}
	// Binds without a hold (ttl "0"), so that a replay answers the
	// same binding: a hold would count a bind more each time.
	bound := ok(t, "workspace/bind", `{"ttl":"0"}`)
	json.Unmarshal(bound, &b)
	if b.Revision != status.Generation || !b.Current {
		t.Fatalf("bind: revision %d current %v; want %d, true", b.Revision, b.Current, status.Generation)
	}
	receipt, _ := json.Marshal(b.Receipt)
	sel := func(ws string, rev uint64) string { return fmt.Sprintf(`{"workspace":%q,"revision":%d}`, ws, rev) }
	if got := ok(t, "workspace/bind", fmt.Sprintf(`{"workspace":%q,"revision":%d,"ttl":"0"}`, b.Workspace, b.Revision)); string(got) != string(bound) {
		t.Errorf("a select of the bound generation:\n got %s\nwant %s", got, bound)
	}
	if got := ok(t, "workspace/replay", `{"receipt":`+string(receipt)+`}`); string(got) != string(bound) {
		t.Errorf("replay:\n got %s\nwant %s", got, bound)
	}
	ok(t, "workspace/replay", `{"receipt":`+string(receipt)+`,"require_current":true}`)
	if held := ok(t, "workspace/bind", `{}`); !strings.Contains(string(held), `"hold":{"binds":1,`) {
		t.Errorf("a bind with the default ttl holds nothing: %s", held)
	}
	refused(t, "workspace/bind", fmt.Sprintf(`{"workspace":%q}`, b.Workspace), "invalid_params")
	refused(t, "workspace/bind", fmt.Sprintf(`{"revision":%d}`, b.Revision), "invalid_params")
	refused(t, "workspace/bind", `{"workspace":"x","revision":1,"extra":1}`, "invalid_params")
	refused(t, "workspace/replay", `{"receipt":`+string(receipt)+`,"extra":1}`, "invalid_params")
	refused(t, "workspace/bind", sel(b.Workspace, b.Revision+1000), "binding_rejected")
	edited, _ := json.Marshal(strings.Replace(b.Receipt, b.Digest, strings.Repeat("0", 64), 1))
	refused(t, "workspace/replay", `{"receipt":`+string(edited)+`}`, "binding_rejected")

	checkPinnedReads(t, c, string(receipt), string(edited), b.Revision)
	var missing struct {
		Missing []struct {
			Suggestions []string `json:"suggestions"`
		} `json:"missing"`
	}
	json.Unmarshal(ok(t, "docir/get", `{"doc_ids":["adr/0001-record-architecture-decisio"]}`), &missing)
	if len(missing.Missing) != 1 || !slices.Contains(missing.Missing[0].Suggestions, "adr/0001-record-architecture-decisions") {
		t.Errorf("a near miss: %+v; want a suggestion", missing)
	}

	// A refresh reports what the .gitignore left out and the binary file
	// by kind, and publishes nothing new: the receipt stays current.
	var sum struct {
		Ignored       int            `json:"ignored"`
		WarningCounts map[string]int `json:"warning_counts"`
		Published     bool           `json:"published"`
	}
	json.Unmarshal(ok(t, "workspace/refresh", ""), &sum)
	if sum.Ignored != 1 || sum.WarningCounts["binary"] != 1 || sum.Published {
		t.Errorf("refresh: %+v; want ignored 1, warning_counts {binary: 1}, published false", sum)
	}
	ok(t, "workspace/replay", `{"receipt":`+string(receipt)+`,"require_current":true}`)
}

// TestServerStatusFrontMatterID: a workspace/status whose sources set
// front_matter_id (name, off) beside one that keeps the default is valid
// under the result schema, and carries the member for those two only (the
// fixture's corpus sets none, so TestServerReplies never sends it).
func TestServerStatusFrontMatterID(t *testing.T) {
	bin := docirBinary(t)
	project := t.TempDir()
	if err := corpustest.WriteFiles(project, map[string]string{
		"docir.yaml":          "sources:\n  - path: site\n    front_matter_id: name\n  - path: paths\n    front_matter_id: off\n  - path: plain\n",
		"site/guide/hello.md": "---\nid: intro\n---\n# Intro\n",
		"paths/a.md":          "---\nid: elsewhere\n---\n# A\n",
		"plain/b.md":          "# B\n",
		"policy.json":         `{"schema":"docir.host-policy.v2","grants":[],"read_batch_workers":null}`,
	}); err != nil {
		t.Fatal(err)
	}
	index := exec.Command(bin, "index")
	index.Dir = project
	if out, err := index.CombinedOutput(); err != nil {
		t.Fatalf("docir index: %v\n%s", err, out)
	}
	c := schemaCalls{serve(t, bin, project, filepath.Join(project, "policy.json"))}
	var status struct {
		Sources []map[string]string `json:"sources"`
	}
	if err := json.Unmarshal(c.ok(t, "workspace/status", ""), &status); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range status.Sources {
		got = append(got, filepath.Base(s["path"])+" "+s["front_matter_id"])
	}
	if diff := cmp.Diff([]string{"site name", "paths off", "plain "}, got); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	if _, ok := status.Sources[2]["front_matter_id"]; ok {
		t.Errorf("front_matter_id sent for a source with the default: %v", status.Sources[2])
	}
}
