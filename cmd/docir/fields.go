package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/docir/docir/docir"
)

// FieldsOptions is everything `docir fields` needs.
type FieldsOptions struct {
	IO       *IOStreams
	Fields   func(context.Context) (docir.FieldsResult, error)
	WantText func() (bool, error)
}

func newCmdFields(f *Factory, runF func(context.Context, *FieldsOptions) error) *cobra.Command {
	opts := &FieldsOptions{IO: f.IO, Fields: f.fields, WantText: f.wantText}
	cmd := &cobra.Command{
		Use:   "fields",
		Short: "List the front-matter fields of the documents, with their common values",
		Long: `List the front-matter fields the local store's documents have, as query
names them (top-level keys, and dotted paths into nested objects), each with
how many documents have it, how many distinct values it takes, and its most
common values: what to write a docir query expression from.

Output (JSON): {documents, fields: [{name, documents, distinct, values:
[{value, documents}]}], truncated, generation}, the fields most documents
have first (at most 200; truncated says when there are more), at most 5
values each. Text: a FIELD DOCUMENTS DISTINCT VALUES table. The same reply
as docir/fields over docir serve.`,
		Example: `  docir fields
  docir fields --jq '.fields[].name'
  docir fields --format text`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return fieldsRun(cmd.Context(), opts)
		},
	}
	f.addFlags(cmd, storeFlags|outputFlags|verboseFlag)
	return cmd
}

// fields scans the local store's current generation (indexing first, as
// any read does, when nothing is indexed yet).
func (f *Factory) fields(ctx context.Context) (docir.FieldsResult, error) {
	if _, err := f.Reader(); err != nil {
		return docir.FieldsResult{}, err
	}
	ws, err := f.Workspace()
	if err != nil {
		return docir.FieldsResult{}, err
	}
	return ws.Fields(ctx)
}

func fieldsRun(ctx context.Context, opts *FieldsOptions) error {
	text, err := opts.WantText()
	if err != nil {
		return err
	}
	res, err := opts.Fields(ctx)
	if err != nil {
		return err
	}
	if text {
		return opts.IO.pagedText(func(w io.Writer) error { return printFieldsText(w, res, opts.IO.width()) })
	}
	return opts.IO.printJSON(res)
}

// printFieldsText prints the fields as a table, the most common values of
// each in its last column, laid out for the terminal's width as every
// table is (writeTable: the values cut first, then the counts left out),
// each cell on one line.
func printFieldsText(w io.Writer, res docir.FieldsResult, width int) error {
	if len(res.Fields) == 0 {
		_, err := fmt.Fprintf(w, "none of the %d documents has front matter: query can filter on id, path, title and size only\n", res.Documents)
		return err
	}
	cols := []column{{head: "FIELD", cut: 12}, {head: "DOCUMENTS", right: true, drop: 2}, {head: "DISTINCT", right: true, drop: 1}, {head: "VALUES", cut: 12}}
	var rows [][]string
	for _, fi := range res.Fields {
		vals := make([]string, len(fi.Values))
		for i, v := range fi.Values {
			vals[i] = fmt.Sprintf("%s (%d)", v.Value, v.Documents)
		}
		if more := fi.Distinct - len(fi.Values); more > 0 {
			vals = append(vals, fmt.Sprintf("and %d more", more))
		}
		rows = append(rows, []string{fi.Name, strconv.Itoa(fi.Documents), strconv.Itoa(fi.Distinct), strings.Join(vals, ", ")})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d documents, generation %d\n", res.Documents, res.Generation)
	writeTable(&b, cols, rows, true, width, nil)
	if res.Truncated {
		fmt.Fprintf(&b, "(only the %d fields most documents have)\n", len(res.Fields))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
