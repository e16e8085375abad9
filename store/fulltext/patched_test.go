package fulltext

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/collector"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/vellum/levenshtein"
	"github.com/google/go-cmp/cmp"
	upstream "upstream.invalid/github.com/blevesearch/vellum/levenshtein"
)

// docir links store/patched/vellum in place of vellum (go.mod's replace):
// upstream's code, imported under the name upstream.invalid/…, behind a
// levenshtein package whose builders build their DFA on first use instead of
// in bleve's scorch init. store/patched/README.md says why.

// TestPatchedLevenshteinBuilders: fuzzy queries, which use the builders,
// find what they found before: edit distance 1 and 2, a transposition
// counted as one edit.
func TestPatchedLevenshteinBuilders(t *testing.T) {
	x, err := Create(filepath.Join(t.TempDir(), "fulltext"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Apply(nil, []Passage{
		{ID: "a#one", Text: "the scheduler places pods"},
		{ID: "b#two", Text: "an archive of tarballs"},
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		term      string
		fuzziness int
		want      string
	}{
		{"schedulre", 1, "a#one"}, // a transposition
		{"archivs", 1, "b#two"},
		{"arcive", 1, "b#two"},
		{"arcivs", 2, "b#two"},
		{"schedxxer", 2, "a#one"},
	} {
		fq := query.NewFuzzyQuery(tc.term)
		fq.SetField(FieldText)
		fq.SetFuzziness(tc.fuzziness)
		ms, err := searchQuery(x, fq, 10)
		if err != nil {
			t.Fatalf("fuzzy %q~%d: %v", tc.term, tc.fuzziness, err)
		}
		if len(ms) != 1 || ms[0].ID != tc.want {
			t.Errorf("fuzzy %q~%d: got %v, want only %s", tc.term, tc.fuzziness, ms, tc.want)
		}
	}
}

// TestLevenshteinBuilderOnFirstUse: the constructor allocates the builder
// and its once-function, nothing else; the first BuildDfa builds upstream's,
// and the automata match what upstream's builder makes.
func TestLevenshteinBuilderOnFirstUse(t *testing.T) {
	if n := testing.AllocsPerRun(10, func() { _, _ = levenshtein.NewLevenshteinAutomatonBuilder(2, true) }); n > 4 {
		t.Errorf("NewLevenshteinAutomatonBuilder(2, true): %v allocations, want a few (the DFA is built on first use)", n)
	}
	for _, tc := range []struct {
		distance      uint8
		transposition bool
	}{{1, true}, {1, false}, {2, true}, {2, false}} {
		lazy, err := levenshtein.NewLevenshteinAutomatonBuilder(tc.distance, tc.transposition)
		if err != nil {
			t.Fatal(err)
		}
		if got := lazy.MaxDistance(); got != tc.distance {
			t.Errorf("MaxDistance before first use = %d, want %d", got, tc.distance)
		}
		eager, err := upstream.NewLevenshteinAutomatonBuilder(tc.distance, tc.transposition)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"docir", "scheduler", "поиск"} {
			got, err := lazy.BuildDfa(q, tc.distance)
			if err != nil {
				t.Fatalf("BuildDfa(%q, %d): %v", q, tc.distance, err)
			}
			want, err := eager.BuildDfa(q, tc.distance)
			if err != nil {
				t.Fatal(err)
			}
			r := []rune(q)
			swap12 := string(append([]rune{r[1], r[0]}, r[2:]...))
			swap23 := string(append([]rune{r[0], r[2], r[1]}, r[3:]...))
			words := []string{q, q + "x", string(r[:len(r)-1]), "x" + q, "xx" + q, "xxx" + q, "",
				swap12, swap23, string(append([]rune{r[1], r[0], r[3], r[2]}, r[4:]...)), "docri", "schedulre"}
			for _, word := range words {
				if g, w := accepts(got, word), accepts(want, word); g != w {
					t.Errorf("builder(%d, %v).BuildDfa(%q) on %q: accepts %v, upstream's %v",
						tc.distance, tc.transposition, q, word, g, w)
				}
			}
		}
	}
}

func accepts(d *levenshtein.DFA, word string) bool {
	s := d.Start()
	for i := 0; i < len(word); i++ {
		s = d.Accept(s, word[i])
	}
	return d.IsMatch(s)
}

// TestUpstreamLevenshteinStillEager fails when upstream vellum ships the
// change store/patched/README.md proposes (builders that build on first
// use): then store/patched/vellum and its two replace lines in go.mod go.
func TestUpstreamLevenshteinStillEager(t *testing.T) {
	// v1.2.1 makes 464 allocations at distance 1 and about 25,000 at 2; a
	// constructor that defers the build makes one or two.
	const eager = 100
	for _, distance := range []uint8{1, 2} {
		n := testing.AllocsPerRun(1, func() {
			if _, err := upstream.NewLevenshteinAutomatonBuilder(distance, true); err != nil {
				t.Fatal(err)
			}
		})
		if n < eager {
			t.Errorf("upstream vellum's NewLevenshteinAutomatonBuilder(%d, true) makes %v allocations: it no longer "+
				"builds the DFA in the constructor, so docir's stand-in is not needed. Delete store/patched/vellum and "+
				"both vellum replace lines in go.mod, run go mod tidy, and delete this file (store/patched/README.md)", distance, n)
		}
	}
}

// TestPatchedVellumNamesEveryUpstreamName: each package of the stand-in
// declares every exported name upstream's declares, of the same kind, so
// that it stands in for any importer, not only for the ones docir links
// today; a type of its own (not an alias) has upstream's methods.
func TestPatchedVellumNamesEveryUpstreamName(t *testing.T) {
	const ours, theirs = "github.com/blevesearch/vellum", "upstream.invalid/github.com/blevesearch/vellum"
	var paths []string
	for _, sub := range []string{"", "/levenshtein", "/regexp", "/utf8"} {
		paths = append(paths, ours+sub, theirs+sub)
	}
	out, err := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}} {{.Dir}}"}, paths...)...).Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	dirs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, dir, _ := strings.Cut(line, " ")
		dirs[path] = dir
	}
	for _, sub := range []string{"", "/levenshtein", "/regexp", "/utf8"} {
		if dirs[ours+sub] == "" || dirs[theirs+sub] == "" {
			t.Fatalf("go list found no folder for %s or %s:\n%s", ours+sub, theirs+sub, out)
		}
		got, own, err := exportedNames(dirs[ours+sub])
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := exportedNames(dirs[theirs+sub])
		if err != nil {
			t.Fatal(err)
		}
		// Methods count only on the stand-in's own types: an alias has upstream's.
		var wantHere []string
		for _, w := range want {
			method, isMethod := strings.CutPrefix(w, "method ")
			recv, _, _ := strings.Cut(method, ".")
			if !isMethod || slices.Contains(own, recv) {
				wantHere = append(wantHere, w)
			}
		}
		if diff := cmp.Diff(wantHere, got); diff != "" {
			t.Errorf("exported names of %s (-upstream +stand-in):\n%s", ours+sub, diff)
		}
	}
}

