package fulltext

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"golang.org/x/text/unicode/norm"
)

// refTokenizer is docir's tokenizer without the ASCII fast path: the
// Unicode segmenter for every text.
type refTokenizer struct{}

func (refTokenizer) Tokenize(input []byte) analysis.TokenStream {
	toks := identifiers(input, segmentUnicode(input, 0, nil))
	for _, t := range toks {
		t.Term = norm.NFC.Bytes(t.Term)
	}
	return toks
}

// refChain is docir's analysis chain as bleve runs it at index time, with
// the reference tokenizer: every filter on every token.
func refChain(t testing.TB) *analysis.DefaultAnalyzer {
	an := analyzer(t).(*analysis.DefaultAnalyzer)
	return &analysis.DefaultAnalyzer{Tokenizer: refTokenizer{}, TokenFilters: an.TokenFilters}
}

func fast(t testing.TB) *fastAnalyzer {
	f := newFastAnalyzer(analyzer(t))
	if f == nil {
		t.Fatal("docir's mapping has no fast analyzer")
	}
	return f
}

type tok struct {
	Term            string
	Start, End, Pos int
	Type            analysis.TokenType
}

func toks(ts analysis.TokenStream) []tok {
	out := make([]tok, len(ts))
	for i, t := range ts {
		out[i] = tok{string(t.Term), t.Start, t.End, t.Position, t.Type}
	}
	return out
}

func sortedTerms(ts analysis.TokenStream) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t.Term)
	}
	slices.Sort(out)
	return out
}

// checkSame fails unless the fast analyzer gives text the tokens the chain
// gives it at query time (analyzeChain: terms, offsets, positions, types),
// and the terms, with their counts, that the whole chain gives it at index
// time.
func checkSame(t *testing.T, f *fastAnalyzer, ref *analysis.DefaultAnalyzer, text string) {
	t.Helper()
	checkSegments(t, text)
	got := f.Analyze([]byte(text))
	query := analyzeChain(ref, []byte(text))
	if d := cmp.Diff(toks(query), toks(got)); d != "" {
		t.Fatalf("%q: fast analyzer differs from the chain (-chain +fast):\n%s", text, d)
	}
	full := ref.Analyze([]byte(text))
	if d := cmp.Diff(sortedTerms(full), sortedTerms(got)); d != "" {
		t.Fatalf("%q: fast analyzer's terms differ from the whole chain's (-chain +fast):\n%s", text, d)
	}
	field := &passageField{value: []byte(text), an: f}
	field.Analyze()
	if d := cmp.Diff(chainFreqs(t, ref, full, got, text), freqs(field.freqs)); d != "" || field.length != len(full) {
		t.Fatalf("%q: passage field's terms differ from the whole chain's (-chain +field; %d terms, %d):\n%s", text, len(full), field.length, d)
	}
}

// chainFreqs is what a passage field of text holds by the chain ref itself:
// the terms full of its analysis, and each catenation (see Catenations)
// of the terms toks (the same terms, whose offsets are text's), catTerm
// of what the chain makes of its bytes lower-cased without their hyphens,
// one word.
func chainFreqs(t *testing.T, ref *analysis.DefaultAnalyzer, full, toks analysis.TokenStream, text string) map[string]int {
	t.Helper()
	out := freqs(analysis.TokenFrequency(full, nil, index.IndexField))
	eachCatenation(text, toks, func(from, to int) {
		one := ref.Analyze([]byte(strings.ToLower(strings.ReplaceAll(text[from:to], "-", ""))))
		if len(one) != 1 {
			t.Fatalf("%q: catenation %q is %d terms", text, text[from:to], len(one))
		}
		out[catTerm(string(one[0].Term))]++
	})
	return out
}

func freqs(tfs index.TokenFrequencies) map[string]int {
	out := map[string]int{}
	for k, tf := range tfs {
		if string(tf.Term) != k {
			out[k+" (term "+string(tf.Term)+")"] = -1
		}
		out[k] = tf.Frequency()
	}
	return out
}

