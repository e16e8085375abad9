// Command docir-bench times whole docir processes against a floor built in
// the same run, and prints a markdown table.
//
// Every measured command is run interleaved with its base (A B A B …): the
// floor (a trivial Go binary) for start-up-bound reads, `search` for
// `query`, the same read on a smaller store for the growth rows. Each
// row reports the medians and the per-pair ratios (min, median, max), so
// a table taken on a busy machine still compares: a slow second slows
// both sides of a pair. Every run goes through a small probe process that
// reads the command's wall time, CPU time and peak RSS.
//
// It builds docir from this module, unpacks the shared corpora
// (../shared/corpora, or $DOCIR_SHARED) into a temporary folder and
// prepares the stores it times. It asserts no timings: `-smoke` runs each
// step once, so CI keeps the bench working without reading its numbers.
//
//	go run ./cmd/docir-bench            # reads on 648 / 7.4k / 39k documents
//	go run ./cmd/docir-bench -scale     # the cost curve 648 / 38k / 192k (issue 16's table)
//	go run ./cmd/docir-bench -smoke     # one pass of every step on small stores (CI)
//	go run ./cmd/docir-bench -agent     # bytes to answer: an agent over MCP on the Hugo docs
//	go run ./cmd/docir-bench -agent -agent-corpus DIR -questions FILE   # … on another folder of markdown
//	go run ./cmd/docir-bench -inittrace 20        # package inits over 50 µs of --version and get
//	go run ./cmd/docir-bench -profile /tmp/p -scale-sizes 38k   # in-process heap and CPU profiles of an index
//
// Timings on a shared machine are noisy: compare the per-pair ratios, not
// milliseconds across runs.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/docir/docir/docir/corpustest"
)

type options struct {
	runs, warmup, indexRuns int
	refreshRuns, gens       int
	smoke, scale, keep      bool
	out, only, sizes        string
	inittrace               int
	profile, profileDir     string
	anchor                  string // a docir binary the small from-scratch index is paired with
	agent                   bool   // play an agent over MCP on a question set
	questions               string // the question set of -agent
	agentCorpus             string // with -agent: a folder of markdown instead of the Hugo docs
	stemming                string // with -agent: the corpus's search.stemming
}

func main() {
	var o options
	flag.IntVar(&o.runs, "runs", 0, "timed pairs per read (default 40; 20 with -scale)")
	flag.IntVar(&o.warmup, "warmup", 3, "untimed pairs before timing")
	flag.IntVar(&o.indexRuns, "index-runs", 0, "timed runs of a from-scratch index (default 3; with -scale 5 below 10k documents, else 1)")
	flag.IntVar(&o.refreshRuns, "refresh-runs", 0, "timed pairs of a no-op refresh (default: -runs; 8 with -scale)")
	flag.IntVar(&o.gens, "gens", 20, "with -scale: refreshes changing 100 files each, all retained")
	flag.BoolVar(&o.smoke, "smoke", false, "one run of each step on the small stores, no warm-up (CI)")
	flag.BoolVar(&o.scale, "scale", false, "the cost curve: every row of issue 16 at 648 / 38k / 192k documents")
	flag.StringVar(&o.sizes, "scale-sizes", "648,38k,192k", "with -scale or -profile: which sizes")
	flag.BoolVar(&o.keep, "keep", false, "keep the work folder and print its path")
	flag.StringVar(&o.out, "out", "", "also write the table to this file")
	flag.StringVar(&o.only, "only", "", "time only the stores whose name contains this (not with -scale)")
	flag.IntVar(&o.inittrace, "inittrace", 0, "run `docir --version` and `docir get` this many times with GODEBUG=inittrace=1 and print each package init over 50 µs")
	flag.StringVar(&o.anchor, "anchor", "", "with -scale: a docir `binary` (say, built from the commit an issue was measured at) whose from-scratch index of the corpora below 10k documents is interleaved with this one's, A B A B, and whose search on its own store of each corpus is paired with this one's")
	flag.BoolVar(&o.agent, "agent", false, "play an agent over MCP on the Hugo docs: search, context, then the plan's addresses until the answer is read; report bytes read, calls and found")
	flag.StringVar(&o.questions, "questions", "", "with -agent: the question set, JSON lines of {question, answer} (default "+DefaultQuestions+")")
	flag.StringVar(&o.agentCorpus, "agent-corpus", "", "with -agent: index this `folder` of markdown instead of the Hugo docs (the question set's addresses are its ids)")
	flag.StringVar(&o.stemming, "stemming", "", "with -agent: the search.stemming the corpus's docir.yaml sets (english; default none)")
	flag.StringVar(&o.profile, "profile", "", "index the first -scale-sizes corpus in process, from scratch then a no-op refresh, and write heap and CPU profiles to this folder")
	flag.StringVar(&o.profileDir, "profile-store", "", "with -profile: profile only a no-op refresh of the store this folder's docir.yaml names (a folder -scale -keep left)")
	flag.Parse()
	defaults(&o)
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "docir-bench:", err)
		os.Exit(1)
	}
}

