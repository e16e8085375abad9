package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/docir/docir/docir/corpustest"
)

// TestSubcommands holds the table newRootCmdFor finds commands by to the
// commands: the whole tree's root holds exactly its entries (and cobra's
// completion and help), each with the entry's name, aliases and group.
func TestSubcommands(t *testing.T) {
	root := newRootCmd(newFactory(&IOStreams{}))
	var got, want []string
	for _, c := range root.Commands() {
		got = append(got, fmt.Sprintf("%s %q %s", c.Name(), c.Aliases, c.GroupID))
	}
	for _, s := range subcommands() {
		want = append(want, fmt.Sprintf("%s %q %s", s.name, s.aliases, s.group))
	}
	want = append(want, `completion [] `, `help [] `)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the root's commands:\n%s\nsubcommands (then completion and help):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range root.Commands() {
		if c.HasSubCommands() && c.Name() != "completion" {
			t.Errorf("docir %s has commands of its own: newRootCmdFor finds a root command only", c.Name())
		}
	}
}

// TestPartialTree: when the arguments name a command, newRootCmdFor builds
// that command only, configured exactly as in the whole tree (fields,
// flags, their completions, usage), under the same root; `--version` gets
// the root alone; anything else gets the whole tree.
func TestPartialTree(t *testing.T) {
	full := newRootCmd(newFactory(&IOStreams{}))
	wantRoot := describeCmd(full, false)
	for _, s := range subcommands() {
		want, _, err := full.Find([]string{s.name})
		if err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{s.name},
			{s.name, "x", "--bogus"},
			{s.name, "--help"},
			{"--format", "json", s.name},
			{"--format=json", "-v", s.name, "x"},
			{"--store", "d", "--jq", ".", s.name},
			{"--at", "2", "--require-current", s.name},
		} {
			root := newRootCmdFor(newFactory(&IOStreams{}), args)
			if cmds := root.Commands(); len(cmds) != 1 || cmds[0].Name() != s.name {
				t.Errorf("%q: the root holds %d commands, want %s alone", args, len(cmds), s.name)
				continue
			}
			if got := describeCmd(root, false); got != wantRoot {
				t.Errorf("%q: the root differs from the whole tree's:\n%s", args, diffLines(got, wantRoot))
			}
			if got, want := describeCmd(root.Commands()[0], true), describeCmd(want, true); got != want {
				t.Errorf("%q: docir %s differs from the whole tree's:\n%s", args, s.name, diffLines(got, want))
			}
		}
	}

	root := newRootCmdFor(newFactory(&IOStreams{}), []string{"--version"})
	if n := len(root.Commands()); n != 0 {
		t.Errorf("--version: the root holds %d commands, want none", n)
	}
	if got := describeCmd(root, false); got != wantRoot {
		t.Errorf("--version: the root differs from the whole tree's:\n%s", diffLines(got, wantRoot))
	}

	for _, args := range [][]string{
		nil, {}, {"-h"}, {"--help"}, {"-v"}, {"--version", "get"}, {"--version", "x"},
		{"help"}, {"help", "get"}, {"completion", "bash"}, {"__complete", "get", ""}, {"__completeNoDesc", ""},
		{"gett"}, {"Get"}, {"nope", "get"}, {"--format", "get"}, {"--", "get"},
	} {
		root := newRootCmdFor(newFactory(&IOStreams{}), args)
		if got, want := len(root.Commands()), len(full.Commands()); got != want {
			t.Errorf("%q: the root holds %d commands, want the whole tree's %d", args, got, want)
		}
	}
}

// describeCmd is everything of c's configuration that its running, help,
// completion and errors read; with usage, its usage text too.
func describeCmd(c *cobra.Command, usage bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "path %q use %q line %q\nshort %q\nlong %q\nexample %q\n", c.CommandPath(), c.Use, c.UseLine(), c.Short, c.Long, c.Example)
	fmt.Fprintf(&b, "group %q hidden %v aliases %q suggest %q annotations %v version %q deprecated %q\n",
		c.GroupID, c.Hidden, c.Aliases, c.SuggestFor, c.Annotations, c.Version, c.Deprecated)
	fmt.Fprintf(&b, "args %v validArgs %q validArgsFunction %v run %v runE %v preRun %v %v %v %v\n",
		c.Args != nil, c.ValidArgs, c.ValidArgsFunction != nil, c.Run != nil, c.RunE != nil,
		c.PersistentPreRun != nil, c.PersistentPreRunE != nil, c.PreRun != nil, c.PreRunE != nil)
	fmt.Fprintf(&b, "silence %v %v disableFlagParsing %v flagsInUseLine %v\n",
		c.SilenceErrors, c.SilenceUsage, c.DisableFlagParsing, c.DisableFlagsInUseLine)
	fmt.Fprintf(&b, "groups %d\n", len(c.Groups()))
	for _, g := range c.Groups() {
		fmt.Fprintf(&b, "  %s %q\n", g.ID, g.Title)
	}
	flags := func(kind string, fs *pflag.FlagSet) {
		fs.VisitAll(func(fl *pflag.Flag) {
			_, comp := c.GetFlagCompletionFunc(fl.Name)
			fmt.Fprintf(&b, "%s --%s -%s %s default %q noopt %q hidden %v usage %q annotations %v completion %v\n",
				kind, fl.Name, fl.Shorthand, fl.Value.Type(), fl.DefValue, fl.NoOptDefVal, fl.Hidden, fl.Usage, fl.Annotations, comp)
		})
	}
	flags("flag", c.LocalFlags())
	flags("inherited", c.InheritedFlags())
	flags("persistent", c.PersistentFlags())
	if usage {
		b.WriteString(c.UsageString())
	}
	return b.String()
}

