package markdown

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docir/docir/docir/corpustest"
)

// BenchmarkParse measures markdown → IR on real documents: a long RFC, a
// median RFC, and a tldr page (the common tiny case). Bytes/s is reported.
func BenchmarkParse(b *testing.B) {
	dir := corpustest.Unpack(b, corpustest.RustRFCs)
	rfcs, err := filepath.Glob(filepath.Join(dir, "rfcs", "*.md"))
	if err != nil || len(rfcs) == 0 {
		b.Fatal("no RFCs", err)
	}
	sizes := make(map[string]int64)
	for _, f := range rfcs {
		st, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		sizes[f] = st.Size()
	}
	slices.SortFunc(rfcs, func(a, b string) int { return int(sizes[a] - sizes[b]) })
	tldr := []byte("# tar\n\n> Archiving utility.\n> Often combined with a compression method, such as `gzip` or `bzip2`.\n> More information: <https://www.gnu.org/software/tar>.\n\n- [c]reate an archive and write it to a [f]ile:\n\n`tar cf {{path/to/target.tar}} {{path/to/file1 path/to/file2 ...}}`\n\n- E[x]tract a (compressed) archive [f]ile into the current directory [v]erbosely:\n\n`tar xvf {{path/to/source.tar[.gz|.bz2|.xz]}}`\n")
	cases := []struct {
		name string
		src  []byte
	}{{"tldr-page", tldr}}
	for _, pick := range []struct {
		name string
		at   int
	}{{"rfc-median", len(rfcs) / 2}, {"rfc-largest", len(rfcs) - 1}} {
		src, err := os.ReadFile(rfcs[pick.at])
		if err != nil {
			b.Fatal(err)
		}
		cases = append(cases, struct {
			name string
			src  []byte
		}{pick.name, src})
	}
	p := NewParser()
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.src)))
			b.ReportAllocs()
			for b.Loop() {
				p.Parse(c.name+".md", c.src)
			}
		})
	}
}

// BenchmarkHostile parses the shapes on which bare goldmark v1.8.7 is
// quadratic or heavy (docs/ingest.md), within DefaultLimits: each either
// parses in linear time or stops at its budget.
func BenchmarkHostile(b *testing.B) {
	cases := []struct{ name, src string }{
		{"link-openers-400KB", strings.Repeat("[a](", 100_000)},
		{"link-openers-heading-400KB", "# " + strings.Repeat("[a](", 100_000)},
		{"nested-lists-200KB", strings.Repeat("- ", 100_000) + "x"},
		{"headings-2MB", strings.Repeat("#\n", 1_000_000)},
		{"paragraphs-99k", strings.Repeat("a\n\n", 99_000)},
		{"quoted-lines-199k", strings.Repeat(strings.Repeat(">", 30)+"b\n", 199_000)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			p, src := NewParser(), []byte(c.src)
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				_, _ = p.ParseContext(context.Background(), "x.md", src, DefaultLimits)
			}
		})
	}
}
