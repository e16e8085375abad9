package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rivo/uniseg"
	"go.yaml.in/yaml/v3"

	"github.com/docir/docir/docir"
)

// TestLayout: a table too wide for the terminal narrows the columns that
// may be cut, then leaves columns out in their order; the address is never
// cut or left out.
func TestLayout(t *testing.T) {
	cols := []column{{head: "ADDRESS"}, {head: "SCORE", right: true, drop: 1}, {head: "TITLE", cut: 12, drop: 2}}
	row := func(addr, title string) [][]string { return [][]string{{addr, "1.000", title}} }
	for _, tt := range []struct {
		name       string
		rows       [][]string
		width      int
		keep, want []int
	}{
		{"no limit", row(strings.Repeat("a", 170), strings.Repeat("t", 40)), 0, []int{0, 1, 2}, []int{170, 5, 40}},
		{"fits", row(strings.Repeat("a", 20), strings.Repeat("t", 20)), 80, []int{0, 1, 2}, []int{20, 5, 20}},
		{"title cut first", row(strings.Repeat("a", 30), strings.Repeat("t", 60)), 80, []int{0, 1, 2}, []int{30, 5, 41}},
		{"then the score left out", row(strings.Repeat("a", 50), strings.Repeat("t", 60)), 64, []int{0, 2}, []int{50, 12}},
		{"then the title", row(strings.Repeat("a", 50), strings.Repeat("t", 60)), 60, []int{0}, []int{50}},
		{"the address runs on", row(strings.Repeat("a", 90), "t"), 60, []int{0}, []int{90}},
	} {
		keep, widths := layout(cols, tt.rows, true, tt.width)
		if diff := cmp.Diff([]any{tt.keep, tt.want}, []any{keep, widths}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestFieldsTableFitsTerminal: docir fields lays its table out as every
// table is: at 40 columns the values are cut, then the counts left out,
// and no line is wider; a value over two lines or with a tab is one line.
func TestFieldsTableFitsTerminal(t *testing.T) {
	res := docir.FieldsResult{Documents: 9, Generation: 2, Fields: []docir.FieldInfo{
		{Name: "description_of_the_page", Documents: 9, Distinct: 9, Values: []docir.ValueCount{{Value: "line one\nline two\tand a tab", Documents: 1}}},
		{Name: "kind", Documents: 3, Distinct: 1, Values: []docir.ValueCount{{Value: "adr", Documents: 3}}},
	}}
	for _, width := range []int{0, 80, 40, 30} {
		var b bytes.Buffer
		if err := printFieldsText(&b, res, width); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines) != 4 || strings.ContainsAny(b.String(), "\t") {
			t.Errorf("width %d: %d lines, want 4 (a header, a head row, two fields), no tab:\n%s", width, len(lines), b.String())
		}
		for _, l := range lines {
			if width > 0 && uniseg.StringWidth(l) > width {
				t.Errorf("width %d: line of %d columns: %q", width, uniseg.StringWidth(l), l)
			}
		}
	}
}

// A table printed for a terminal never cuts an address: at 60 columns the
// title is cut, then left out with the score, and no STORE column is shown
// when every hit is local; a row longer than the terminal is its address
// alone. Into a pipe nothing is cut.
func TestHitsTableFitsTerminal(t *testing.T) {
	long := "runbooks/" + strings.Repeat("very-long-name-", 5) + "#section-with-a-long-slug"
	hits := []docir.Hit{
		{ID: "a", Title: "A title that is rather long, as titles of design documents tend to be", Store: "local", Score: 1, MatchedSection: "adr/0003-retry-budget#decision", Snippet: strings.Repeat("retry budget words ", 20)},
		{ID: "b", Title: "Short", Store: "local", Score: 0.5, MatchedSection: "b#x"},
	}
	for _, tt := range []struct {
		width int
		want  []string // the table's lines, snippets left out
	}{
		{60, []string{
			"ADDRESS                         SCORE  TITLE",
			"adr/0003-retry-budget#decision  1.000  A title that is rath…",
			"b#x                             0.500  Short",
		}},
		{46, []string{
			"ADDRESS                         TITLE",
			"adr/0003-retry-budget#decision  A title that …",
			"b#x                             Short",
		}},
		{40, []string{"ADDRESS", "adr/0003-retry-budget#decision", "b#x"}},
	} {
		var out bytes.Buffer
		if err := printHitsText(&out, "retry", hits, marker{}, "", tt.width); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if strings.HasPrefix(line, "    ") {
				if w := uniseg.StringWidth(line); w > tt.width {
					t.Errorf("width %d: snippet line of %d columns", tt.width, w)
				}
				continue
			}
			got = append(got, line)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("width %d (-want +got):\n%s", tt.width, diff)
		}
	}
	hits[0].MatchedSection = long
	hits[1].Store = "team"
	var out bytes.Buffer
	if err := printHitsText(&out, "retry", hits, marker{}, "", 40); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\n"+long+"\n") {
		t.Errorf("the long address is cut or not alone on its row:\n%s", out.String())
	}
	out.Reset()
	if err := printHitsText(&out, "retry", hits, marker{}, "", 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "STORE") || !strings.Contains(out.String(), "  team  ") || strings.Contains(out.String(), "…") {
		t.Errorf("into a pipe: every column, a STORE column for a peer's hit, nothing cut:\n%s", out.String())
	}
}

