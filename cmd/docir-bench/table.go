package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"
)

func writeHeader(w io.Writer, e *env) {
	mode := "reads"
	if e.o.scale {
		mode = "scale (" + e.o.sizes + ")"
	}
	if e.o.smoke {
		mode = "smoke (one run of each step; the figures mean nothing)"
	}
	scratch := fmt.Sprint(e.o.indexRuns)
	if e.o.indexRuns == 0 {
		scratch = "5 (below 10k documents) or 1"
	}
	fmt.Fprintf(w, "docir-bench %s: %s, %s/%s, %d CPUs; %d timed pairs per read after %d warm-up pairs, %d per no-op refresh, %s from-scratch index runs, %d refreshes of 100 files\n\n",
		mode, time.Now().UTC().Format("2006-01-02 15:04 MST"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
		e.o.runs, e.o.warmup, e.o.refreshRuns, scratch, e.o.gens)
}

// writeTable prints one line per row: the command's median, spread, CPU
// and peak RSS, and when it ran against a base, the base's median and the
// per-pair ratios.
func writeTable(w io.Writer, rows []row) {
	fmt.Fprintln(w, "| command | corpus | pairs | median | min–max | CPU | peak RSS | base | base median | ÷ base: median | ÷ base: min–max | CPU ÷ base: median (min–max) |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|")
	for _, r := range rows {
		if len(r.a) == 0 {
			continue
		}
		s := statsOf(walls(r.a))
		cpu := "–"
		if c := statsOf(cpus(r.a)); c.median > 0 {
			cpu = ms(time.Duration(c.median))
		}
		base, bmed, rmed, rspread, cpuq := "–", "–", "–", "–", "–"
		if r.base != "" {
			base = r.base
			bmed = ms(time.Duration(statsOf(walls(r.b)).median))
			q := statsOf(r.ratios())
			rmed = fmt.Sprintf("%.2f", q.median)
			rspread = fmt.Sprintf("%.2f–%.2f", q.min, q.max)
			if c := statsOf(r.cpuRatios()); c.median > 0 {
				cpuq = fmt.Sprintf("%.2f (%.2f–%.2f)", c.median, c.min, c.max)
			}
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s–%s | %s | %s | %s | %s | %s | %s | %s |\n",
			r.label, r.corpus, len(r.a), ms(time.Duration(s.median)), ms(time.Duration(s.min)), ms(time.Duration(s.max)),
			cpu, mib(peakRSS(r.a)), base, bmed, rmed, rspread, cpuq)
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		if r.note != "" {
			fmt.Fprintf(w, "- %s, %s: %s\n", r.label, r.corpus, r.note)
		}
	}
	fmt.Fprintln(w)
}

// writeCurve prints the cost curve: one column per size.
func writeCurve(w io.Writer, curve []point) {
	if len(curve) == 0 {
		return
	}
	head := []string{"measure"}
	for _, p := range curve {
		head = append(head, p.label)
	}
	fmt.Fprintln(w, "| "+strings.Join(head, " | ")+" |")
	fmt.Fprintln(w, "|---"+strings.Repeat("|---:", len(curve))+"|")
	line := func(name string, f func(p point) string) {
		cells := []string{name}
		for _, p := range curve {
			cells = append(cells, f(p))
		}
		fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
	}
	med := func(r row) time.Duration { return time.Duration(statsOf(walls(r.a)).median) }
	ratio := func(r row) string {
		if r.base == "" || len(r.b) == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f; CPU %.2f", statsOf(r.ratios()).median, statsOf(r.cpuRatios()).median)
	}
	line("documents", func(p point) string { return fmt.Sprint(p.docs) })
	line("markdown", func(p point) string { return byteSize(p.markdownBytes) })
	line("index from scratch: wall", func(p point) string { return ms(med(p.scratch)) })
	line("index from scratch: CPU", func(p point) string { return ms(time.Duration(statsOf(cpus(p.scratch.a)).median)) })
	line("index from scratch: peak RSS", func(p point) string { return mib(peakRSS(p.scratch.a)) })
	line("peak RSS ÷ markdown", func(p point) string {
		return fmt.Sprintf("%.1f", float64(peakRSS(p.scratch.a))*1024/float64(max(p.markdownBytes, 1)))
	})
	line("store, one generation", func(p point) string { return byteSize(p.storeOneGen) })
	line("no-op refresh", func(p point) string { return ms(med(p.noop)) })
	line("refresh changing 100 files", func(p point) string { return ms(med(p.refresh)) })
	line("store growth per 100-file refresh", func(p point) string { return byteSize(int64(statsOf(p.growth).median)) })
	line("store with every refresh retained ÷ one generation", func(p point) string {
		return fmt.Sprintf("%.2f (%d generations)", float64(p.storeRetained)/float64(max(p.storeOneGen, 1)), p.gens+1)
	})
	line("cold get 1 document (× floor)", func(p point) string { return ms(med(p.get)) + " (" + ratio(p.get) + ")" })
	line("cold search (× floor)", func(p point) string { return ms(med(p.search)) + " (" + ratio(p.search) + ")" })
	line("cold query (× search)", func(p point) string { return ms(med(p.query)) + " (" + ratio(p.query) + ")" })
	line("cold context (× floor)", func(p point) string { return ms(med(p.context)) + " (" + ratio(p.context) + ")" })
	line("serve: peak RSS after a mixed session", func(p point) string { return mib(peakRSS(p.serve.a)) })
	fmt.Fprintln(w)
}

func ms(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.3f ms", float64(d)/1e6)
	}
}

// mib prints KiB as MiB.
func mib(kib int64) string {
	if kib == 0 {
		return "–"
	}
	if kib >= 10*1024*1024 {
		return fmt.Sprintf("%.1f GiB", float64(kib)/(1024*1024))
	}
	return fmt.Sprintf("%.0f MiB", float64(kib)/1024)
}

// byteSize prints a byte count: KiB below a MiB, else MiB.
func byteSize(b int64) string {
	switch {
	case b < 0:
		return "-" + byteSize(-b)
	case b < 1024*1024:
		return fmt.Sprintf("%.0f KiB", float64(b)/1024)
	case b < 100*1024*1024:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1024*1024))
	default:
		return mib(b / 1024)
	}
}
