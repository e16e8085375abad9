// Command docir-bench times whole docir processes side by side with a floor
// built in the same run, and prints a markdown table: median, min and max
// wall time, peak RSS, and each figure's ratio to the floor (a trivial Go
// binary) and to `docir --version` (what merely starting docir costs).
//
// It builds docir from this module, unpacks the shared corpora
// (../shared/corpora, or $DOCIR_SHARED) into a temporary folder, prepares
// three stores — the Rust RFCs (648 documents), tldr English (7.4k) and the
// RFCs with every tldr language (~39k) — and times each command many times
// after a warm-up. It asserts no timings: `-smoke` runs each command once, so
// CI keeps the bench working without reading its numbers.
//
//	go run ./cmd/docir-bench            # full run, table on stdout
//	go run ./cmd/docir-bench -smoke     # one pass
//
// Timings on a shared machine are noisy: compare ratios to the floor taken
// in the same run, not milliseconds across runs.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/store/markdown"
)

type options struct {
	runs, warmup, indexRuns int
	smoke                   bool
	keep                    bool
	out                     string
	only                    string
}

func main() {
	var o options
	flag.IntVar(&o.runs, "runs", 40, "timed runs per command")
	flag.IntVar(&o.warmup, "warmup", 5, "untimed runs before timing")
	flag.IntVar(&o.indexRuns, "index-runs", 5, "timed runs of a from-scratch index (each is seconds long)")
	flag.BoolVar(&o.smoke, "smoke", false, "one run of each command, no warm-up (CI)")
	flag.BoolVar(&o.keep, "keep", false, "keep the work folder and print its path")
	flag.StringVar(&o.out, "out", "", "also write the table to this file")
	flag.StringVar(&o.only, "only", "", "time only the stores whose name contains this")
	flag.Parse()
	if o.smoke {
		o.runs, o.warmup, o.indexRuns = 1, 0, 1
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "docir-bench:", err)
		os.Exit(1)
	}
}

// corpus is one prepared store and the reads timed against it.
type corpus struct {
	name    string
	dir     string   // holds docir.yaml; the store is dir/.docir
	sources []string // absolute source folders
	docs    int

	one, five []string // ids of documents to read
	section   string   // one section address
	query     string   // a search/context query
}

