package fulltext

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/unicode/norm"
)

func analyzer(t testing.TB) analysis.Analyzer {
	t.Helper()
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	an := m.AnalyzerNamed(AnalyzerName)
	if an == nil {
		t.Fatal("no analyzer")
	}
	return an
}

// TestAnalyzer pins what the analysis keeps of each kind of text: the terms
// a query in that language must produce to find it.
func TestAnalyzer(t *testing.T) {
	an := analyzer(t)
	tests := []struct {
		name, text string
		want       []string // must all be among the terms
		not        []string // must not be
	}{
		{"english", "Archives of the docir's Indexes", []string{"archive", "docir", "index"}, []string{"archives", "docir's", "archive of"}},
		{"no pairs", "topological sort", []string{"topological", "sort"}, []string{"topological sort"}},
		{"cyrillic", "Поиск по документам", []string{"поиск", "по", "документам"}, nil},
		{"dotted", "use strings.Contains here", []string{"string", "contain", "use", "here"}, []string{"strings.contain"}},
		{"camel", "ByLinkTitle and HTMLParser", []string{"by", "link", "title", "html", "parser"}, []string{"bylinktitle", "htmlparser"}},
		{"hyphen", "run kube-scheduler now", []string{"kube", "scheduler", "run", "now"}, []string{"kube-scheduler"}},
		{"hyphen camel", "Get-ChildItem", []string{"get", "child", "item"}, []string{"get-childitem", "childitem"}},
		{"underscore", "about_Classes", []string{"about", "class"}, []string{"about_class"}},
		{"plain", "well known", []string{"well", "known"}, []string{"well-known"}},
		{"spaced hyphen", "a - b", []string{"a", "b"}, []string{"a-b"}},
		{"han", "检索命令返回", []string{"检索", "索命", "命令", "令返", "返回"}, []string{"检"}},
		{"kana", "このコマンドは", []string{"この", "コマ", "マン", "ンド"}, nil},
		{"hangul particles", "명령에서 찾은", []string{"명령", "령에", "에서", "찾은"}, []string{"명령에서"}},
		{"hangul beside latin", "API를 호출", []string{"api", "를", "호출"}, nil},
		{"thai", "คำสั่งนี้", []string{"คำ", "ำส", "สั"}, nil},
		{"lao", "ຄຳສັ່ງ", []string{"ຄຳ"}, nil},
		{"devanagari", "इतिहास में पाए गए", []string{"इतिहास", "में", "पाए", "गए"}, nil},
		{"arabic", "توسِّع متغيرات", []string{"توسِّع", "متغيرات"}, nil},
		{"full width", "ＡＰＩ", []string{"api"}, nil},
	}
	for _, tt := range tests {
		got := analyzeTerms(an, tt.text)
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: %q: no term %q in %q", tt.name, tt.text, w, got)
			}
		}
		for _, w := range tt.not {
			if slices.Contains(got, w) {
				t.Errorf("%s: %q: term %q should not be in %q", tt.name, tt.text, w, got)
			}
		}
	}
}

func TestAnalyzerBoundsQueryTerms(t *testing.T) {
	var b strings.Builder
	for i := range 1000 { // 1000 distinct words, and their pairs
		b.WriteString("word" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + " ")
	}
	if n := len(analyzeTerms(analyzer(t), b.String())); n != MaxQueryTerms {
		t.Errorf("%d terms, want the bound %d", n, MaxQueryTerms)
	}
}

