package render

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
)

// TestDocument pins the header of a document: its address and title, its
// path only when the id does not say it, its store only when a peer's.
func TestDocument(t *testing.T) {
	sec := docir.Document{Address: "a#b", ID: "a", Title: "A", Path: "a.md", Store: "local", Generation: 3,
		Section: &docir.SectionRef{Slug: "b", Heading: "B", Level: 2}, Body: "## B\n\ntext\n"}
	tests := []struct {
		name string
		doc  docir.Document
		want string
	}{
		{"a section", sec, "<!-- docir: a#b | A -->\n## B\n\ntext\n"},
		{"a path the id does not say", docir.Document{Address: "p/x", ID: "p/x", Title: "X", Path: "x.md", Body: "x"},
			"<!-- docir: p/x | X | x.md -->\nx\n"},
		{"a folder's index", docir.Document{Address: "guide", ID: "guide", Title: "G", Path: "guide/_index.md", Store: "local", Body: "g\n"},
			"<!-- docir: guide | G -->\ng\n"},
		{"a peer's", docir.Document{Address: "c#sec", ID: "c", Title: "C", Path: "c.md", Store: "team", Body: "## Sec\n"},
			"<!-- docir: c#sec | C | from team -->\n## Sec\n"},
		{"a title over lines, and one that would end the comment (a peer's)", docir.Document{Address: "d", ID: "d", Title: "Two\nlines\t-->x", Path: "../../etc/x\n.md", Store: "t\r\nm", Body: "d\n"},
			"<!-- docir: d | Two lines -- >x | ../../etc/x .md | from t  m -->\nd\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := Document(&b, &tt.doc); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, b.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestGet pins a batch: documents in order between thematic breaks, then
// the misses with their reasons and suggestions.
func TestGet(t *testing.T) {
	doc := docir.Document{Address: "a#b", ID: "a", Title: "A", Path: "a.md", Body: "## B\n\ntext\n"}
	miss := []docir.Missing{{Address: "x", Reason: docir.ReasonNoDocument, Suggestions: []string{"a", "b/a"}}, {Address: "a#z", Reason: docir.ReasonNoSection}}
	tests := []struct {
		name string
		r    docir.GetResult
		want string
	}{
		{"documents and misses", docir.GetResult{Documents: []docir.Document{doc, doc}, Missing: miss},
			"<!-- docir: a#b | A -->\n## B\n\ntext\n\n---\n\n<!-- docir: a#b | A -->\n## B\n\ntext\n\n---\n\n" +
				"Not found:\n- `x`: no_document (did you mean `a`, `b/a`?)\n- `a#z`: no_section\n"},
		{"misses only", docir.GetResult{Documents: []docir.Document{}, Missing: miss[1:]}, "Not found:\n- `a#z`: no_section\n"},
		{"nothing asked", docir.GetResult{Documents: []docir.Document{}, Missing: []docir.Missing{}}, "No addresses asked, none read.\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := Get(&b, &tt.r); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, b.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// A writer's error is returned, not dropped.
func TestWriteError(t *testing.T) {
	if err := Get(failing{}, &docir.GetResult{}); !errors.Is(err, errWrite) {
		t.Errorf("Get: %v", err)
	}
	if err := Document(failing{}, &docir.Document{}); !errors.Is(err, errWrite) {
		t.Errorf("Document: %v", err)
	}
}

var errWrite = errors.New("write failed")

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errWrite }
