package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/docir/docir/docir/corpustest"
)

// An example is one command line the documentation gives, with the exit
// code it says the line ends with.
type example struct {
	line string
	exit int
}

// An exampleSession is examples that run one after another in one folder: the
// Example of one command's --help, or one code block of the documentation.
type exampleSession struct {
	where    string // "docir get --help", "README.md:61"
	examples []example
}

// exampleExceptions are the example lines that are not run, each with the
// reason; a line is matched by its start. Everything else the documentation
// shows as a command is run.
var exampleExceptions = map[string]string{
	"docir [--config FILE]":                    "a synopsis, not a command",
	"docir completion bash > ~/":               "installs the script into the shell's own folders (conventions.txtar runs the script)",
	"docir completion zsh > ":                  "installs the script into zsh's folders (conventions.txtar runs completion zsh)",
	"docir completion fish > ~/":               "installs the script into fish's folders (conventions.txtar runs completion fish)",
	"docir completion powershell | Out-String": "PowerShell",
	"DOCIR_HTTP_TOKEN=s3cret docir serve --http 0.0.0.0:7420 --policy host.json": "a server and a client in two terminals, on another host (workspace/session's HTTP tests)",
	"curl -s ":                             "the client of the line above",
	"cd mine && docir get":                 "needs the two stores the example above it describes (federation.txtar builds them)",
	"rm -r ../team && docir get":           "needs the two stores the example above it describes (federation.txtar builds them)",
	"CGO_ENABLED=0 go install ./cmd/docir": "installs docir (TestReadmeCommands runs the install block)",
	"docir changes --since 1 --until 2":    "needs a second generation, which an edit and docir index make (links.txtar compares generations 1 and 2)",
	"docir changes                  #":     "needs a second generation, which an edit and docir index make (links.txtar runs it after one)",
}

// TestExamples runs every example of docir's documentation on a fresh copy
// of the fixture corpus, testdata/corpus, as a new user would type it: the
// Example of every command's --help, and every code block of README.md and
// docs/*.md that shows a docir command line. A block is a session: its
// lines run in order in one folder. In a block of "$ " prompts, the prompt
// lines run and the rest is output; otherwise every line that is not a
// comment runs. Each line must exit 0, or the code its comment names
// ("# exit 4"), or, after a prompt line, the code a following "$ echo $?"
// shows. A server that listens (serve --http) must still be serving after
// 3 s, on a free port in place of the one written. exampleExceptions lists
// the lines not run, and why.
func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping in -short mode: runs every example of the documentation")
	}
	sessions := helpSessions()
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append([]string{"../../README.md"}, docs...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, docSessions(strings.TrimPrefix(f, "../../"), string(data))...)
	}
	dir := t.TempDir()
	n := 0
	for _, s := range sessions {
		script, runs := s.script(t)
		if !runs {
			continue
		}
		n++
		name := regexp.MustCompile(`[^a-zA-Z0-9]+`).ReplaceAllString(s.where, "_") + ".txtar"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n < 15 {
		t.Fatalf("only %d sessions of examples found", n)
	}
	testscript.Run(t, scriptParams(dir, func(env *testscript.Env) error {
		dst := filepath.Join(env.WorkDir, "corpus")
		env.Setenv("CORPUS", dst)
		return corpustest.CopyTree("../../testdata/corpus", dst)
	}))
}

// helpSessions are the Example of every command's help.
func helpSessions() []exampleSession {
	root := newRootCmd(newFactory(&IOStreams{}))
	root.InitDefaultHelpCmd()
	var out []exampleSession
	for _, c := range docCommands(root) {
		s := exampleSession{where: c.CommandPath() + " --help"}
		for _, l := range strings.Split(c.Example, "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				s.examples = append(s.examples, example{line: l, exit: exitOf(l)})
			}
		}
		if len(s.examples) > 0 {
			out = append(out, s)
		}
	}
	return out
}

