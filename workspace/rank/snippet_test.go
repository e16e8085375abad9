package rank

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
)

// envTable is a section that is a table of variables, as an
// OpenTelemetry spec writes one (passage.Prose blanks its delimiter row;
// TestSnippetTableRow reads it both ways).
const envTable = "### Periodic exporting MetricReader\n\n" +
	"Environment variables specific for the push metrics exporters (OTLP, stdout, in-memory)\n" +
	"that use [periodic exporting MetricReader] .\n\n" +
	"| Name                          | Description                                                                   | Default | Type         |\n" +
	envDelimiter +
	"| `OTEL_METRIC_EXPORT_INTERVAL` | The time interval (in milliseconds) between the start of two export attempts. | 60000   | [Duration][] |\n" +
	"| `OTEL_METRIC_EXPORT_TIMEOUT`  | Maximum allowed time (in milliseconds) to export data.                        | 30000   | [Timeout][]  |\n"

const envDelimiter = "|-------------------------------|-------------------------------------------------------------------------------|---------|--------------|\n"

// TestSnippetTableRow: a search for an identifier a table's row names
// shows that row, its name and its default, not the prose over the table
// that says some of the identifier's parts as words of their own.
func TestSnippetTableRow(t *testing.T) {
	for q, want := range map[string][]string{
		"OTEL_METRIC_EXPORT_TIMEOUT":  {"`OTEL_METRIC_EXPORT_TIMEOUT` | Maximum allowed time", "| 30000 |"},
		"OTEL_METRIC_EXPORT_INTERVAL": {"`OTEL_METRIC_EXPORT_INTERVAL` | The time interval", "| 60000 |"},
		"metric export timeout":       {"`OTEL_METRIC_EXPORT_TIMEOUT` |", "| 30000 |"},
	} {
		for _, text := range []string{envTable, strings.Replace(envTable, envDelimiter, strings.Repeat(" ", len(envDelimiter)-1)+"\n", 1)} {
			got := Snippet(text, q, docir.SnippetMax)
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("%q: snippet %q does not hold %q", q, got, w)
				}
			}
			if len(got) > docir.SnippetMax {
				t.Errorf("%q: snippet of %d bytes", q, len(got))
			}
		}
	}
}

// TestMatchSpansIdentifierParts: the query's words are cut from it at
// every rune that is not a letter, digit or mark, '_' too, and they match
// in text where a word or an identifier's part starts; a plural's stem
// is the word's.
func TestMatchSpansIdentifierParts(t *testing.T) {
	text := "`OTEL_METRIC_EXPORT_TIMEOUT`, MAX_BUDGET, subbudget, span limits"
	for _, tc := range []struct {
		query string
		want  []Span
	}{
		{"OTEL_METRIC_EXPORT_TIMEOUT", []Span{{1, 5, "otel"}, {6, 12, "metric"}, {13, 19, "export"}, {20, 27, "timeout"}}},
		{"budget", []Span{{34, 40, "budget"}}},
		{"span limit", []Span{{53, 57, "span"}, {58, 63, "limit"}}},
		{"limits", []Span{{58, 64, "limits"}}},
	} {
		if diff := cmp.Diff(tc.want, MatchSpans(text, tc.query)); diff != "" {
			t.Errorf("%q (-want +got)\n%s", tc.query, diff)
		}
	}
	if diff := cmp.Diff([]Span{{0, 5, "limits"}, {10, 16, "limits"}}, MatchSpans("LIMIT and limits", "limits")); diff != "" {
		t.Errorf("a plural's stem is the word's (-want +got)\n%s", diff)
	}
}

// TestDensest: of the runs of spans no wider than the window, one with
// the most distinct words, then the narrowest, then the first.
func TestDensest(t *testing.T) {
	for _, tc := range []struct {
		name     string
		spans    []Span
		width    int
		from, to int
	}{
		{"more words over fewer", []Span{{0, 2, "a"}, {3, 5, "b"}, {50, 52, "a"}, {60, 62, "b"}, {70, 72, "c"}}, 30, 50, 72},
		{"narrower of as many", []Span{{0, 2, "a"}, {20, 22, "b"}, {50, 52, "a"}, {53, 55, "b"}}, 30, 50, 55},
		{"first of as narrow", []Span{{0, 2, "a"}, {3, 5, "b"}, {50, 52, "a"}, {53, 55, "b"}}, 30, 0, 5},
		{"not wider than the window", []Span{{0, 2, "a"}, {3, 5, "b"}, {6, 8, "c"}, {50, 52, "a"}, {53, 55, "b"}}, 5, 0, 5},
		{"a word wider than the window", []Span{{0, 40, "long"}, {50, 52, "a"}}, 30, 50, 52},
	} {
		if from, to := densest(tc.spans, tc.width); from != tc.from || to != tc.to {
			t.Errorf("%s: [%d, %d), want [%d, %d)", tc.name, from, to, tc.from, tc.to)
		}
	}
}

