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
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/docir/docir/docir/corpustest"
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
// grants refresh and selects 2 read-batch workers. It returns the corpus
// folder and the policy file.
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

	// The validator really refuses: a body in a skeleton, a hit without
	// its members, a read-batch result of 17 rows.
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

	t.Run("workspace/read-batch", func(t *testing.T) {
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
	})
}
