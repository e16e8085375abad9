package passage

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// scannedLinks is blankInlineLinks as it was until 2026-12-03: each "]("
// scanned on to the end of the line for its ")", and each code span to
// the next run of exactly its backticks (a backtick after an odd run of
// backslashes opens none). It is the reference the one-pass matching must
// equal.
func scannedLinks(line []byte, blank func(from, to int), off int) {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '`':
			if k := bytes.LastIndexFunc(line[:i], func(r rune) bool { return r != '\\' }); (i-k-1)%2 == 1 {
				continue
			}
			n := 1
			for i+n < len(line) && line[i+n] == '`' {
				n++
			}
			closer := -1
			for j := i + n; j < len(line) && closer < 0; j++ {
				m := 0
				for j+m < len(line) && line[j+m] == '`' {
					m++
				}
				if m == n {
					closer = j
				}
				j += m
			}
			if closer >= 0 {
				i = closer + n - 1
			} else {
				i += n - 1
			}
		case ']':
			if i+1 >= len(line) {
				continue
			}
			switch line[i+1] {
			case '(':
				depth, j := 0, i+1
				for ; j < len(line); j++ {
					if line[j] == '(' {
						depth++
					} else if line[j] == ')' {
						depth--
						if depth == 0 {
							break
						}
					}
				}
				if j < len(line) {
					blank(off+i+1, off+j+1)
					i = j
				}
			case '[':
				if end := bytes.IndexByte(line[i+2:], ']'); end >= 0 {
					blank(off+i+1, off+i+2+end+1)
					i += 2 + end
				}
			}
		}
	}
}

// TestBlankInlineLinksAsScanned: matching each "(" once for the line
// blanks the same ranges as scanning on from every "](", on lines made of
// the bytes that matter (brackets, parentheses, backticks) and on the
// hostile line that made the scan quadratic.
func TestBlankInlineLinksAsScanned(t *testing.T) {
	ranges := func(f func([]byte, func(int, int), int), line string) [][2]int {
		var out [][2]int
		f([]byte(line), func(from, to int) { out = append(out, [2]int{from, to}) }, 7)
		return out
	}
	lines := []string{
		"", "]", "](", "]()", "[a](b) and [c](d (e) f) g", "[a](b", "[a](b (c) d", "))[a](b)",
		"`[a](b)` [c](d)", "[a][b] [c][d", "[a](" + strings.Repeat("(", 50) + ")",
		"# " + strings.Repeat("[a](", 2000),
	}
	r := rand.New(rand.NewPCG(3, 12))
	alphabet := []byte("[]()`a \\")
	for range 20000 {
		b := make([]byte, r.IntN(60))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		lines = append(lines, string(b))
	}
	for _, line := range lines {
		oneLine := func(line []byte, blank func(int, int), off int) { blankInlineLinks(line, blank, off, line) }
		if got, want := ranges(oneLine, line), ranges(scannedLinks, line); !slices.Equal(got, want) {
			t.Fatalf("%q: blanked %v, the scan %v", line, got, want)
		}
	}
}
