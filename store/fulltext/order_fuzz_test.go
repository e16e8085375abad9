package fulltext

import (
	"context"
	"math"
	"path/filepath"
	"testing"
)

// FuzzRescore: any passage text rescores without panicking, to a finite
// score of zero or more, and its markup ranges are in order, apart and
// inside the text.
func FuzzRescore(f *testing.F) {
	for _, s := range []string{
		"render the diagrams as `figure` elements",
		"a ``co`de`` b ` c",
		"see [the docs](/a/b#c) and [more][ref].\n\n```go\ncode\n```\n",
		"<figure class=x> {{ .Title }} </figure> ~~~\n> ```",
		"`` ` ``` ```` unmatched",
		"strings.Contains kube-scheduler 检索命令 `x`\n\n`y`",
	} {
		f.Add(s)
	}
	x, err := Create(filepath.Join(f.TempDir(), "ft"))
	if err != nil {
		f.Fatal(err)
	}
	defer x.Close()
	if err := x.Apply(nil, []Passage{{ID: "a", Text: "render the diagrams as figure elements"}}); err != nil {
		f.Fatal(err)
	}
	q, err := x.Prepare(context.Background(), "the diagrams as elements code")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		spans, fences := markup(text)
		last := 0
		for _, s := range spans {
			if s[0] < last || s[1] <= s[0] || s[1] > len(text) {
				t.Fatalf("markup(%q): range %v after %d, or out of the text", text, s, last)
			}
			last = s[1]
		}
		for i, at := range fences {
			if at < 0 || at >= len(text) || i > 0 && at <= fences[i-1] {
				t.Fatalf("markup(%q): fences %v", text, fences)
			}
		}
		if sc := x.Rescore(q, text); sc < 0 || math.IsNaN(sc) || math.IsInf(sc, 0) {
			t.Fatalf("Rescore(%q) = %v", text, sc)
		}
	})
}
