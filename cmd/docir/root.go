package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/docir/docir/docir"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// IOStreams are the process's streams, replaceable in tests.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// Main runs docir with the process's arguments and streams and returns the
// exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, os.Args[1:], &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
}

func run(ctx context.Context, args []string, io *IOStreams) int {
	f := newFactory(io)
	defer f.Close()
	root := newRootCmd(f)
	root.SetArgs(args)
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	if !f.ran {
		// cobra refused the command line before any command ran.
		err = &docir.Error{Code: docir.CodeUsage, Message: err.Error(), Err: err}
	}
	var silent *silentError
	if !errors.As(err, &silent) {
		fmt.Fprintln(io.ErrOut, "docir: "+err.Error())
	}
	return docir.ExitCode(err)
}

// silentError is an error whose message was already printed.
type silentError struct{ error }

func (e *silentError) Unwrap() error { return e.error }

func newRootCmd(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "docir",
		Short: "Read markdown corpora: skeleton reads to find, deep reads to read",
		Long: `docir keeps folders of markdown as documents split into sections by heading,
and answers two kinds of reads:

  skeleton reads  search, query, context: ranked or filtered hits, never a body;
                  each names the section that matched as an address get accepts
  deep reads      get a b#motivation: several documents or sections at once

Addresses are <id> or <id>#<heading>, where the heading is a slug
(guide-level-explanation) or the heading text ("Guide-level explanation").`,
		Version:           version,
		SilenceUsage:      true,
		SilenceErrors:     true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			f.ran = true
			return nil
		},
	}
	root.SetVersionTemplate("docir {{.Version}}\n")
	pf := root.PersistentFlags()
	pf.StringVar(&f.configFile, "config", "", "config file (default: nearest "+ConfigFileName+" from the working folder up)")
	pf.String("store", "", "store folder (default: .docir beside the config, or in the working folder)")
	pf.String("format", "auto", "output format: auto (text on a terminal, else json), json, text")
	_ = f.viper.BindPFlag("store", pf.Lookup("store"))
	_ = f.viper.BindPFlag("format", pf.Lookup("format"))
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &docir.Error{Code: docir.CodeUsage, Message: err.Error() + "\n" + cmd.UseLine(), Err: err}
	})

	root.AddCommand(
		newCmdIndex(f, nil),
		newCmdGet(f, nil),
		newCmdStatus(f, nil),
		newCmdSearch(f, nil), newCmdQuery(f, nil), newCmdContext(f, nil),
		newCmdServe(f, nil),
	)
	return root
}

// usageArgs wraps a cobra argument check so that its failure is a usage
// error (exit 2).
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return &docir.Error{Code: docir.CodeUsage, Message: err.Error() + "\nusage: " + cmd.UseLine(), Err: err}
		}
		return nil
	}
}
