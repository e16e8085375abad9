package workspace

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/docir/query"
	"github.com/docir/docir/store"
	"github.com/docir/docir/workspace/rank"
)

// queryByScan is the reference Query answers must equal: every record
// scanned, prefiltered on its JSON and matched, as before the field index.
func queryByScan(ctx context.Context, s *Service, p docir.QueryParams) (docir.SearchResult, error) {
	expr, sortField, desc, err := ParseQuery(p)
	if err != nil {
		return docir.SearchResult{}, err
	}
	limit, err := rank.CheckLimit(p.Limit)
	if err != nil {
		return docir.SearchResult{}, err
	}
	v, release, err := s.acquire(ctx)
	if err != nil {
		return docir.SearchResult{}, err
	}
	defer release()
	matched, err := scanRecords(ctx, v.snap, expr)
	if err != nil {
		return docir.SearchResult{}, err
	}
	if sortField != "" {
		query.Sort(matched, sortField, desc)
	}
	res := docir.SearchResult{Query: expr.String(), Hits: []docir.Hit{}, Total: len(matched)}
	for _, rec := range matched[:min(limit, len(matched))] {
		res.Hits = append(res.Hits, docir.Hit{
			ID: rec.ID, Title: rec.Title, Path: rec.Path, Store: docir.StoreLocal, Score: 1,
			MatchedSection: rec.ID, Snippet: expr.Summary(rec, docir.SnippetMax, sortField),
		})
	}
	return res, nil
}

// compareQueries runs every expression through Query and queryByScan.
func compareQueries(t *testing.T, ws *Service, params []docir.QueryParams) (hits int) {
	t.Helper()
	ctx := context.Background()
	for _, p := range params {
		want, err := queryByScan(ctx, ws, p)
		if err != nil {
			t.Fatalf("scan %q: %v", p.Expr, err)
		}
		got, err := ws.Query(ctx, p)
		if err != nil {
			t.Fatalf("query %q: %v", p.Expr, err)
		}
		if len(got.Warnings) > 0 && got.Total > 0 {
			t.Errorf("query %q: warnings %q beside %d matches (widenedHint is for none)", p.Expr, got.Warnings, got.Total)
		}
		got.Warnings = nil // the scan gives none: TestQueryWidenedHint tests them
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("query %q sort %q: index differs from scan (-scan +index):\n%s", p.Expr, p.Sort, diff)
		}
		hits += want.Total
	}
	return hits
}

