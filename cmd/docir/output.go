package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/itchyny/gojq"
	"golang.org/x/term"

	"github.com/docir/docir/docir"
)

// IOStreams are the process's streams, replaceable in tests, and how
// output is shaped for them: --jq, --color, -v, the pager.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	Verbose bool        // -v: every warning, not a summary
	Color   string      // --color: auto, always or never
	jq      *gojq.Code  // --jq, compiled; nil without
	pager   *exec.Cmd   // the running pager, if Out goes to one
	realOut io.Writer   // Out before the pager took it
	isTTY   func() bool // stdout is a terminal (replaceable in tests)
}

// outIsTerminal reports whether stdout is a terminal: the process's
// stdout, also while a pager holds it (Out is then the pager's input).
func (s *IOStreams) outIsTerminal() bool {
	if s.isTTY != nil {
		return s.isTTY()
	}
	return isTerminal(s.stdout())
}

// stdout is the process's stdout: Out, or what Out was before the pager
// took it.
func (s *IOStreams) stdout() io.Writer {
	if s.pager != nil {
		return s.realOut
	}
	return s.Out
}

// errWriter is w that keeps its first write error and writes nothing
// after it: a text printer writes line by line, unchecked, and returns err
// (stdout on a full disk or a closed pipe fails the command, as the JSON
// path does).
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// note writes msg, a line for the user, on stderr.
func (s *IOStreams) note(msg string) { fmt.Fprintln(s.ErrOut, msg) }

// colorOn reports whether text output may carry terminal escapes:
// --color always, or auto on a terminal without NO_COLOR (or TERM=dumb).
func (s *IOStreams) colorOn() bool {
	switch s.Color {
	case "always":
		return true
	case "never":
		return false
	}
	return s.outIsTerminal() && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}