// diffLines is the lines of got and want that differ.
func diffLines(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			fmt.Fprintf(&b, "got:  %s\nwant: %s\n", gl, wl)
		}
	}
	return b.String()
}

// TestPartialTreeRuns runs command lines with the tree newRootCmdFor
// builds and with the whole tree, and wants the same exit code, stdout and
// stderr: help, completion, reads, usage and flag errors (whose hints name
// the other commands that take a flag).
func TestPartialTreeRuns(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	if err := corpustest.CopyTree("../../testdata/corpus", corpus); err != nil {
		t.Fatal(err)
	}
	t.Chdir(corpus)
	t.Setenv("NO_COLOR", "")
	ctx := context.Background()
	runWith := func(args []string, tree func(*Factory, []string) *cobra.Command) string {
		var out, errOut bytes.Buffer
		code := runTree(ctx, args, &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, tree)
		return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	whole := func(f *Factory, _ []string) *cobra.Command { return newRootCmd(f) }
	if got := runWith([]string{"index", "."}, whole); !strings.HasPrefix(got, "exit 0") {
		t.Fatalf("docir index .: %s", got)
	}

	lines := [][]string{
		{"--version"}, {"version"}, {"version", "extra"}, {"version", "--bogus"}, {"--version", "extra"},
		{}, {"-h"}, {"--help"}, {"-v"}, {"--bogus"}, {"--format", "json"},
		{"help"}, {"help", "get"}, {"help", "nope"}, {"gett"}, {"Get"}, {"serch", "x"},
		{"completion"}, {"completion", "bash"}, {"completion", "bash", "--bogus"},
		{"__complete", ""}, {"__complete", "g"}, {"__completeNoDesc", "s"}, {"__complete", "get", "run"},
		{"__complete", "get", "runbooks/disk-full#"}, {"__complete", "search", "--format", ""}, {"__complete", "get", "--"},
		{"__complete", "sources", "--remove", ""},
		{"get", "runbooks/disk-full"}, {"--format", "json", "get", "runbooks/disk-full", "adr/nope"},
		{"get", "--format", "text", "runbooks/disk-full#mitigate"}, {"get", "a b"}, {"get", "nope/nope"},
		{"get", "--color", "bad", "runbooks/disk-full"}, {"--color=never", "get", "runbooks/disk-full"},
		{"get", "--jq", ".id", "runbooks/disk-full"}, {"get", "--jq", ".[", "runbooks/disk-full"},
		{"get", "--evidence", "x", "runbooks/disk-full"}, {"get", "--at", "1", "--receipt", "r", "x"},
		{"-v", "search", "disk"}, {"search", "-n", "2", "--format", "json", "retry budget"}, {"query", "--help"},
		{"context", "disk full"}, {"fields"}, {"links", "runbooks/disk-full"}, {"check", "--format", "github"},
		{"sources"}, {"serve", "extra"}, {"serve", "--token-env", "X"}, {"replay"}, {"bind", "--revision", "1"},
		{"bind", "--ttl", "nope"}, {"status", "--at", "1", "--receipt", "r"}, {"get", "--version"}, {"-v", "--version"},
	}
	for _, s := range subcommands() {
		lines = append(lines,
			[]string{s.name, "--help"}, []string{s.name, "-h"}, []string{"help", s.name},
			[]string{"--format", "json", s.name, "--help"},
			[]string{s.name, "--bogus"}, []string{s.name, "-Z"}, []string{s.name, "--at", "1", "--bogus"},
			[]string{s.name, "--jqq", "."}, []string{s.name, "--receipt=r", "--bogus"},
			[]string{s.name, "--mcp"}, []string{s.name, "--remove", "x", "--bogus"}, []string{s.name, "--format"},
			[]string{s.name, "--verbose=maybe"}, []string{s.name, "--color", "bad", "--bogus"},
			[]string{"__complete", s.name, "--"}, []string{"__complete", s.name, ""},
		)
	}
	hints := 0
	for _, args := range lines {
		want := runWith(args, whole)
		got := runWith(args, newRootCmdFor)
		if got != want {
			t.Errorf("docir %q differs from the whole tree's:\n%s", args, diffLines(got, want))
		}
		if strings.Contains(got, " is a flag of docir ") {
			hints++
		}
	}
	if hints == 0 {
		t.Error("no flag error named the other commands that take a flag")
	}
}
