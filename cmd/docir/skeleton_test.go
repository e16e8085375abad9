package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/docir/docir/docir/corpustest"
)

// TestSkeletonOutputsHoldNoBody runs every skeleton command on the fixture
// corpus, with queries that match titles, sections, several languages and
// nothing, and walks each JSON reply: a "body" key at any depth fails.
func TestSkeletonOutputsHoldNoBody(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus")
	if err := corpustest.CopyTree("../../testdata/corpus", dir); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	ctx := context.Background()
	docir := func(args ...string) []byte {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := run(ctx, args, &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}); code != 0 {
			t.Fatalf("docir %s: exit %d: %s", strings.Join(args, " "), code, errOut.String())
		}
		return out.Bytes()
	}
	docir("index", ".")
	runs := [][]string{
		{"search", "generation"},
		{"search", "retry budget"},
		{"search", "-n", "1000", "the"},
		{"search", "бюджет"},
		{"search", "检索"},
		{"search", "zzyzx"},
		{"query", "id:*"},
		{"query", "kind:adr", "--sort", "-date"},
		{"query", "lang:nope"},
		{"context", "generation"},
		{"context", "--budget", "1", "the"},
		{"context", "-n", "1000", "the"},
		{"context", "zzyzx"},
	}
	for _, args := range runs {
		out := docir(append([]string{"--format", "json"}, args...)...)
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("docir %s: not JSON: %v\n%s", strings.Join(args, " "), err, out)
		}
		if path, ok := findKey(v, "body", "$"); ok {
			t.Errorf("docir %s: a body at %s", strings.Join(args, " "), path)
		}
		hits, _ := v.(map[string]any)["hits"].([]any)
		if args[len(args)-1] != "zzyzx" && !strings.HasPrefix(args[len(args)-1], "lang:") && len(hits) == 0 {
			t.Errorf("docir %s: no hits; the walk proved nothing", strings.Join(args, " "))
		}
	}
	// The walk itself finds a body at depth.
	var deep any
	_ = json.Unmarshal([]byte(`{"hits":[{"outline":[{"x":{"body":""}}]}]}`), &deep)
	if _, ok := findKey(deep, "body", "$"); !ok {
		t.Fatal("findKey misses a nested body")
	}
}

// findKey reports the path of the first object key named key in v.
func findKey(v any, key, path string) (string, bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == key {
				return path + "." + k, true
			}
			if p, ok := findKey(e, key, path+"."+k); ok {
				return p, true
			}
		}
	case []any:
		for i, e := range x {
			if p, ok := findKey(e, key, path+"["+strconv.Itoa(i)+"]"); ok {
				return p, true
			}
		}
	}
	return "", false
}