func run(o options) error {
	shared, err := corpustest.SharedDir()
	if err != nil && o.smoke {
		fmt.Fprintln(os.Stderr, "docir-bench: skipping the smoke run:", err)
		return nil
	}
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "docir-bench-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintln(os.Stderr, "work folder:", work)
	} else {
		defer os.RemoveAll(work)
	}

	say := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	say("building docir, the floor binary and the RSS probe")
	docir, floor, err := build(work)
	if err != nil {
		return err
	}
	probe := filepath.Join(work, "rssprobe-bin")
	say("unpacking corpora")
	src := filepath.Join(work, "src")
	for _, name := range []string{corpustest.RustRFCs, corpustest.TLDRPages} {
		if err := corpustest.UnpackTo(filepath.Join(shared, "corpora", name), src); err != nil {
			return err
		}
	}
	rfcs, tldr := filepath.Join(src, "rfcs"), filepath.Join(src, "tldr")
	corpora := []*corpus{
		{name: "rfcs (648)", sources: []string{rfcs}, query: "object safety dyn trait method receiver"},
		{name: "tldr-en (7.4k)", sources: []string{filepath.Join(tldr, "pages")}, query: "extract files from a tar archive"},
		{name: "rfcs+tldr-all (39k)", sources: []string{rfcs, tldr}, query: "extract files from a tar archive"},
	}
	if o.only != "" {
		corpora = slices.DeleteFunc(corpora, func(c *corpus) bool { return !strings.Contains(c.name, o.only) })
	}
	for i, c := range corpora {
		c.dir = filepath.Join(work, fmt.Sprintf("store%d", i))
		if err := c.prepare(docir); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		say("prepared %s: %d documents", c.name, c.docs)
	}

	var rows []row
	measure := func(label, corpusName string, n int, cmd command) error {
		say("timing %s %s", label, corpusName)
		r, err := timeCommand(cmd, o.warmup, n, probe)
		if err != nil {
			return fmt.Errorf("%s (%s): %w", label, corpusName, err)
		}
		r.label, r.corpus = label, corpusName
		rows = append(rows, r)
		return nil
	}
	// The floor and docir --version first, so every row has them to compare.
	if err := measure("floor: trivial Go binary", "-", o.runs, command{path: floor}); err != nil {
		return err
	}
	if err := measure("docir --version", "-", o.runs, command{path: docir, args: []string{"--version"}}); err != nil {
		return err
	}
	for _, c := range corpora {
		d := func(args ...string) command { return command{path: docir, dir: c.dir, args: args} }
		steps := []struct {
			label string
			n     int
			cmd   command
		}{
			{"get 1 document", o.runs, d(append([]string{"get"}, c.one...)...)},
			{"get 5 documents", o.runs, d(append([]string{"get"}, c.five...)...)},
			{"get 1 section", o.runs, d("get", c.section)},
			{"search", o.runs, d("search", c.query)},
			{"context", o.runs, d("context", c.query)},
			{"index, no-op", o.runs, d("index")},
			{"index from scratch", o.indexRuns, command{path: docir, dir: c.dir, args: []string{"index"}, prepare: func() error {
				return os.RemoveAll(filepath.Join(c.dir, ".docir"))
			}}},
		}
		for _, s := range steps {
			if err := measure(s.label, c.name, s.n, s.cmd); err != nil {
				return err
			}
		}
		// Leave the store indexed for whatever runs next.
		if _, err := exec.Command(docir, "--config", filepath.Join(c.dir, "docir.yaml"), "index").Output(); err != nil {
			return err
		}
		rt, err := serveRoundTrip(docir, c, o)
		if err != nil {
			return fmt.Errorf("serve round trip (%s): %w", c.name, err)
		}
		if rt != nil {
			rows = append(rows, *rt)
		}
	}

	var b strings.Builder
	writeTable(&b, rows, corpora, o)
	fmt.Print(b.String())
	if o.out != "" {
		return os.WriteFile(o.out, []byte(b.String()), 0o644)
	}
	return nil
}

// build compiles docir from this module and a trivial Go program, the floor.
func build(work string) (docir, floor string, err error) {
	modDir, err := moduleRoot()
	if err != nil {
		return "", "", err
	}
	docir = filepath.Join(work, "docir")
	cmd := exec.Command("go", "build", "-o", docir, "./cmd/docir")
	cmd.Dir, cmd.Stderr = modDir, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", "", fmt.Errorf("go build docir: %w", err)
	}
	fdir := filepath.Join(work, "floor")
	if err := os.MkdirAll(fdir, 0o755); err != nil {
		return "", "", err
	}
	files := map[string]string{
		"go.mod":  "module floor\n\ngo 1.21\n",
		"main.go": "package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"floor\\n\") }\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(fdir, name), []byte(content), 0o644); err != nil {
			return "", "", err
		}
	}
	floor = filepath.Join(work, "floor-bin")
	cmd = exec.Command("go", "build", "-o", floor, ".")
	cmd.Dir, cmd.Stderr = fdir, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", "", fmt.Errorf("go build floor: %w", err)
	}
	// The RSS probe: a child's ru_maxrss counts the memory of the process
	// it was forked from (Linux records the old mm's high-water mark at
	// exec), so peak RSS is read through this small parent, not the bench.
	rdir := filepath.Join(work, "rssprobe")
	if err := os.MkdirAll(rdir, 0o755); err != nil {
		return "", "", err
	}
	files = map[string]string{
		"go.mod":  "module rssprobe\n\ngo 1.21\n",
		"main.go": rssProbeSource,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(rdir, name), []byte(content), 0o644); err != nil {
			return "", "", err
		}
	}
	cmd = exec.Command("go", "build", "-o", filepath.Join(work, "rssprobe-bin"), ".")
	cmd.Dir, cmd.Stderr = rdir, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", "", fmt.Errorf("go build rss probe: %w", err)
	}
	return docir, floor, nil
}

