package session

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"text/template"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/docir/docir/docir/wire"
)

var update = flag.Bool("update", false, "rewrite the responses of testdata/conformance/*.txtar from what the server answers")

// TestConformance runs every testdata/conformance/*.txtar: its request
// lines go, in order, to one NDJSON session over a fresh store built from
// testdata/corpus, and the reply lines must be exactly its responses. The
// same request lines then go, one POST each, to the HTTP transport on a
// real 127.0.0.1 listener over another fresh store: each reply body must be
// the same line (a notification gets 204 and no line). So NDJSON and HTTP
// are held to one transcript.
//
// An archive holds:
//
//	-- requests --     one frame per line, sent as is; a line starting with
//	                   '#' is a comment, not sent; a line starting with '@'
//	                   is a Go template (func repeat N STRING) whose output
//	                   is sent, for frames too large to write out
//	-- responses --    the expected reply lines (go test -update rewrites them)
//	-- policy.json --  optional: the host policy of the session
//	-- corpus/NAME --  optional: files added to the source folder after the
//	                   store is built (to be picked up by workspace/refresh)
//
// Replies are compared after three normalizations: the test's folder (which
// holds store/ and corpus/) reads $WORK, a refresh's "seconds" reads 0, and
// a hit's "score" reads 1 (ranking is the search engine's to test; these
// transcripts hold the protocol).
func TestConformance(t *testing.T) {
	files, err := filepath.Glob("../../testdata/conformance/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no conformance files: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			c := parseConformance(t, ar)

			e, dir := newTestEngine(t, c.policy, c.corpus)
			var out bytes.Buffer
			if err := Serve(context.Background(), e, bytes.NewReader(c.input()), &out); err != nil {
				t.Fatal(err)
			}
			got := normalize(out.String(), dir)
			if *update {
				c.setResponses(got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(c.responses, got); diff != "" {
				t.Errorf("NDJSON replies (-want +got):\n%s\nWhen the change is meant (a ranking or a snippet that changed, say), "+
					"rewrite the transcripts with go test ./workspace/session -run TestConformance -update and review their diff.", diff)
			}

			t.Run("http", func(t *testing.T) {
				e, dir := newTestEngine(t, c.policy, c.corpus)
				url := startHTTP(t, e, HTTPOptions{Loopback: true})
				var replies strings.Builder
				for _, frame := range c.frames {
					if len(frame) <= wire.MaxFrameBytes && len(bytes.TrimSpace(frame)) == 0 {
						continue // NDJSON skips a blank line; HTTP has no blank frame
					}
					status, body := post(t, url, "", frame)
					if status == http.StatusNoContent {
						if body != "" {
							t.Errorf("204 with a body: %q", body)
						}
						continue
					}
					replies.WriteString(body)
				}
				if diff := cmp.Diff(c.responses, normalize(replies.String(), dir)); diff != "" {
					t.Errorf("HTTP replies differ from the NDJSON transcript (-want +got):\n%s", diff)
				}
			})
		})
	}
}

type conformance struct {
	ar        *txtar.Archive
	frames    [][]byte
	responses string
	policy    *Policy
	corpus    map[string]string
}

func parseConformance(t *testing.T, ar *txtar.Archive) *conformance {
	t.Helper()
	c := &conformance{ar: ar, corpus: map[string]string{}}
	seen := map[string]bool{}
	for _, f := range ar.Files {
		seen[f.Name] = true
		switch {
		case f.Name == "requests":
			sc := bufio.NewScanner(bytes.NewReader(f.Data))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				line := sc.Text()
				switch {
				case strings.HasPrefix(line, "#"):
				case strings.HasPrefix(line, "@"):
					c.frames = append(c.frames, expand(t, line[1:]))
				default:
					c.frames = append(c.frames, []byte(line))
				}
			}
		case f.Name == "responses":
			c.responses = string(f.Data)
		case f.Name == "policy.json":
			p, err := ParsePolicy(f.Data)
			if err != nil {
				t.Fatalf("policy.json: %v", err)
			}
			c.policy = p
		case strings.HasPrefix(f.Name, "corpus/"):
			c.corpus[strings.TrimPrefix(f.Name, "corpus/")] = string(f.Data)
		default:
			t.Fatalf("unknown section %q", f.Name)
		}
	}
	if !seen["requests"] || !seen["responses"] {
		t.Fatal("want a requests and a responses section")
	}
	return c
}

func (c *conformance) input() []byte {
	var b bytes.Buffer
	for _, f := range c.frames {
		b.Write(f)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func (c *conformance) setResponses(s string) {
	for i := range c.ar.Files {
		if c.ar.Files[i].Name == "responses" {
			c.ar.Files[i].Data = []byte(s)
		}
	}
}

func expand(t *testing.T, text string) []byte {
	t.Helper()
	tmpl, err := template.New("frame").Funcs(template.FuncMap{"repeat": func(n int, s string) string { return strings.Repeat(s, n) }}).Parse(text)
	if err != nil {
		t.Fatalf("template %q: %v", text, err)
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var (
	secondsRE = regexp.MustCompile(`"seconds":[0-9.e+-]+`)
	scoreRE   = regexp.MustCompile(`"score":[0-9.e+-]+`)
)

func normalize(s, work string) string {
	quoted := fmt.Sprintf("%q", work)
	s = strings.ReplaceAll(s, quoted[1:len(quoted)-1], "$WORK")
	s = scoreRE.ReplaceAllString(s, `"score":1`)
	return secondsRE.ReplaceAllString(s, `"seconds":0`)
}

// startHTTP serves e on a real 127.0.0.1 listener until the test ends and
// returns the URL of /rpc.
func startHTTP(t *testing.T, e *Engine, opts HTTPOptions) string {
	t.Helper()
	url, cancel, done := listenHTTP(t, e, opts)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
		http.DefaultClient.CloseIdleConnections()
	})
	return url
}

// listenHTTP serves e on a real 127.0.0.1 listener until cancel, and
// returns the URL of /rpc and the channel ServeHTTP's error comes on.
func listenHTTP(t *testing.T, e *Engine, opts HTTPOptions) (url string, cancel func(), done <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ServeHTTP(ctx, e, ln, opts) }()
	return "http://" + ln.Addr().String() + RPCPath, cancel, served
}

// post sends one frame and returns the status and body.
func post(t *testing.T, url, token string, frame []byte) (int, string) {
	t.Helper()
	req := rpcRequest(t, url, string(frame))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, body := do(t, req)
	return resp.StatusCode, body
}
