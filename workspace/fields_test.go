package workspace

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// TestFields lists front-matter fields with counts and top values from a
// scan of the records: lists count per element, nested objects (and lists
// of objects) as dotted paths, built-in names left out, long values
// clipped.
func TestFields(t *testing.T) {
	src := t.TempDir()
	files := map[string]string{
		"a.md": "---\nkind: adr\nstatus: accepted\ntags: [process, docs]\nauthor:\n  name: ada\ntitle: A\n---\n# A\n",
		"b.md": "---\nkind: adr\nstatus: proposed\ntags: [process]\neditors:\n- name: ben\n  role: editor\n- name: cy\n---\n# B\n",
		"c.md": "---\nkind: runbook\nnote: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n---\n# C\n",
		"d.md": "# D, no front matter\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := New(Config{Dir: t.TempDir(), Sources: []store.Source{{Path: src}}})
	defer ws.Close()
	if _, err := ws.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, err := ws.Fields(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	long := "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…"
	want := docir.FieldsResult{Documents: 4, Generation: got.Generation, Fields: []docir.FieldInfo{
		{Name: "kind", Documents: 3, Distinct: 2, Values: []docir.ValueCount{{Value: "adr", Documents: 2}, {Value: "runbook", Documents: 1}}},
		{Name: "status", Documents: 2, Distinct: 2, Values: []docir.ValueCount{{Value: "accepted", Documents: 1}, {Value: "proposed", Documents: 1}}},
		{Name: "tags", Documents: 2, Distinct: 2, Values: []docir.ValueCount{{Value: "process", Documents: 2}, {Value: "docs", Documents: 1}}},
		{Name: "author", Documents: 1, Distinct: 0, Values: []docir.ValueCount{}},
		{Name: "author.name", Documents: 1, Distinct: 1, Values: []docir.ValueCount{{Value: "ada", Documents: 1}}},
		// A list of objects: the paths into its objects, once a document.
		{Name: "editors", Documents: 1, Distinct: 0, Values: []docir.ValueCount{}},
		{Name: "editors.name", Documents: 1, Distinct: 2, Values: []docir.ValueCount{{Value: "ben", Documents: 1}, {Value: "cy", Documents: 1}}},
		{Name: "editors.role", Documents: 1, Distinct: 1, Values: []docir.ValueCount{{Value: "editor", Documents: 1}}},
		{Name: "note", Documents: 1, Distinct: 1, Values: []docir.ValueCount{{Value: long, Documents: 1}}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
}

// TestFieldsShape pins the wire fields of docir/fields' reply.
func TestFieldsShape(t *testing.T) {
	got, err := json.Marshal(docir.FieldsResult{Documents: 2, Generation: 3, Fields: []docir.FieldInfo{{Name: "k", Documents: 1, Distinct: 1, Values: []docir.ValueCount{{Value: "v", Documents: 1}}}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"documents":2,"fields":[{"name":"k","documents":1,"distinct":1,"values":[{"value":"v","documents":1}]}],"truncated":false,"generation":3}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
