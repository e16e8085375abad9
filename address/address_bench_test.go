package address

import "testing"

// BenchmarkParse measures parsing addresses of typical shapes; every
// command and method parses each address it is handed once.
func BenchmarkParse(b *testing.B) {
	for _, in := range []struct{ name, s string }{
		{"id", "text/0001-private-fields"},
		{"section", "text/2094-nll#reference-level-explanation"},
		{"heading-text", "pages.zh/common/tar#Guide-level explanation"},
	} {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(in.s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSlug measures the slug of a typical heading.
func BenchmarkSlug(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = Slug("Reference-level explanation: `impl Trait` & friends")
	}
}
