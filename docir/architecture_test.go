package docir_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// The module's layers, lowest first (../shared/DESIGN.md): a package may
// import packages of its own layer or a lower one, never a higher one.
// readbatch sits between the domain and the store: it imports only docir,
// its JSON-RPC codec (docir/wire), the standard library and x/sync, and only
// workspace and above import it.
const module = "github.com/docir/docir"

var layers = map[string]int{
	"address":    0,
	"docir":      1,
	"readbatch":  2,
	"store":      3,
	"workspace":  4,
	"federation": 5,
	"cmd":        6,
}

// owners: the only packages that may import each third-party library
// (the package or any package below it); no exported API of theirs may carry
// its types, so the rest of docir sees docir's own types only.
var owners = []struct {
	lib   string   // import path prefix
	owner []string // module-relative package folders (prefixes)
}{
	{"github.com/blevesearch/", []string{"store/fulltext"}},
	{"github.com/yuin/goldmark", []string{"store/markdown"}},
	{"go.etcd.io/bbolt", []string{"store"}},
	{"github.com/spf13/cobra", []string{"cmd/"}},
	{"github.com/spf13/viper", []string{"cmd/"}},
	{"github.com/spf13/pflag", []string{"cmd/"}},
	{"github.com/modelcontextprotocol/go-sdk", []string{"workspace/mcp"}},
}

// heavyInits are packages whose initialization every docir process would
// pay for features docir does not use (most calls are a fresh process, so
// start-up is the product's speed): a test may import them, a package
// may not.
var heavyInits = map[string]string{
	"github.com/yuin/goldmark/extension": "its init compiles the regexps of every goldmark extension (0.52 ms and 2,049 allocations a process); store/markdown reads footnotes itself (footnote.go)",
}

// pkg is one package of the module as its non-test files declare it.
type pkg struct {
	fset    *token.FileSet
	dir     string // module-relative, '/'-separated
	name    string
	imports map[string][]string // import path -> files
	files   []*ast.File
	doc     bool // some file has a package comment
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("no go.mod in %s: %v", dir, err)
	}
	return dir
}

func loadPackages(t *testing.T) map[string]*pkg {
	t.Helper()
	return loadFiles(t, false)
}