// width is the terminal's width in columns, or 0 (no limit) when stdout
// is not a terminal: a pipe gets every byte.
func (s *IOStreams) width() int {
	if !s.outIsTerminal() {
		return 0
	}
	if f, ok := s.stdout().(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 80
}

// setJQ compiles --jq once, before any store is opened.
func (s *IOStreams) setJQ(expr string) error {
	if expr == "" {
		return nil
	}
	q, err := gojq.Parse(expr)
	if err != nil {
		return docir.Errorf(docir.CodeUsage, "--jq %q: %w", expr, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return docir.Errorf(docir.CodeUsage, "--jq %q: %w", expr, err)
	}
	s.jq = code
	return nil
}

// printJSON writes v to stdout as indented JSON, without HTML escaping
// (bodies are markdown, and `<`, `>`, `&` must read as themselves); with
// --jq, the expression's results instead, one per line, strings raw.
func (s *IOStreams) printJSON(v any) error {
	if s.jq == nil {
		return printJSON(s.Out, v)
	}
	var buf bytes.Buffer
	if err := printJSON(&buf, v); err != nil {
		return err
	}
	var in any
	if err := json.Unmarshal(buf.Bytes(), &in); err != nil {
		return err
	}
	iter := s.jq.Run(in)
	for {
		out, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, ok := out.(error); ok {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				return nil
			}
			// The expression ran on the result and failed there: the
			// invocation was well formed (a bad expression is refused
			// before anything is read), so exit 1, as gh does, not 2.
			return docir.Errorf(docir.CodeInternal, "--jq: %w", err)
		}
		if str, ok := out.(string); ok {
			if _, err := fmt.Fprintln(s.Out, str); err != nil {
				return err
			}
			continue
		}
		b, err := gojq.Marshal(out)
		if err != nil {
			return err
		}
		if _, err := s.Out.Write(append(b, '\n')); err != nil {
			return err
		}
	}
}

// printJSON writes v as indented JSON, without HTML escaping.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// warningsShown is how many warnings are printed before the rest are
// summarised as a count (unless -v).
const warningsShown = 3

// printWarnings prints warnings on stderr, one a line: all of them with -v,
// else the first few and how many more there are.
func printWarnings(s *IOStreams, warnings []string) {
	shown := warnings
	if !s.Verbose && len(warnings) > warningsShown+1 {
		shown = warnings[:warningsShown]
	}
	for _, warn := range shown {
		fmt.Fprintln(s.ErrOut, "docir: warning: "+forTerminal(warn))
	}
	if more := len(warnings) - len(shown); more > 0 {
		fmt.Fprintf(s.ErrOut, "docir: warning: ... and %d more (%d in all; -v lists every one)\n", more, len(warnings))
	}
}

// forTerminal is a message for stderr with every character that could
// drive a terminal or reorder the line escaped (docir.Printable, lines
// kept). A file's name reaches messages as the user named it.
func forTerminal(msg string) string { return docir.Printable(msg, true) }

// Text from the corpus (titles, headings, snippets, bodies, paths) is
// written to stdout as the files have it, except on a terminal: there a
// file's control characters (ESC sequences that retitle the window or
// write the clipboard, a bare CR that overwrites a line, C1 controls,
// bidirectional overrides) are made visible as \x1b, \r, \u202e
// (docir.TerminalText: the joiners of Persian words and emoji are kept),
// whether a pager runs or not: the pager is the user's
// choice and need not filter (less -r, more, a PAGER of cat). Into a pipe
// or a file, and in JSON, every byte is kept.

// terminalCell is one line of a table or listing from the corpus (a
// title, a snippet, an address) as a terminal may show it: line feeds and
// tabs are escaped too, so that a cell stays on its row.
func terminalCell(text string) string { return docir.TerminalText(text, false) }

// terminalHits is hits with every text field escaped by terminalCell (a
// copy; hits is not changed), for a table on a terminal.
func terminalHits(hits []docir.Hit) []docir.Hit {
	out := make([]docir.Hit, len(hits))
	for i, h := range hits {
		out[i] = terminalHit(h)
	}
	return out
}

func terminalHit(h docir.Hit) docir.Hit {
	h.ID, h.Title, h.Path = terminalCell(h.ID), terminalCell(h.Title), terminalCell(h.Path)
	h.Store, h.MatchedSection, h.Snippet = terminalCell(h.Store), terminalCell(h.MatchedSection), terminalCell(h.Snippet)
	if len(h.Also) > 0 {
		also := make([]string, len(h.Also))
		for i, a := range h.Also {
			also[i] = terminalCell(a)
		}
		h.Also = also
	}
	return h
}

// terminalContext is res with its hits, outlines and addresses escaped by
// terminalCell (a copy; res is not changed), for context's text on a
// terminal.
func terminalContext(res docir.ContextResult) docir.ContextResult {
	hits := make([]docir.ContextHit, len(res.Hits))
	for i, h := range res.Hits {
		h.Hit = terminalHit(h.Hit)
		outline := make([]docir.OutlineEntry, len(h.Outline))
		for j, o := range h.Outline {
			o.Address, o.Heading = terminalCell(o.Address), terminalCell(o.Heading)
			outline[j] = o
		}
		h.Outline = outline
		hits[i] = h
	}
	addrs := make([]string, len(res.Addresses))
	for i, a := range res.Addresses {
		addrs[i] = terminalCell(a)
	}
	res.Hits, res.Addresses = hits, addrs
	return res
}

// pagedText is paged for text that holds no escapes of docir's own (a
// document, a listing): on a terminal, the corpus's control characters in
// it are made visible (docir.TerminalText) before they reach the terminal or
// the pager. Elsewhere print writes straight to stdout, costing nothing.
func (s *IOStreams) pagedText(print func(w io.Writer) error) error {
	return s.paged(func(w io.Writer) error { return s.writeText(w, print) })
}

// writeText is pagedText without the pager: print's text to w, its
// control characters made visible when stdout is a terminal.
func (s *IOStreams) writeText(w io.Writer, print func(w io.Writer) error) error {
	if !s.outIsTerminal() {
		return print(w)
	}
	var b strings.Builder
	if err := print(&b); err != nil {
		return err
	}
	_, err := io.WriteString(w, docir.TerminalText(b.String(), true)) // lines, CRLF ends and tabs kept
	return err
}

// startPager sends stdout through $DOCIR_PAGER, else $PAGER, else
// `less -FRX`, when stdout is a terminal; never into a pipe or a file.
// An empty pager or "cat" turns paging off. stopPager must follow.
func (s *IOStreams) startPager() error {
	if s.pager != nil || !s.outIsTerminal() {
		return nil
	}
	cmdline, ok := os.LookupEnv("DOCIR_PAGER")
	if !ok {
		cmdline, ok = os.LookupEnv("PAGER")
	}
	if !ok {
		cmdline = "less -FRX"
	}
	if strings.TrimSpace(cmdline) == "" || strings.TrimSpace(cmdline) == "cat" {
		return nil
	}
	if !pagerFound(cmdline) {
		return nil // no pager to be had (no less on a slim image): print as usual
	}
	cmd := exec.Command("sh", "-c", cmdline)
	cmd.Stdout, cmd.Stderr = s.Out, s.ErrOut
	if _, ok := os.LookupEnv("LESS"); !ok {
		cmd.Env = append(os.Environ(), "LESS=FRX")
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return nil // no pager to be had: print as usual
	}
	s.pager, s.realOut, s.Out = cmd, s.Out, in
	return nil
}

// pagerFound says whether the program a pager command line runs is on
// PATH (or a path to an executable file): its first word that is not an
// assignment (`LESS=R less`). sh would start, say "less: not found" and
// take what was printed into nothing.
func pagerFound(cmdline string) bool {
	for _, w := range strings.Fields(cmdline) {
		if i := strings.IndexByte(w, '='); i > 0 && !strings.ContainsAny(w[:i], "/'\"") {
			continue
		}
		_, err := exec.LookPath(w)
		return err == nil
	}
	return false
}

// stopPager closes the pager's input and waits for the user to leave it.
func (s *IOStreams) stopPager() {
	if s.pager == nil {
		return
	}
	if c, ok := s.Out.(io.Closer); ok {
		_ = c.Close()
	}
	_ = s.pager.Wait()
	s.Out, s.pager = s.realOut, nil
}

// paged prints with print through the pager (on a terminal); a pager the
// user quit early is not an error.
func (s *IOStreams) paged(print func(w io.Writer) error) error {
	if err := s.startPager(); err != nil {
		return err
	}
	paging := s.pager != nil
	err := print(s.Out)
	s.stopPager()
	if paging && errors.Is(err, syscall.EPIPE) {
		return nil
	}
	return err
}

func isTerminal(w any) bool {
	file, ok := w.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}
