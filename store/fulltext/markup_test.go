package fulltext

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// scannedMarkup is markup as it was until 2026-12-03: each opener looked
// for its closer from itself to the end of its line, and found that end
// again, so a line of many unclosed openers was quadratic (a context on a
// 400 KB line of "[a](" took 6 s). It is the reference the closers cache
// must equal.
func scannedMarkup(text string) (spans [][2]int, fences []int) {
	add := func(from, to int) {
		if n := len(spans); n > 0 && spans[n-1][1] > from {
			if to > spans[n-1][1] {
				spans[n-1][1] = to
			}
			return
		}
		spans = append(spans, [2]int{from, to})
	}
	var code *ticks // made at the first backtick
	lineStart := true
	for i := 0; i < len(text); {
		c := text[i]
		if lineStart {
			j := i
			for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '>') {
				j++
			}
			if strings.HasPrefix(text[j:], "```") || strings.HasPrefix(text[j:], "~~~") {
				end := lineEnd(text, j)
				fences = append(fences, i)
				add(i, end)
				i = end
				continue
			}
		}
		lineStart = c == '\n'
		switch c {
		case '`':
			n := run(text, i, '`')
			if code == nil {
				code = newTicks(text)
			}
			if end := code.close(text, i, n); end > 0 {
				add(i, end)
				i = end
				continue
			}
			i += n
			continue
		case ']':
			// A link destination or a reference label right after the text.
			if i+1 < len(text) && (text[i+1] == '(' || text[i+1] == '[') {
				closer := byte(')')
				if text[i+1] == '[' {
					closer = ']'
				}
				if end := strings.IndexByte(text[i+2:lineEnd(text, i)], closer); end >= 0 {
					add(i+1, i+2+end+1)
					i += 2 + end + 1
					continue
				}
			}
		case '<':
			if i+1 < len(text) && (isLetter(text[i+1]) || text[i+1] == '/') {
				if end := strings.IndexByte(text[i:lineEnd(text, i)], '>'); end > 0 {
					add(i, i+end+1)
					i += end + 1
					continue
				}
			}
		case '{':
			if strings.HasPrefix(text[i:], "{{") {
				if end := strings.Index(text[i+2:lineEnd(text, i)], "}}"); end >= 0 {
					add(i, i+2+end+2)
					i += 2 + end + 2
					continue
				}
			}
		}
		i++
	}
	return spans, fences
}

// TestMarkupAsScanned: markup with its closers remembered per line finds
// the same ranges and fences as the scan from every opener, on texts made
// of the bytes that matter, over several lines, and on hostile lines.
func TestMarkupAsScanned(t *testing.T) {
	texts := []string{
		"", "]", "](", "[a](b) <a> {{< x >}} [c][d]", "[a](b\n) [c](d)", "<a\n>", "{{ a\n}} {{b}}",
		"x ``` y\n```go\n[a](b)\n```\n[c](d)", strings.Repeat("[a](", 3000), strings.Repeat("<a", 3000),
		strings.Repeat("{{", 3000) + "}}", strings.Repeat("[a](\n", 300) + ")",
	}
	r := rand.New(rand.NewPCG(7, 11))
	alphabet := []byte("[]()<>{}`a/ \n~")
	for range 30000 {
		b := make([]byte, r.IntN(80))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, text := range texts {
		spans, fences := markup(text)
		wantSpans, wantFences := scannedMarkup(text)
		if !slices.Equal(spans, wantSpans) || !slices.Equal(fences, wantFences) {
			t.Fatalf("%q: markup %v %v, the scan %v %v", text, spans, fences, wantSpans, wantFences)
		}
	}
}