// loadFiles parses the module's non-test files (tests false) or its test
// files (tests true), by folder.
func loadFiles(t *testing.T, tests bool) map[string]*pkg {
	t.Helper()
	root := moduleRoot(t)
	fset := token.NewFileSet()
	pkgs := map[string]*pkg{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); p != root && err == nil {
				return filepath.SkipDir // another module: a patched dependency (store/patched)
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") != tests {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		rel = filepath.ToSlash(rel)
		k := pkgs[rel]
		if k == nil {
			k = &pkg{fset: fset, dir: rel, name: f.Name.Name, imports: map[string][]string{}}
			pkgs[rel] = k
		}
		k.files = append(k.files, f)
		k.doc = k.doc || f.Doc != nil
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			k.imports[ip] = append(k.imports[ip], name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

func top(dir string) string {
	first, _, _ := strings.Cut(dir, "/")
	return first
}

func isStd(ip string) bool {
	first, _, _ := strings.Cut(ip, "/")
	return !strings.Contains(first, ".")
}

func owns(dir string, owner []string) bool {
	for _, o := range owner {
		if dir == o || strings.HasPrefix(dir+"/", strings.TrimSuffix(o, "/")+"/") {
			return true
		}
	}
	return false
}

// layerErrors lists every import that breaks the layer order or the
// confinement of a third-party library.
func layerErrors(pkgs map[string]*pkg) []string {
	var errs []string
	for _, k := range pkgs {
		from, ok := layers[top(k.dir)]
		if !ok {
			errs = append(errs, k.dir+": a top-level folder the layout does not name")
			continue
		}
		for ip, files := range k.imports {
			where := k.dir + " (" + strings.Join(files, ", ") + ")"
			if why, ok := heavyInits[ip]; ok {
				errs = append(errs, where+" imports "+ip+": "+why)
				continue
			}
			if top(k.dir) == "readbatch" && !isStd(ip) && ip != module+"/docir" && ip != module+"/docir/wire" && !strings.HasPrefix(ip, "golang.org/x/sync/") {
				errs = append(errs, where+" imports "+ip+": readbatch imports only docir, docir/wire, the standard library and x/sync")
				continue
			}
			if rel, ok := strings.CutPrefix(ip, module+"/"); ok {
				to, ok := layers[top(rel)]
				switch {
				case !ok:
					errs = append(errs, where+" imports "+ip+", outside the layout")
				case to > from:
					errs = append(errs, where+" imports "+ip+": "+top(k.dir)+" is below "+top(rel))
				}
				continue
			}
			for _, o := range owners {
				if strings.HasPrefix(ip, o.lib) && !owns(k.dir, o.owner) {
					errs = append(errs, where+" imports "+ip+": only "+strings.Join(o.owner, ", ")+" may")
				}
			}
		}
	}
	slices.Sort(errs)
	return errs
}

// TestLayers enforces the layer order and that third-party libraries stay
// in the package that owns them.
func TestLayers(t *testing.T) {
	for _, e := range layerErrors(loadPackages(t)) {
		t.Error(e)
	}
}

// TestLayersCatchUpwardImports: the check itself finds an upward import, an
// import of an unowned library, readbatch reaching past docir, and a
// package of heavyInits imported by its own owner.
func TestLayersCatchUpwardImports(t *testing.T) {
	pkgs := map[string]*pkg{
		"store":          {dir: "store", imports: map[string][]string{module + "/workspace": {"x.go"}}},
		"workspace":      {dir: "workspace", imports: map[string][]string{"github.com/blevesearch/bleve/v2": {"y.go"}}},
		"readbatch":      {dir: "readbatch", imports: map[string][]string{module + "/address": {"z.go"}}},
		"address":        {dir: "address", imports: map[string][]string{"strings": {"a.go"}}},
		"store/markdown": {dir: "store/markdown", imports: map[string][]string{"github.com/yuin/goldmark/extension": {"m.go"}}},
	}
	if got := layerErrors(pkgs); len(got) != 4 {
		t.Errorf("found %d faults, want 4: %q", len(got), got)
	}
}

// TestExportedAPIsKeepLibrariesHome: no exported declaration of any package
// mentions a type of a confined third-party library, so callers never see
// bleve, goldmark, bbolt, cobra, viper or go-sdk types.
func TestExportedAPIsKeepLibrariesHome(t *testing.T) {
	for _, k := range loadPackages(t) {
		if k.name == "main" {
			continue
		}
		for _, f := range k.files {
			confined := map[string]string{} // local name -> import path
			for _, imp := range f.Imports {
				ip, _ := strconv.Unquote(imp.Path.Value)
				for _, o := range owners {
					if strings.HasPrefix(ip, o.lib) {
						name := path.Base(ip)
						if regexp.MustCompile(`^v\d+$`).MatchString(name) {
							name = path.Base(path.Dir(ip))
						}
						if imp.Name != nil {
							name = imp.Name.Name
						}
						confined[name] = ip
					}
				}
			}
			if len(confined) == 0 {
				continue
			}
			for _, d := range f.Decls {
				for _, expr := range exportedTypes(d) {
					ast.Inspect(expr, func(n ast.Node) bool {
						if sel, ok := n.(*ast.SelectorExpr); ok {
							if id, ok := sel.X.(*ast.Ident); ok && confined[id.Name] != "" {
								t.Errorf("%s: an exported declaration carries %s.%s (%s)", k.dir, id.Name, sel.Sel.Name, confined[id.Name])
							}
						}
						return true
					})
				}
			}
		}
	}
}

// exportedTypes returns the type expressions an exported declaration shows
// to other packages: signatures of exported functions and methods of
// exported types, exported types (only the exported fields of a struct),
// and the declared types of exported variables and constants.
func exportedTypes(d ast.Decl) []ast.Node {
	var out []ast.Node
	switch d := d.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() {
			return nil
		}
		if d.Recv != nil && len(d.Recv.List) > 0 {
			recv := d.Recv.List[0].Type
			if s, ok := recv.(*ast.StarExpr); ok {
				recv = s.X
			}
			if g, ok := recv.(*ast.IndexExpr); ok {
				recv = g.X
			}
			if id, ok := recv.(*ast.Ident); !ok || !id.IsExported() {
				return nil
			}
		}
		out = append(out, d.Type)
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if !s.Name.IsExported() {
					continue
				}
				if st, ok := s.Type.(*ast.StructType); ok {
					for _, f := range st.Fields.List {
						if len(f.Names) == 0 || slices.ContainsFunc(f.Names, (*ast.Ident).IsExported) {
							out = append(out, f.Type)
						}
					}
					continue
				}
				out = append(out, s.Type)
			case *ast.ValueSpec:
				if s.Type != nil && slices.ContainsFunc(s.Names, (*ast.Ident).IsExported) {
					out = append(out, s.Type)
				}
			}
		}
	}
	return out
}

