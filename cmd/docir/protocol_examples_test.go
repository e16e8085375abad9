package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/docir/docir/docir/corpustest"
)

// protocolDoc is the page whose examples TestProtocolExamples runs.
const protocolDoc = "../../docs/protocol.md"

// TestProtocolExamples runs every example of docs/protocol.md marked
// `<!-- live: SETUP -->` (the line before its code fence) against a real
// `docir serve` over NDJSON, set up as SETUP names (examples below), and
// compares each documented reply line with the reply the server gave to the
// request line before it. A documented line may cut what varies with `…`
// (the parts around each `…` must appear in order, the first at the start,
// the last at the end); a score and a refresh's seconds match any number.
// The store is made at /work/docs/.docir from testdata/corpus: the test's
// folder reads /work.
//
// A request line may be written short: "cccc… (N bytes) …" is a string of
// N c's, and `ITEM, … (N of them) …` in a list is ITEM N times. A line of
// prose in parentheses is not sent.
//
// A code block holding a reply line must be marked live, or
// `<!-- not live: why -->` when no request can cause it (a worker that
// panics). With -update, a documented reply that does not match is
// replaced by the server's; review the diff and cut what varies.
func TestProtocolExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs docir serve once per example; skipped with -short")
	}
	doc, err := os.ReadFile(protocolDoc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(doc), "\n")
	blocks := exampleBlocks(t, lines)
	if len(blocks) < 12 {
		t.Fatalf("only %d live examples in %s", len(blocks), protocolDoc)
	}
	changed := false
	for _, b := range blocks {
		t.Run(fmt.Sprintf("line %d %s", b.start+1, b.setup), func(t *testing.T) {
			setup, ok := exampleSetups[b.setup]
			if !ok {
				t.Fatalf("no setup %q", b.setup)
			}
			var input bytes.Buffer
			var requests []int // line of each request that gets a reply
			for i := b.start; i < b.end; i++ {
				line := lines[i]
				switch {
				case isReplyLine(line), strings.HasPrefix(line, "("):
					continue
				}
				input.WriteString(expandRequest(line))
				input.WriteByte('\n')
				requests = append(requests, i)
			}
			replies := setup.serve(t, input.Bytes())
			if len(replies) != len(requests) {
				t.Fatalf("%d requests, %d replies:\n%s", len(requests), len(replies), strings.Join(replies, "\n"))
			}
			for k, req := range requests {
				want := req + 1
				if want >= b.end || !isReplyLine(lines[want]) {
					t.Errorf("line %d: a request without its reply; the server answers:\n%s", req+1, replies[k])
					continue
				}
				if matchReply(lines[want], replies[k]) {
					continue
				}
				if *updateDocs {
					lines[want] = replies[k]
					changed = true
					continue
				}
				t.Errorf("line %d: the documented reply\n%s\nis not what docir serve answers:\n%s\n(go test ./cmd/docir -run TestProtocolExamples -update rewrites it)", want+1, lines[want], replies[k])
			}
		})
	}
	if changed {
		if err := os.WriteFile(protocolDoc, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// exampleBlock is one live example: its setup and the lines inside its
// fence.
type exampleBlock struct {
	setup      string
	start, end int // lines [start, end) between the fences
}

var liveRE = regexp.MustCompile(`^<!-- (live|not live): (.+) -->$`)

// exampleBlocks finds the live code blocks; a block with a reply line that
// is neither live nor said not to be fails the test.
func exampleBlocks(t *testing.T, lines []string) []exampleBlock {
	var out []exampleBlock
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		start := i + 1
		end := start
		for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
			end++
		}
		var m []string
		if i > 0 {
			m = liveRE.FindStringSubmatch(lines[i-1])
		}
		switch {
		case m != nil && m[1] == "live":
			out = append(out, exampleBlock{setup: m[2], start: start, end: end})
		case m == nil:
			for j := start; j < end; j++ {
				if isReplyLine(lines[j]) {
					t.Errorf("line %d: an example reply in a block marked neither <!-- live: SETUP --> nor <!-- not live: why -->", j+1)
					break
				}
			}
		}
		i = end
	}
	return out
}

var replyRE = regexp.MustCompile(`^\{"jsonrpc":"2\.0","id":(null|-?[0-9]+|"[^"]*"),"(result|error)":`)

func isReplyLine(line string) bool { return replyRE.MatchString(line) }

