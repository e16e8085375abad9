package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/docir/docir/docir"
)

// version is set at build time with -ldflags "-X main.version=..."; when
// it is not, buildVersion reads the module version from the binary.
var version = ""

// Main runs docir with the process's arguments and streams and returns the
// exit code.
func Main() int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		if s, ok := (<-sigs).(syscall.Signal); ok {
			cancel(signalled{s})
		}
	}()
	return run(ctx, os.Args[1:], &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
}

// signalled is the cause of a context that a signal ended.
type signalled struct{ sig syscall.Signal }

func (s signalled) Error() string { return s.sig.String() + " received" }

// interruptedError is a command that a signal stopped (SIGINT, SIGTERM):
// its message says what it left, and the exit code is the shell's for the
// signal, 128 + its number (130 for Ctrl-C).
type interruptedError struct {
	what string // what the command left, "" when nothing needs saying
	err  error
}

func (e *interruptedError) Error() string {
	if e.what == "" {
		return "interrupted"
	}
	return "interrupted; " + e.what
}

func (e *interruptedError) Unwrap() error { return e.err }

func run(ctx context.Context, args []string, io *IOStreams) int {
	return runTree(ctx, args, io, newRootCmdFor)
}

// runTree is run with the command tree that tree builds for args.
func runTree(ctx context.Context, args []string, io *IOStreams, tree func(*Factory, []string) *cobra.Command) int {
	f := newFactory(io)
	defer f.Close()
	root := tree(f, args)
	root.SetArgs(args)
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	err := root.ExecuteContext(ctx)
	f.reportStale() // before an error's message
	if err == nil {
		return 0
	}
	if !f.ran {
		// cobra refused the command line before any command ran.
		err = &docir.Error{Code: docir.CodeUsage, Message: err.Error(), Err: err}
	}
	var sig signalled
	if errors.As(context.Cause(ctx), &sig) && errors.Is(err, context.Canceled) {
		var in *interruptedError
		if !errors.As(err, &in) {
			in = &interruptedError{err: err}
		}
		fmt.Fprintln(io.ErrOut, "docir: "+in.Error())
		return 128 + int(sig.sig)
	}
	var silent *silentError
	if !errors.As(err, &silent) {
		fmt.Fprintln(io.ErrOut, "docir: "+forTerminal(err.Error()))
	}
	return docir.ExitCode(err)
}

// silentError is an error whose message was already printed.
type silentError struct{ error }

func (e *silentError) Unwrap() error { return e.error }

// Command groups of the root help, by workflow.
const (
	groupRead  = "read"
	groupIndex = "index"
	groupServe = "serve"
)

// subcommand is one of the root's commands: the name and aliases cobra
// finds it by, its group in the root's help, and how to build it.
type subcommand struct {
	name    string
	aliases []string
	group   string
	build   func(*Factory) *cobra.Command
}

// subcommands are the root's commands (cobra adds help and completion).
// TestSubcommands checks the entries against the commands their builds
// make. A function, not a variable: the builds reach it (isCommand), which
// a variable's initializer may not.
func subcommands() []subcommand {
	return []subcommand{
		{name: "search", group: groupRead, build: func(f *Factory) *cobra.Command { return newCmdSearch(f, nil) }},
		{name: "query", group: groupRead, build: func(f *Factory) *cobra.Command { return newCmdQuery(f, nil) }},
		{name: "context", group: groupRead, build: func(f *Factory) *cobra.Command { return newCmdContext(f, nil) }},
		{name: "get", group: groupRead, build: func(f *Factory) *cobra.Command { return newCmdGet(f, nil) }},
		{name: "fields", group: groupRead, build: func(f *Factory) *cobra.Command { return newCmdFields(f, nil) }},
		{name: "links", group: groupRead, build: func(f *Factory) *cobra.Command { return newCmdLinks(f, nil) }},
		{name: "check", group: groupRead, build: func(f *Factory) *cobra.Command { return newCmdCheck(f, nil) }},
		{name: "changes", group: groupRead, build: func(f *Factory) *cobra.Command { return newCmdChanges(f, nil) }},
		{name: "index", group: groupIndex, build: func(f *Factory) *cobra.Command { return newCmdIndex(f, nil) }},
		{name: "sources", group: groupIndex, build: func(f *Factory) *cobra.Command { return newCmdSources(f, nil) }},
		{name: "status", group: groupIndex, build: func(f *Factory) *cobra.Command { return newCmdStatus(f, nil) }},
		{name: "bind", group: groupIndex, build: func(f *Factory) *cobra.Command { return newCmdBind(f, nil) }},
		{name: "replay", group: groupIndex, build: func(f *Factory) *cobra.Command { return newCmdReplay(f, nil) }},
		{name: "serve", group: groupServe, build: func(f *Factory) *cobra.Command { return newCmdServe(f, nil) }},
		{name: "version", build: newCmdVersion},
	}
}

// newRootCmd is docir's whole command tree.
func newRootCmd(f *Factory) *cobra.Command {
	root := newRootOnly(f)
	for _, s := range subcommands() {
		c := s.build(f)
		c.GroupID = s.group
		root.AddCommand(c)
	}
	ignoreCaseInBash(root)
	refuseUnknownHelpTopic(root)
	return root
}