func defaults(o *options) {
	if o.runs == 0 {
		o.runs = 40
		if o.scale {
			o.runs = 20
		}
	}
	if o.indexRuns == 0 && !o.scale { // with -scale, per corpus: scratchRuns
		o.indexRuns = 3
	}
	if o.refreshRuns == 0 {
		o.refreshRuns = o.runs
		if o.scale {
			o.refreshRuns = 8
		}
	}
	if o.smoke {
		o.runs, o.warmup, o.indexRuns, o.refreshRuns, o.gens = 1, 0, 1, 1, 1
		if o.inittrace > 0 {
			o.inittrace = 1
		}
	}
}

// env is what every mode shares: the work folder, the built binaries, the
// shared corpora and a way to say what is happening.
type env struct {
	o      options
	work   string
	shared string
	// sharedErr says why there is no shared folder (shared is "").
	sharedErr error
	docir     string
	anchor    string // the -anchor binary's copy in work (see copyAnchor)
	floor     string
	r         runner
	started   time.Time
	built     []*corpus // stores indexed so far, in order
}

func (e *env) say(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[%5.0fs] "+format+"\n", append([]any{time.Since(e.started).Seconds()}, args...)...)
}

func run(o options) error {
	// Only an agent run on a corpus of its own reads nothing of the shared
	// folder: it may run without one.
	shared, sharedErr := corpustest.SharedDir()
	if sharedErr != nil && o.smoke {
		fmt.Fprintln(os.Stderr, "docir-bench: skipping the smoke run:", sharedErr)
		return nil
	}
	if sharedErr != nil && !(o.agent && o.agentCorpus != "") {
		return sharedErr
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
	e := &env{o: o, work: work, shared: shared, sharedErr: sharedErr, started: time.Now()}
	e.say("building docir, the floor binary and the probe")
	if err := e.build(); err != nil {
		return err
	}

	var b strings.Builder
	switch {
	case o.profile != "":
		if o.smoke {
			return errors.New("-profile and -smoke do not go together")
		}
		if err := e.profileIndex(&b); err != nil {
			return err
		}
	case o.agent:
		if err := e.agentRun(&b); err != nil {
			return err
		}
	case o.inittrace > 0 && !o.smoke:
		if err := e.initTrace(&b); err != nil {
			return err
		}
	case o.scale:
		rows, curve, err := e.scaleRun()
		if err != nil {
			return err
		}
		writeHeader(&b, e)
		writeTable(&b, rows)
		writeCurve(&b, curve)
	default:
		rows, err := e.readsRun()
		if err != nil {
			return err
		}
		if o.smoke {
			// One pass of the scale steps too, on the smallest size, so
			// CI keeps them working; and of the init trace.
			e.o.sizes, e.o.gens = "648", 1
			srows, curve, err := e.scaleRun()
			if err != nil {
				return err
			}
			rows = append(rows, srows...)
			writeHeader(&b, e)
			writeTable(&b, rows)
			writeCurve(&b, curve)
			e.o.inittrace = 1
			if err := e.initTrace(&b); err != nil {
				return err
			}
			if err := e.agentRun(&b); err != nil {
				return err
			}
			break
		}
		writeHeader(&b, e)
		writeTable(&b, rows)
	}
	fmt.Print(b.String())
	if o.out != "" {
		return os.WriteFile(o.out, []byte(b.String()), 0o644)
	}
	return nil
}

// unpack extracts a shared corpus into the work folder once.
func (e *env) unpack(name string) (string, error) {
	dst := filepath.Join(e.work, "src", strings.TrimSuffix(name, ".tar.gz"))
	if _, err := os.Stat(dst); err == nil {
		return dst, nil
	}
	if e.sharedErr != nil {
		return "", e.sharedErr
	}
	if err := corpustest.UnpackTo(filepath.Join(e.shared, "corpora", name), dst); err != nil {
		return "", err
	}
	return dst, nil
}
