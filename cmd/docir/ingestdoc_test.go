package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/docir/docir/store"
)

// TestIngestDocStore holds docs/ingest.md's "The store" to what docir
// writes: the store format it names is store.FormatVersion, and its CURRENT
// line is the file an index writes, with N for the generation.
func TestIngestDocStore(t *testing.T) {
	doc, err := os.ReadFile("../../docs/ingest.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`holds immutable generations \(store format (\d+)\)`).FindSubmatch(doc)
	if m == nil {
		t.Fatal(`docs/ingest.md: no "holds immutable generations (store format N)"`)
	}
	if got, _ := strconv.Atoi(string(m[1])); got != store.FormatVersion {
		t.Errorf("docs/ingest.md says store format %d; store.FormatVersion is %d", got, store.FormatVersion)
	}
	m = regexp.MustCompile(`(?m)^CURRENT +(\{\S*\}) `).FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/ingest.md: no CURRENT line in the store's layout")
	}
	example := m[1]

	docir := inFixtureCorpus(t)
	if code, stderr := docir(&bytes.Buffer{}, "index", "."); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	current, err := os.ReadFile(filepath.Join(".docir", "CURRENT"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Generation uint64 `json:"generation"`
	}
	if err := json.Unmarshal(current, &c); err != nil {
		t.Fatalf("CURRENT %q: %v", current, err)
	}
	want := bytes.Replace(example, []byte(`"generation":N`), []byte(`"generation":`+strconv.FormatUint(c.Generation, 10)), 1)
	if got := bytes.TrimSpace(current); !bytes.Equal(got, want) {
		t.Errorf("docs/ingest.md shows CURRENT as %s; an index writes %s", example, got)
	}
}
