package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/docir/render"
)

// The agent bench (-agent) measures bytes to answer: an agent that knows
// only what the tools return asks docir over MCP, for each question of a
// set, for a plan, then gets the addresses of the plan one by one, in
// order, until it has read the section that answers the question. It counts
// the calls and the bytes of tool text it read (the text content a host
// shows the model), and compares them with reading the whole file that
// holds the answer, and with reading the files of the top ten hits.
//
// Two flows are measured: search, then context, then the gets (the flow
// issue 25 names), and context, then the gets (the flow the tools
// advertise: context's reply carries search's hits in structuredContent,
// and its text is the plan). The server answers each call from the
// question alone, so one session serves both: the second flow is the first
// without its search call.
//
// A question set is JSON lines of {question, answer, also}: answer is the
// address of the section (or the document) that answers it, written by
// reading the corpus's pages, not by running the search; also lists other
// sections that answer it as well, where the corpus says the same thing
// twice (a command's own page and the guide that explains it).

// agentQuestion is one row of a question set.
type agentQuestion struct {
	Question string   `json:"question"`
	Answer   string   `json:"answer"`
	Also     []string `json:"also,omitempty"`
}

// agentResult is what the agent did for one question; answerFile is the
// size of the file of its first answer.
type agentResult struct {
	q               agentQuestion
	search, context int  // bytes of the search and the context text
	plan, hits      walk // getting context's plan, and search's hits' sections
	answerFile      int  // bytes of the file that holds the answer
	topFiles        int  // bytes of the files of search's hits
}

// walk is a series of gets, one address at a time, until the answer is
// read or the addresses run out.
type walk struct {
	found    bool
	position int // 1-based position of the get that held the answer (0: none)
	length   int // addresses in the series
	bytes    int // text of the gets made
	answer   int // text of the get that held the answer (0: none)
}

// gets is how many gets the walk made.
func (w walk) gets() int {
	if w.found {
		return w.position
	}
	return w.length
}

// agentFlow is a way through the tools: the skeleton reads it makes, then
// the gets of context's plan (when it calls context) or of search's hits.
type agentFlow struct {
	name            string
	search, context bool
}

// agentFlows are the flows a run reports: the one issue 25 names, the one
// the tools advertise, and, to weigh the plan, search's hits read in rank
// order without it.
var agentFlows = []agentFlow{
	{name: "search → context → get", search: true, context: true},
	{name: "context → get", context: true},
	{name: "search → get", search: true},
}

// walk is the series of gets the flow made.
func (r agentResult) walk(f agentFlow) walk {
	if f.context {
		return r.plan
	}
	return r.hits
}

// calls is how many tool calls the flow made for the question.
func (r agentResult) calls(f agentFlow) int {
	n := r.walk(f).gets()
	if f.search {
		n++
	}
	if f.context {
		n++
	}
	return n
}

// bytes is the tool text the flow read for the question.
func (r agentResult) bytes(f agentFlow) int {
	return r.skeleton(f) + r.walk(f).bytes
}

// skeleton is the text of the flow's skeleton reads (search and context).
func (r agentResult) skeleton(f agentFlow) int {
	n := 0
	if f.search {
		n += r.search
	}
	if f.context {
		n += r.context
	}
	return n
}

// DefaultQuestions is the question set on the Hugo docs, in this folder's
// testdata.
const DefaultQuestions = "cmd/docir-bench/testdata/agent-hugo.jsonl"

// agentRun plays the agent on the Hugo docs (or the folder -agent-corpus
// names) and writes its figures.
func (e *env) agentRun(b *strings.Builder) error {
	qs, err := e.questions()
	if err != nil {
		return err
	}
	var c *corpus
	if e.o.agentCorpus != "" {
		root, err := filepath.Abs(e.o.agentCorpus)
		if err != nil {
			return err
		}
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			return fmt.Errorf("-agent-corpus %s: not a folder", e.o.agentCorpus)
		}
		// A link to the folder is the folder: the count of its documents
		// walks it from its real path.
		if root, err = filepath.EvalSymlinks(root); err != nil {
			return err
		}
		c = &corpus{name: filepath.Base(root), dir: filepath.Join(e.work, "agent"), sources: []source{{path: root}}}
	} else {
		dir, err := e.unpack(corpustest.HugoDocs)
		if err != nil {
			return err
		}
		c = &corpus{name: "hugo-docs", dir: filepath.Join(e.work, "agent"), sources: []source{{path: filepath.Join(dir, "hugo-docs")}}}
	}
	c.stem = e.o.stemming
	if err := c.prepare(); err != nil {
		return err
	}
	e.say("agent: indexing %s (%d documents)", c.name, c.docs)
	if out, err := exec.Command(e.docir, "--config", filepath.Join(c.dir, "docir.yaml"), "index").CombinedOutput(); err != nil {
		return fmt.Errorf("docir index: %w\n%s", err, out)
	}
	s, err := startMCP(e.docir, c.dir)
	if err != nil {
		return err
	}
	defer s.stop()
	e.say("agent: %d questions over MCP", len(qs))
	var rs []agentResult
	for _, q := range qs {
		r, err := playAgent(s, q)
		if err != nil {
			return fmt.Errorf("question %q: %w", q.Question, err)
		}
		rs = append(rs, r)
	}
	writeAgent(b, c, rs, e.o.questions)
	return nil
}

