package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/docir/docir/docir/corpustest"
)

// initRecord is one package's init as GODEBUG=inittrace=1 prints it:
// "init <pkg> @<start> ms, <clock> ms clock, <bytes> bytes, <allocs> allocs".
type initRecord struct {
	pkg           string
	clockMS       float64
	bytes, allocs float64
}

func parseInitTrace(r io.Reader) []initRecord {
	var out []initRecord
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var rec initRecord
		var at float64
		var b, a int64
		if _, err := fmt.Sscanf(sc.Text(), "init %s @%f ms, %f ms clock, %d bytes, %d allocs", &rec.pkg, &at, &rec.clockMS, &b, &a); err != nil {
			continue
		}
		rec.bytes, rec.allocs = float64(b), float64(a)
		out = append(out, rec)
	}
	return out
}

// initTrace runs `docir --version` and `docir get` (on the first store
// built, else the RFCs)
// o.inittrace times each with GODEBUG=inittrace=1 and prints, per
// package, the median init time over the runs, for every package whose
// median is over 50 µs, with the import chain that links it.
func (e *env) initTrace(w io.Writer) error {
	var c *corpus
	if len(e.built) > 0 {
		c = e.built[0]
	} else {
		src, err := e.unpack(corpustest.RustRFCs)
		if err != nil {
			return err
		}
		c = &corpus{name: "rfcs (648)", dir: filepath.Join(e.work, "inittrace"), sources: []source{{path: filepath.Join(src, "rfcs")}}}
		if err := c.prepare(); err != nil {
			return err
		}
	}
	if _, err := os.Stat(c.store()); err != nil {
		e.say("indexing %s for the get trace", c.name)
		if _, err := e.r.run(c.cmd(e.docir, "index")); err != nil {
			return err
		}
	}
	chains, err := importChains()
	if err != nil {
		return err
	}
	for _, args := range [][]string{{"--version"}, append([]string{"get"}, c.one...)} {
		e.say("init trace of docir %s, %d runs", strings.Join(args, " "), e.o.inittrace)
		per := map[string][]initRecord{}
		var order []string
		var totals []float64
		for range e.o.inittrace {
			cmd := exec.Command(e.docir, args...)
			cmd.Dir = c.dir
			cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = devNull, &stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("docir %s: %w: %s", strings.Join(args, " "), err, stderr.String())
			}
			var total float64
			for _, rec := range parseInitTrace(&stderr) {
				if _, ok := per[rec.pkg]; !ok {
					order = append(order, rec.pkg)
				}
				per[rec.pkg] = append(per[rec.pkg], rec)
				total += rec.clockMS
			}
			totals = append(totals, total)
		}
		type line struct {
			pkg                  string
			clock, bytes, allocs float64
		}
		var lines []line
		for _, pkg := range order {
			recs := per[pkg]
			f := func(get func(initRecord) float64) float64 {
				xs := make([]float64, len(recs))
				for i, r := range recs {
					xs[i] = get(r)
				}
				return statsOf(xs).median
			}
			l := line{pkg: pkg, clock: f(func(r initRecord) float64 { return r.clockMS }),
				bytes: f(func(r initRecord) float64 { return r.bytes }), allocs: f(func(r initRecord) float64 { return r.allocs })}
			if l.clock > 0.05 {
				lines = append(lines, l)
			}
		}
		slices.SortFunc(lines, func(a, b line) int {
			switch {
			case a.clock > b.clock:
				return -1
			case a.clock < b.clock:
				return 1
			}
			return strings.Compare(a.pkg, b.pkg)
		})
		t := statsOf(totals)
		fmt.Fprintf(w, "`docir %s` with GODEBUG=inittrace=1, %d runs: %d package inits, %.2f ms in all (median; %.2f–%.2f). Inits over 50 µs:\n\n",
			strings.Join(args, " "), e.o.inittrace, len(order), t.median, t.min, t.max)
		fmt.Fprintln(w, "| package | init (median) | bytes | allocs | linked through |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---|")
		for _, l := range lines {
			fmt.Fprintf(w, "| %s | %.3f ms | %.0f | %.0f | %s |\n", l.pkg, l.clock, l.bytes, l.allocs, chains[l.pkg])
		}
		fmt.Fprintln(w)
	}
	return nil
}

// importChains returns, for every package docir links, the shortest chain
// of imports from a package of this module to it (from `go list -deps`).
func importChains() (map[string]string, error) {
	modDir, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./cmd/docir")
	cmd.Dir = modDir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps: %w", err)
	}
	imports := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) > 0 {
			imports[f[0]] = f[1:]
		}
	}
	const root = "github.com/docir/docir/cmd/docir"
	parent := map[string]string{root: ""}
	queue := []string{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range imports[p] {
			if _, ok := parent[q]; !ok {
				parent[q] = p
				queue = append(queue, q)
			}
		}
	}
	chains := map[string]string{}
	for pkg := range parent {
		var chain []string
		for p := parent[pkg]; p != ""; p = parent[p] {
			chain = append(chain, strings.TrimPrefix(p, "github.com/"))
			if strings.HasPrefix(p, "github.com/docir/docir/") {
				break // from the first of docir's own packages on
			}
		}
		slices.Reverse(chain)
		chains[pkg] = strings.Join(chain, " → ")
	}
	return chains, nil
}