// exportedNames lists, sorted, the exported names the non-test files in dir
// declare ("func F", "type T", "var V", "const C", "method T.M"; an alias is
// a "type" too), and the exported types that are not aliases.
func exportedNames(dir string) (names, own []string, err error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, nil, err
	}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, err
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					names = append(names, "func "+d.Name.Name)
					continue
				}
				recv := d.Recv.List[0].Type
				if star, ok := recv.(*ast.StarExpr); ok {
					recv = star.X
				}
				if id, ok := recv.(*ast.Ident); ok && id.IsExported() {
					names = append(names, "method "+id.Name+"."+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, "type "+s.Name.Name)
							if !s.Assign.IsValid() {
								own = append(own, s.Name.Name)
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, d.Tok.String()+" "+n.Name)
							}
						}
					}
				}
			}
		}
	}
	sort.Strings(names)
	return names, own, nil
}

// searchQuery runs a bleve query on x's index and returns the n best
// passages, as bleve's top-level search does for a request with no sort.
func searchQuery(x *Index, q query.Query, n int) ([]Match, error) {
	r, err := x.idx.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	ctx := context.Background()
	s, err := q.Searcher(ctx, r, x.m, search.SearcherOptions{})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	coll := collector.NewTopNCollector(n, 0, search.SortOrder{&search.SortScore{Desc: true}})
	if err := coll.Collect(ctx, s, r); err != nil {
		return nil, err
	}
	var out []Match
	for _, h := range coll.Results() {
		out = append(out, Match{ID: h.ID, Score: h.Score})
	}
	return out, nil
}