// TestAlsoLine: a hit's also is a line under it, its first three
// addresses and how many more it lists; none without.
func TestAlsoLine(t *testing.T) {
	h := docir.Hit{Also: []string{"a#x", "b#x", "c#x", "d#x", "e#x"}}
	if got, want := alsoLine(h, 0), "    the same text in a#x, b#x, c#x and 2 more\n"; got != want {
		t.Errorf("alsoLine = %q, want %q", got, want)
	}
	if got := alsoLine(docir.Hit{}, 0); got != "" {
		t.Errorf("alsoLine of no also = %q", got)
	}
	if got := alsoLine(h, 20); uniseg.StringWidth(strings.TrimSuffix(got, "\n")) > 20 {
		t.Errorf("alsoLine over width 20: %q", got)
	}
}

func TestFitText(t *testing.T) {
	for _, tt := range []struct {
		s     string
		width int
		want  string
	}{
		{"abcdef", 0, "abcdef"},
		{"abcdef", 6, "abcdef"},
		{"abcdef", 4, "abc…"},
		{"检索检索", 5, "检索…"}, // wide runes count two columns
	} {
		if got := fitText(tt.s, tt.width); got != tt.want {
			t.Errorf("fitText(%q, %d) = %q, want %q", tt.s, tt.width, got, tt.want)
		}
	}
}

func TestPrintWarnings(t *testing.T) {
	warnings := []string{"w1", "w2", "w3", "w4", "w5"}
	for _, tt := range []struct {
		verbose bool
		in      []string
		want    string
	}{
		{false, warnings[:4], "docir: warning: w1\ndocir: warning: w2\ndocir: warning: w3\ndocir: warning: w4\n"},
		{false, warnings, "docir: warning: w1\ndocir: warning: w2\ndocir: warning: w3\ndocir: warning: ... and 2 more (5 in all; -v lists every one)\n"},
		{true, warnings, "docir: warning: w1\ndocir: warning: w2\ndocir: warning: w3\ndocir: warning: w4\ndocir: warning: w5\n"},
	} {
		var errOut bytes.Buffer
		printWarnings(&IOStreams{ErrOut: &errOut, Verbose: tt.verbose}, tt.in)
		if diff := cmp.Diff(tt.want, errOut.String()); diff != "" {
			t.Errorf("verbose=%v (-want +got):\n%s", tt.verbose, diff)
		}
	}
}

func TestJQ(t *testing.T) {
	v := docir.GetResult{Documents: []docir.Document{{ID: "a", Title: "A <b>"}}, Missing: []docir.Missing{{Address: "x", Reason: "no_document", Suggestions: []string{"y"}}}}
	for _, tt := range []struct{ expr, want string }{
		{".documents[].title", "A <b>\n"},
		{".missing[0]", `{"address":"x","reason":"no_document","suggestions":["y"]}` + "\n"},
		{".missing[].suggestions | length", "1\n"},
		{"empty", ""},
		// Builtins defined in jq and in Go (gojq keeps them in two tables).
		{"[.documents[].id] | map(ascii_upcase) | first", "A\n"},
		{"[.missing[] | select(.reason == \"no_document\") | .address] | join(\",\")", "x\n"},
		{".documents | to_entries | map(.key) | add", "0\n"},
	} {
		var out bytes.Buffer
		s := &IOStreams{Out: &out}
		if err := s.setJQ(tt.expr); err != nil {
			t.Fatal(err)
		}
		if err := s.printJSON(v); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, out.String()); diff != "" {
			t.Errorf("--jq %s (-want +got):\n%s", tt.expr, diff)
		}
	}
	s := &IOStreams{Out: &bytes.Buffer{}}
	if err := s.setJQ(".a |"); docir.CodeOf(err) != docir.CodeUsage {
		t.Errorf("bad --jq: %v, want a usage error", err)
	}
	if err := s.setJQ(`error("boom")`); err != nil {
		t.Fatal(err)
	}
	if err := s.printJSON(v); err == nil || !strings.Contains(err.Error(), "boom") || docir.ExitCode(err) != 1 {
		t.Errorf("a failing --jq: %v (exit %d); want boom, exit 1: the expression failed on the data, the invocation was well formed", err, docir.ExitCode(err))
	}
}

