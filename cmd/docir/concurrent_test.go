package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentIndexKeepsBothSources: `docir index b & docir index c`
// in a folder whose docir.yaml listed a each read the list before the
// refresh lock, and each wrote its own list after: docir.yaml ended with
// a and b (or a and c), and the other folder's documents were removed
// from the store, both exiting 0. A bare `docir index` beside them was
// refused ("would drop …/b"), comparing the store with a list read before
// b was added. The list is now read again under a lock held until the
// refresh has published: every run succeeds and both folders stay.
func TestConcurrentIndexKeepsBothSources(t *testing.T) {
	rounds := 8
	if testing.Short() {
		rounds = 2
	}
	for round := range rounds {
		work := t.TempDir()
		for _, d := range []string{"a", "b", "c"} {
			if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(work, d, d+".md"), []byte("# "+d+"\n\nsome text\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if r := runDocir(t, work, nil, "--format", "json", "index", "a"); r.code != 0 {
			t.Fatalf("index a: %+v", r)
		}
		runs := [][]string{{"index", "b"}, {"index", "c"}, {"index"}}
		results := make([]docirRun, len(runs))
		var wg sync.WaitGroup
		for i, args := range runs {
			wg.Go(func() {
				results[i] = runDocir(t, work, nil, append([]string{"--format", "json"}, args...)...)
			})
		}
		wg.Wait()
		for i, r := range results {
			if r.code != 0 {
				t.Fatalf("round %d: docir %s: %+v", round, strings.Join(runs[i], " "), r)
			}
		}
		cfg, err := os.ReadFile(filepath.Join(work, "docir.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{"a", "b", "c"} {
			if !strings.Contains(string(cfg), "- path: "+d+"\n") {
				t.Fatalf("round %d: docir.yaml lacks %s:\n%s", round, d, cfg)
			}
		}
		r := runDocir(t, work, nil, "--format", "json", "status")
		var st struct {
			Documents int
			Sources   []struct{ Path string }
		}
		if err := json.Unmarshal([]byte(r.stdout), &st); r.code != 0 || err != nil {
			t.Fatalf("round %d: status: %+v, %v", round, r, err)
		}
		var paths []string
		for _, s := range st.Sources {
			paths = append(paths, filepath.Base(s.Path))
		}
		slices.Sort(paths)
		if st.Documents != 3 || !slices.Equal(paths, []string{"a", "b", "c"}) {
			t.Fatalf("round %d: the store holds %d documents from %v, want 3 from a, b and c", round, st.Documents, paths)
		}
		if leftovers, _ := filepath.Glob(filepath.Join(work, "*.tmp")); len(leftovers) > 0 {
			t.Fatalf("round %d: temporary files left: %v", round, leftovers)
		}
	}
}