// TestSegmentASCII: the ASCII segmentation is the Unicode segmenter's on
// every ASCII string of up to four bytes over the bytes its rules treat
// apart (letters, digits, the joiners, the underscore, quotes, line ends,
// others).
func TestSegmentASCII(t *testing.T) {
	alphabet := []byte("aZ7_.:',;\"\r\n -")
	n := 4 // 5 takes ten seconds; FuzzFastAnalyzer goes further
	buf := make([]byte, 0, n)
	var walk func()
	walk = func() {
		in := string(buf)
		if d := cmp.Diff(segmentUnicode([]byte(in), 0, nil), segmentASCII([]byte(in), 0, nil), cmp.AllowUnexported(word{}), cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("%q (-segmenter +ascii):\n%s", in, d)
		}
		if len(buf) == n {
			return
		}
		for _, c := range alphabet {
			buf = append(buf, c)
			walk()
			buf = buf[:len(buf)-1]
		}
	}
	walk()
}

// checkSegments fails unless segmentWords cuts s as the Unicode segmenter
// does on the whole of it.
func checkSegments(t *testing.T, s string) {
	t.Helper()
	if d := cmp.Diff(segmentUnicode([]byte(s), 0, nil), segmentWords([]byte(s), nil), cmp.AllowUnexported(word{}), cmpopts.EquateEmpty()); d != "" {
		t.Fatalf("%q (-segmenter +pieces):\n%s", s, d)
	}
}

// TestSegmentWords: text that mixes ASCII with other scripts, marks and
// line ends segments piece by piece as the segmenter segments the whole.
func TestSegmentWords(t *testing.T) {
	parts := []string{"a", "Z9", " ", "\t", "\r", "\n", "\r\n", "é", "\u0301", "\u0E31", "检索", "ｶﾞ", "’s", "'", ".", "_", "-", "—", "\u200d", "😀", "\v"}
	var walk func(s string, n int)
	walk = func(s string, n int) {
		checkSegments(t, s)
		if n == 0 {
			return
		}
		for _, p := range parts {
			walk(s+p, n-1)
		}
	}
	walk("", 3) // 4 takes fifteen seconds; FuzzFastAnalyzer goes further
}

// TestFastAnalyzer: the fast analyzer gives what the chain gives, on text
// of every kind the chain treats apart, ASCII and not.
func TestFastAnalyzer(t *testing.T) {
	f, ref := fast(t), refChain(t)
	for _, text := range []string{
		"", "Archives of the docir's Indexes", "strings.Contains kube-scheduler Get-ChildItem about_Classes",
		"ByLinkTitle and HTMLParser, XMLHttpRequest2 a1.2 1,000.5 3.14's _private __init__ _1 1_a",
		"policies boxes axes shoes canoes potatoes wishes classes churches caches aches heartaches buses bus's yes is us",
		"It's the users' RFCs: a:b, std::mem, x.'s, O'Neil's, rock'n'roll, e.g., i.e. v1.2.3-rc.1",
		"snake_CASE_Words, kebab-case-words-that-go-on-and-on-and-on-and-on, a--b, -flag --long-flag",
		"\tTabs\r\nand CRLF\vvertical\fform feed \"quoted\" (parens) [brackets] {braces} <html> #hash $dollar",
		"ＡＰＩ docs", "检索命令 and tar", "Поиск по документам", "naïve “quoted” café ｶﾞ ﾊﾟ", "API를 호출",
		"docir’s index", "Straße STRASSE İstanbul", "mixed ASCII_Words then ünïcödé",
		// Decomposed: "café" as "e" + U+0301, Bengali য় as য + ◌়,
		// Hangul in conjoining jamo, a decomposed word in an identifier.
		"cafe\u0301 Cafe\u0301s", "\u09af\u09bc\u09be", "\u1112\u1161\u11ab\u1100\u116e\u11a8", "Re\u0301sume\u0301Parser a.e\u0301",
	} {
		checkSame(t, f, ref, text)
	}
}