// questions reads the question set -questions names (DefaultQuestions by
// default, from the module root).
func (e *env) questions() ([]agentQuestion, error) {
	path := e.o.questions
	if path == "" {
		root, err := moduleRoot()
		if err != nil {
			return nil, err
		}
		path = filepath.Join(root, DefaultQuestions)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseQuestions(data, path)
}

// parseQuestions reads a question set: one JSON object a line, blank lines
// skipped; a line that is not a question with an answer is an error naming
// it.
func parseQuestions(data []byte, name string) ([]agentQuestion, error) {
	var qs []agentQuestion
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		var q agentQuestion
		if err := dec.Decode(&q); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		if strings.TrimSpace(q.Question) == "" || strings.TrimSpace(q.Answer) == "" {
			return nil, fmt.Errorf("%s:%d: want a question and its answer's address", name, i+1)
		}
		qs = append(qs, q)
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("%s: no questions", name)
	}
	return qs, nil
}

// toolReply is what a tools/call answered.
type toolReply struct {
	text       string
	structured json.RawMessage
	isError    bool
}

// playAgent answers one question as the agent would: search, context, then
// the plan's addresses one by one until the answer is read (the flows are
// told apart when counting; see agentFlows). The answer
// itself is read first, outside the count, to know it when the agent reads
// it: the agent has read it when a body it got holds the answer's whole
// prose (the section itself, a section around it, or its document; the
// link definitions a section's text leaves out are not prose: see
// render.Prose).
func playAgent(s *mcpServer, q agentQuestion) (agentResult, error) {
	r := agentResult{q: q}
	var answers []string // the bodies of the answers
	for i, addr := range append([]string{q.Answer}, q.Also...) {
		oracle, err := s.call("get", map[string]any{"doc_id": addr})
		if err != nil {
			return r, err
		}
		var answer struct {
			Body string `json:"body"`
			Path string `json:"path"`
		}
		if oracle.isError || json.Unmarshal(oracle.structured, &answer) != nil || answer.Body == "" {
			return r, fmt.Errorf("the answer %s does not resolve: %.200s", addr, oracle.text)
		}
		answers = append(answers, render.Prose(answer.Body))
		if i == 0 {
			if r.answerFile, err = s.fileSize(answer.Path); err != nil {
				return r, err
			}
		}
	}

	search, err := s.call("search", map[string]any{"query": q.Question})
	if err != nil {
		return r, err
	}
	r.search = len(search.text)
	var hits struct {
		Hits []struct {
			Path           string `json:"path"`
			MatchedSection string `json:"matched_section"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(search.structured, &hits); err != nil {
		return r, fmt.Errorf("search: %w", err)
	}
	var sections []string
	for _, h := range hits.Hits {
		n, err := s.fileSize(h.Path)
		if err != nil {
			return r, err
		}
		r.topFiles += n
		sections = append(sections, h.MatchedSection)
	}

	ctx, err := s.call("context", map[string]any{"query": q.Question})
	if err != nil {
		return r, err
	}
	r.context = len(ctx.text)
	var plan struct {
		Addresses []string `json:"addresses"`
	}
	if err := json.Unmarshal(ctx.structured, &plan); err != nil {
		return r, fmt.Errorf("context: %w", err)
	}
	if r.plan, err = s.walk(plan.Addresses, answers); err != nil {
		return r, err
	}
	if r.hits, err = s.walk(sections, answers); err != nil {
		return r, err
	}
	return r, nil
}

// walk gets addrs one by one, in order, until a get's text holds one of
// the answers' bodies.
func (s *mcpServer) walk(addrs, answers []string) (walk, error) {
	w := walk{length: len(addrs)}
	for i, addr := range addrs {
		got, err := s.call("get", map[string]any{"doc_id": addr})
		if err != nil {
			return w, err
		}
		w.bytes += len(got.text)
		if !got.isError && slices.ContainsFunc(answers, func(a string) bool { return strings.Contains(got.text, a) }) {
			w.found, w.position, w.answer = true, i+1, len(got.text)
			break
		}
	}
	return w, nil
}

// mcpServer is `docir serve --mcp` spoken to over stdio, one call at a
// time.
type mcpServer struct {
	*server
	roots []string // the corpus's source folders, for file sizes
}

func startMCP(docir, dir string) (*mcpServer, error) {
	srv, err := startServer(docir, dir, "--mcp")
	if err != nil {
		return nil, err
	}
	s := &mcpServer{server: srv}
	if _, err := s.rpc("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "docir-bench-agent", "version": "0"}}); err != nil {
		s.stop()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if _, err := io.WriteString(s.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		s.stop()
		return nil, err
	}
	status, err := s.call("status", map[string]any{})
	if err != nil {
		s.stop()
		return nil, err
	}
	var st struct {
		Sources []struct {
			Path string `json:"path"`
		} `json:"sources"`
	}
	if err := json.Unmarshal(status.structured, &st); err != nil {
		s.stop()
		return nil, fmt.Errorf("status: %w", err)
	}
	for _, src := range st.Sources {
		s.roots = append(s.roots, src.Path)
	}
	return s, nil
}

// rpc sends one request and returns its result.
func (s *mcpServer) rpc(method string, params any) (json.RawMessage, error) {
	s.id++
	frame, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if _, err := s.in.Write(append(frame, '\n')); err != nil {
		return nil, fmt.Errorf("write: %w (%s)", err, s.stderr.String())
	}
	for {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("read: %w (%s)", err, s.stderr.String())
		}
		var reply struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &reply); err != nil {
			return nil, fmt.Errorf("reply %.200s: %w", line, err)
		}
		if reply.ID == nil || *reply.ID != s.id {
			continue // a notification
		}
		if reply.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, reply.Error)
		}
		return reply.Result, nil
	}
}

// call calls a tool.
func (s *mcpServer) call(tool string, args map[string]any) (toolReply, error) {
	res, err := s.rpc("tools/call", map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return toolReply{}, err
	}
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return toolReply{}, fmt.Errorf("%s: %w", tool, err)
	}
	var text strings.Builder
	for _, c := range r.Content {
		text.WriteString(c.Text)
	}
	return toolReply{text: text.String(), structured: r.StructuredContent, isError: r.IsError}, nil
}

// fileSize is the size of the file at a document's path (relative to one
// of the source folders).
func (s *mcpServer) fileSize(path string) (int, error) {
	for _, root := range s.roots {
		if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(path))); err == nil {
			return int(fi.Size()), nil
		}
	}
	return 0, fmt.Errorf("no file %s under %v", path, s.roots)
}

// agentTotals sums a run for one flow.
type agentTotals struct {
	questions, found, calls          int
	bytes, skeleton, answer, topFile int
	firstRead                        int // found by the first get
	// The gets' text: the gets that held the answers, those made before
	// them, and those of the questions not found.
	answerGets, before, missed int
}

// floor is the bytes the flow would read had each answer it found been
// the first get of its walk: its skeleton, the gets that held the
// answers, and the gets of the questions not found. A better order of the
// same plans reads no less.
func (t agentTotals) floor() int { return t.bytes - t.before }

func totals(rs []agentResult, f agentFlow) agentTotals {
	var t agentTotals
	for _, r := range rs {
		t.questions++
		t.calls += r.calls(f)
		t.bytes += r.bytes(f)
		t.skeleton += r.skeleton(f)
		t.answer += r.answerFile
		t.topFile += r.topFiles
		w := r.walk(f)
		if w.found {
			t.found++
			t.answerGets += w.answer
			t.before += w.bytes - w.answer
		} else {
			t.missed += w.bytes
		}
		if w.position == 1 {
			t.firstRead++
		}
	}
	return t
}

// writeAgent writes the agent's figures: the totals of each flow against
// the targets, then one row a question.
func writeAgent(b *strings.Builder, c *corpus, rs []agentResult, set string) {
	if set == "" {
		set = DefaultQuestions
	}
	stem := ""
	if c.stem != "" {
		stem = "; search.stemming: " + c.stem
	}
	fmt.Fprintf(b, "## Bytes to answer: an agent over MCP (%s, %d documents; %s%s)\n\n", c.name, c.docs, set, stem)
	fmt.Fprintf(b, "The agent gets the addresses of context's plan (or, without context, the matched sections of search's hits), in order, until it has read the section that answers the question.\n\n")
	var ts []agentTotals
	b.WriteString("| measure |")
	for _, f := range agentFlows {
		ts = append(ts, totals(rs, f))
		fmt.Fprintf(b, " %s |", f.name)
	}
	b.WriteString(" target |\n| --- |" + strings.Repeat(" ---: |", len(agentFlows)) + " ---: |\n")
	row := func(name, target string, cell func(t agentTotals) string) {
		fmt.Fprintf(b, "| %s |", name)
		for _, t := range ts {
			fmt.Fprintf(b, " %s |", cell(t))
		}
		fmt.Fprintf(b, " %s |\n", target)
	}
	row("found", "≥ 95%", func(t agentTotals) string {
		return fmt.Sprintf("%d of %d (%.0f%%)", t.found, t.questions, pct(t.found, t.questions))
	})
	row("found by the first get", "", func(t agentTotals) string { return fmt.Sprintf("%d of %d", t.firstRead, t.questions) })
	row("calls per question", "≤ 4", func(t agentTotals) string { return fmt.Sprintf("%.2f", float64(t.calls)/float64(max(t.questions, 1))) })
	row("tool text read", "", func(t agentTotals) string {
		return fmt.Sprintf("%s (%s a question)", kb(t.bytes), kb(t.bytes/max(t.questions, 1)))
	})
	row("of which skeleton (search, context)", "", func(t agentTotals) string {
		return fmt.Sprintf("%s (%.0f%%)", kb(t.skeleton), pct(t.skeleton, t.bytes))
	})
	row("of which gets before the answer's, of the questions found", "", func(t agentTotals) string {
		return fmt.Sprintf("%s (%s a question)", kb(t.before), kb(t.before/max(t.questions, 1)))
	})
	row("of which the gets that held the answers", "", func(t agentTotals) string {
		return fmt.Sprintf("%s (%s a question)", kb(t.answerGets), kb(t.answerGets/max(t.questions, 1)))
	})
	row("of which gets of the questions not found", "", func(t agentTotals) string {
		return fmt.Sprintf("%s (%s a question)", kb(t.missed), kb(t.missed/max(t.questions, 1)))
	})
	row("the files that hold the answers, read whole", "", func(t agentTotals) string { return kb(t.answer) })
	row("**bytes read ÷ answer files**", "≤ 0.5×", func(t agentTotals) string { return fmt.Sprintf("**%.2f×**", ratio(t.bytes, t.answer)) })
	row("… had each answer found been the first get (no order of these plans reads less)", "", func(t agentTotals) string {
		return fmt.Sprintf("%.2f×", ratio(t.floor(), t.answer))
	})
	row("the files of search's hits, read whole", "", func(t agentTotals) string { return kb(t.topFile) })
	row("bytes read ÷ the hits' files", "", func(t agentTotals) string { return fmt.Sprintf("%.2f×", ratio(t.bytes, t.topFile)) })
	b.WriteString("\n")
	with, without, hitsOnly := agentFlows[0], agentFlows[1], agentFlows[2]
	fmt.Fprintf(b, "Per question, %s (%s adds one call and the search text; %s: where search's hits held the answer):\n\n", without.name, with.name, hitsOnly.name)
	fmt.Fprintf(b, "| question | answer | found | calls | read | answer file | read ÷ file | search text | %s |\n| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n", hitsOnly.name)
	for _, r := range rs {
		fmt.Fprintf(b, "| %s | `%s` | %s | %d | %s | %s | %.2f× | %s | %s |\n",
			r.q.Question, r.q.Answer, r.plan.String(), r.calls(without), kb(r.bytes(without)), kb(r.answerFile), ratio(r.bytes(without), r.answerFile),
			kb(r.search), r.hits.String())
	}
	b.WriteString("\n")
}

// String says where the walk found the answer: "yes (2 of 9)" or "no (of 9)".
func (w walk) String() string {
	if w.found {
		return fmt.Sprintf("yes (%d of %d)", w.position, w.length)
	}
	return fmt.Sprintf("no (of %d)", w.length)
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }

func ratio(a, b int) float64 { return float64(a) / float64(max(b, 1)) }

func kb(n int) string { return fmt.Sprintf("%.1f KB", float64(n)/1000) }
