package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// LinksOptions is everything `docir links` needs.
type LinksOptions struct {
	IO       *IOStreams
	Reader   func() (docir.Reader, error)
	WantText func() (bool, error)
	Evidence func(method string, params, result any) error

	Args  []string
	Stdin bool // the one argument was "-"
}

func newCmdLinks(f *Factory, runF func(context.Context, *LinksOptions) error) *cobra.Command {
	opts := &LinksOptions{IO: f.IO, Reader: f.Reader, WantText: f.wantText, Evidence: f.recordEvidence}
	cmd := &cobra.Command{
		Use:   "links ADDR... | links -",
		Short: "The links leaving and reaching documents or sections, resolved to addresses",
		Long: `Show the links of documents or sections: outgoing, each with where it leads (an
address get accepts, an external URL, or broken with the reason: no_document,
no_section), and incoming: the sections of the corpus that link here, with
their lines. A section's links include its subsections'. No bodies.

Keyed like get: one address prints {links: its set} (exit 3 if it does not
resolve); several, or "-", print {links: [...], missing}. Links are resolved
when the corpus is indexed (docs/links.md has the rules).`,
		Example: `  docir links runbooks/disk-full
  docir links 'runbooks/disk-full#Mitigate' runbooks/retry-budget
  docir links runbooks/disk-full --jq '.links.incoming[].from' | docir get -`,
		Args:              needArgs(1, "an ADDR (<id> or <id>#<heading>), or - to read addresses from stdin"),
		ValidArgsFunction: completeAddresses(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Args = args
			opts.Stdin = len(args) == 1 && args[0] == "-"
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return linksRun(cmd.Context(), opts)
		},
	}
	f.addFlags(cmd, readFlags)
	return cmd
}

func linksRun(ctx context.Context, opts *LinksOptions) error {
	addrs, err := getAddresses(&GetOptions{IO: opts.IO, Args: opts.Args, Stdin: opts.Stdin})
	if err != nil {
		return storeHint(ctx, opts.Reader, err)
	}
	text, err := opts.WantText()
	if err != nil {
		return err
	}
	r, err := opts.Reader()
	if err != nil {
		return err
	}
	if len(addrs) == 1 && !opts.Stdin {
		res, err := docir.GetLinksOne(ctx, r, addrs[0], MaxGetBytes)
		err = commandHint(err, addrs[0])
		if err == nil {
			s := addrs[0].String()
			err = opts.Evidence(wire.MethodLinks, docir.LinksParams{DocID: &s}, res)
		}
		if err != nil {
			return err
		}
		if text {
			return opts.IO.pagedText(func(w io.Writer) error { return printLinkSetText(w, &res.Links) })
		}
		return opts.IO.printJSON(res)
	}
	res, err := docir.GetLinks(ctx, r, addrs, MaxGetBytes)
	if err == nil {
		raw := make([]string, len(addrs))
		for i, a := range addrs {
			raw[i] = a.String()
		}
		err = opts.Evidence(wire.MethodLinks, docir.LinksParams{DocIDs: raw}, res)
	}
	if err != nil {
		return err
	}
	printWarnings(opts.IO, res.Warnings)
	if text {
		return opts.IO.pagedText(func(w io.Writer) error {
			for i := range res.Links {
				if i > 0 {
					fmt.Fprintln(w)
				}
				if err := printLinkSetText(w, &res.Links[i]); err != nil {
					return err
				}
			}
			for _, m := range res.Missing {
				if _, err := fmt.Fprintf(w, "missing %s (%s)\n", m.Address, m.Reason); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return opts.IO.printJSON(res)
}

// printLinkSetText prints a link set: a header naming it, then a line per
// link out (its line, the target as written, where it leads) and in (the
// section and line it comes from, what it reaches).
func printLinkSetText(dst io.Writer, s *docir.LinkSet) error {
	w := &errWriter{w: dst}
	where := s.Path
	if s.Section != nil {
		where += " § " + s.Section.Heading
	}
	fmt.Fprintf(w, "links of %s · %s · %s · %s@%d\n", s.Address, s.Title, where, s.Store, s.Generation)
	fmt.Fprintf(w, "outgoing (%d)\n", len(s.Outgoing))
	for _, l := range s.Outgoing {
		fmt.Fprintf(w, "  %5d  %s  %s\n", l.Line, forTerminal(l.Target), leadsTo(l))
	}
	fmt.Fprintf(w, "incoming (%d)\n", len(s.Incoming))
	for _, l := range s.Incoming {
		fmt.Fprintf(w, "  %s:%d  %s  -> %s\n", l.From, l.Line, forTerminal(l.Target), l.Address)
	}
	return w.err
}

// leadsTo says where a link leads, for text output.
func leadsTo(l docir.Link) string {
	switch l.Status {
	case docir.LinkResolved:
		return "-> " + l.Address
	case docir.LinkExternal:
		return "external"
	case docir.LinkBroken:
		why := l.Reason
		if l.Address != "" {
			why += ": " + l.Address
		}
		return "BROKEN (" + why + l.ResolvesWithText() + ")"
	}
	return "unchecked (" + l.Reason + ")"
}

// commandHint adds "did you mean docir check?" to err when it says that
// the one address of a links read, a (a plain word, no heading), is no
// document and a is the name of a docir command: `docir links check`
// reads the document check.
func commandHint(err error, a address.Address) error {
	var e *docir.Error
	if !errors.As(err, &e) || e.Code != docir.CodeNotFound || e.Err == nil || e.Err.Error() != docir.ReasonNoDocument ||
		a.Heading != "" || !isCommand(a.ID) {
		return err
	}
	return &docir.Error{Code: e.Code, Message: fmt.Sprintf("%s; did you mean docir %s? (docir links reads the links of a document)", e.Message, a.ID), Err: e.Err}
}

// isCommand reports whether name names one of docir's commands.
func isCommand(name string) bool {
	return slices.ContainsFunc(subcommands(), func(s subcommand) bool { return s.name == name || slices.Contains(s.aliases, name) })
}