// TestNoContextKeys: no package puts a value in a context
// (context.WithValue). The seams a call reads through — the reader, the
// generation a view holds, a read log, a reply bound — are values passed
// explicitly (STYLE 14: the type system, not ctx.Value, decides which
// generation a call reads); a context carries cancellation and deadlines
// only. A value that truly belongs in a context (not a reader, view, log
// or bound) would be added here by name, with why.
func TestNoContextKeys(t *testing.T) {
	for _, e := range contextKeyErrors(loadPackages(t)) {
		t.Error(e)
	}
}

// contextKeyErrors lists every call of context.WithValue, under whatever
// name the file imports package context.
func contextKeyErrors(pkgs map[string]*pkg) []string {
	var errs []string
	for _, k := range pkgs {
		for _, f := range k.files {
			names := map[string]bool{}
			for _, imp := range f.Imports {
				if ip, _ := strconv.Unquote(imp.Path.Value); ip == "context" {
					name := "context"
					if imp.Name != nil {
						name = imp.Name.Name
					}
					names[name] = true
				}
			}
			if len(names) == 0 {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "WithValue" {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && names[id.Name] {
					errs = append(errs, k.fset.Position(sel.Pos()).String()+": context.WithValue: pass the reader, view, read log or bound as a value (a parameter, a field, a method), not as a context key")
				}
				return true
			})
		}
	}
	slices.Sort(errs)
	return errs
}

// TestNoContextKeysCatchesOne: the check finds a context key under the
// package's own name and under another import name, used as a call or as
// a function value, and passes code that only cancels.
func TestNoContextKeysCatchesOne(t *testing.T) {
	src := map[string]string{
		"a.go": "package a\nimport \"context\"\ntype logKey struct{}\nfunc WithLog(ctx context.Context, l any) context.Context { return context.WithValue(ctx, logKey{}, l) }\n",
		"b.go": "package a\nimport c \"context\"\nvar with = c.WithValue\n",
		"c.go": "package a\nimport \"context\"\nfunc Cancel(ctx context.Context) (context.Context, func()) { return context.WithCancel(ctx) }\n",
	}
	fset := token.NewFileSet()
	k := &pkg{fset: fset, dir: "a"}
	for _, name := range slices.Sorted(maps.Keys(src)) {
		f, err := parser.ParseFile(fset, name, src[name], parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		k.files = append(k.files, f)
	}
	got := contextKeyErrors(map[string]*pkg{"a": k})
	var where []string
	for _, e := range got {
		file, _, _ := strings.Cut(e, ":")
		where = append(where, file)
	}
	if want := []string{"a.go", "b.go"}; !slices.Equal(where, want) {
		t.Errorf("found %q, want one fault in each of %q", got, want)
	}
}

// maxFuncLines bounds a function, from its func line to its closing brace.
// A longer one is several steps that want names of their own.
const maxFuncLines = 100

// longFuncsAllowed are the functions over maxFuncLines that are known and
// not yet split, each with why (none left: a function that grows past the
// bound is split, not listed). The test fails on any other, and on one of
// these once it is split (so the list only shrinks).
var longFuncsAllowed = map[string]string{}

// TestNoLongFunctions: no function of the module's hand-written code,
// tests included (generated files are passed over, as are the patched
// modules under store/patched, which are not the module's), is over
// maxFuncLines.
func TestNoLongFunctions(t *testing.T) {
	found := map[string]bool{}
	for _, l := range slices.Concat(longFuncs(loadPackages(t)), longFuncs(loadFiles(t, true))) {
		found[l.key] = true
		if why, ok := longFuncsAllowed[l.key]; ok {
			t.Logf("%s: %d lines (known: %s)", l.where, l.lines, why)
			continue
		}
		t.Errorf("%s: %s is %d lines, over %d: split it into named steps", l.where, l.name, l.lines, maxFuncLines)
	}
	for key := range longFuncsAllowed {
		if !found[key] {
			t.Errorf("%s is no longer over %d lines: take it off longFuncsAllowed", key, maxFuncLines)
		}
	}
}

type longFunc struct {
	key   string // "dir/file.go Recv.Name" or "dir/file.go Name"
	name  string
	where string // file:line
	lines int
}

// longFuncs lists the function declarations over maxFuncLines (function
// literals count toward the function that holds them).
func longFuncs(pkgs map[string]*pkg) []longFunc {
	var out []longFunc
	for _, k := range pkgs {
		for _, f := range k.files {
			if ast.IsGenerated(f) {
				continue
			}
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				start, end := k.fset.Position(fn.Pos()), k.fset.Position(fn.End())
				n := end.Line - start.Line + 1
				if n <= maxFuncLines {
					continue
				}
				name := fn.Name.Name
				if fn.Recv != nil && len(fn.Recv.List) > 0 {
					recv := fn.Recv.List[0].Type
					if s, ok := recv.(*ast.StarExpr); ok {
						recv = s.X
					}
					if id, ok := recv.(*ast.Ident); ok {
						name = id.Name + "." + name
					}
				}
				file := path.Join(k.dir, filepath.Base(start.Filename))
				out = append(out, longFunc{key: file + " " + name, name: name, where: fmt.Sprintf("%s:%d", file, start.Line), lines: n})
			}
		}
	}
	slices.SortFunc(out, func(a, b longFunc) int { return strings.Compare(a.where, b.where) })
	return out
}

