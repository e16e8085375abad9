package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// A markdown file can hold terminal control sequences: OSC 0 (retitle the
// window), OSC 52 (write the clipboard), CSI (clear the screen, conceal
// text), a bare CR (overwrite the line), C1 controls, DEL and a
// right-to-left override. hostileBody has them in its title (YAML's "\e"
// and "\a" are ESC and BEL), a heading and its text; it ends in CRLF lines,
// as a Windows file does, and has a tab, and a Persian word and an emoji
// written with a zero-width non-joiner and joiner, which are text.
const hostileBody = "---\ntitle: \"Retry \\e]0;PWNED\\abudget\"\nkind: \"adr\\e[2J\"\n---\n" +
	"# Retry \x1b[31mbudget\x1b[0m\n\n" +
	"retry \x1b]52;c;ZXZpbA==\x07 clipboard; a line\rthat overwrites; \xc2\x9b1;31m C1;" +
	" \x1b[8mhidden\x1b[0m; \x7f del; \u202eevil\u202c; budget\n\n" +
	"## Steps \x1b[2J\r\n\r\nretry\tbudget steps می\u200cخواهم 👩\u200d💻\r\n"

// rawOnTerminal reports the first character of out that would act on a
// terminal: a control character other than LF, tab and a CR before an LF,
// or a Unicode format character (a bidirectional override) but the
// joiners words and emoji are written with (U+200C, U+200D). ok is false
// when there is none. colour says docir's own bold highlight may be there
// (it is left out of the check).
func rawOnTerminal(out string, colour bool) (at int, r rune, ok bool) {
	if colour {
		out = strings.NewReplacer("\x1b[1m", "", "\x1b[0m", "").Replace(out)
	}
	for i, r := range out {
		switch {
		case r == '\n' || r == '\t':
		case r == '\r' && strings.HasPrefix(out[i+1:], "\n"):
		case r == '\u200c' || r == '\u200d':
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return i, r, true
		}
	}
	return 0, 0, false
}

// TestCorpusTextCannotDriveTheTerminal: text output on a terminal shows a
// file's control sequences instead of sending them to the terminal, with a
// pager and without one; into a pipe, text and JSON keep every byte.
func TestCorpusTextCannotDriveTheTerminal(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hostile.md"), []byte(hostileBody), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain.md"), []byte("# Plain\n\nretry budget\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	ctx := context.Background()
	docir := func(tty bool, args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		s := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, isTTY: func() bool { return tty }}
		if code := run(ctx, args, s); code != 0 {
			t.Fatalf("docir %q: exit %d: %s", args, code, errOut.String())
		}
		return out.String()
	}
	docir(false, "index", ".")
	// A file added since, whose name status lists.
	if err := os.WriteFile(filepath.Join(dir, "new\x1b]0;PWNED\a.md"), []byte("# New\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	reads := [][]string{
		{"get", "hostile"},
		{"get", "hostile#steps-2j"},
		{"get", "hostile", "plain", "nothere"},
		{"search", "retry", "budget"},
		{"query", "title:*retry*"},
		{"context", "retry", "budget"},
		{"fields"},
		{"links", "hostile"},
		{"status"},
	}
	for _, pager := range []string{"", "cat -"} { // none, and one that lets everything through
		for _, colour := range []bool{false, true} { // auto: on, on a terminal without NO_COLOR
			t.Setenv("DOCIR_PAGER", pager)
			t.Setenv("NO_COLOR", map[bool]string{false: "1", true: ""}[colour])
			for _, args := range reads {
				out := docir(true, append([]string{"--format", "text"}, args...)...)
				if at, r, ok := rawOnTerminal(out, colour); ok {
					t.Errorf("pager %q, colour %t, docir %q: %U at byte %d reaches the terminal:\n%s", pager, colour, args, r, at, out)
				}
				if strings.Contains(out, "hostile") && !strings.Contains(out, `\x1b`) && args[0] != "links" && args[0] != "fields" && args[0] != "status" {
					t.Errorf("pager %q, docir %q: the escapes are not shown:\n%s", pager, args, out)
				}
			}
		}
	}
	// On a terminal the body shows each control character as an escape,
	// and keeps its lines (CRLF ones too) and tabs.
	t.Setenv("DOCIR_PAGER", "")
	t.Setenv("NO_COLOR", "1")
	out := docir(true, "--format", "text", "get", "hostile")
	for _, want := range []string{
		`title: "Retry \e]0;PWNED\abudget"`, // the front matter as written: no control character in it
		"<!-- docir: hostile | Retry \\x1b]0;PWNED\\abudget -->\n",
		"# Retry \\x1b[31mbudget\\x1b[0m\n",
		`retry \x1b]52;c;ZXZpbA==\a clipboard; a line\rthat overwrites; \u009b1;31m C1; \x1b[8mhidden\x1b[0m; \x7f del; \u202eevil\u202c; budget`,
		"## Steps \\x1b[2J\r\n\r\nretry\tbudget steps می\u200cخواهم 👩\u200d💻\r\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("get on a terminal: no %q in\n%s", want, out)
		}
	}
	// A table cell stays on its row: a tab or line feed is shown too.
	if got := terminalCell("a\tb\nc\x1bd"); got != `a\tb\nc\x1bd` {
		t.Errorf("terminalCell: %q", got)
	}

	// Into a pipe, text is the file's bytes: `get --format text > x.md`.
	out = docir(false, "--format", "text", "get", "hostile")
	if want := "<!-- docir: hostile | Retry \x1b]0;PWNED\x07budget -->\n" + hostileBody; out != want {
		t.Errorf("get into a pipe:\n got %q\nwant %q", out, want)
	}
	out = docir(false, "--format", "text", "search", "retry", "budget")
	if !strings.Contains(out, "Retry \x1b]0;PWNED\x07budget") || strings.Contains(out, `\x1b`) {
		t.Errorf("search into a pipe: the title is not as written:\n%s", out)
	}
	if out := docir(true, "--format", "text", "status"); !strings.Contains(out, `new\x1b]0;PWNED\a.md`) {
		t.Errorf("status on a terminal: the new file is not shown escaped:\n%s", out)
	}
	// And JSON, on a terminal too, carries the bytes (escaped as JSON).
	var doc struct{ Title, Body string }
	if err := json.Unmarshal([]byte(docir(true, "--format", "json", "get", "hostile")), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Body != hostileBody || doc.Title != "Retry \x1b]0;PWNED\x07budget" {
		t.Errorf("get --format json: title %q, body %q", doc.Title, doc.Body)
	}
}