// The pager runs only when stdout is a terminal.
func TestPagerOnlyOnTerminal(t *testing.T) {
	t.Setenv("DOCIR_PAGER", "cat >/dev/null")
	var out bytes.Buffer
	s := &IOStreams{Out: &out, ErrOut: &out, isTTY: func() bool { return false }}
	if err := s.paged(func(w io.Writer) error { _, err := io.WriteString(w, "body\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if out.String() != "body\n" {
		t.Errorf("into a pipe: %q, want the text itself", out.String())
	}
	out.Reset()
	s.isTTY = func() bool { return true }
	if err := s.paged(func(w io.Writer) error { _, err := io.WriteString(w, "body\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if out.String() != "" {
		t.Errorf("on a terminal the pager takes the text; got %q on stdout", out.String())
	}
}

// A pager that is not installed (no less on a slim image, a PAGER naming a
// program that is gone) is no pager: the text is printed as usual, not
// lost into a shell that says "not found".
func TestPagerMissing(t *testing.T) {
	for _, pager := range []string{"docir-no-such-pager -R", "LESS=R docir-no-such-pager", "/nonexistent/less"} {
		t.Setenv("DOCIR_PAGER", pager)
		var out, errOut bytes.Buffer
		s := &IOStreams{Out: &out, ErrOut: &errOut, isTTY: func() bool { return true }}
		if err := s.paged(func(w io.Writer) error { _, err := io.WriteString(w, "body\n"); return err }); err != nil {
			t.Fatal(err)
		}
		if out.String() != "body\n" || errOut.Len() > 0 {
			t.Errorf("pager %q: stdout %q, stderr %q; want the text itself, and nothing on stderr", pager, out.String(), errOut.String())
		}
	}
	for cmdline, want := range map[string]bool{"cat -": true, "LESS=R cat": true, "sh -c 'cat'": true, "docir-no-such-pager": false, "A=1 B=2": false} {
		if got := pagerFound(cmdline); got != want {
			t.Errorf("pagerFound(%q) = %v, want %v", cmdline, got, want)
		}
	}
}

func TestEditSources(t *testing.T) {
	in := "# head\nretry: 2\n\nsources: [a, b]   # flow\n\n# tail\nformat: json\n"
	got, err := editSources([]byte(in), []SourceConfig{{Path: "a"}, {Path: "c", Prefix: "p"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "# head\nretry: 2\n\nsources: # flow\n  - path: a\n  - path: c\n    prefix: p\n\n# tail\nformat: json\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var cfg struct {
		Sources []map[string]string `yaml:"sources"`
		Format  string              `yaml:"format"`
	}
	if err := yaml.Unmarshal(got, &cfg); err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	if diff := cmp.Diff([]map[string]string{{"path": "a"}, {"path": "c", "prefix": "p"}}, cfg.Sources); diff != "" {
		t.Errorf("sources (-want +got):\n%s\n%s", diff, got)
	}
	if !strings.HasPrefix(string(got), "# head\nretry: 2\n\n") || !strings.HasSuffix(string(got), "\n\n# tail\nformat: json\n") {
		t.Errorf("the lines around sources changed:\n%s", got)
	}
}

// FuzzEditSources holds that editing sources either refuses the file or
// yields YAML whose sources are exactly the list, with every other
// top-level key kept.
func FuzzEditSources(f *testing.F) {
	f.Add([]byte("retain: 2\nsources:\n  - path: a # c\n    prefix: x\n\n# end\n"))
	f.Add([]byte("sources: []\n"))
	f.Add([]byte("# only a comment\n"))
	f.Add([]byte(""))
	f.Add([]byte("sources:\n- path: |\n    multi\n    line\nretain: 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		list := []SourceConfig{{Path: "docs"}, {Path: "../b", Prefix: "b"}}
		_ = checkConfigFile("fuzz.yaml", data) // must not panic
		out, err := editSources(data, list)
		if err != nil {
			return
		}
		var before, after map[string]any
		if yaml.Unmarshal(data, &before) != nil {
			return
		}
		if err := yaml.Unmarshal(out, &after); err != nil {
			t.Fatalf("edited file does not parse: %v\n%q\n%q", err, data, out)
		}
		var got struct {
			Sources []SourceConfig `yaml:"sources"`
		}
		if err := yaml.Unmarshal(out, &got); err != nil {
			t.Fatalf("%v\n%q", err, out)
		}
		if diff := cmp.Diff(list, got.Sources); diff != "" {
			t.Fatalf("sources (-want +got):\n%s\n%q\n%q", diff, data, out)
		}
		for k, v := range before {
			if k == "sources" {
				continue
			}
			if diff := cmp.Diff(v, after[k]); diff != "" {
				t.Fatalf("key %q changed (-want +got):\n%s\n%q\n%q", k, diff, data, out)
			}
		}
	})
}

// The JSON of `docir sources` is a wire shape: its fields are pinned.
func TestSourcesShape(t *testing.T) {
	var out bytes.Buffer
	res := sourcesResult{Config: "/p/docir.yaml", Sources: []sourceEntry{{Path: "../a", Dir: "/a"}, {Path: "b", Prefix: "x", FrontMatterID: "name", Dir: "/p/b"}}}
	if err := printJSON(&out, res); err != nil {
		t.Fatal(err)
	}
	want := `{
  "config": "/p/docir.yaml",
  "sources": [
    {
      "path": "../a",
      "dir": "/a"
    },
    {
      "path": "b",
      "prefix": "x",
      "front_matter_id": "name",
      "dir": "/p/b"
    }
  ]
}
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestWriteSourcesKeepsSpecialFiles: the source list is written through a
// link to the file it names (the link stays), and a config path that is
// not a regular file (a FIFO here, /dev/null for a user) is refused before
// anything is written: a rename over it would replace it with a file.
func TestWriteSourcesKeepsSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	list := []SourceConfig{{Path: "docs"}}
	real := filepath.Join(dir, "real.yaml")
	if err := os.WriteFile(real, []byte("name: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "docir.yaml")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := writeSources(link, list, nil); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", info.Mode(), err)
	}
	if data, _ := os.ReadFile(real); !strings.Contains(string(data), "docs") || !strings.Contains(string(data), "name: x") {
		t.Errorf("the linked file: %q", data)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	err := writeSources(fifo, list, nil)
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("writing to a FIFO: %v", err)
	}
	if info, err := os.Lstat(fifo); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", info.Mode(), err)
	}
	if left, _ := filepath.Glob(fifo + ".*tmp"); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestWriteSourcesKeepsTheMode: docir.yaml rewritten by `docir index DIR`
// became 0644 whatever it was (a config kept 0600 for its token_env
// neighbours, 0664 for a group): the new file takes the old one's mode.
func TestWriteSourcesKeepsTheMode(t *testing.T) {
	for _, mode := range []os.FileMode{0o600, 0o664, 0o640} {
		file := filepath.Join(t.TempDir(), "docir.yaml")
		if err := os.WriteFile(file, []byte("name: x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(file, mode); err != nil {
			t.Fatal(err)
		}
		if err := writeSources(file, []SourceConfig{{Path: "docs"}}, nil); err != nil {
			t.Fatal(err)
		}
		if info, err := os.Stat(file); err != nil || info.Mode().Perm() != mode {
			t.Errorf("a %v config rewritten: %v, %v", mode, info.Mode(), err)
		}
	}
}

// A cell of a text table is one line, whatever its text: a title written
// over two lines in front matter does not start a row `get -` would read.
func TestTableCellsOneLine(t *testing.T) {
	var b strings.Builder
	rows := [][]string{{"a#x", "1.000", "Two\nlines\tand\r\nmore"}, {"b", "0.500", "B"}}
	writeTable(&b, []column{{head: "ADDRESS"}, {head: "SCORE", right: true}, {head: "TITLE"}}, rows, true, 0, nil)
	want := "ADDRESS  SCORE  TITLE\na#x      1.000  Two lines and  more\nb        0.500  B\n"
	if b.String() != want {
		t.Errorf("table:\n%q\nwant\n%q", b.String(), want)
	}
	if rows[0][2] != "Two\nlines\tand\r\nmore" {
		t.Errorf("the rows given were changed: %q", rows[0][2])
	}
	got, err := readAddresses(strings.NewReader(b.String()))
	if err != nil || len(got) != 2 {
		t.Errorf("get - of the table: %v, %v; want a#x and b", got, err)
	}
}