// rssProbeSource runs its arguments as a command and prints the command's
// peak RSS in KiB on stderr's last line.
const rssProbeSource = `package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdout = nil
	err := cmd.Run()
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if err != nil || ru == nil {
		fmt.Fprintln(os.Stderr, "rssprobe:", err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, ru.Maxrss)
}
`

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run docir-bench from inside the docir module")
	}
	return filepath.Dir(mod), nil
}

// prepare writes the corpus's config, indexes it, and picks the documents
// and the section the reads ask for: spread evenly over the sorted files,
// the same on every run.
func (c *corpus) prepare(docir string) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	var cfg strings.Builder
	cfg.WriteString("sources:\n")
	for _, s := range c.sources {
		fmt.Fprintf(&cfg, "  - path: %s\n", s)
	}
	if err := os.WriteFile(filepath.Join(c.dir, "docir.yaml"), []byte(cfg.String()), 0o644); err != nil {
		return err
	}
	cmd := exec.Command(docir, "index")
	cmd.Dir = c.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("index: %v\n%s", err, out)
	}
	var ids []string
	var paths []string
	for _, root := range c.sources {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !strings.HasSuffix(p, ".md") || strings.HasPrefix(d.Name(), ".") {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			ids = append(ids, strings.TrimSuffix(filepath.ToSlash(rel), ".md"))
			paths = append(paths, p)
			return nil
		})
		if err != nil {
			return err
		}
	}
	c.docs = len(ids)
	if len(ids) < 10 {
		return fmt.Errorf("only %d documents", len(ids))
	}
	step := len(ids) / 6
	c.one = []string{ids[step]}
	for i := 1; i <= 5; i++ {
		c.five = append(c.five, ids[i*step])
	}
	// A section: the second section of the first document from the first
	// pick on (wrapping round) that has two; in a corpus of one-heading
	// pages (tldr), the first section of the first pick.
	p := markdown.NewParser()
	for k := range len(ids) {
		i := (step + k) % len(ids)
		src, err := os.ReadFile(paths[i])
		if err != nil {
			return err
		}
		secs := p.Parse(paths[i], src).Record.Sections
		if len(secs) > 1 {
			c.section = ids[i] + "#" + secs[1].Slug
			break
		}
		if len(secs) == 1 && c.section == "" {
			c.section = ids[i] + "#" + secs[0].Slug
		}
	}
	if c.section == "" {
		return errors.New("no document with a heading")
	}
	return nil
}

// devNull takes the output of timed commands. It is a file, not a Go
// writer: with a writer, exec copies the output through a pipe and a
// goroutine of the bench's, and a command that prints more than a pipe
// holds would wait on the bench.
var devNull = func() *os.File {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		panic(err)
	}
	return f
}()

// command is one process to time.
type command struct {
	path    string
	dir     string
	args    []string
	prepare func() error // run before each run, untimed
}

type row struct {
	label, corpus    string
	median, min, max time.Duration
	peakRSS          int64 // KiB
	runs             int
}

// timeCommand runs cmd warmup times untimed, then n times timed, and
// reports the median and spread, and the peak RSS of one more run under
// the probe. A run that exits non-zero fails
// the bench: a timing of an error is not a timing.
func timeCommand(c command, warmup, n int, probe string) (row, error) {
	var times []time.Duration
	for i := 0; i < warmup+n; i++ {
		if c.prepare != nil {
			if err := c.prepare(); err != nil {
				return row{}, err
			}
		}
		cmd := exec.Command(c.path, c.args...)
		cmd.Dir = c.dir
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = devNull, &stderr
		start := time.Now()
		err := cmd.Run()
		elapsed := time.Since(start)
		if err != nil {
			return row{}, fmt.Errorf("%s %s: %v: %s", filepath.Base(c.path), strings.Join(c.args, " "), err, stderr.String())
		}
		if i < warmup {
			continue
		}
		times = append(times, elapsed)
	}
	peak, err := peakRSS(c, probe)
	if err != nil {
		return row{}, err
	}
	slices.Sort(times)
	return row{median: times[len(times)/2], min: times[0], max: times[len(times)-1], peakRSS: peak, runs: n}, nil
}

