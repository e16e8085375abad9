package workspace

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// linksService indexes docs (file name to text) and returns its service.
func linksService(t *testing.T, docs map[string]string) *Service {
	t.Helper()
	root := t.TempDir()
	writeDocs(t, root, docs)
	ws := New(Config{Dir: t.TempDir(), Sources: []store.Source{{Path: root}}})
	t.Cleanup(func() { ws.Close() })
	if _, err := ws.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	return ws
}

// parseAll parses addresses, failing the test on a malformed one.
func parseAll(t *testing.T, ss ...string) []address.Address {
	t.Helper()
	out := make([]address.Address, len(ss))
	for i, s := range ss {
		a, err := address.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = a
	}
	return out
}

// TestLinksBundlePageByFileName: links reads a bundle's page by the name
// of its file (a/b/index, c/_index), as get does (TestBundlePageByFileName),
// with the address as asked and the folder's id; a name that is not the
// folder's page file misses.
func TestLinksBundlePageByFileName(t *testing.T) {
	ws := linksService(t, map[string]string{
		"a/b/index.md": "# Bundle\n\nSee [d](../../d.md).\n\n## Rendering\n\nSee [c](../../c/_index.md).\n",
		"c/_index.md":  "# Section\n",
		"d.md":         "# Page\n\nBack to [the bundle](a/b/index.md#rendering).\n",
	})
	type row struct {
		Address, ID, Reason string
		Out, In             int
	}
	want := []row{
		{"a/b/index", "a/b", "", 2, 1},
		{"a/b/index#rendering", "a/b", "", 1, 1},
		{"a/b/_index", "", docir.ReasonNoDocument, 0, 0},
		{"c/_index", "c", "", 0, 1},
		{"c/index", "", docir.ReasonNoDocument, 0, 0},
		{"d/index", "", docir.ReasonNoDocument, 0, 0},
	}
	var addrs []string
	for _, r := range want {
		addrs = append(addrs, r.Address)
	}
	res, err := ws.Links(context.Background(), parseAll(t, addrs...))
	if err != nil {
		t.Fatal(err)
	}
	var got []row
	for i, it := range res.Items {
		r := row{Address: addrs[i], Reason: it.Reason}
		if s := it.Set; s != nil {
			r.Out, r.In = len(s.Outgoing), len(s.Incoming)
			if r.ID = s.ID; s.Address != addrs[i] {
				t.Errorf("%s: set address %q", addrs[i], s.Address)
			}
		}
		got = append(got, r)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
