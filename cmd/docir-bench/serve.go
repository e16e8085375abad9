package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// server is a running `docir serve` (with args: `--mcp`) spoken to over its
// stdin and stdout.
type server struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
	cancel context.CancelFunc
	id     int
}

func startServer(docir, dir string, args ...string) (*server, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	s := &server{cancel: cancel}
	s.cmd = exec.CommandContext(ctx, docir, append([]string{"serve"}, args...)...)
	s.cmd.Dir = dir
	var err error
	if s.in, err = s.cmd.StdinPipe(); err != nil {
		cancel()
		return nil, err
	}
	outPipe, err := s.cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	s.out = bufio.NewReaderSize(outPipe, 1<<20)
	s.cmd.Stderr = &s.stderr
	if err := s.cmd.Start(); err != nil {
		cancel()
		return nil, err
	}
	return s, nil
}

// call sends one request and waits for its reply, which must be a result.
func (s *server) call(method string, params any) error {
	s.id++
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", s.id, method, p)
	if _, err := io.WriteString(s.in, frame); err != nil {
		return fmt.Errorf("write: %w (%s)", err, s.stderr.String())
	}
	line, err := s.out.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("read: %w (%s)", err, s.stderr.String())
	}
	if !bytes.Contains(line, []byte(`"result"`)) {
		return fmt.Errorf("%s: reply without a result: %.300s", method, line)
	}
	return nil
}

// memory reads the server's /proc status: peak RSS (VmHWM), RSS now,
// and RSS now split into anonymous memory (its heap) and mapped files
// (page cache of the store's files it has touched), in KiB.
type memory struct{ peak, now, anon, file int64 }

func (s *server) memory() memory {
	var m memory
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return m
	}
	fields := map[string]*int64{"VmHWM:": &m.peak, "VmRSS:": &m.now, "RssAnon:": &m.anon, "RssFile:": &m.file}
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 {
			if p, ok := fields[f[0]]; ok {
				fmt.Sscan(f[1], p)
			}
		}
	}
	return m
}

func (s *server) stop() {
	s.in.Close()
	_ = s.cmd.Wait()
	s.cancel()
}

// serveRoundTrip starts `docir serve` on the corpus and times docir/get
// frames through its stdin and stdout, one at a time.
func (e *env) serveRoundTrip(c *corpus) (row, error) {
	e.say("timing serve: docir/get round trips, %s", c.name)
	s, err := startServer(e.docir, c.dir)
	if err != nil {
		return row{}, err
	}
	defer s.stop()
	n := max(e.o.runs*25, 1)
	var a []sample
	for i := range e.o.warmup*25 + n {
		start := time.Now()
		if err := s.call("docir/get", map[string]any{"doc_id": c.one[0]}); err != nil {
			return row{}, err
		}
		if i >= e.o.warmup*25 {
			a = append(a, sample{wall: time.Since(start)})
		}
	}
	if len(a) > 0 {
		a[0].rssKiB = s.memory().peak
	}
	return row{label: "serve: docir/get round trip (stdio)", corpus: c.name, a: a}, nil
}

// serveSession starts `docir serve` on the corpus, sends it a session of
// mixed requests (gets of one and of five documents, searches, queries,
// contexts) and reports its peak RSS and its RSS at the end.
func (e *env) serveSession(c *corpus, requests int) (row, error) {
	e.say("serve session of %d mixed requests, %s", requests, c.name)
	s, err := startServer(e.docir, c.dir)
	if err != nil {
		return row{}, err
	}
	defer s.stop()
	queries := []string{c.query, "list files", "network connection", "compress a directory", "show help", "start a server", "delete a branch", "convert an image"}
	start := time.Now()
	for i := range requests {
		q := queries[(i/5)%len(queries)]
		var err error
		switch i % 5 {
		case 0:
			err = s.call("docir/get", map[string]any{"doc_id": c.one[0]})
		case 1:
			err = s.call("docir/get", map[string]any{"doc_ids": c.five})
		case 2:
			err = s.call("docir/search", map[string]any{"query": q})
		case 3:
			if c.expr != "" {
				err = s.call("docir/query", map[string]any{"expr": c.expr})
			} else {
				err = s.call("docir/search", map[string]any{"query": q, "limit": 50})
			}
		case 4:
			err = s.call("docir/context", map[string]any{"query": q})
		}
		if err != nil {
			return row{}, err
		}
	}
	elapsed := time.Since(start)
	m := s.memory()
	return row{label: fmt.Sprintf("serve: %d mixed requests", requests), corpus: c.name,
		a: []sample{{wall: elapsed / time.Duration(max(requests, 1)), rssKiB: m.peak}},
		note: fmt.Sprintf("%s per request on average; peak RSS %s; at the end %s: %s anonymous (heap), %s mapped files (the store's pages it touched)",
			ms(elapsed/time.Duration(max(requests, 1))), mib(m.peak), mib(m.now), mib(m.anon), mib(m.file))}, nil
}