// TestSearchLanguages indexes passages in many scripts and searches each
// with a few of its own words: it must come first.
func TestSearchLanguages(t *testing.T) {
	passages := []Passage{
		{ID: "en#tar", Text: "tar\nArchiving utility. Often combined with a compression method."},
		{ID: "en#sort", Text: "sort\nSort lines of text files."},
		{ID: "en#tsort", Text: "tsort\nPerform a topological sort."},
		{ID: "ru#tar", Text: "tar\nУтилита для архивации. Часто используется вместе с методами сжатия."},
		{ID: "uk#sort", Text: "sort\nСортувати рядки текстових файлів."},
		{ID: "zh#tar", Text: "tar\n归档实用程序。通常与压缩方法结合使用。"},
		{ID: "ja#tar", Text: "tar\nアーカイブユーティリティ。圧縮方法と組み合わせて使われることが多い。"},
		{ID: "ko#tar", Text: "tar\n아카이빙 유틸리티. 압축 방법과 함께 사용되는 경우가 많습니다."},
		{ID: "th#tar", Text: "tar\nยูทิลิตี้สำหรับเก็บถาวร มักใช้ร่วมกับวิธีการบีบอัด"},
		{ID: "hi#tar", Text: "tar\nसंग्रह उपयोगिता। अक्सर संपीड़न विधि के साथ संयुक्त।"},
		{ID: "ar#tar", Text: "tar\nأداة الأرشفة. غالبًا ما تُستخدم مع طريقة ضغط."},
		{ID: "el#tar", Text: "tar\nΒοηθητικό πρόγραμμα αρχειοθέτησης."},
	}
	x, err := Create(filepath.Join(t.TempDir(), "ft"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Apply(nil, passages); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ q, want string }{
		{"topological sort", "en#tsort"},
		{"sort lines", "en#sort"},
		{"archiving utility", "en#tar"},
		{"архивации", "ru#tar"},
		{"методами сжатия", "ru#tar"},
		{"рядки файлів", "uk#sort"},
		{"压缩方法", "zh#tar"},
		{"归档", "zh#tar"},
		{"圧縮方法", "ja#tar"},
		{"アーカイブ", "ja#tar"},
		{"압축 방법", "ko#tar"},
		{"아카이빙", "ko#tar"},
		{"เก็บถาวร", "th#tar"},
		{"บีบอัด", "th#tar"},
		{"संपीड़न विधि", "hi#tar"},
		{"الأرشفة", "ar#tar"},
		{"αρχειοθέτησης", "el#tar"},
	}
	for _, tt := range tests {
		got, total, err := x.Search(context.Background(), tt.q, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0].ID != tt.want {
			t.Errorf("search %q: got %v (total %d), want %s first", tt.q, got, total, tt.want)
		}
	}
	// Nothing to search for: no terms, no error.
	if got, _, err := x.Search(context.Background(), "  ,. ", 3); err != nil || len(got) != 0 {
		t.Errorf("punctuation-only query: %v, %v", got, err)
	}
}

// TestRescore: text with the query's words in the query's order scores
// above text with the same words apart, and shorter text above longer;
// Equal holds up to case, plurals and punctuation.
func TestRescore(t *testing.T) {
	x, err := Create(filepath.Join(t.TempDir(), "ft"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	ps := []Passage{
		{ID: "a", Text: "sort the lines of a file"},
		{ID: "b", Text: "lines sort of a file"},
		{ID: "c", Text: "other words entirely"},
	}
	if err := x.Apply(nil, ps); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	q, err := x.Prepare(ctx, "sort the lines")
	if err != nil {
		t.Fatal(err)
	}
	inOrder, apart := x.Rescore(q, ps[0].Text), x.Rescore(q, ps[1].Text)
	if inOrder <= apart || apart <= 0 {
		t.Errorf("in order %v, apart %v: want in order > apart > 0", inOrder, apart)
	}
	if got := x.Rescore(q, ps[2].Text); got != 0 {
		t.Errorf("no query word: %v, want 0", got)
	}
	if long := x.Rescore(q, ps[0].Text+" and then a great many more words after it"); long >= inOrder {
		t.Errorf("longer text %v, shorter %v: want shorter above", long, inOrder)
	}
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"Sort the lines", true},
		{"sort, the LINE", true},
		{"sort the lines of", false},
		{"lines the sort", false},
	} {
		if got := x.Equal(q, tt.text); got != tt.want {
			t.Errorf("Equal(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestRescoreReaderOrder: adjacency is a reader's (inline code and link
// markup between two words are read past, a code fence is not), and a text
// holding the query's whole run outranks a shorter one holding part of it
// (up to a point: the run factor at most halves a score, so a text several
// times as long as the other is not lifted above it).
func TestRescoreReaderOrder(t *testing.T) {
	x, err := Create(filepath.Join(t.TempDir(), "ft"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	filler := strings.Repeat("other words about something else entirely here. ", 3)
	ps := []Passage{
		{ID: "code", Text: "render the diagrams as `figure` elements"},
		{ID: "plain", Text: "render the diagrams as figure elements"},
		{ID: "fenced", Text: "can't evaluate field in type int\n```\n\nThe error occurs because"},
		{ID: "indented", Text: "can't evaluate field in type int\n\nThe error occurs because"},
		{ID: "whole", Text: "Snap is a free and open package manager for Linux. Available for most distributions. " + filler},
		{ID: "part", Text: "Scoop is a free and open package manager for Windows."},
		{ID: "filler", Text: filler},
	}
	if err := x.Apply(nil, ps); err != nil {
		t.Fatal(err)
	}
	text := map[string]string{}
	for _, p := range ps {
		text[p.ID] = p.Text
	}
	ctx := context.Background()
	for _, tt := range []struct {
		query, above, below string
		same                bool // score alike
	}{
		{"diagrams as elements", "code", "plain", false},
		{"diagrams as figure elements", "code", "plain", true}, // the code's words still count
		{"int The error occurs", "indented", "fenced", false},
		{"free and open package manager for Linux. Available for most", "whole", "part", false},
	} {
		q, err := x.Prepare(ctx, tt.query)
		if err != nil {
			t.Fatal(err)
		}
		above, below := x.Rescore(q, text[tt.above]), x.Rescore(q, text[tt.below])
		if tt.same {
			if above != below || above == 0 {
				t.Errorf("%q: %s scores %v, %s %v: want them alike", tt.query, tt.above, above, tt.below, below)
			}
			continue
		}
		if above <= below {
			t.Errorf("%q: %s scores %v, %s %v: want %s above", tt.query, tt.above, above, tt.below, below, tt.above)
		}
	}
}

// TestMarkup pins what a reader reads past, and where fences are.
func TestMarkup(t *testing.T) {
	for _, tt := range []struct {
		text   string
		spans  []string
		fences int
	}{
		{"as `figure` elements", []string{"`figure`"}, 0},
		{"a ``co`de`` b", []string{"``co`de``"}, 0},
		{"an `unclosed\n\nspan`", nil, 0},
		{"see [the docs](/a/b#c) and [more][ref].", []string{"(/a/b#c)", "[ref]"}, 0},
		{"a <figure class=x> b </figure>", []string{"<figure class=x>", "</figure>"}, 0},
		{"use {{ .Title }} here, 1 < 2", []string{"{{ .Title }}"}, 0},
		{"text\n```go\ncode\n```\nmore", []string{"```go", "```"}, 2},
		{"> ~~~\n", []string{"> ~~~"}, 1},
		{"[[menus.main]]", nil, 0},
		{"a \\`b [c](d) `e`", []string{"(d)", "`e`"}, 0}, // an escaped backtick opens no span
	} {
		spans, fences := markup(tt.text)
		var got []string
		for _, s := range spans {
			got = append(got, tt.text[s[0]:s[1]])
		}
		if diff := cmp.Diff(tt.spans, got); diff != "" {
			t.Errorf("markup(%q) spans (-want +got):\n%s", tt.text, diff)
		}
		if len(fences) != tt.fences {
			t.Errorf("markup(%q): %d fences, want %d", tt.text, len(fences), tt.fences)
		}
	}
}

// TestAnalyzeFast: skipping the width and bigram filters on narrow text
// gives the terms the whole chain gives.
func TestAnalyzeFast(t *testing.T) {
	an := analyzer(t)
	for _, text := range []string{"Archives of the docir's Indexes", "strings.Contains kube-scheduler", "ＡＰＩ docs", "检索命令 and tar", "Поиск по документам", "naïve “quoted” café ｶﾞ ﾊﾟ", ""} {
		var want []string
		for _, tok := range an.Analyze([]byte(text)) {
			want = append(want, string(tok.Term))
		}
		var got []string
		for _, tok := range analyzeFast(an, text) {
			got = append(got, string(tok.Term))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: fast %q, full %q", text, got, want)
		}
	}
}

// FuzzTokenizer: tokens are the input's own bytes in normalization form C,
// never empty, starting in order.
func FuzzTokenizer(f *testing.F) {
	for _, s := range []string{"hello world", "API를 호출", "คำสั่งนี้", "检索命令", "a\u0301b", "", "\xff\xfe"} {
		f.Add(s)
	}
	tk, err := registry.NewCache().TokenizerNamed(TokenizerName)
	if err != nil {
		f.Fatal(err)
	}
	an := analyzer(f)
	f.Fuzz(func(t *testing.T, s string) {
		in := []byte(s)
		last := 0
		for _, tok := range tk.Tokenize(in) {
			if len(tok.Term) == 0 || tok.Start < last || tok.End > len(in) || string(norm.NFC.Bytes(in[tok.Start:tok.End])) != string(tok.Term) {
				t.Fatalf("%q: bad token %+v", s, tok)
			}
			if utf8.ValidString(s) && !utf8.Valid(tok.Term) {
				t.Fatalf("%q: token %q cuts a character", s, tok.Term)
			}
			last = tok.Start
		}
		analyzeTerms(an, s)
	})
}
