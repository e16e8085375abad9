package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docir/docir/docir/corpustest"
)

const (
	mcpInitialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	mcpInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// mcpProcess is `docir serve --mcp ARGS` started in dir with env added,
// its stdin and stdout as pipes.
type mcpProcess struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startMCP(t *testing.T, dir string, env []string, args ...string) *mcpProcess {
	t.Helper()
	docir, err := exec.LookPath("docir") // the test binary, put on PATH by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(docir, append([]string{"serve", "--mcp"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = &strings.Builder{}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &mcpProcess{t: t, cmd: cmd, in: in, out: bufio.NewScanner(out)}
	p.out.Buffer(make([]byte, 1<<20), 1<<24)
	t.Cleanup(func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("docir serve --mcp: %v\nstderr:\n%s", err, cmd.Stderr)
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Errorf("docir serve --mcp did not end with its input")
		}
	})
	return p
}

// send writes one line.
func (p *mcpProcess) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// reply reads the next line as JSON.
func (p *mcpProcess) reply() map[string]any {
	p.t.Helper()
	if !p.out.Scan() {
		p.t.Fatalf("no reply: %v\nstderr:\n%s", p.out.Err(), p.cmd.Stderr)
	}
	var m map[string]any
	if err := json.Unmarshal(p.out.Bytes(), &m); err != nil {
		p.t.Fatalf("reply %q: %v", p.out.Text(), err)
	}
	return m
}

// handshake says initialize and initialized and returns how long the
// initialize reply took.
func (p *mcpProcess) handshake() time.Duration {
	p.t.Helper()
	start := time.Now()
	p.send(mcpInitialize)
	r := p.reply()
	took := time.Since(start)
	if r["result"] == nil {
		p.t.Fatalf("initialize: %v", r)
	}
	p.send(mcpInitialized)
	return took
}

