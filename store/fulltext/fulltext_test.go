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
		{"english", "Archives of the docir's Indexes", []string{"archive", "docir", "index", "archive of", "of the", "the docir"}, []string{"archives", "docir's"}},
		{"pairs", "topological sort", []string{"topological", "sort", "topological sort"}, nil},
		{"cyrillic", "Поиск по документам", []string{"поиск", "по", "документам", "поиск по"}, nil},
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
		{"en#tar", "tar\nArchiving utility. Often combined with a compression method."},
		{"en#sort", "sort\nSort lines of text files."},
		{"en#tsort", "tsort\nPerform a topological sort."},
		{"ru#tar", "tar\nУтилита для архивации. Часто используется вместе с методами сжатия."},
		{"uk#sort", "sort\nСортувати рядки текстових файлів."},
		{"zh#tar", "tar\n归档实用程序。通常与压缩方法结合使用。"},
		{"ja#tar", "tar\nアーカイブユーティリティ。圧縮方法と組み合わせて使われることが多い。"},
		{"ko#tar", "tar\n아카이빙 유틸리티. 압축 방법과 함께 사용되는 경우가 많습니다."},
		{"th#tar", "tar\nยูทิลิตี้สำหรับเก็บถาวร มักใช้ร่วมกับวิธีการบีบอัด"},
		{"hi#tar", "tar\nसंग्रह उपयोगिता। अक्सर संपीड़न विधि के साथ संयुक्त।"},
		{"ar#tar", "tar\nأداة الأرشفة. غالبًا ما تُستخدم مع طريقة ضغط."},
		{"el#tar", "tar\nΒοηθητικό πρόγραμμα αρχειοθέτησης."},
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
	// Paging goes on where the first page stopped.
	all, _, _ := x.Search(context.Background(), "tar", 20)
	page, _, _ := x.SearchPage(context.Background(), "tar", 20, 2)
	if len(all) < 3 || len(page) != len(all)-2 || page[0].ID != all[2].ID {
		t.Errorf("SearchPage from 2: %v, all %v", page, all)
	}
}

// FuzzTokenizer: tokens are the input's own bytes, in order, never empty.
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
			if len(tok.Term) == 0 || tok.Start < last || tok.End > len(in) || string(in[tok.Start:tok.End]) != string(tok.Term) {
				t.Fatalf("%q: bad token %+v", s, tok)
			}
			if utf8.ValidString(s) && !utf8.Valid(tok.Term) {
				t.Fatalf("%q: token %q cuts a character", s, tok.Term)
			}
			last = tok.End
		}
		analyzeTerms(an, s)
	})
}

// TestWithin: a document's sections compared on the query's words beyond
// the title; nothing when the query shares no word with the title, or has
// no other word.
func TestWithin(t *testing.T) {
	x, err := Create(filepath.Join(t.TempDir(), "ft"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	title := "Retry budget for outbound calls"
	passages := []Passage{
		{"d#retry-budget-for-outbound-calls", "# Retry budget for outbound calls"},
		{"d#decision", title + "\n## Decision\n\nEvery client gets a retry budget: retries may add at most 10% to the calls a client makes."},
		{"d#examples", title + "\n### Examples\n\nA client making 200 calls per window may retry 20."},
		{"e#x", "Retry examples elsewhere"},
	}
	if err := x.Apply(nil, passages); err != nil {
		t.Fatal(err)
	}
	ids := []string{"d", "d#retry-budget-for-outbound-calls", "d#decision", "d#examples"}
	ctx := context.Background()
	got, err := x.Within(ctx, "retry budget examples", title, ids)
	if err != nil || len(got) == 0 || got[0].ID != "d#examples" {
		t.Errorf("retry budget examples: %v, %v", got, err)
	}
	for _, id := range got {
		if id.ID == "e#x" {
			t.Errorf("a passage outside ids: %v", got)
		}
	}
	if got, _ := x.Within(ctx, "retry budget", title, ids); len(got) != 0 {
		t.Errorf("title words only: %v", got)
	}
	if got, _ := x.Within(ctx, "client window", title, ids); len(got) != 0 {
		t.Errorf("no title word: %v", got)
	}
}
