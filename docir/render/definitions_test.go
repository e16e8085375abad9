package render

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
)

// TestUsedDefinitions pins which of a body's trailing link reference
// definitions a section's text keeps: those its prose uses, by markdown's
// label matching, and nothing that is not a definition.
func TestUsedDefinitions(t *testing.T) {
	tests := []struct {
		name, body, want string
		left             int
	}{
		{"none", "## A\n\ntext\n", "## A\n\ntext\n", 0},
		{"unused left out, used kept", "## A\n\nsee [Go] and [the docs][ref].\n\n[Go]: https://go.dev\n[other]: /x\n[ref]: /docs \"Docs\"\n",
			"## A\n\nsee [Go] and [the docs][ref].\n\n[Go]: https://go.dev\n[ref]: /docs \"Docs\"\n", 1},
		{"labels match case folded and with spaces as one", "## A\n\n[A  Long\nLabel][]\n\n[a long label]: /l\n[b]: /b\n",
			"## A\n\n[A  Long\nLabel][]\n\n[a long label]: /l\n", 1},
		{"all unused", "## A\n\ntext\n\n[x]: /x\n[y]: <y> 'Y'\n\n", "## A\n\ntext\n", 2},
		{"a footnote is prose", "## A\n\ntext\n\n[^1]: a note\n[x]: /x\n", "## A\n\ntext\n\n[^1]: a note\n", 1},
		{"a definition before prose is the prose's", "## A\n\n[x]: /x\n\ntext\n", "## A\n\n[x]: /x\n\ntext\n", 0},
		{"code is code", "## A\n\n```\n[x]: /x\n```\n", "## A\n\n```\n[x]: /x\n```\n", 0},
		{"an unclosed fence runs to the end", "## A\n\n```\n[x]: /x\n", "## A\n\n```\n[x]: /x\n", 0},
		{"a title on the next line ends the scan", "## A\n\ntext\n\n[x]: /x\n  \"title\"\n[y]: /y\n", "## A\n\ntext\n\n[x]: /x\n  \"title\"\n", 1},
		{"not a definition: text after the destination", "## A\n\n[x]: /x and more\n", "## A\n\n[x]: /x and more\n", 0},
		{"not a definition: four spaces are code", "## A\n\ntext\n\n    [x]: /x\n", "## A\n\ntext\n\n    [x]: /x\n", 0},
		{"full case folding: a ligature, a long s", "## A\n\n[ﬁle] [ſpec]\n\n[FILE]: /f\n[spec]: /s\n[ü]: /u\n[x]: /x\n",
			"## A\n\n[ﬁle] [ſpec]\n\n[FILE]: /f\n[spec]: /s\n[ü]: /u\n", 1},
		{"no final newline", "## A\n\ntext\n\n[x]: /x", "## A\n\ntext\n", 1},
		{"a definition line uses no label (markdown's comment idiom)", "## A\n\n[//]: # 'x'\n\ntext\n\n[//]: # 'y'\n",
			"## A\n\n[//]: # 'x'\n\ntext\n", 1},
		{"a label in code is no use", "## A\n\n```\n[x]\n```\n\n[x]: /x\n", "## A\n\n```\n[x]\n```\n", 1},
	}
	for _, tt := range tests {
		got, left := UsedDefinitions(tt.body)
		if diff := cmp.Diff(tt.want, got); diff != "" || left != tt.left {
			t.Errorf("%s: left %d, want %d (-want +got):\n%s", tt.name, left, tt.left, diff)
		}
	}
}

// A section's text says how many definitions it left out; a whole
// document is written whole.
func TestDocumentDefinitions(t *testing.T) {
	body := "## B\n\ntext\n\n[x]: /x\n[y]: /y\n"
	sec := docir.Document{Address: "a#b", ID: "a", Title: "A", Path: "a.md", Section: &docir.SectionRef{Slug: "b", Heading: "B", Level: 2}, Body: body}
	whole := docir.Document{Address: "a", ID: "a", Title: "A", Path: "a.md", Body: body}
	for _, tt := range []struct {
		doc  docir.Document
		want string
	}{
		{sec, "<!-- docir: a#b | A | 2 link definitions of other sections left out -->\n## B\n\ntext\n"},
		{whole, "<!-- docir: a | A -->\n" + body},
	} {
		var b strings.Builder
		if err := Document(&b, &tt.doc); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, b.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.doc.Address, diff)
		}
	}
}

