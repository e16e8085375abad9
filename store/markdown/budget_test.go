package markdown

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestBudget feeds the shapes on which goldmark v1.8.7 is quadratic or
// heavy (docs/ingest.md) and checks each either parses or stops with
// ErrBudget, never running goldmark to the end. Run as they are, without
// the budget, the first two took 35 s and 17.5 s.
func TestBudget(t *testing.T) {
	cases := []struct {
		name     string
		src      string
		lim      Limits
		err      string // "" when the file parses
		sections int
	}{
		// Inline markup is parsed in headings only, and at most
		// MaxHeadingBytes of each: a page of link openers is linear.
		{name: "link openers", src: strings.Repeat("[a](", 100_000), lim: DefaultLimits},
		{name: "link openers in a heading", src: "# " + strings.Repeat("[a](", 100_000) + "\n", lim: DefaultLimits, sections: 1},
		{name: "link openers in a setext heading", src: strings.Repeat("[a](", 100_000) + "\n===\n", lim: DefaultLimits, sections: 1},
		// A heading's attribute block is read from the last
		// maxAttributeBytes of its line only: goldmark's own attribute
		// parser took 94 s on a heading of 1.5 MB of ".a ".
		{name: "classes in a heading", src: "# {" + strings.Repeat(".a ", 1_000_000) + "}\n", lim: DefaultLimits, sections: 1},
		{name: "attribute openers in headings", src: strings.Repeat("# "+strings.Repeat("{.a ", 80)+"}\n", 9_000), lim: DefaultLimits, sections: 9_000},
		{name: "nested list items", src: strings.Repeat("- ", 100_000) + "x", lim: DefaultLimits, err: "nested more than 32 deep"},
		{name: "nested block quotes", src: strings.Repeat("> ", 100_000), lim: DefaultLimits, err: "nested more than 32 deep"},
		{name: "a million headings", src: strings.Repeat("#\n", 1_000_000), lim: DefaultLimits, err: "more than 200000 lines"},
		{name: "headings", src: strings.Repeat("# a\n", 11), lim: Limits{Headings: 10}, err: "more than 10 headings"},
		{name: "headings at the limit", src: strings.Repeat("# a\n", 10), lim: Limits{Headings: 10}, sections: 10},
		{name: "blocks", src: strings.Repeat("a\n\n", 101), lim: Limits{Blocks: 100}, err: "more than 100 blocks"},
		{name: "lines", src: strings.Repeat("a\n", 101), lim: Limits{Lines: 100}, err: "more than 100 lines"},
		{name: "steps", src: strings.Repeat(strings.Repeat(">", 30)+"b\n", 100), lim: Limits{Lines: 100}, err: "more than 1600 parser steps"},
		// goldmark reads a paragraph's link reference definitions in
		// time that grows with the square of its lines.
		{name: "link reference definitions", src: "# refs\n" + definitions(0, 30_000), lim: DefaultLimits, err: "opens with a link reference definition"},
		{name: "link reference definitions at the bound", src: "# refs\n" + definitions(0, MaxDefinitionLines), lim: DefaultLimits, sections: 1},
		{name: "link reference definitions in paragraphs", src: "# refs\n" + strings.Repeat(definitions(0, 5_000)+"\n", 6), lim: DefaultLimits, sections: 1},
		// A long paragraph that opens with a link or a bracketed note
		// opens with no definition, and is read (it was refused).
		{name: "a long paragraph that opens with a link", src: "# p\n[item](/x) and\n" + strings.Repeat("more words\n", 30_000), lim: DefaultLimits, sections: 1},
		{name: "a long paragraph that opens with a note", src: "# p\n[3] see\n" + strings.Repeat("more words\n", 30_000), lim: DefaultLimits, sections: 1},
		{name: "a long paragraph whose label spans lines", src: "# p\n[a\nlabel]: /x\n" + strings.Repeat("more words\n", 30_000), lim: DefaultLimits, err: "opens with a link reference definition"},
		{name: "time", src: strings.Repeat("a\n", 100_000), lim: Limits{Time: 1}, err: "of CPU time"},
	}
	p := NewParser()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := p.ParseContext(context.Background(), "x.md", []byte(c.src), c.lim)
			if c.err == "" {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				if len(got.Record.Sections) != c.sections {
					t.Fatalf("%d sections, want %d", len(got.Record.Sections), c.sections)
				}
				checkInvariants(t, c.name, []byte(c.src), got)
				return
			}
			if !errors.Is(err, ErrBudget) || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("error %v, want ErrBudget saying %q", err, c.err)
			}
			// Only the time is a limit the same bytes may pass again.
			if time := c.name == "time"; errors.Is(err, ErrBudgetTime) != time {
				t.Errorf("error %v: ErrBudgetTime %v, want %v", err, !time, time)
			}
		})
	}
	// The parser is whole after an abort.
	src := []byte("# A\n\ntext\n\n## B\n")
	if diff := cmp.Diff(NewParser().Parse("a.md", src), p.Parse("a.md", src)); diff != "" {
		t.Errorf("parse after aborts (-fresh +reused):\n%s", diff)
	}
}

func TestParseCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewParser().ParseContext(ctx, "x.md", []byte(strings.Repeat("a\n", 10_000)), Limits{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

// TestLongHeadingIsCut: only MaxHeadingBytes of a heading are read, cut at
// a character boundary, and the rest of the section is unchanged.
func TestLongHeadingIsCut(t *testing.T) {
	src := "# " + strings.Repeat("é", 1000) + "\n\nbody\n"
	got := NewParser().Parse("x.md", []byte(src))
	if len(got.Record.Sections) != 1 {
		t.Fatalf("sections %+v", got.Record.Sections)
	}
	h := got.Record.Sections[0]
	if want := strings.Repeat("é", MaxHeadingBytes/2); h.Heading != want || !utf8.ValidString(h.Slug) || h.End != len(src) {
		t.Errorf("heading %q (%d bytes), end %d", h.Heading, len(h.Heading), h.End)
	}
}

func TestNonStringFrontMatterIDWarns(t *testing.T) {
	got := NewParser().Parse("x.md", []byte("---\nid: 42\n---\n# A\n"))
	if got.FrontMatterID != "" || !strings.Contains(got.Warning, "front-matter id 42 is a number, not a string") {
		t.Errorf("id %q, warning %q", got.FrontMatterID, got.Warning)
	}
}

// TestFrontMatterBudget: front matter is inside the parse budget. yaml.v3
// checks a mapping's keys for repeats pairwise, so 80,000 keys took 14 s
// (holding the refresh lock); a value nested 10,000 deep decoded, then
// failed every read of the record. Over the budget, the fields are
// ignored with a warning and the document parses.
func TestFrontMatterBudget(t *testing.T) {
	keys := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "k%d: v\n", i)
		}
		return b.String()
	}
	aliases := func(size, n int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "a0: &a0 %q\ntags: [", strings.Repeat("x", size))
		for i := range n {
			if i%50 == 0 {
				b.WriteString("p, ")
			} else {
				b.WriteString("*a0, ")
			}
		}
		b.WriteString("z]\n")
		return b.String()
	}
	nested := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(strings.Repeat(" ", i) + "a:\n")
		}
		return b.String()
	}
	cases := []struct {
		name, fm string
		warning  string // "" when the fields are kept
	}{
		{"a page's", "title: T\ntags: [a, b]\n", ""},
		{"keys at the limit", keys(MaxFrontMatterKeys), ""},
		{"too many keys", keys(MaxFrontMatterKeys + 1), "more than 1000 keys"},
		{"80,000 keys", keys(80_000), "more than 65536"},
		{"nested at the limit", nested(MaxFrontMatterDepth), ""},
		{"nested too deep", nested(MaxFrontMatterDepth + 1), "nested more than 32 deep"},
		{"10,000 deep", "a: " + strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000) + "\n", "fields ignored"},
		{"9,000 deep", "a: " + strings.Repeat("[", 9_000) + strings.Repeat("]", 9_000) + "\n", "nested more than 32 deep"},
		{"deep flow", "a: " + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n", "nested more than 32 deep"},
		// Decode expands aliases: 60 KB of YAML made 40 MB of fields (a
		// plain item every 50 aliases passes yaml.v3's own alias check).
		{"aliases that expand past the bound", aliases(40_000, 1000), "aliases expand it"},
		{"aliases within the bound", aliases(100, 100), ""},
	}
	tomlKeys := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "k%d = 1\n", i)
		}
		return b.String()
	}
	for _, c := range []struct{ name, fm, warning string }{
		{"TOML: a page's", "title = \"T\"\ntags = [\"a\", \"b\"]\n", ""},
		{"TOML: keys at the limit", tomlKeys(MaxFrontMatterKeys), ""},
		{"TOML: too many keys", tomlKeys(MaxFrontMatterKeys + 1), "more than 1000 keys"},
		{"TOML: too long", tomlKeys(8000), "more than 65536"},
		{"TOML: nested at the limit", "a" + strings.Repeat(".a", MaxFrontMatterDepth-1) + " = 1\n", ""},
		{"TOML: nested too deep", "a" + strings.Repeat(".a", MaxFrontMatterDepth) + " = 1\n", "nested more than 32 deep"},
		{"TOML: 20,000 deep", "a = " + strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000) + "\n", "nested more than 32 deep"},
		{"TOML: 6,000 deep tables", "a = " + strings.Repeat("{b=", 6_000) + "1" + strings.Repeat("}", 6_000) + "\n", "nested more than 32 deep"},
		{"TOML: repeated key", "a = 1\na = 2\n", "not valid TOML"},
	} {
		c.fm = "+++\n" + c.fm + "+++\n"
		cases = append(cases, c)
	}
	p := NewParser()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.fm
			if !strings.HasPrefix(src, "+++\n") {
				src = "---\n" + c.fm + "---\n"
			}
			start := time.Now()
			got, err := p.ParseContext(context.Background(), "x.md", []byte(src+"# Body\n"), DefaultLimits)
			if d := time.Since(start); d > time.Second {
				t.Errorf("the parse took %v", d)
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Record.Sections) != 1 || got.Record.Title != "Body" && c.warning != "" {
				t.Errorf("the document did not parse: %+v", got.Record)
			}
			switch {
			case c.warning == "" && (got.Warning != "" || len(got.Record.Fields) == 0):
				t.Errorf("fields %d, warning %q", len(got.Record.Fields), got.Warning)
			case c.warning != "" && (!strings.Contains(got.Warning, c.warning) || got.Record.Fields != nil):
				t.Errorf("fields %d, warning %q; want %q", len(got.Record.Fields), got.Warning, c.warning)
			}
			if _, err := json.Marshal(got.Record); err != nil {
				t.Errorf("the record does not encode: %v", err)
			}
		})
	}
}

// definitions is n link reference definitions, labels from first on, one
// a line.
func definitions(first, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "[r%d]: u\n", first+i)
	}
	return b.String()
}