// TestComposedTerms: text and queries are compared in normalization form
// C, so a word written decomposed and the same word typed composed are one
// term, in every path of analysis (the fast analyzer, the chain, the
// passage field's counts).
func TestComposedTerms(t *testing.T) {
	f, an := fast(t), analyzer(t)
	for _, c := range []struct{ a, b string }{
		{"cafe\u0301 menus", "caf\u00e9 menus"},                        // Latin: e + combining acute, é
		{"\u095e\u093e\u0907\u0932", "\u092b\u093c\u093e\u0907\u0932"}, // Hindi फ़ाइल: U+095E, and फ + nukta (its NFC)
		{"\u09df\u09be", "\u09af\u09bc\u09be"},                         // Bengali য়া: U+09DF, and য + nukta
		{"\u1112\u1161\u11ab\u1100\u116e\u11a8", "\ud55c\uad6d"},       // Korean 한국: conjoining jamo, syllables
	} {
		want := analyzeTerms(an, c.b)
		if got := analyzeTerms(an, c.a); !slices.Equal(got, want) {
			t.Errorf("%q: chain terms %q, %q gives %q", c.a, got, c.b, want)
		}
		if got, want := sortedTerms(f.Analyze([]byte(c.a))), sortedTerms(f.Analyze([]byte(c.b))); !slices.Equal(got, want) {
			t.Errorf("%q: fast analyzer terms %q, %q gives %q", c.a, got, c.b, want)
		}
		field := &passageField{value: []byte(c.a), an: f}
		field.Analyze()
		for _, term := range want {
			if field.freqs[term] == nil {
				t.Errorf("%q: passage field lacks the term %q of %q (has %v)", c.a, term, c.b, freqs(field.freqs))
			}
		}
	}
}

// TestFastAnalyzerCorpus compares the fast analyzer with the chain on
// every passage of a corpus dump ($DOCIR_PASSAGES: JSON lines of
// passages), when there is one.
func TestFastAnalyzerCorpus(t *testing.T) {
	ps, _ := loadPassages(t)
	f, ref := fast(t), refChain(t)
	for _, p := range ps {
		checkSame(t, f, ref, p.Text)
	}
}

// FuzzFastAnalyzer: the fast analyzer gives what the chain gives, and the
// ASCII segmentation what the Unicode segmenter gives.
func FuzzFastAnalyzer(f *testing.F) {
	for _, s := range []string{"hello world", "strings.Contains's", "a1.2_b:c", "1,000;2", "policies", "API를", "x\u0301y", "\xff"} {
		f.Add(s)
	}
	fa, ref := fast(f), refChain(f)
	var sc scratch // reused from input to input, as a search reuses it from passage to passage
	f.Fuzz(func(t *testing.T, s string) {
		// Into scratch: twice without a reset (a long passage's
		// paragraphs), each the same as Analyze, the first unchanged by
		// the second.
		sc.reset()
		first := fa.analyzeInto(&sc, s)
		second := fa.analyzeInto(&sc, s)
		want := tokenStrings(fa.Analyze([]byte(s)))
		if d := cmp.Diff(want, tokenStrings(first)); d != "" {
			t.Fatalf("%q: analyzeInto, then again (-Analyze +the first):\n%s", s, d)
		}
		if d := cmp.Diff(want, tokenStrings(second)); d != "" {
			t.Fatalf("%q: analyzeInto a second time (-Analyze +into):\n%s", s, d)
		}
		if isASCII([]byte(s)) {
			if d := cmp.Diff(segmentUnicode([]byte(s), 0, nil), segmentASCII([]byte(s), 0, nil), cmp.AllowUnexported(word{}), cmpopts.EquateEmpty()); d != "" {
				t.Fatalf("%q (-segmenter +ascii):\n%s", s, d)
			}
		}
		checkSegments(t, s)
		checkSame(t, fa, ref, s)
	})
}

// TestStemASCII: the ASCII stemmer is the plural stemmer filter on words
// of every ending its rules read: the chain's (PluralName), and bleve's
// stemmer_en_plural, which stores indexed before PluralName keep (their
// fast analyzer follows it).
func TestStemASCII(t *testing.T) {
	var words []string
	for _, w := range []string{"", "s", "es", "ies", "xes", "oes", "shes", "sses", "ches", "us", "ss", "ys", "uses", "uss", "ie", "ye"} {
		for _, pre := range []string{"", "a", "ab", "abc", "c", "h", "o", "x", "i", "ca", "cach", "head", "b", "can", "sh", "men", "stat", "cook", "mov"} {
			words = append(words, pre+w)
		}
	}
	words = append(words, oesExceptions...)
	words = append(words, chesExceptions...)
	chain := analyzer(t).(*analysis.DefaultAnalyzer)
	old := &analysis.DefaultAnalyzer{Tokenizer: chain.Tokenizer, TokenFilters: slices.Clone(chain.TokenFilters)}
	old.TokenFilters[4] = en.NewEnglishPluralStemmerFilter()
	for _, an := range []*analysis.DefaultAnalyzer{chain, old} {
		fa := newFastAnalyzer(an)
		if fa == nil {
			t.Fatalf("no fast analyzer for the chain with %T", an.TokenFilters[4])
		}
		for _, w := range words {
			want := string(an.TokenFilters[4].Filter(analysis.TokenStream{{Term: []byte(w)}})[0].Term)
			if got := string(fa.stem([]byte(w))); got != want {
				t.Errorf("%T: stem(%q) = %q, want %q", an.TokenFilters[4], w, got, want)
			}
		}
	}
	for w, want := range map[string]string{"menus": "menu", "cpus": "cpu", "status": "statu", "class": "class", "us": "us", "policies": "policy", "cookie": "cooky", "cookies": "cooky", "pie": "pie", "pies": "pie", "tie": "tie", "genie": "geny"} {
		if got := string(fast(t).stem([]byte(w))); got != want {
			t.Errorf("stem(%q) = %q, want %q", w, got, want)
		}
	}
}