// TestDefinitions pins which definitions of a document a section read
// carries: those outside the section and outside code that its text uses,
// in the document's order; and that the text writes them after the body.
func TestDefinitions(t *testing.T) {
	doc := "# A\n\n## Diagnosis\n\nRead the [journal logs][Journal  Logs] and [y].\n\n## Mitigation\n\nSee [z][].\n\n```\n[y]: /in-code\n```\n\n[journal logs]: https://example.com/logs \"Logs\"\n[y]: /y\n[z]: /z\n[^1]: a note\n"
	from := strings.Index(doc, "## Diagnosis")
	to := strings.Index(doc, "## Mitigation")
	for _, tt := range []struct {
		name     string
		from, to int
		want     string
	}{
		{"a section in the middle", from, to, "[journal logs]: https://example.com/logs \"Logs\"\n[y]: /y\n"},
		{"the last section holds its own", to, len(doc), ""},
		{"a section that uses none", 0, from, ""},
		{"out of range", to, from, ""},
	} {
		if got := Definitions(doc, tt.from, tt.to); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	// Markdown's comment idiom is a definition that nothing uses: a
	// section that writes one carries none of the others (React Native's
	// docs end each platform's section with `[//]: # 'Windows, Android'`).
	notes := "## A\n\n[//]: # 'Windows, Android'\n\ntext\n\n## B\n\n```\n[y]\n```\n\n[//]: # 'macOS'\n\n[y]: /y\n"
	secB := strings.Index(notes, "## B")
	for _, tt := range []struct {
		name     string
		from, to int
		want     string
	}{
		{"a comment line uses no label", 0, secB, ""},
		{"a label in code is no use", secB, len(notes) - len("[y]: /y\n"), ""},
	} {
		if got := Definitions(notes, tt.from, tt.to); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	d := docir.Document{Address: "a#diagnosis", ID: "a", Title: "A", Path: "a.md", Section: &docir.SectionRef{Slug: "diagnosis", Heading: "Diagnosis", Level: 2},
		Body: doc[from:to], Definitions: Definitions(doc, from, to)}
	var b strings.Builder
	if err := Document(&b, &d); err != nil {
		t.Fatal(err)
	}
	want := "<!-- docir: a#diagnosis | A -->\n" + doc[from:to] + "\n" + d.Definitions
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}

// FuzzDefinitions: whatever the document and the span, each line given is
// a whole definition line of the document, none from inside the span.
func FuzzDefinitions(f *testing.F) {
	f.Add("## A\n[x] [y][]\n## B\n[x]: /x\n[Y]: /y\n", 0, 12)
	f.Add("```\n[x]: /x\n```\n[x]\n", 12, 16)
	f.Fuzz(func(t *testing.T, doc string, from, to int) {
		got := Definitions(doc, from, to)
		if got == "" {
			return
		}
		inside := doc[from:to]
		for line := range strings.Lines(got) {
			l := strings.TrimSuffix(line, "\n")
			if _, def := definitionLabel(l); !def || !strings.Contains(doc, l) {
				t.Fatalf("%q: not a definition line of the document", l)
			}
			if strings.Contains(inside, l) && strings.Count(doc, l) == strings.Count(inside, l) {
				t.Fatalf("%q: only inside the span", l)
			}
		}
	})
}

// FuzzUsedDefinitions: whatever the body, the text keeps its prose as
// written and leaves out only whole definition lines.
func FuzzUsedDefinitions(f *testing.F) {
	for _, s := range []string{"## A\n\n[x]\n\n[x]: /x\n[y]: /y\n", "```\n[x]: /x\n", "[^1]: n\n[a]: <b> (c)\n", "\n\n", "[ẞ]: /s\n[ss]\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		got, left := UsedDefinitions(body)
		prose := Prose(body)
		if !strings.HasPrefix(body, prose) || !strings.HasPrefix(got, prose) {
			t.Fatalf("prose %q is not where body %q and text %q start", prose, body, got)
		}
		if left == 0 && got != body {
			t.Fatalf("nothing left out, but %q became %q", body, got)
		}
		if defs := definitions(body[len(prose):]) - definitions(got[len(prose):]); defs != left {
			t.Fatalf("left out %d definitions of %q, said %d", defs, body, left)
		}
		for line := range strings.Lines(got[len(prose):]) {
			if !strings.Contains(body[len(prose):], line) {
				t.Fatalf("line %q is not in %q", line, body)
			}
		}
	})
}

func definitions(s string) int {
	n := 0
	for line := range strings.Lines(s) {
		if _, ok := definitionLabel(line); ok {
			n++
		}
	}
	return n
}