// refuseUnknownHelpTopic makes `docir help TOPIC` of no command a usage
// error (exit 2) that suggests the nearest command: cobra's help command
// printed "Unknown help topic" and the root's usage, and exited 0.
func refuseUnknownHelpTopic(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	h, _, err := root.Find([]string{"help"})
	if err != nil || h.Name() != "help" || h.Run == nil {
		return
	}
	run := h.Run
	h.Run = nil
	h.RunE = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			if cmd, _, err := c.Root().Find(args); err != nil || cmd == nil || cmd == c.Root() {
				msg := fmt.Sprintf("unknown help topic %q", strings.Join(args, " "))
				if s := c.Root().SuggestionsFor(args[0]); len(s) > 0 {
					msg += "; did you mean " + strings.Join(s, " or ") + "?"
				}
				return docir.Errorf(docir.CodeUsage, "%s (docir --help lists the commands)", msg)
			}
		}
		run(c, args)
		return nil
	}
}

// newRootCmdFor is the command tree that runs args, built no further than
// they need: a process runs one command, and building all of them (their
// flags, help text, completion commands) is a good part of docir's
// start-up. When args name one of subcommands, as cobra finds it, the root
// holds that one command only; `docir --version` gets the root alone;
// anything else (help, completion, __complete, no command, an unknown
// one) gets the whole tree, newRootCmd.
// Whichever tree runs, what the command does and prints is the same
// (TestPartialTree, TestPartialTreeRuns).
func newRootCmdFor(f *Factory, args []string) *cobra.Command {
	root := newRootOnly(f)
	if len(args) == 1 && args[0] == "--version" {
		// The root prints the version and returns before anything that
		// reads its commands (its help, a usage error) could run.
		root.CompletionOptions.DisableDefaultCmd = true
		return root
	}
	// Let cobra find the command among stand-ins that have the names
	// only: it skips the root's flags before the name by the root's
	// flags, which are the same in every tree.
	cmds := subcommands()
	stubs := make([]*cobra.Command, len(cmds))
	for i, s := range cmds {
		stubs[i] = &cobra.Command{Use: s.name, Aliases: s.aliases}
	}
	root.AddCommand(stubs...)
	found, _, err := root.Find(args)
	i := slices.Index(stubs, found)
	if err != nil || i < 0 {
		return newRootCmd(f)
	}
	root.RemoveCommand(stubs...)
	c := cmds[i].build(f)
	c.GroupID = cmds[i].group
	root.AddCommand(c)
	// The command runs, or cobra refuses its command line; neither shows
	// the completion command, which would build five more.
	root.CompletionOptions.DisableDefaultCmd = true
	// A flag error names the other commands that take the flag
	// (flagHint): it builds them then.
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return flagErrorAmong(cmd, err, func() []*cobra.Command {
			return newRootCmd(newFactory(&IOStreams{})).Commands()
		})
	})
	return root
}

// newRootOnly is the root command with no commands under it.
func newRootOnly(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "docir",
		Short: "Read markdown corpora: skeleton reads to find, deep reads to read",
		Long: `docir keeps folders of markdown as documents split into sections by heading,
and answers two kinds of reads:

  skeleton reads  search, query, context: ranked or filtered hits, never a body;
                  each names the section that matched as an address get accepts
  deep reads      get a b#motivation: several documents or sections at once

Addresses are <id> or <id>#<heading>, where the heading is a slug
(guide-level-explanation) or the heading text ("Guide-level explanation").

Most commands also take --config FILE, --store DIR, --format auto|json|text,
--jq EXPR and -v (search, query and context --color WHEN too), before or
after their name; "docir COMMAND --help" lists the flags each one takes.`,
		Example: `  # index a folder of markdown (remembered in docir.yaml)
  docir index .

  # find, then read exactly what was found
  docir search "retry budget"
  docir context "disk full" | docir get -
  docir get runbooks/retry-budget runbooks/disk-full#mitigate

  # scripts: JSON when piped, filtered with --jq
  docir search -n 3 retry --jq '.hits[].matched_section'`,
		Version:       buildVersion(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			f.ran = true
			f.ctx = cmd.Context()
			if cmd.Annotations[longRunning] == "" {
				relaxGC()
			}
			f.bindFlags(cmd)
			if err := f.pin.check(cmd); err != nil {
				return err
			}
			switch f.IO.Color {
			case "auto", "always", "never":
			default:
				return docir.Errorf(docir.CodeUsage, "--color %q: want auto, always or never", f.IO.Color)
			}
			return f.IO.setJQ(f.jq)
		},
	}
	root.SetVersionTemplate("docir {{.Version}}\n")
	f.hideFlags(root)
	root.SetFlagErrorFunc(flagError)

	root.AddGroup(
		&cobra.Group{ID: groupRead, Title: "Reading (find with search, query, context; read with get):"},
		&cobra.Group{ID: groupIndex, Title: "Keeping the index:"},
		&cobra.Group{ID: groupServe, Title: "Serving agents and peers:"},
	)
	return root
}

// buildVersion is the version set with -ldflags, else the main module's
// version the go command recorded from version control (a tag, or a
// pseudo-version of the commit, for `go install ./cmd/docir` in a clone),
// else the VCS revision alone, else "(devel)". docir is not installed with
// `go install ...@version`: go.mod's replace directives forbid it.
func buildVersion() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		return "(devel) " + rev[:min(12, len(rev))] + dirty
	}
	return "(devel)"
}

func newCmdVersion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print docir's version, and the Go version and platform it was built for",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(f.IO.Out, "docir %s (%s %s/%s)\n", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}

// usageArgs wraps cobra argument checks so that a failure is a usage error
// (exit 2); docir's own (needArgs) pass through as they are.
func usageArgs(checks ...cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		for _, check := range checks {
			err := check(cmd, args)
			if err == nil {
				continue
			}
			if docir.CodeOf(err) == docir.CodeUsage {
				return err
			}
			return &docir.Error{Code: docir.CodeUsage, Message: err.Error() + "\nusage: " + cmd.UseLine(), Err: err}
		}
		return nil
	}
}