// peakRSS runs c once more under the RSS probe and returns its peak RSS
// in KiB.
func peakRSS(c command, probe string) (int64, error) {
	if c.prepare != nil {
		if err := c.prepare(); err != nil {
			return 0, err
		}
	}
	cmd := exec.Command(probe, append([]string{c.path}, c.args...)...)
	cmd.Dir = c.dir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = devNull, &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("rss probe of %s: %v: %s", c.path, err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	var kib int64
	if _, err := fmt.Sscan(lines[len(lines)-1], &kib); err != nil {
		return 0, fmt.Errorf("rss probe: %q", stderr.String())
	}
	return kib, nil
}

// serveRoundTrip starts `docir serve` on the corpus and times docir/get
// frames through its stdin and stdout, one at a time. It returns nil when
// this docir has no serve command.
func serveRoundTrip(docir string, c *corpus, o options) (*row, error) {
	probe := exec.Command(docir, "serve", "--help")
	if probe.Run() != nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, docir, "serve")
	cmd.Dir = c.dir
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		in.Close()
		_ = cmd.Wait()
	}()
	out := bufio.NewReaderSize(outPipe, 1<<20)
	n := max(o.runs*25, 1)
	var times []time.Duration
	for i := 0; i < o.warmup*25+n; i++ {
		frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"docir/get","params":{"doc_id":%q}}`+"\n", i+1, c.one[0])
		start := time.Now()
		if _, err := io.WriteString(in, frame); err != nil {
			return nil, fmt.Errorf("write: %v (%s)", err, stderr.String())
		}
		line, err := out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("read: %v (%s)", err, stderr.String())
		}
		if !bytes.Contains(line, []byte(`"result"`)) {
			return nil, fmt.Errorf("reply without a result: %.200s", line)
		}
		if i >= o.warmup*25 {
			times = append(times, time.Since(start))
		}
	}
	slices.Sort(times)
	var rss int64
	if data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "VmHWM:") {
				fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, "VmHWM:"), "kB")), &rss)
			}
		}
	}
	return &row{label: "serve: docir/get round trip (stdio)", corpus: c.name, median: times[len(times)/2], min: times[0], max: times[len(times)-1], peakRSS: rss, runs: n}, nil
}

func writeTable(w io.Writer, rows []row, corpora []*corpus, o options) {
	var floor, version time.Duration
	for _, r := range rows {
		switch r.label {
		case "floor: trivial Go binary":
			floor = r.median
		case "docir --version":
			version = r.median
		}
	}
	fmt.Fprintf(w, "docir-bench: %s, %s/%s, %d CPUs, %d timed runs per command after %d warm-up runs (from-scratch index: %d runs)\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), o.runs, o.warmup, o.indexRuns)
	fmt.Fprintln(w, "| command | corpus | median | min | max | peak RSS | × floor | × `--version` |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		ratio := func(base time.Duration) string {
			if base == 0 || strings.HasPrefix(r.label, "serve:") {
				return "–"
			}
			return fmt.Sprintf("%.2f", float64(r.median)/float64(base))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.label, r.corpus, ms(r.median), ms(r.min), ms(r.max), mib(r.peakRSS), ratio(floor), ratio(version))
	}
	fmt.Fprintln(w)
	// Derived figures the performance goals are stated in.
	get := map[string]time.Duration{}
	for _, r := range rows {
		get[r.label+"|"+r.corpus] = r.median
	}
	if len(corpora) > 0 {
		last, first := corpora[len(corpora)-1].name, corpora[0].name
		if g1, g5 := get["get 1 document|"+last], get["get 5 documents|"+last]; g1 > 0 {
			fmt.Fprintf(w, "- get 5 ÷ get 1 on %s: %.2f\n", last, float64(g5)/float64(g1))
		}
		if big, small := get["get 1 document|"+last], get["get 1 document|"+first]; small > 0 {
			fmt.Fprintf(w, "- get 1 on %s ÷ get 1 on %s: %.2f\n", last, first, float64(big)/float64(small))
		}
		for _, c := range corpora {
			if d := get["index from scratch|"+c.name]; d > 0 {
				fmt.Fprintf(w, "- index from scratch, %s: %.0f documents/s\n", c.name, float64(c.docs)/d.Seconds())
			}
		}
	}
}

func ms(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	}
}

func mib(kib int64) string {
	if kib == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f MB", float64(kib)/1024)
}
