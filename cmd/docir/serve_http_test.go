package main

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docir/docir/docir/corpustest"
)

// TestServeHTTPProcess runs `docir serve --http 127.0.0.1:0` as a real
// process with a token named by --token-env, reads peers' calls on its
// real listener, and stops it with SIGTERM: it exits 0.
func TestServeHTTPProcess(t *testing.T) {
	docir, err := exec.LookPath("docir") // the test binary, put on PATH by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join(t.TempDir(), "corpus")
	if err := corpustest.CopyTree("../../testdata/corpus", corpus); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(docir, "serve", "--http", "127.0.0.1:0", "--token-env", "PEER_TOKEN")
	cmd.Dir = corpus
	cmd.Env = append(cmd.Environ(), "PEER_TOKEN=tok-123")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	// The first read indexes (a note), then the server says where it is.
	lines := bufio.NewScanner(stderr)
	listening := regexp.MustCompile(`^docir serve: listening on (http://127\.0\.0\.1:\d+/rpc) \(bearer token from \$PEER_TOKEN\)$`)
	var url string
	var seen []string
	for url == "" && lines.Scan() {
		seen = append(seen, lines.Text())
		if m := listening.FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatalf("no listening line on stderr: %q", seen)
	}
	go io.Copy(io.Discard, stderr)

	call := func(token, frame string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(frame))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	get := `{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_ids":["runbooks/disk-full#escalate","nope"]}}`
	if status, body := call("tok-123", get); status != 200 || !strings.Contains(body, `"missing":[{"address":"nope","reason":"no_document"}]`) {
		t.Errorf("get: %d %s", status, body)
	}
	if status, body := call("", get); status != 401 || !strings.Contains(body, `"code":"unauthorized"`) {
		t.Errorf("no token: %d %s", status, body)
	}
	if status, body := call("tok-12", get); status != 401 {
		t.Errorf("wrong token: %d %s", status, body)
	}
	status, body := call("tok-123", `{"jsonrpc":"2.0","id":2,"method":"docir/search","params":{"query":"disk","limit":1}}`)
	if status != 200 || !strings.Contains(body, `"hits":[{"id":"runbooks/disk-full"`) {
		t.Errorf("search: %d %s", status, body)
	}
	http.DefaultClient.CloseIdleConnections()

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("exit %d after SIGTERM", ee.ExitCode())
		} else if err != nil {
			t.Fatal(err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("docir serve --http did not exit after SIGTERM")
	}
}

// TestServeSIGTERM: an NDJSON session whose host keeps stdin open ends on
// SIGTERM with exit 0, after answering what it was asked.
func TestServeSIGTERM(t *testing.T) {
	docir, err := exec.LookPath("docir")
	if err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join(t.TempDir(), "corpus")
	if err := corpustest.CopyTree("../../testdata/corpus", corpus); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(docir, "serve")
	cmd.Dir = corpus
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_id":"runbooks/disk-full#escalate"}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	replies := bufio.NewScanner(stdout)
	if !replies.Scan() || !strings.HasPrefix(replies.Text(), `{"jsonrpc":"2.0","id":1,"result":{"address":"runbooks/disk-full#escalate"`) {
		t.Fatalf("reply %q", replies.Text())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("after SIGTERM: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("docir serve did not exit after SIGTERM with stdin open")
	}
}