var (
	fence      = regexp.MustCompile("^```([a-z]*)\\s*$")
	docirLine  = regexp.MustCompile(`^([A-Z_]+=\S+ )*docir |[|(&] *docir |<\(docir `)
	exitNote   = regexp.MustCompile(`#.*\bexit (\d+)\b`)
	listenPort = regexp.MustCompile(`\b7420\b`)
	// trailingComment is a shell comment ending a line without '#' in its
	// arguments.
	trailingComment = regexp.MustCompile(`\s+#[^'"]*$`)
)

// exitOf is the exit code a line's comment names, else 0.
func exitOf(line string) int {
	if m := exitNote.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// docSessions are the code blocks of a markdown file (untyped, sh or
// console) that show a docir command line.
func docSessions(file, text string) []exampleSession {
	var out []exampleSession
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		m := fence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		lang, start := m[1], i+1
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
		}
		if lang != "" && lang != "sh" && lang != "console" {
			continue
		}
		block := joinContinued(lines[start:i])
		s := exampleSession{where: fmt.Sprintf("%s:%d", file, start)}
		prompts := false
		for _, l := range block {
			prompts = prompts || strings.HasPrefix(l, "$ ")
		}
		hasDocir := false
		for j, l := range block {
			if prompts {
				if !strings.HasPrefix(l, "$ ") || l == "$ echo $?" {
					continue
				}
				l = strings.TrimPrefix(l, "$ ")
			}
			if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
				continue
			}
			hasDocir = hasDocir || docirLine.MatchString(l)
			ex := example{line: l, exit: exitOf(l)}
			if prompts {
				// The code the session shows for it: past its output, a
				// "$ echo $?" and the code on the next line.
				k := j + 1
				for k < len(block) && !strings.HasPrefix(block[k], "$ ") {
					k++
				}
				if k+1 < len(block) && block[k] == "$ echo $?" {
					if n, err := strconv.Atoi(strings.TrimSpace(block[k+1])); err == nil {
						ex.exit = n
					}
				}
			}
			s.examples = append(s.examples, ex)
		}
		if hasDocir {
			out = append(out, s)
		}
	}
	return out
}

// joinContinued joins each line that ends with a backslash to the next.
func joinContinued(lines []string) []string {
	var out []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, `\`) + " " + strings.TrimSpace(lines[i])
		}
		out = append(out, l)
	}
	return out
}

// script is the testscript of s: each line run by bash in a fresh copy of
// the fixture corpus. runs is false when every line is an exception.
func (s exampleSession) script(t *testing.T) (string, bool) {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\ncd $CORPUS\n", s.where)
	runs := false
	for _, ex := range s.examples {
		if reason := exceptionOf(ex.line); reason != "" {
			fmt.Fprintf(&b, "# not run (%s): %s\n", reason, ex.line)
			continue
		}
		runs = true
		line := ex.line
		if strings.Contains(line, "docir serve") && strings.Contains(line, "--http") {
			// A server: it must still be serving after 3 s (timeout's
			// 124), on a free port.
			line = trailingComment.ReplaceAllString(line, "")
			line = listenPort.ReplaceAllString(line, strconv.Itoa(freePort(t)))
			line = "timeout -s INT 3 env " + line + "; s=$?; [ $s = 124 ]"
		}
		// pipefail: a docir that fails before a pipe (an unknown flag
		// before "| sort") fails the line.
		fmt.Fprintf(&b, "exitcode %d bash -c 'set -o pipefail; %s'\n", ex.exit, strings.ReplaceAll(line, "'", "''"))
		if !strings.Contains(line, "nope") && !strings.Contains(line, "miss") {
			// A read the documentation shows finds what it asks for.
			b.WriteString("! stdout '\"reason\": ?\"no_(document|section)\"|^Not found:'\n")
		}
	}
	return b.String(), runs
}

// exceptionOf is why line is not run, or "".
func exceptionOf(line string) string {
	for prefix, reason := range exampleExceptions {
		if strings.HasPrefix(line, prefix) {
			return reason
		}
	}
	return ""
}

// freePort is a TCP port on the loopback that nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