// oracleWords are the words of TestDensestOracle's spans: words, and a
// run of Han whose match counts as each of its pairs (units), which
// other spans match alone.
var oracleWords = []string{"0", "1", "2", "3", "计算属性缓存", "计算", "属性", "缓存", "哈哈哈"}

// TestDensestOracle holds densest, two passes of two pointers, to a
// search of every run of spans.
func TestDensestOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 2000 {
		var spans []Span
		at := 0
		for range 1 + r.IntN(20) {
			at += r.IntN(30)
			w := 1 + r.IntN(8)
			spans = append(spans, Span{at, at + w, oracleWords[r.IntN(len(oracleWords))]})
			at += w
		}
		width := 5 + r.IntN(60)
		most, from, to := 0, 0, -1
		for i := range spans {
			seen := map[string]bool{}
			for j := i; j < len(spans) && spans[j].End-spans[i].Start <= width; j++ {
				for _, u := range units(spans[j].Word) {
					seen[u] = true
				}
				wide := spans[j].End - spans[i].Start
				if len(seen) > most || len(seen) == most && (wide < to-from || wide == to-from && spans[j].End < to) {
					most, from, to = len(seen), spans[i].Start, spans[j].End
				}
			}
		}
		if most == 0 {
			continue // no span fits the window
		}
		if gotFrom, gotTo := densest(spans, width); gotFrom != from || gotTo != to {
			t.Fatalf("case %d: %v width %d: [%d, %d), want [%d, %d)", n, spans, width, gotFrom, gotTo, from, to)
		}
	}
}

// BenchmarkSnippet cuts the snippet of a section of a table of n rows
// whose every row says some of the query's words: the cost is linear in
// the section's size.
func BenchmarkSnippet(b *testing.B) {
	for _, rows := range []int{10, 100, 1000} {
		var sb strings.Builder
		sb.WriteString("| Name | Description | Default |\n|---|---|---|\n")
		for i := range rows {
			fmt.Fprintf(&sb, "| `OTEL_METRIC_EXPORT_%d` | Time (in milliseconds) to export data. | %d |\n", i, i)
		}
		text := sb.String()
		b.Run(fmt.Sprint(rows), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Snippet(text, "OTEL_METRIC_EXPORT_TIMEOUT", docir.SnippetMax)
			}
		})
	}
}

// TestSnippetHeadingSaysCJKQuery: a heading that says a query written
// without spaces whole is the snippet's start, not a later place where
// its pairs of characters stand scattered (the whole run counts as every
// pair: units).
func TestSnippetHeadingSaysCJKQuery(t *testing.T) {
	text := "计算属性缓存 vs 方法\n\n你可能注意到我们在表达式中像这样调用一个函数也会获得和计算属性相同的结果。" +
		strings.Repeat("这是一段很长的说明文字。", 20) + "计算属性值会基于其响应式依赖被缓存。"
	if got := Snippet(text, "计算属性缓存", docir.SnippetMax); !strings.HasPrefix(got, "计算属性缓存 vs 方法") {
		t.Errorf("snippet %q does not start at the heading", got)
	}
}

// FuzzSnippet: a snippet of any text is at most limit bytes, valid UTF-8
// when the text is, and says only what the text says, in order: its
// letters and digits are a run of the text's, some left out (marks and
// markup dropped, a window of it cut).
func FuzzSnippet(f *testing.F) {
	for _, s := range []string{"**Note:** the `_` of _emphasis_", "[a](b) . x", "snake_case 2 * 3", "# T\n\n> [!NOTE]\n> x", "日本 **語**"} {
		f.Add(s, "note", 80)
	}
	f.Fuzz(func(t *testing.T, text, query string, limit int) {
		limit = 40 + (limit%400+400)%400
		got := Snippet(text, query, limit)
		if len(got) > limit {
			t.Errorf("Snippet is %d bytes, over %d", len(got), limit)
		}
		if !utf8.ValidString(text) {
			return
		}
		if !utf8.ValidString(got) {
			t.Errorf("Snippet of valid text is not valid UTF-8: %q", got)
		}
		words := func(s string) []rune {
			var out []rune
			for _, r := range s {
				if unicode.IsLetter(r) || unicode.IsDigit(r) {
					out = append(out, r)
				}
			}
			return out
		}
		in, out := words(text), words(got)
		k := 0
		for _, r := range in {
			if k < len(out) && out[k] == r {
				k++
			}
		}
		if k < len(out) {
			t.Errorf("Snippet %q says what the text %q does not, or not in order", got, text)
		}
	})
}
