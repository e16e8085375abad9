package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/workspace"
)

// QueryOptions is everything `docir query` needs.
type QueryOptions struct {
	readerOptions

	Expr  string
	Limit int
	Sort  string
}

func newCmdQuery(f *Factory, runF func(context.Context, *QueryOptions) error) *cobra.Command {
	opts := &QueryOptions{readerOptions: newReaderOptions(f)}
	cmd := &cobra.Command{
		Use:   "query EXPR...",
		Short: "Skeleton read: documents filtered by front matter and metadata",
		Long: `Filter documents by front-matter fields and metadata (id, path, title, size).
Every term must hold; several arguments are one expression.

  status:accepted kind:adr          field equals value (case ignored)
  status:accepted,proposed          any of several values
  -status:superseded                must not hold
  path:text/*   title:*retry*       globs: * any characters, ? one
  date:>=2024-01-01   size:<4096    comparisons: > >= < <=
  date:2024-01..2024-06   date:2024..   inclusive ranges, an end may be open
  date:2024-03                      a date at the precision written
  tags:process                      a list holds the value
  owner:*   -owner:*                the field is present / absent
  title:"retry budget"              quotes keep spaces and commas

A bad expression fails with exit 2, naming the term at fault. Hits are
skeletons, as search's: matched_section is the document, score is 1, and
the snippet shows the fields the expression names. Without --sort, hits
come in id order; --sort FIELD sorts ascending, --sort -FIELD descending,
documents without the field last.`,
		Example: `  docir query status:accepted kind:adr
  docir query 'date:2024-01..2024-06' --sort -date
  docir query 'path:adr/* -status:superseded' | docir get -`,
		Args: needArgs(1, "an EXPR: field:value terms, all of which must hold (docir query kind:adr status:accepted)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Expr = strings.Join(args, " ")
			if err := checkLimitFlag(opts.Limit); err != nil {
				return err
			}
			if cmd.Flags().Changed("sort") && strings.Trim(opts.Sort, "- ") == "" {
				// A script's empty $FIELD: not the default order.
				return docir.Errorf(docir.CodeUsage, "--sort %q: want a FIELD or -FIELD (leave --sort out for id order)", opts.Sort)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return queryRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", docir.DefaultLimit, "return at most `N` documents (1 to "+strconv.Itoa(docir.MaxLimit)+")")
	cmd.Flags().StringVar(&opts.Sort, "sort", "", "sort by `FIELD` (ascending) or -FIELD (descending); default: id")
	f.addFlags(cmd, readFlags|colorFlag)
	return cmd
}

func queryRun(ctx context.Context, opts *QueryOptions) error {
	// A bad expression or sort fails before any store is opened.
	if _, _, _, err := workspace.ParseQuery(docir.QueryParams{Expr: opts.Expr, Sort: opts.Sort}); err != nil {
		return err
	}
	r, text, err := opts.open()
	if err != nil {
		return err
	}
	params := docir.QueryParams{Expr: opts.Expr, Limit: opts.Limit, Sort: opts.Sort}
	res, err := r.Query(ctx, params)
	if err == nil {
		err = opts.Evidence(wire.MethodQuery, params, res)
	}
	if err != nil {
		return err
	}
	printWarnings(opts.IO, res.Warnings)
	if text {
		footer := ""
		if res.Total > len(res.Hits) {
			footer = fmt.Sprintf("(%d of %d documents; -n for more)", len(res.Hits), res.Total)
		}
		hits := res.Hits
		if opts.IO.outIsTerminal() {
			hits = terminalHits(hits)
		}
		return opts.IO.paged(func(w io.Writer) error {
			return printHitsText(w, res.Query, hits, marker{}, footer, opts.IO.width())
		})
	}
	return opts.IO.printJSON(res)
}