// TestPassageDocument: a passage's document is the one bleve's mapping
// makes of it, field for field, but for the analyzer.
func TestPassageDocument(t *testing.T) {
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	p := Passage{ID: "a#b", Text: "Some Words here"}
	want := document.NewDocument(p.ID)
	if err := m.MapDocument(want, passageDoc{Text: p.Text, Head: p.Head}); err != nil {
		t.Fatal(err)
	}
	got := passageDocument(p, fast(t))
	describe := func(d *document.Document) string {
		var b strings.Builder
		fmt.Fprintf(&b, "id %s indexed %v\n", d.ID(), d.Indexed())
		for _, f := range d.Fields {
			fmt.Fprintf(&b, "field %s %v %q %v %c %d\n", f.Name(), f.Options(), f.Value(), f.ArrayPositions(), f.EncodedFieldType(), f.NumPlainTextBytes())
		}
		for _, c := range d.CompositeFields {
			c.Compose(FieldText, 3, index.TokenFrequencies{})
			fmt.Fprintf(&b, "composite %s %v %d\n", c.Name(), c.Options(), c.AnalyzedLength())
		}
		return b.String()
	}
	if d := cmp.Diff(describe(want), describe(got)); d != "" {
		t.Errorf("passage document differs from the mapping's (-mapping +docir):\n%s", d)
	}
}

// loadPassages reads the passages of $DOCIR_PASSAGES (JSON lines, as
// ingest cuts a corpus: see store/ingest's TestWritePassages) and their
// bytes of text.
func loadPassages(t testing.TB) ([]Passage, int) {
	path := os.Getenv("DOCIR_PASSAGES")
	if path == "" {
		t.Skip("no $DOCIR_PASSAGES")
	}
	b, err := os.ReadFile(filepath.Clean(path))
	if err != nil {
		t.Fatal(err)
	}
	var out []Passage
	size := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var p Passage
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
		size += len(p.Text)
	}
	return out, size
}

// BenchmarkAnalyze analyzes every passage of $DOCIR_PASSAGES as an index
// does, by the whole chain and by the fast analyzer.
func BenchmarkAnalyze(b *testing.B) {
	ps, size := loadPassages(b)
	for _, c := range []struct {
		name string
		an   analysis.Analyzer
	}{{"chain", analyzer(b)}, {"fast", fast(b)}, {"field", fieldAnalyzer{fast(b)}}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range ps {
					c.an.Analyze([]byte(p.Text))
				}
			}
		})
	}
}

// fieldAnalyzer analyzes text as a passage field does, for benchmarks.
type fieldAnalyzer struct{ f *fastAnalyzer }

func (a fieldAnalyzer) Analyze(text []byte) analysis.TokenStream {
	(&passageField{value: text, an: a.f}).Analyze()
	return nil
}

// BenchmarkIndex indexes every passage of $DOCIR_PASSAGES into a new index
// as a from-scratch refresh does: in slices of four batches, then Close.
func BenchmarkIndex(b *testing.B) {
	ps, size := loadPassages(b)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		x, err := Create(filepath.Join(b.TempDir(), fmt.Sprint(i)))
		if err != nil {
			b.Fatal(err)
		}
		for done := 0; done < len(ps); done += 4 * BatchSize {
			if err := x.Apply(nil, ps[done:min(done+4*BatchSize, len(ps))]); err != nil {
				b.Fatal(err)
			}
		}
		if err := x.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// tokenStrings is each token's term, offsets, position and type.
func tokenStrings(toks analysis.TokenStream) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = fmt.Sprintf("%q %d-%d @%d %v", t.Term, t.Start, t.End, t.Position, t.Type)
	}
	return out
}
