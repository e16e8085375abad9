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
)

// ContextOptions is everything `docir context` needs.
type ContextOptions struct {
	readerOptions

	Query  string
	Budget int
	Limit  int
}

func newCmdContext(f *Factory, runF func(context.Context, *ContextOptions) error) *cobra.Command {
	opts := &ContextOptions{readerOptions: newReaderOptions(f)}
	cmd := &cobra.Command{
		Use:   "context QUERY...",
		Short: "Skeleton read: ranked documents with outlines, and what to read next within a token budget",
		Long: `Rank documents for free text, as search does, then give addresses: the
ordered list of what to read next that fits the budget. Reads come in
the order of their scores: a document's matched section (a short
document whole), its other matching sections, other documents' sections;
the list ends where the next read does not fit what is left of the
budget, or scores under a fifth of the first. Nothing is listed twice:
never a section beside a section holding it, nor a read whose every line
a read listed before holds. A hit the plan reads from carries an outline
(address, heading, level and estimated tokens of its sections: two
heading levels, about one entry per 100 tokens of budget, and every
section the plan reads with the headings above it); the other hits carry
none. docs/ranking.md (The token budget) gives every rule.

Tokens are estimated as one per four bytes (see docs/ranking.md).
Pipe it to get to read exactly that: docir context "retry budget" | docir get -`,
		Example: `  docir context "retry budget"
  docir context --budget 2000 disk full | docir get -`,
		Args: needArgs(1, `a QUERY: the words to rank documents for (docir context "retry budget")`),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Query = strings.Join(args, " ")
			if err := checkLimitFlag(opts.Limit); err != nil {
				return err
			}
			if opts.Budget < 1 || opts.Budget > docir.MaxBudget {
				return docir.Errorf(docir.CodeUsage, "--budget %d: want 1 to %d tokens", opts.Budget, docir.MaxBudget)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return contextRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVar(&opts.Budget, "budget", docir.DefaultBudget, "`TOKENS` the addresses to read next may add up to (1 to "+strconv.Itoa(docir.MaxBudget)+")")
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", docir.DefaultLimit, "rank at most `N` documents (1 to "+strconv.Itoa(docir.MaxLimit)+")")
	f.addFlags(cmd, readFlags|colorFlag)
	return cmd
}

func contextRun(ctx context.Context, opts *ContextOptions) error {
	r, text, err := opts.open()
	if err != nil {
		return err
	}
	params := docir.ContextParams{Query: opts.Query, Budget: opts.Budget, Limit: opts.Limit}
	res, err := r.Context(ctx, params)
	if err == nil {
		err = opts.Evidence(wire.MethodContext, params, res)
	}
	if err != nil {
		return err
	}
	printWarnings(opts.IO, res.Warnings)
	if text {
		shown := res
		if opts.IO.outIsTerminal() {
			shown = terminalContext(res)
		}
		return opts.IO.paged(func(w io.Writer) error {
			return printContextText(w, shown, newMarker(opts.IO), opts.IO.width())
		})
	}
	return opts.IO.printJSON(res)
}

// plannedHeadings says what each address a plan may list reads: a
// document's title, or a section's headings from its document's top
// level down ("reusePort › Examples" for entrypoints#examples-1, whose
// slug alone says only that it is the second "Examples"). The outline
// of a document the plan reads from holds every planned section and its
// ancestors.
func plannedHeadings(res docir.ContextResult) map[string]string {
	out := map[string]string{}
	for _, h := range res.Hits {
		out[h.ID] = h.Title
		var path []docir.OutlineEntry // the entries above the current one, outermost first
		for _, o := range h.Outline {
			for len(path) > 0 && path[len(path)-1].Level >= o.Level {
				path = path[:len(path)-1]
			}
			path = append(path, o)
			names := make([]string, len(path))
			for i, p := range path {
				names[i] = p.Heading
			}
			out[o.Address] = strings.Join(names, " › ")
		}
	}
	return out
}

// printContextText prints what to read next (address and tokens), then
// each ranked document with its snippet and outline; the address is always
// the first column.
func printContextText(w io.Writer, res docir.ContextResult, mark marker, width int) error {
	if len(res.Hits) == 0 {
		_, err := fmt.Fprintf(w, "no documents match %q\n", res.Query)
		return err
	}
	tokens := res.AddressTokens()
	var b strings.Builder
	fmt.Fprintf(&b, "READ NEXT  %d of %d tokens\n", res.Tokens, res.Budget)
	// Addresses are never cut: other columns are narrowed or left out.
	rows := [][]string{}
	what := plannedHeadings(res)
	for _, a := range res.Addresses {
		rows = append(rows, []string{a, strconv.Itoa(tokens[a]), what[a]})
	}
	if len(rows) == 0 {
		b.WriteString("(nothing fits the budget)\n")
	}
	writeTable(&b, []column{{}, {right: true, drop: 1}, {cut: 12, drop: 2}}, rows, false, width, nil)
	b.WriteString("\n")

	rows = [][]string{}
	for _, h := range res.Hits {
		rows = append(rows, []string{hitAddress(h.Hit), formatScore(h.Score), strconv.Itoa(h.Tokens), h.Title})
	}
	cols := []column{{head: "ADDRESS"}, {head: "SCORE", right: true, drop: 1}, {head: "TOKENS", right: true, drop: 3}, {head: "TITLE", cut: 12, drop: 2}}
	outlineCols := []column{{}, {right: true, drop: 2}, {cut: 12, drop: 1}}
	writeTable(&b, cols, rows, true, width, func(i int) {
		h := res.Hits[i]
		if h.Snippet != "" {
			b.WriteString("    " + mark.highlight(snippetLine(h.Snippet, width-4), res.Query) + "\n")
		}
		b.WriteString(alsoLine(h.Hit, width))
		outline := [][]string{}
		for _, o := range h.Outline {
			outline = append(outline, []string{"  " + o.Address, strconv.Itoa(o.Tokens), strings.Repeat("  ", max(0, o.Level-1)) + o.Heading})
		}
		writeTable(&b, outlineCols, outline, false, width, nil)
	})
	_, err := io.WriteString(w, b.String())
	return err
}
