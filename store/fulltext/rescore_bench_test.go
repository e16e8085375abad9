package fulltext

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkRescore scores one section of markdown (1.5 KB: prose, inline
// code, links, a code block) again for a ten-word span, as a search does
// for each of its RescoreDepth best passages.
func BenchmarkRescore(b *testing.B) {
	x, err := Create(filepath.Join(b.TempDir(), "ft"))
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	para := "The [`Process`][] method supports the full range of image transformations, " +
		"including resizing, cropping, rotation, and format conversion within a single " +
		"specification string. Use it with [`Filter`](/functions/images/filter/) or on its own.\n\n"
	text := strings.Repeat(para, 4) + "```go-html-template\n{{ $img := .Resources.Get \"a.jpg\" }}\n```\n\n" +
		strings.Repeat(para, 2) + "Unlike specialized methods such as `Resize` you must include the action."
	if err := x.Apply(nil, []Passage{{ID: "a", Text: text}, {ID: "b", Text: "other words"}}); err != nil {
		b.Fatal(err)
	}
	q, err := x.Prepare(context.Background(), "range of image transformations including resizing, cropping, rotation, and format")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		x.Rescore(q, text)
	}
}

// BenchmarkMarkup finds the markup of one long paragraph: many code spans,
// and runs of backticks that close nothing; the cost must grow with the
// text, not with its square.
func BenchmarkMarkup(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		sb.WriteString("word `code` [link](/a/b) ")
		sb.WriteString(strings.Repeat("`", 1+i%50) + " ")
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		markup(text)
	}
}
