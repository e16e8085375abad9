package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/markdown"
)

// TestRFCCorpusEverySection indexes the Rust RFCs and reads back every
// section of every document by its address: each body must be exactly the
// file's bytes for the section's range, and each whole document its file.
func TestRFCCorpusEverySection(t *testing.T) {
	root := filepath.Join(corpustest.Unpack(t, corpustest.RustRFCs), "rfcs")
	ws := New(Config{Dir: t.TempDir(), Sources: []store.Source{{Path: root}}})
	defer ws.Close()
	ctx := context.Background()
	sum, err := ws.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Documents != 648 || len(sum.Warnings) != 0 {
		t.Fatalf("indexed %d documents, warnings %q", sum.Documents, sum.Warnings)
	}
	var files []string
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	p := markdown.NewParser()
	sections := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		id := strings.TrimSuffix(filepath.ToSlash(rel), ".md")
		parsed := p.Parse(rel, src)
		addrs := []address.Address{{ID: id}}
		for _, s := range parsed.Record.Sections {
			addrs = append(addrs, address.Address{ID: id, Heading: s.Slug})
		}
		got, err := docir.Get(ctx, ws, addrs, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Missing) != 0 || len(got.Documents) != len(addrs) {
			t.Fatalf("%s: missing %v", id, got.Missing)
		}
		if got.Documents[0].Body != string(src) {
			t.Fatalf("%s: document body differs from the file", id)
		}
		for i, s := range parsed.Record.Sections {
			d := got.Documents[i+1]
			if want := string(src[s.Start:s.End]); d.Body != want {
				t.Fatalf("%s#%s: body differs from bytes %d..%d", id, s.Slug, s.Start, s.End)
			}
			if d.Section == nil || d.Section.Slug != s.Slug || d.Address != id+"#"+s.Slug {
				t.Fatalf("%s#%s: section %+v address %q", id, s.Slug, d.Section, d.Address)
			}
			sections++
		}
	}
	if len(files) != 648 || sections < 5000 {
		t.Fatalf("only %d sections read", sections)
	}
	t.Logf("read %d documents and %d sections back byte for byte", len(files), sections)
}

// TestRFCCorpusGetShapes is the acceptance read on the real corpus:
// a document, a section by slug, the same section by heading text, a missing
// document and a missing heading, in request order.
func TestRFCCorpusGetShapes(t *testing.T) {
	root := filepath.Join(corpustest.Unpack(t, corpustest.RustRFCs), "rfcs")
	ws := New(Config{Dir: t.TempDir(), Sources: []store.Source{{Path: root}}, AutoIndex: true})
	defer ws.Close()
	ctx := context.Background()
	raw := []string{
		"0001-private-fields",
		"2094-nll#motivation",
		"no-such-rfc",
		"2094-nll#Motivation",
		"0001-private-fields#no-such-heading",
	}
	addrs, err := address.ParseAll(raw)
	if err != nil {
		t.Fatal(err)
	}
	got, err := docir.Get(ctx, ws, addrs, 0)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, d := range got.Documents {
		order = append(order, d.Address)
	}
	if diff := cmp.Diff([]string{"0001-private-fields", "2094-nll#motivation", "2094-nll#Motivation"}, order); diff != "" {
		t.Errorf("document order (-want +got):\n%s", diff)
	}
	if got.Documents[1].Body != got.Documents[2].Body || got.Documents[1].Section.Slug != "motivation" {
		t.Errorf("slug and heading text read different sections")
	}
	want := []docir.Missing{{Address: "no-such-rfc", Reason: docir.ReasonNoDocument}, {Address: "0001-private-fields#no-such-heading", Reason: docir.ReasonNoSection}}
	if diff := cmp.Diff(want, got.Missing); diff != "" {
		t.Errorf("missing (-want +got):\n%s", diff)
	}
	if _, err := docir.GetOne(ctx, ws, address.MustParse("no-such-rfc"), 0); docir.CodeOf(err) != docir.CodeNotFound {
		t.Errorf("GetOne of a missing document: %v", err)
	}
}
