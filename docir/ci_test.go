package docir_test

import (
	"go/ast"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The lines of .ci/run that name a fuzz target: one it fuzzes
// ("fuzz ./pkg FuzzX") and one it leaves out on purpose ("# not fuzzed:
// ./pkg FuzzX, because ...").
var (
	ciFuzzed = regexp.MustCompile(`(?m)^fuzz (\./\S+) (Fuzz\w+)\s*$`)
	ciExempt = regexp.MustCompile(`(?m)^# not fuzzed: (\./\S+) (Fuzz\w+)\b`)
)

// TestCIFuzzesEveryTarget: README says .ci/run fuzzes every fuzz target of
// outside input. Every Fuzz function in the module is either fuzzed there
// or named there as not outside input, with the reason; and every target
// .ci/run names exists, so a renamed one is not silently skipped.
func TestCIFuzzesEveryTarget(t *testing.T) {
	root := moduleRoot(t)
	run, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for dir, k := range loadFiles(t, true) {
		for _, f := range k.files {
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Fuzz") {
					targets = append(targets, "./"+dir+" "+fn.Name.Name)
				}
			}
		}
	}
	missing, unknown := ciFuzzGaps(string(run), targets)
	for _, m := range missing {
		t.Errorf(".ci/run neither fuzzes %s nor says why not (add `fuzz %[1]s`, or `# not fuzzed: %[1]s, because ...`)", m)
	}
	for _, u := range unknown {
		t.Errorf(".ci/run names %s, which is no fuzz target in the module", u)
	}
}

// ciFuzzGaps compares the run script with the module's fuzz targets (each
// "./pkg FuzzX"): the targets the script neither fuzzes nor exempts, and
// the ones it names that do not exist. Both are sorted.
func ciFuzzGaps(run string, targets []string) (missing, unknown []string) {
	named := map[string]bool{}
	for _, re := range []*regexp.Regexp{ciFuzzed, ciExempt} {
		for _, m := range re.FindAllStringSubmatch(run, -1) {
			named[m[1]+" "+m[2]] = true
		}
	}
	for _, tg := range targets {
		if !named[tg] {
			missing = append(missing, tg)
		}
		delete(named, tg)
	}
	for n := range named {
		unknown = append(unknown, n)
	}
	slices.Sort(missing)
	slices.Sort(unknown)
	return missing, unknown
}

func TestCIFuzzGapsCatchesOne(t *testing.T) {
	run := "fuzz ./a FuzzA\n# not fuzzed: ./b FuzzB, because it reads our own output\nfuzz ./c FuzzGone\n# fuzz ./d FuzzD\n"
	missing, unknown := ciFuzzGaps(run, []string{"./a FuzzA", "./b FuzzB", "./d FuzzD", "./e FuzzA"})
	if want := []string{"./d FuzzD", "./e FuzzA"}; !slices.Equal(missing, want) {
		t.Errorf("missing %q, want %q", missing, want)
	}
	if want := []string{"./c FuzzGone"}; !slices.Equal(unknown, want) {
		t.Errorf("unknown %q, want %q", unknown, want)
	}
}
