package main

import (
	"strings"

	"github.com/rivo/uniseg"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/workspace/rank"
)

// columnWidths is the display width of each column: the widest cell.
func columnWidths(rows [][]string) []int {
	var widths []int
	for _, row := range rows {
		for i, cell := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], uniseg.StringWidth(cell))
		}
	}
	return widths
}

// column is one column of a text table and how it gives way when the
// table is wider than the terminal: a column with cut > 0 is narrowed to
// no less than cut (its cells ending in "…"); then the columns with drop > 0
// are left out, lowest drop first. A column with neither (the address) is
// never cut or left out: a row longer than the terminal runs on.
type column struct {
	head  string
	right bool // right-aligned
	cut   int  // the narrowest it may be cut to; 0: never cut
	drop  int  // the order in which it is left out; 0: never
}

// layout decides which columns of a table to show at width columns (<= 0:
// no limit) and how wide each is: every column at its widest cell (the
// head included, when heads is true); if the row is too wide, cut columns
// are narrowed (the last first), then columns are left out one at a time, in drop order,
// each time starting again from the widest cells.
func layout(cols []column, rows [][]string, heads bool, width int) (keep []int, widths []int) {
	all := rows
	if heads {
		head := make([]string, len(cols))
		for i, c := range cols {
			head[i] = c.head
		}
		all = append([][]string{head}, rows...)
	}
	natural := columnWidths(all)
	for len(natural) < len(cols) {
		natural = append(natural, 0)
	}
	for i := range cols {
		keep = append(keep, i)
	}
	for {
		widths = make([]int, len(keep))
		total := 2 * (len(keep) - 1)
		for j, i := range keep {
			widths[j] = natural[i]
			total += natural[i]
		}
		for j := len(keep) - 1; j >= 0; j-- { // the last first: a table ends with its longest text
			i := keep[j]
			if width <= 0 || total <= width {
				break
			}
			if c := cols[i].cut; c > 0 && widths[j] > c {
				by := min(total-width, widths[j]-c)
				widths[j] -= by
				total -= by
			}
		}
		if width <= 0 || total <= width {
			return keep, widths
		}
		next := -1
		for j, i := range keep {
			if d := cols[i].drop; d > 0 && (next < 0 || d < cols[keep[next]].drop) {
				next = j
			}
		}
		if next < 0 {
			return keep, widths // nothing more to leave out: the row runs on
		}
		keep = append(keep[:next:next], keep[next+1:]...)
	}
}

// writeTable writes rows under cols, laid out for width (see layout), the
// heads first when heads is true; after, when set, is called after each
// row is written (to write a snippet line under it, say).
func writeTable(b *strings.Builder, cols []column, rows [][]string, heads bool, width int, after func(row int)) {
	rows = oneLineCells(rows)
	keep, widths := layout(cols, rows, heads, width)
	right := make([]bool, len(keep))
	for j, i := range keep {
		right[j] = cols[i].right
	}
	pick := func(row []string) []string {
		out := make([]string, len(keep))
		for j, i := range keep {
			if i < len(row) {
				out[j] = row[i]
			}
		}
		return out
	}
	if heads {
		head := make([]string, len(cols))
		for i, c := range cols {
			head[i] = c.head
		}
		writeRow(b, pick(head), widths, right)
	}
	for r, row := range rows {
		writeRow(b, pick(row), widths, right)
		if after != nil {
			after(r)
		}
	}
}

// oneLineCells is a copy of rows with every tab, CR and line feed of a
// cell made a space (docir.OneLine): a row is one line, so
// that a title written over two lines in front matter does not start a
// row of its own, which `get -` would read as an address.
func oneLineCells(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for r, row := range rows {
		out[r] = make([]string, len(row))
		for c, cell := range row {
			out[r][c] = docir.OneLine(cell)
		}
	}
	return out
}

// snippetLine is a hit's snippet as the line below its row: one line
// (docir.OneLine: a query's snippet shows front-matter values as written,
// and a value over two lines would start a line `get -` reads as an
// address), cut to width.
func snippetLine(s string, width int) string {
	return fitText(docir.OneLine(s), width)
}

// fitText cuts s to at most width display columns, ending it with "…" when
// cut; width <= 0 means no limit.
func fitText(s string, width int) string {
	if width <= 0 || uniseg.StringWidth(s) <= width {
		return s
	}
	var b strings.Builder
	used := 0
	g := uniseg.NewGraphemes(s)
	for g.Next() {
		w := g.Width()
		if used+w > width-1 {
			break
		}
		b.WriteString(g.Str())
		used += w
	}
	b.WriteString("…")
	return b.String()
}

// writeRow writes cells padded (or cut) to widths, two spaces apart,
// right-aligned where right says so; the last cell is not padded. A cell
// wider than its width is cut to it.
func writeRow(b *strings.Builder, row []string, widths []int, right []bool) {
	for i, cell := range row {
		cell = fitText(cell, widths[i])
		pad := strings.Repeat(" ", max(0, widths[i]-uniseg.StringWidth(cell)))
		switch {
		case i == len(row)-1 && !right[i]:
			b.WriteString(cell)
		case right[i]:
			b.WriteString(pad + cell)
		default:
			b.WriteString(cell + pad)
		}
		if i < len(row)-1 {
			b.WriteString("  ")
		}
	}
	b.WriteByte('\n')
}

// marker highlights the query's words in a snippet: bold when colour is
// on, else nothing at all (plain text in a pipe, no markdown markers).
type marker struct{ on, off string }

func newMarker(s *IOStreams) marker {
	if s.colorOn() {
		return marker{on: "\x1b[1m", off: "\x1b[0m"}
	}
	return marker{}
}

func (m marker) highlight(s, query string) string {
	if m.on == "" {
		return s
	}
	spans := rank.MatchSpans(s, query)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp.Start])
		b.WriteString(m.on + s[sp.Start:sp.End] + m.off)
		at = sp.End
	}
	b.WriteString(s[at:])
	return b.String()
}
