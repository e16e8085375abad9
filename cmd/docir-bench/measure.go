package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// command is one process to time.
type command struct {
	path    string
	dir     string
	args    []string
	env     []string     // added to the bench's environment
	prepare func() error // run before each run, untimed
}

func (c command) String() string {
	return strings.TrimSpace(filepath.Base(c.path) + " " + strings.Join(c.args, " "))
}

// sample is one run of a command, read through the probe: wall time from
// fork to exit, CPU time of the process, and its peak RSS.
type sample struct {
	wall, cpu time.Duration
	rssKiB    int64
}

// probeSource is the RSS probe: it runs its arguments as a command with
// the probe's own stdout and stderr, and writes "wall_ns cpu_ns maxrss_kib"
// to file descriptor 3. A child's ru_maxrss counts the memory of the
// process it was forked from (Linux records the old mm's high-water mark at
// exec), so every run goes through this small parent, not the bench; the
// wall time is taken inside the probe, so its own start-up is not counted.
const probeSource = `package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	res := os.NewFile(3, "result")
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		os.Exit(1)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	fmt.Fprintf(res, "%d %d %d\n", wall.Nanoseconds(), cpu.Nanoseconds(), ru.Maxrss)
}
`

// runner runs commands through the probe.
type runner struct {
	probe string
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

// run runs c once. A run that exits non-zero fails the bench: a timing of
// an error is not a timing.
func (r runner) run(c command) (sample, error) {
	if c.prepare != nil {
		if err := c.prepare(); err != nil {
			return sample{}, err
		}
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return sample{}, err
	}
	defer pr.Close()
	cmd := exec.Command(r.probe, append([]string{c.path}, c.args...)...)
	cmd.Dir = c.dir
	if len(c.env) > 0 {
		cmd.Env = append(os.Environ(), c.env...)
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = devNull, &stderr
	cmd.ExtraFiles = []*os.File{pw}
	err = cmd.Run()
	pw.Close()
	if err != nil {
		return sample{}, fmt.Errorf("%s: %w: %s", c, err, strings.TrimSpace(stderr.String()))
	}
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		return sample{}, fmt.Errorf("%s: no result from the probe: %w", c, err)
	}
	var wall, cpu, rss int64
	if _, err := fmt.Sscan(line, &wall, &cpu, &rss); err != nil {
		return sample{}, fmt.Errorf("%s: probe result %q: %w", c, line, err)
	}
	return sample{wall: time.Duration(wall), cpu: time.Duration(cpu), rssKiB: rss}, nil
}

// row is one line of the table: a command's runs and, when it has a
// base, the base's runs interleaved with them (A B A B …) and the ratio
// of each pair's wall times.
type row struct {
	label, corpus string
	a             []sample
	base          string // what the ratios divide by; "" for none
	b             []sample
	note          string // a derived figure shown beside the row
}

// pair times a and b interleaved: warmup untimed pairs, then n timed
// pairs, so that a machine that slows down slows both sides of a pair.
func (r runner) pair(a, b command, warmup, n int) (as, bs []sample, err error) {
	for i := range warmup + n {
		sa, err := r.run(a)
		if err != nil {
			return nil, nil, err
		}
		sb, err := r.run(b)
		if err != nil {
			return nil, nil, err
		}
		if i >= warmup {
			as, bs = append(as, sa), append(bs, sb)
		}
	}
	return as, bs, nil
}

// repeat times c alone: warmup untimed runs, then n timed runs.
func (r runner) repeat(c command, warmup, n int) ([]sample, error) {
	var out []sample
	for i := range warmup + n {
		s, err := r.run(c)
		if err != nil {
			return nil, err
		}
		if i >= warmup {
			out = append(out, s)
		}
	}
	return out, nil
}

// stats of a set of figures.
type stats struct{ min, median, max float64 }

func statsOf(xs []float64) stats {
	if len(xs) == 0 {
		return stats{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return stats{min: s[0], median: median(s), max: s[len(s)-1]}
}

// median of sorted xs; the mean of the middle two for an even count.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func walls(ss []sample) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = float64(s.wall)
	}
	return out
}

func cpus(ss []sample) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = float64(s.cpu)
	}
	return out
}

func peakRSS(ss []sample) int64 {
	var m int64
	for _, s := range ss {
		m = max(m, s.rssKiB)
	}
	return m
}

// ratios are the per-pair wall-time ratios a[i] / b[i].
func (r row) ratios() []float64 {
	return pairRatios(r.a, r.b, func(s sample) time.Duration { return s.wall })
}

// cpuRatios are the per-pair CPU-time ratios a[i] / b[i]. On a machine
// whose other work takes the cores, wall time waits for a core and CPU
// time does not: these hold better than the wall ratios under load.
func (r row) cpuRatios() []float64 {
	return pairRatios(r.a, r.b, func(s sample) time.Duration { return s.cpu })
}

func pairRatios(a, b []sample, f func(sample) time.Duration) []float64 {
	var out []float64
	for i := range min(len(a), len(b)) {
		if f(b[i]) > 0 {
			out = append(out, float64(f(a[i]))/float64(f(b[i])))
		}
	}
	return out
}
