package main

import (
	"strings"

	"github.com/rivo/uniseg"

	"github.com/docir/docir/workspace"
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

// shrink names a column that may be narrowed to fit the terminal, and the
// narrowest it may get.
type shrink struct{ col, min int }

// fitWidths narrows columns, in the order given, until a row (cells two
// spaces apart) fits in width columns; width <= 0 means no limit.
func fitWidths(widths []int, width int, order []shrink) []int {
	if width <= 0 || len(widths) == 0 {
		return widths
	}
	total := 2 * (len(widths) - 1)
	for _, w := range widths {
		total += w
	}
	out := append([]int(nil), widths...)
	for _, s := range order {
		over := total - width
		if over <= 0 {
			break
		}
		if s.col >= len(out) {
			continue
		}
		cut := min(over, max(0, out[s.col]-s.min))
		out[s.col] -= cut
		total -= cut
	}
	return out
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
// right-aligned where right says so; the last cell is not padded.
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
	spans := workspace.MatchSpans(s, query)
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
