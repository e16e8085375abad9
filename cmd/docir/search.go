package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// SearchOptions is everything `docir search` needs.
type SearchOptions struct {
	readerOptions

	Query string
	Limit int
}

func newCmdSearch(f *Factory, runF func(context.Context, *SearchOptions) error) *cobra.Command {
	opts := &SearchOptions{readerOptions: newReaderOptions(f)}
	cmd := &cobra.Command{
		Use:   "search QUERY...",
		Short: "Skeleton read: documents ranked for free text, each naming its best section",
		Long: `Rank documents for free text. Every section of every document is scored
on its own text (with the document's title) and on where it sits (the
title, the path and the headings above it); a document ranks by its best
section, which the hit names as matched_section, an address get accepts.
A query equal to a page's title or description ranks that page first, and
one equal to a heading written as a question (a FAQ's entry) its section.
Hits never carry a body; the snippet (at most 240 bytes) shows where the
match is. A document whose matched section says nothing the hits above
it do not (a section a generated reference repeats on every page) is
folded into that hit's also. Several words are one query: docir search
retry budget.

Syntax (quote it for the shell: unquoted, -v, -n or -h is docir's own
flag): "exact phrase" matches only sections with
those words adjacent, in order; -word and -"a phrase" leave out the
sections that hold them:
  docir search '"front matter" dates -taxonomy'
A -word that the documents write as a command-line option (-Depth,
tar -x) is that option, ranked as a word; -"word" always leaves it out.
A word that matches nothing and is two or three words written together
(wordcount, getchilditem) is read as those words. A question ("How do I
change the font size?") is ranked by its topic: the English words that
open it (how do I, what is the) are its form, not its subject, and its
quotes quote (its quoted words are words, not a phrase); a page
titled with the question is still named by it. Words match as written,
less plurals (a word no page holds as written, in its other English
forms: rotate finds rotated); with search.stemming: english in
docir.yaml every word also matches its other English forms (configure
finds configuration), a phrase still as written. docs/ranking.md
explains the score.

Output (JSON): {query, hits: [{id, title, path, store, score,
matched_section, snippet}], total}, total being the number of sections
that hold any of its words. Text: one line per hit, address first, then the
snippet with the query's words highlighted.`,
		Example: `  docir search "retry budget"
  docir search -n 3 disk full
  docir search "retry budget" | docir get -     # read what was ranked, in rank order`,
		Args: needArgs(1, `a QUERY: the words to rank documents for (docir search "retry budget")`),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Query = strings.Join(args, " ")
			if err := checkLimitFlag(opts.Limit); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return searchRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", docir.DefaultLimit, "return at most `N` documents (1 to "+strconv.Itoa(docir.MaxLimit)+")")
	f.addFlags(cmd, readFlags|colorFlag)
	return cmd
}

// readerOptions is what every read command holds: its streams, the
// reader (opened lazily), and whether to print text.
type readerOptions struct {
	IO       *IOStreams
	Reader   func() (docir.Reader, error)
	WantText func() (bool, error)
	// Evidence writes the evidence receipt of a read under --evidence.
	Evidence func(method string, params, result any) error
}

func newReaderOptions(f *Factory) readerOptions {
	return readerOptions{IO: f.IO, Reader: f.Reader, WantText: f.wantText, Evidence: f.recordEvidence}
}

// open resolves the output format, then the reader.
func (o *readerOptions) open() (r docir.Reader, text bool, err error) {
	if text, err = o.WantText(); err != nil {
		return nil, false, err
	}
	r, err = o.Reader()
	return r, text, err
}

// checkLimitFlag refuses a -n out of range before anything is opened.
func checkLimitFlag(n int) error {
	if n < 1 || n > docir.MaxLimit {
		return docir.Errorf(docir.CodeUsage, "-n %d: want 1 to %d", n, docir.MaxLimit)
	}
	return nil
}

func searchRun(ctx context.Context, opts *SearchOptions) error {
	r, text, err := opts.open()
	if err != nil {
		return err
	}
	params := docir.SearchParams{Query: opts.Query, Limit: opts.Limit}
	res, err := r.Search(ctx, params)
	if err == nil {
		err = opts.Evidence(wire.MethodSearch, params, res)
	}
	if err != nil {
		return err
	}
	printWarnings(opts.IO, res.Warnings)
	if text {
		hits := res.Hits
		if opts.IO.outIsTerminal() {
			hits = terminalHits(hits)
		}
		return opts.IO.paged(func(w io.Writer) error {
			return printHitsText(w, res.Query, hits, newMarker(opts.IO), "", opts.IO.width())
		})
	}
	return opts.IO.printJSON(res)
}

// printHitsText prints hits as a table whose first column is the address
// to read (the matched section, else the document), with each snippet on
// the line below, the query's words highlighted. width > 0 fits each line
// to that many columns.
func printHitsText(w io.Writer, query string, hits []docir.Hit, mark marker, footer string, width int) error {
	if len(hits) == 0 {
		_, err := fmt.Fprintf(w, "no documents match %q\n", query)
		return err
	}
	// The address is never cut: the title is narrowed, then the score and
	// the title are left out. The store is shown only when a hit comes
	// from a peer (else every row says local).
	cols := []column{{head: "ADDRESS"}, {head: "SCORE", right: true, drop: 1}, {head: "TITLE", cut: 12, drop: 3}}
	peers := slices.ContainsFunc(hits, func(h docir.Hit) bool { return h.Store != "" && h.Store != docir.StoreLocal })
	if peers {
		cols = slices.Insert(cols, 2, column{head: "STORE", drop: 2})
	}
	var rows [][]string
	for _, h := range hits {
		row := []string{hitAddress(h), formatScore(h.Score), h.Title}
		if peers {
			row = slices.Insert(row, 2, h.Store)
		}
		rows = append(rows, row)
	}
	var b strings.Builder
	writeTable(&b, cols, rows, true, width, func(i int) {
		if hits[i].Snippet != "" {
			b.WriteString("    ")
			b.WriteString(mark.highlight(snippetLine(hits[i].Snippet, width-4), query))
			b.WriteByte('\n')
		}
		b.WriteString(alsoLine(hits[i], width))
	})
	if footer != "" {
		b.WriteString(footer + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// alsoLine is the line under a hit that names the matched sections left
// out as saying what it says (docir.Hit.Also), up to maxAlsoShown of them
// and how many more; "" when there are none.
func alsoLine(h docir.Hit, width int) string {
	if len(h.Also) == 0 {
		return ""
	}
	shown := h.Also[:min(len(h.Also), maxAlsoShown)]
	line := "    the same text in " + strings.Join(shown, ", ")
	if n := len(h.Also) - len(shown); n > 0 {
		line += fmt.Sprintf(" and %d more", n)
	}
	return snippetLine(line, width) + "\n"
}

// maxAlsoShown is how many of a hit's also the text shows (JSON has all).
const maxAlsoShown = 3

func hitAddress(h docir.Hit) string {
	if h.MatchedSection != "" {
		return h.MatchedSection
	}
	return h.ID
}

func formatScore(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) }