func writeDocs(t testing.TB, root string, docs map[string]string) {
	t.Helper()
	for name, text := range docs {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestQueryIndexEdgeCases pins the index to the scan on front matter made
// to trip it: keys equal ignoring case, dotted keys beside nested maps,
// numbers and dates, letters whose case folding leaves ASCII (K KELVIN
// SIGN, ſ LONG S, İ), long values, lists of maps, nulls; and again after
// refreshes that replace and delete documents over lower layers.
func TestQueryIndexEdgeCases(t *testing.T) {
	root := t.TempDir()
	long := strings.Repeat("x", 300)
	writeDocs(t, root, map[string]string{
		"a.md":       "---\nstatus: accepted\nkind: adr\ntags: [process, Go]\ndate: 2024-03-05\n---\n# A\n",
		"b.md":       "---\nStatus: Accepted\nstatus: proposed\nkind: ADR\n---\n# B\n",
		"c.md":       "---\nauthor:\n  name: Ada\n  team: core\nauthor.name: Bob\n---\n# C\n",
		"d.md":       "---\nauthor:\n  Name: ada\nowner: null\nsize: 12\n---\n# D\n",
		"e.md":       "---\nkind: \u212aind\nstatus: \u017ftable\ntitle: \u0130stanbul\n---\n# E\n",
		"f.md":       "---\nkind: kind\nstatus: stable\ntitle: istanbul\nnotes: " + long + "\n---\n# F\n",
		"g.md":       "---\nitems:\n  - name: x\n  - y\nlevel: 2.0\nversion: 2\n---\n# G\n",
		"h.md":       "# H without front matter\n",
		"sub/i.md":   "---\nAuthor: {name: Ada}\nstatus: \"\"\nkind: \"a\\0b\"\n---\n# I\n",
		"sub/j.md":   "---\nTitle: Front\ntags: go\nowner: [team-a, team-b]\n---\n# J\n",
		"sub/k.md":   "---\nnotes: " + long + "y\n---\n# K\n",
		"sub/K2.md":  "---\nkInd: adr\nstatus: Accepted\n---\n# K2\n",
		"sub/l/m.md": "---\nkind: adr\nstatus: accepted\ndate: 2023-12-31T10:00:00Z\n---\n# M\n",
	})
	exprs := []string{
		"status:accepted", "status:Accepted", "status:accepted,proposed", "kind:adr", "kind:adr status:accepted",
		"kind:kind", "kind:KIND", "status:stable", "status:STABLE", "title:istanbul", "Title:istanbul", "title:İstanbul",
		"Title:front", "title:*", "Title:*", "author.name:ada", "author.name:bob", "Author.Name:ADA", "author:*",
		"author.team:*", "owner:*", "-owner:*", "owner:team-a", "size:12", "size:*", "tags:go", "tags:process",
		"tags:g*", "tags:p*s", "kind:a*", "kind:k*", "status:s*", "title:i*", "title:*stan*", "notes:" + long,
		"notes:" + long + "y", "notes:x*", "items:y", "items:*", "items.name:x", "level:2", "version:2.0", "level:*",
		"date:2024", "date:2024-03", "date:>=2024-01-01", "date:2023-12-31", "status:\"\"", "kind:adr -status:accepted",
		"id:a", "id:sub/*", "path:sub/*", "path:*m.md", "id:*", "kind:nope", "nope:*", "status:accepted kind:nope",
		"kind:adr,kind", "kind:adr date:*",
	}
	var params []docir.QueryParams
	for _, e := range exprs {
		params = append(params, docir.QueryParams{Expr: e})
		params = append(params, docir.QueryParams{Expr: e, Sort: "-date"}, docir.QueryParams{Expr: e, Limit: 1})
	}
	ws := New(Config{Dir: t.TempDir(), Sources: []store.Source{{Path: root}}})
	defer ws.Close()
	ctx := context.Background()
	if _, err := ws.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if hits := compareQueries(t, ws, params); hits == 0 {
		t.Fatal("no expression matched anything")
	}
	// Generations on top: replaced front matter, deletions, a new file;
	// enough refreshes to cross the layer merges.
	for i := range 7 {
		writeDocs(t, root, map[string]string{
			"a.md":                   fmt.Sprintf("---\nstatus: superseded\nkind: adr%d\n---\n# A\n", i%2),
			"new.md":                 fmt.Sprintf("---\nstatus: accepted\nkind: adr\nround: %d\n---\n# New\n", i),
			fmt.Sprintf("n%d.md", i): "---\nkind: adr\n---\n# N\n",
		})
		if i%2 == 0 {
			os.Remove(filepath.Join(root, "b.md"))
		} else {
			writeDocs(t, root, map[string]string{"b.md": "---\nstatus: accepted\nkind: adr\n---\n# B again\n"})
		}
		if i == 3 {
			os.Remove(filepath.Join(root, "n0.md"))
		}
		if _, err := ws.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		compareQueries(t, ws, append(params, docir.QueryParams{Expr: "kind:adr0"}, docir.QueryParams{Expr: "round:*"}))
	}
}

// queryGen makes random front matter and random query expressions over
// one vocabulary, from one random source.
type queryGen struct {
	rng    *rand.Rand
	vocab  map[string][]string
	fields []string
}

func newQueryGen(rng *rand.Rand) *queryGen {
	g := &queryGen{rng: rng, vocab: map[string][]string{
		"status": {"draft", "accepted", "Accepted", "superseded", "stable"},
		"team":   {"core", "docs", "infra", "Core"},
		"tags":   {"cli", "net", "fs", "text", "archive"},
		"prio":   {"1", "2", "3", "10"},
		"date":   {"2023-01-05", "2024-02-29", "2024-06", "2025-11-30"},
	}}
	for f := range g.vocab {
		g.fields = append(g.fields, f)
	}
	g.fields = append(g.fields, "owner.team", "owner", "Status", "path", "title")
	return g
}

// frontMatter is a front-matter block with some of the vocabulary's
// fields, a team sometimes nested under owner, and now and then a key
// twice in another case.
func (g *queryGen) frontMatter() string {
	rng, vocab := g.rng, g.vocab
	var b strings.Builder
	b.WriteString("---\n")
	for _, f := range []string{"status", "team", "tags", "prio", "date"} {
		if rng.IntN(4) == 0 {
			continue
		}
		vs := vocab[f]
		switch f {
		case "tags":
			fmt.Fprintf(&b, "tags: [%s, %s]\n", vs[rng.IntN(len(vs))], vs[rng.IntN(len(vs))])
		case "team":
			if rng.IntN(5) == 0 {
				fmt.Fprintf(&b, "owner:\n  team: %s\n", vs[rng.IntN(len(vs))])
				continue
			}
			fallthrough
		default:
			fmt.Fprintf(&b, "%s: %s\n", f, vs[rng.IntN(len(vs))])
		}
	}
	if rng.IntN(50) == 0 {
		b.WriteString("Status: draft\n") // irregular: two keys equal ignoring case
	}
	b.WriteString("---\n")
	return b.String()
}

// expr is a query of one to three terms over the fields: values, prefixes,
// lists and wildcards, some negated.
func (g *queryGen) expr() string {
	rng, vocab, fields := g.rng, g.vocab, g.fields
	var terms []string
	for range 1 + rng.IntN(3) {
		f := fields[rng.IntN(len(fields))]
		var v string
		switch vs := vocab[f]; {
		case f == "owner.team":
			vs = vocab["team"]
			v = vs[rng.IntN(len(vs))]
		case f == "path":
			v = []string{"pages/linux/*", "pages/common/t*", "*tar*"}[rng.IntN(3)]
		case f == "title":
			v = []string{"tar", "git*", "*"}[rng.IntN(3)]
		case len(vs) == 0 || rng.IntN(6) == 0:
			v = "*"
		case rng.IntN(4) == 0:
			v = vs[rng.IntN(len(vs))][:1] + "*"
		case rng.IntN(4) == 0:
			v = vs[rng.IntN(len(vs))] + "," + vs[rng.IntN(len(vs))]
		default:
			v = vs[rng.IntN(len(vs))]
		}
		neg := ""
		if rng.IntN(6) == 0 {
			neg = "-"
		}
		terms = append(terms, neg+f+":"+v)
	}
	return strings.Join(terms, " ")
}

// TestQueryIndexTLDR compares the index with the scan over the tldr pages
// with generated front matter, on random expressions, before and after a
// refresh that changes some of the files.
func TestQueryIndexTLDR(t *testing.T) {
	corpustest.SkipHeavy(t)
	src := filepath.Join(corpustest.Unpack(t, corpustest.TLDRPages), "tldr")
	root := t.TempDir()
	g := newQueryGen(rand.New(rand.NewPCG(16, 3)))
	rng, fm, randomExpr := g.rng, g.frontMatter, g.expr
	var files []string
	err := filepath.WalkDir(filepath.Join(src, "pages"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		body, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(root, rel)
		files = append(files, dst)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, append([]byte(fm()), body...), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	params := func() []docir.QueryParams {
		var ps []docir.QueryParams
		for range 150 {
			p := docir.QueryParams{Expr: randomExpr()}
			switch rng.IntN(4) {
			case 0:
				p.Sort = "-date"
			case 1:
				p.Limit = 1 + rng.IntN(100)
			}
			ps = append(ps, p)
		}
		return ps
	}
	ws := New(Config{Dir: t.TempDir(), Sources: []store.Source{{Path: root}}})
	defer ws.Close()
	ctx := context.Background()
	if _, err := ws.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if hits := compareQueries(t, ws, params()); hits == 0 {
		t.Fatal("no expression matched anything")
	}
	for _, i := range rng.Perm(len(files))[:200] {
		f := files[i]
		if i%4 == 0 {
			os.Remove(f)
			continue
		}
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, rest, _ := strings.Cut(string(body[4:]), "---\n")
		if err := os.WriteFile(f, []byte(fm()+rest), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ws.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	compareQueries(t, ws, params())
}

// TestQueryWidenedHint: a query that matches nothing names a field no
// document has; else it says how many
// documents hold its plain values inside longer ones (a list written as
// one string); none is said where the widened query finds nothing too, or
// no term is plain (a glob, a negation, a value with a space).
func TestQueryWidenedHint(t *testing.T) {
	root := t.TempDir()
	writeDocs(t, root, map[string]string{
		"a.md": "---\nkeywords: security, namespaces, rootless\nstatus: draft\n---\n# A\n",
		"b.md": "---\nkeywords: [rootless, daemon]\n---\n# B\n",
		"c.md": "---\nkeywords: rootless mode\n---\n# C\n",
	})
	ws := New(Config{Dir: t.TempDir(), Sources: []store.Source{{Path: root}}})
	defer ws.Close()
	ctx := context.Background()
	if _, err := ws.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	for expr, want := range map[string]string{
		"keywords:namespaces":              "no document matches keywords:namespaces, but 1 match keywords:*namespaces*: the value is a part of a longer one (a list written as one string, `keywords: a, b`, is one value)",
		"keywords:mode status:draft,final": "",
		"keywords:mode":                    "no document matches keywords:mode, but 1 match keywords:*mode*: the value is a part of a longer one (a list written as one string, `keywords: a, b`, is one value)",
		"keywords:rootless":                "", // b matches: no hint
		"keywords:nothing":                 "",
		"keywords:\"mode\"":                "no document matches keywords:\"mode\", but 1 match keywords:*mode*: the value is a part of a longer one (a list written as one string, `keywords: a, b`, is one value)",
		"-keywords:*rootless*":             "",
		"keywords:names*":                  "",
		// A field no document has says so, and nothing else.
		"added:v1":              `no document has the field "added" (docir fields lists the fields the documents have)`,
		"keywords:mode added:1": `no document has the field "added" (docir fields lists the fields the documents have)`,
		"-added:1 title:zz":     "",
	} {
		res, err := ws.Query(ctx, docir.QueryParams{Expr: expr})
		if err != nil {
			t.Fatalf("query %q: %v", expr, err)
		}
		var got string
		if len(res.Warnings) > 0 {
			got = strings.Join(res.Warnings, "\n")
		}
		if got != want {
			t.Errorf("query %q: warnings %q, want %q", expr, got, want)
		}
	}
}