var (
	repeatRE = regexp.MustCompile(`"([^"\\])[^"\\]*… \(([0-9]+) bytes\) …"`)
	itemsRE  = regexp.MustCompile(`("(?:[^"\\]|\\.)*"), … \(([0-9]+) of them\) …`)
)

// expandRequest writes out the short forms of a documented request line.
func expandRequest(line string) string {
	line = repeatRE.ReplaceAllStringFunc(line, func(s string) string {
		m := repeatRE.FindStringSubmatch(s)
		n, _ := strconv.Atoi(m[2])
		return `"` + strings.Repeat(m[1], n) + `"`
	})
	return itemsRE.ReplaceAllStringFunc(line, func(s string) string {
		m := itemsRE.FindStringSubmatch(s)
		n, _ := strconv.Atoi(m[2])
		return strings.Repeat(m[1]+",", n-1) + m[1]
	})
}

var varyRE = regexp.MustCompile(`"(score|seconds)":[0-9.e+-]+`)

// matchReply reports whether the live reply is what the documented line
// says, … standing for anything.
func matchReply(doc, live string) bool {
	doc, live = varyRE.ReplaceAllString(doc, `"$1":0`), varyRE.ReplaceAllString(live, `"$1":0`)
	parts := strings.Split(doc, "…")
	if len(parts) == 1 {
		return doc == live
	}
	if !strings.HasPrefix(live, parts[0]) || !strings.HasSuffix(live[len(parts[0]):], parts[len(parts)-1]) {
		return false
	}
	rest := live[len(parts[0]) : len(live)-len(parts[len(parts)-1])]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return true
}

// exampleSetup is a store and a `docir serve` the examples of one kind run
// against.
type exampleSetup struct {
	policy string            // the host policy's JSON; "" for none
	extra  map[string]string // files indexed with the corpus
	after  map[string]string // files written after the index (a refresh or a drift finds them)
}

var exampleSetups = map[string]exampleSetup{
	"default": {},
	"refresh": {policy: `{"schema": "docir.host-policy.v1", "grants": ["refresh"]}`, after: map[string]string{"notes/new.md": "# New\n\nWritten after the index.\n"}},
	"batch":   {policy: `{"schema": "docir.host-policy.v2", "grants": [], "read_batch_workers": 2}`},
	// A batch past the reply bound reads big 16 times; one that drifts
	// reads runbooks/disk-full, edited after the index.
	"batch-errors": {
		policy: `{"schema": "docir.host-policy.v2", "grants": [], "read_batch_workers": 2}`,
		extra:  map[string]string{"big.md": "# Big\n\n" + strings.Repeat("A line of a long document, to pass the reply bound in a batch.\n", 1400)},
		after:  map[string]string{"runbooks/disk-full.md": "# Disk full on a storage node\n\nEdited after the index.\n"},
	},
}

// serve makes the setup's store under a new /work/docs, runs docir serve
// there with input on stdin, and returns its reply lines, the test's
// folder reading /work and the binary's version "dev".
func (s exampleSetup) serve(t *testing.T, input []byte) []string {
	t.Helper()
	work := t.TempDir()
	docs := filepath.Join(work, "docs")
	if err := corpustest.CopyTree("../../testdata/corpus", docs); err != nil {
		t.Fatal(err)
	}
	if err := corpustest.WriteFiles(docs, s.extra); err != nil {
		t.Fatal(err)
	}
	if r := runDocir(t, docs, nil, "index", "."); r.code != 0 {
		t.Fatalf("index: %+v", r)
	}
	if err := corpustest.WriteFiles(docs, s.after); err != nil {
		t.Fatal(err)
	}
	args := []string{"serve"}
	if s.policy != "" {
		policy := filepath.Join(work, "host.json")
		if err := os.WriteFile(policy, []byte(s.policy), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--policy", policy)
	}
	bin, err := exec.LookPath("docir")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Stdin = docs, bytes.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("docir serve: %v\n%s", err, stderr.String())
	}
	out := strings.TrimSuffix(stdout.String(), "\n")
	quoted, _ := json.Marshal(work)
	out = strings.ReplaceAll(out, string(quoted[1:len(quoted)-1]), "/work")
	version, _ := json.Marshal(buildVersion())
	out = strings.ReplaceAll(out, `"version":`+string(version), `"version":"dev"`)
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}
