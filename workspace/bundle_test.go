package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// TestBundlePageByFileName: a bundle's page has its folder's id, and the
// id its file's name gives (a/b/index, as before store format 7) reads the
// same document, with the address as asked; a name that is not the
// folder's page file misses.
func TestBundlePageByFileName(t *testing.T) {
	root := t.TempDir()
	for f, text := range map[string]string{
		"a/b/index.md":     "# Bundle\n\n## Rendering\n",
		"c/_index.md":      "# Section\n",
		"d.md":             "# Page\n",
		"e/index.md":       "---\nid: elsewhere\n---\n# E\n",
		"api/v1/_index.md": "# v1\n",
	} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := New(Config{Dir: t.TempDir(), Sources: []store.Source{{Path: root}}})
	t.Cleanup(func() { ws.Close() })
	if _, err := ws.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	type row struct{ Address, ID, Reason string }
	var want, got []row
	for _, tt := range []row{
		{"a/b", "a/b", ""},
		{"a/b/index", "a/b", ""},
		{"a/b/index#rendering", "a/b", ""},
		{"a/b/_index", "", docir.ReasonNoDocument},
		{"c/_index", "c", ""},
		{"c/index", "", docir.ReasonNoDocument},
		{"d/index", "", docir.ReasonNoDocument},
		{"e/index", "", docir.ReasonNoDocument},
		{"elsewhere", "elsewhere", ""},
		{"api/v1/_index", "api/v1", ""},
	} {
		want = append(want, tt)
		a, err := address.Parse(tt.Address)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ws.Resolve(context.Background(), []address.Address{a}, 0)
		if err != nil {
			t.Fatal(err)
		}
		r := row{Address: tt.Address, Reason: res.Items[0].Reason}
		if d := res.Items[0].Document; d != nil {
			r.ID = d.ID
			if d.Address != tt.Address {
				t.Errorf("%s: document address %q", tt.Address, d.Address)
			}
		}
		got = append(got, r)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