// callTool calls a tool and returns its result.
func (p *mcpProcess) callTool(id int, name string, args string) map[string]any {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`)
	r := p.reply()
	res, ok := r["result"].(map[string]any)
	if !ok {
		p.t.Fatalf("tools/call %s: %v", name, r)
	}
	return res
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func toolText(res map[string]any) string {
	var b strings.Builder
	for _, c := range res["content"].([]any) {
		b.WriteString(c.(map[string]any)["text"].(string))
	}
	return b.String()
}

// TestServeStartsAnywhere starts `docir serve --mcp` where hosts start
// servers without a config: an empty folder, and $HOME full of markdown.
// The handshake is answered, nothing is indexed or written, and a read
// answers an error that says to run docir index DIR.
func TestServeStartsAnywhere(t *testing.T) {
	empty := t.TempDir()
	home := t.TempDir()
	for i := range 50 {
		if err := os.WriteFile(filepath.Join(home, "note"+itoa(i)+".md"), []byte("# Note\n\nsome text\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ name, dir, home string }{
		{"empty folder", empty, home},
		{"home", home, home},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startMCP(t, tc.dir, []string{"HOME=" + tc.home})
			took := p.handshake()
			t.Logf("initialize answered in %v", took)
			for i, tool := range []string{"search", "status"} {
				args := `{}`
				if tool == "search" {
					args = `{"query":"note"}`
				}
				res := p.callTool(10+i, tool, args)
				if res["isError"] != true || !strings.Contains(toolText(res), "docir index DIR") {
					t.Errorf("%s: want an error saying docir index DIR, got %v", tool, res)
				}
			}
			p.in.Close()
			if _, err := os.Stat(filepath.Join(tc.dir, ".docir")); !os.IsNotExist(err) {
				t.Errorf("serve wrote %s/.docir (%v)", tc.dir, err)
			}
			entries, _ := os.ReadDir(tc.dir)
			if tc.dir == empty && len(entries) != 0 {
				t.Errorf("serve wrote in the empty folder: %v", entries)
			}
		})
	}
}

// TestServeIndexesInBackground starts serve over sources with no store:
// the handshake is answered before the index exists, then reads answer
// from the index built in the background.
func TestServeIndexesInBackground(t *testing.T) {
	corpus := filepath.Join(t.TempDir(), "corpus")
	if err := corpustest.CopyTree("../../testdata/corpus", corpus); err != nil {
		t.Fatal(err)
	}
	p := startMCP(t, corpus, nil)
	p.handshake()
	deadline := time.Now().Add(time.Minute)
	for id := 10; ; id++ {
		res := p.callTool(id, "status", `{}`)
		if res["isError"] != true {
			sc, _ := res["structuredContent"].(map[string]any)
			if n, _ := sc["documents"].(float64); n == 0 {
				t.Errorf("status after the background index: %v", res)
			}
			break
		}
		if !strings.Contains(toolText(res), "indexing") {
			t.Fatalf("status while indexing: want an indexing error, got %v", res)
		}
		if time.Now().After(deadline) {
			t.Fatal("still indexing after a minute")
		}
	}
}

// TestServeWatch changes a source under `serve --mcp --watch`: the store
// served moves to a generation that has the new document.
func TestServeWatch(t *testing.T) {
	corpus := filepath.Join(t.TempDir(), "corpus")
	if err := corpustest.CopyTree("../../testdata/corpus", corpus); err != nil {
		t.Fatal(err)
	}
	docir, _ := exec.LookPath("docir")
	index := exec.Command(docir, "index", ".")
	index.Dir = corpus
	if out, err := index.CombinedOutput(); err != nil {
		t.Fatalf("docir index: %v\n%s", err, out)
	}
	p := startMCP(t, corpus, nil, "--watch")
	p.handshake()
	if err := os.WriteFile(filepath.Join(corpus, "zebra-watch.md"), []byte("# Zebra watch\n\nstripes appear\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for id := 10; ; id++ {
		res := p.callTool(id, "get", `{"doc_ids":["zebra-watch"]}`)
		sc, _ := res["structuredContent"].(map[string]any)
		if docs, _ := sc["documents"].([]any); len(docs) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new file is not served after a minute: %v", res)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestServeFollowsAnotherProcessIndex: a `docir serve` session reads the
// generation `docir index` publishes in another process at its next read,
// without a refresh of its own or a restart, as docs/protocol.md says;
// docs/cli.md said the server held the generation it opened until then.
func TestServeFollowsAnotherProcessIndex(t *testing.T) {
	corpus := filepath.Join(t.TempDir(), "corpus")
	if err := corpustest.CopyTree("../../testdata/corpus", corpus); err != nil {
		t.Fatal(err)
	}
	if r := runDocir(t, corpus, nil, "--format", "json", "index", "."); r.code != 0 {
		t.Fatalf("docir index: %+v", r)
	}
	p := startMCP(t, corpus, nil)
	p.handshake()
	generation := func(id int) float64 {
		res := p.callTool(id, "status", `{}`)
		sc, _ := res["structuredContent"].(map[string]any)
		g, _ := sc["generation"].(float64)
		return g
	}
	if g := generation(10); g != 1 {
		t.Fatalf("generation %v before the second index, want 1", g)
	}
	if err := os.WriteFile(filepath.Join(corpus, "zebra-beside.md"), []byte("# Zebra beside\n\nstripes appear\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runDocir(t, corpus, nil, "--format", "json", "index", "."); r.code != 0 {
		t.Fatalf("the second docir index: %+v", r)
	}
	if g := generation(11); g != 2 {
		t.Errorf("generation %v after another process indexed, want 2", g)
	}
	res := p.callTool(12, "get", `{"doc_ids":["zebra-beside"]}`)
	sc, _ := res["structuredContent"].(map[string]any)
	if docs, _ := sc["documents"].([]any); len(docs) != 1 {
		t.Errorf("the new document is not served: %v", res)
	}
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(strings.Fields(string(doc)), " "); strings.Contains(text, "holds the generation it opened") ||
		!strings.Contains(text, "follows the store's current generation") {
		t.Error("docs/cli.md's serve section does not say that a session follows the store's current generation")
	}
}

// TestCorpusName: docir.yaml's name and description, else the source
// folders.
func TestCorpusName(t *testing.T) {
	lc := &loadedConfig{File: "/x/docir.yaml", BaseDir: "/x", Config: Config{Sources: []SourceConfig{{Path: "docs"}, {Path: "/y/adr"}}}}
	if got, want := lc.CorpusName(), "docs, adr"; got != want {
		t.Errorf("name %q, want %q", got, want)
	}
	if got, want := lc.CorpusDescription(), "the markdown files under /x/docs, /y/adr"; got != want {
		t.Errorf("description %q, want %q", got, want)
	}
	lc.Name, lc.Description = "Handbook", "the team handbook"
	if lc.CorpusName() != "Handbook" || lc.CorpusDescription() != "the team handbook" {
		t.Errorf("configured: %q %q", lc.CorpusName(), lc.CorpusDescription())
	}
}
