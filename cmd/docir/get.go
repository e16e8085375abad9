package main

import (
	"context"
	"errors"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/render"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/federation"
)

// GetOptions is everything `docir get` needs.
type GetOptions struct {
	IO       *IOStreams
	Reader   func() (docir.Reader, error)
	WantText func() (bool, error)
	Evidence func(method string, params, result any) error
	Pinned   bool // --at, --receipt or --require-current: a generation of the local store is pinned

	Args  []string
	Stdin bool // the one argument was "-"
}

func newCmdGet(f *Factory, runF func(context.Context, *GetOptions) error) *cobra.Command {
	opts := &GetOptions{IO: f.IO, Reader: f.Reader, WantText: f.wantText, Evidence: f.recordEvidence}
	cmd := &cobra.Command{
		Use:   "get ADDR... | get -",
		Short: "Deep read: documents or sections by address, in one unit of work",
		Long: `Read documents or sections by address: <id> or <id>#<heading>.

One address prints the document itself (exit 3 if it does not resolve).
Several addresses, or "-", print {documents, missing}: the documents that
resolved in request order, and the addresses that did not with a reason
(no_document, no_section, unavailable). A malformed address fails the whole
read with exit 2 before anything is read.

"get -" reads addresses from stdin: one per line, or what search, query
and context print, as JSON or as text (for context, its addresses to read
next).`,
		Example: `  docir get adr/0001-record-architecture-decisions
  docir get runbooks/retry-budget runbooks/disk-full#mitigate "runbooks/disk-full#Escalate"
  docir search "retry budget" | docir get -`,
		Args:              needArgs(1, "an ADDR (<id> or <id>#<heading>), or - to read addresses from stdin"),
		ValidArgsFunction: completeAddresses(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Args, opts.Pinned = args, f.pin.set()
			if len(args) == 1 && args[0] == "-" {
				opts.Stdin = true
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return getRun(cmd.Context(), opts)
		},
	}
	f.addFlags(cmd, readFlags)
	return cmd
}

// MaxGetBytes bounds what one `docir get` gathers before printing: a read
// whose documents pass it stops with reply_too_large (exit 1) and names the
// remedy, instead of holding an unbounded list of bodies in memory.
const MaxGetBytes = 64 << 20

func getRun(ctx context.Context, opts *GetOptions) error {
	addrs, err := getAddresses(opts)
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
	// One typed address asks with doc_id; several, or stdin, with doc_ids.
	if len(addrs) == 1 && !opts.Stdin {
		doc, warnings, err := docir.GetOneWarned(ctx, r, addrs[0], MaxGetBytes)
		if err == nil {
			s := addrs[0].String()
			err = opts.Evidence(wire.MethodGet, docir.GetParams{DocID: &s}, doc)
		}
		if err != nil {
			return err
		}
		// The document is the reply, with no warnings beside it: they go
		// to stderr, as does a pinned read that a peer answered.
		if w := federation.UnpinnedWarning(doc.Store); opts.Pinned && doc.Store != docir.StoreLocal && !slices.Contains(warnings, w) {
			warnings = append(warnings, w) // once: the pinned federation reader may have said it
		}
		printWarnings(opts.IO, warnings)
		if text {
			return opts.IO.pagedText(func(w io.Writer) error { return render.Document(w, &doc) })
		}
		return opts.IO.printJSON(doc)
	}
	out, err := docir.Get(ctx, r, addrs, MaxGetBytes)
	if err == nil {
		raw := make([]string, len(addrs))
		for i, a := range addrs {
			raw[i] = a.String()
		}
		err = opts.Evidence(wire.MethodGet, docir.GetParams{DocIDs: raw}, out)
	}
	if err != nil {
		return err
	}
	printWarnings(opts.IO, out.Warnings)
	if text {
		return opts.IO.pagedText(func(w io.Writer) error { return render.Get(w, &out) })
	}
	return opts.IO.printJSON(out)
}

// getAddresses parses every address before anything is read: one malformed
// address fails the whole request.
func getAddresses(opts *GetOptions) ([]address.Address, error) {
	if opts.Stdin {
		return readAddresses(opts.IO.In)
	}
	if slices.Contains(opts.Args, "-") {
		return nil, docir.Errorf(docir.CodeUsage, `"-" (read stdin) must be the only argument`)
	}
	return address.ParseAll(opts.Args)
}

// storeHint makes the hint of a malformed address that was written as a
// page's URL or path (https://site/docs/a/b/, /docs/a/b/, a/b/, ./a/b.md)
// the store's: the hint address.Parse gives takes off what makes it a URL
// or a path, but a site serves its pages below a folder of its own
// (/docs/), in lower case (Hugo: a/b/ for the file A/B.md), or at an
// alias its front matter lists (/old/: workspace.Suggest): so
// when the hint names no document, the document a read of it suggests
// first (workspace.Suggest: the id the typed path ends with, first) is
// the hint, and a user pastes one address, not two (so is a note's name
// typed with its spaces, "Internal links", whose hint Internal-links
// may be below a folder: Linking-notes-and-files/Internal-links); with
// none, no hint
// (one that misses only repeats the miss). err is returned as it is when
// it is no such error, the hint reads, or the store cannot say.
func storeHint(ctx context.Context, reader func() (docir.Reader, error), err error) error {
	var pe *address.ParseError
	if !errors.As(err, &pe) || pe.Hint == "" || (pe.Err != address.ErrURL && pe.Err != address.ErrLeadingSlash && pe.Err != address.ErrBadSegment && pe.Err != address.ErrSpaceInID && pe.Err != address.ErrManyHashes) {
		return err
	}
	a, perr := address.Parse(pe.Hint)
	if perr != nil {
		return err
	}
	r, rerr := reader()
	if rerr != nil {
		return err
	}
	res, rerr := r.Resolve(ctx, []address.Address{a}, MaxGetBytes)
	if rerr != nil || len(res.Items) != 1 {
		return err
	}
	if it := res.Items[0]; it.Document == nil && it.Reason == docir.ReasonNoDocument {
		// The address it spells would miss too: its nearest, or no hint.
		pe.Hint = ""
		if len(it.Suggestions) > 0 {
			pe.Hint = it.Suggestions[0] // with the heading typed, where it has it
		}
	}
	return err
}