// TestLongFuncsCatchesOne: a function of 101 lines is found, one of 100 is
// not, and neither is a generated file's.
func TestLongFuncsCatchesOne(t *testing.T) {
	body := func(name string, lines int) string {
		return "func " + name + "() {\n" + strings.Repeat("\t_ = 0\n", lines-2) + "}\n"
	}
	src := map[string]string{
		"a.go": "package a\n" + body("Long", 101) + body("Fits", 100),
		"z.go": "// Code generated by hand. DO NOT EDIT.\n\npackage a\n" + body("Made", 300),
	}
	fset := token.NewFileSet()
	k := &pkg{fset: fset, dir: "a"}
	for _, name := range slices.Sorted(maps.Keys(src)) {
		f, err := parser.ParseFile(fset, name, src[name], parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		k.files = append(k.files, f)
	}
	var got []string
	for _, l := range longFuncs(map[string]*pkg{"a": k}) {
		got = append(got, fmt.Sprintf("%s %d", l.key, l.lines))
	}
	if want := []string{"a/a.go Long 101"}; !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}

// TestPackageComments: every package says what it owns.
func TestPackageComments(t *testing.T) {
	for _, k := range loadPackages(t) {
		if !k.doc {
			t.Errorf("%s: no package comment", k.dir)
		}
	}
}

// TestReadmeLayout: README's layout lists exactly the top-level folders of
// the source tree: every folder at the top, less dotfolders (.git, .ci,
// .docir) and the folders the root .gitignore ignores, which are build
// output (bin/ after the README's build command), not layout.
func TestReadmeLayout(t *testing.T) {
	root := moduleRoot(t)
	rest := readmeSection(t, root, "Layout")
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^([a-z][a-z0-9_-]*)/`).FindAllStringSubmatch(rest, -1) {
		listed = append(listed, m[1])
	}
	dirs, err := layoutDirs(root)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(listed)
	if !slices.Equal(listed, dirs) {
		t.Errorf("README's layout lists %q; the tree has %q", listed, dirs)
	}
}

// readmeSection is the text of the README section "## <title...>" below
// its heading line, up to the next "## " heading.
func readmeSection(t *testing.T, root, title string) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "\n## "+title)
	if !ok {
		t.Fatalf("README.md has no \"## %s\" section", title)
	}
	_, rest, _ = strings.Cut(rest, "\n")
	rest, _, _ = strings.Cut(rest, "\n## ")
	return rest
}

// layoutDirs are the top-level folders of the tree at root, sorted, less
// dotfolders and the folders root/.gitignore ignores.
func layoutDirs(root string) ([]string, error) {
	ignore, err := rootIgnore(root)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !ignore.Match([]string{e.Name()}, true) {
			dirs = append(dirs, e.Name())
		}
	}
	slices.Sort(dirs)
	return dirs, nil
}

// rootIgnore matches what the .gitignore at root ignores (nothing when
// there is none), with git's syntax.
func rootIgnore(root string) (gitignore.Matcher, error) {
	data, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var ps []gitignore.Pattern
	for line := range strings.Lines(string(data)) {
		line = strings.TrimRight(line, "\r\n")
		if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "#") {
			ps = append(ps, gitignore.ParsePattern(line, nil))
		}
	}
	return gitignore.NewMatcher(ps), nil
}

// TestLayoutIgnoresBuildOutput: a bin/ folder (what the README's build
// command makes) and an ignored folder of any name are not layout; a
// folder .gitignore does not name is.
func TestLayoutIgnoresBuildOutput(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"bin", "cmd", "out", "extra", ".docir"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("# build output\n/bin/\nout\n*.test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := layoutDirs(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"cmd", "extra"}; !slices.Equal(got, want) {
		t.Errorf("layout dirs %q, want %q", got, want)
	}
}
