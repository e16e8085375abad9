package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/docir/docir/store"
	"github.com/docir/docir/store/ingest"
)

// profileIndex indexes the first selected scale size in this process,
// from scratch and then a no-op refresh, writing to the -profile folder:
//
//	scratch.cpu.pprof   CPU profile of the from-scratch index
//	scratch.heap.pprof  heap profile taken when the live heap was largest
//	scratch.allocs.pprof every allocation of the from-scratch index
//	noop.cpu.pprof      CPU profile of the no-op refresh
//
// Read them with `go tool pprof -top -sample_index=inuse_space
// FILE`. The heap is sampled every 250 ms; the profile kept is the one
// written when HeapInuse was at its highest.
func (e *env) profileIndex(w io.Writer) error {
	if e.o.profileDir != "" {
		return e.profileNoop(w)
	}
	sizes, err := e.selectedSizes()
	if err != nil {
		return err
	}
	c, err := e.scaleCorpus(sizes[0])
	if err != nil {
		return err
	}
	if err := os.MkdirAll(e.o.profile, 0o755); err != nil {
		return err
	}
	var sources []store.Source
	for _, s := range c.sources {
		sources = append(sources, store.Source{Path: s.path, Prefix: s.prefix})
	}
	ctx := context.Background()
	opt := ingest.Options{}

	e.say("profiling an in-process index from scratch of %s (%d documents)", c.name, c.docs)
	runtime.MemProfileRate = 64 * 1024
	stop, peak, err := heapSampler(filepath.Join(e.o.profile, "scratch.heap.pprof"))
	if err != nil {
		return err
	}
	start := time.Now()
	err = cpuProfile(filepath.Join(e.o.profile, "scratch.cpu.pprof"), func() error {
		_, err := ingest.Refresh(ctx, c.store(), sources, opt)
		return err
	})
	scratch := time.Since(start)
	stop()
	if err != nil {
		return err
	}
	if err := writeProfile("allocs", filepath.Join(e.o.profile, "scratch.allocs.pprof")); err != nil {
		return err
	}
	e.say("profiling an in-process no-op refresh of %s", c.name)
	start = time.Now()
	var sum any
	err = cpuProfile(filepath.Join(e.o.profile, "noop.cpu.pprof"), func() error {
		s, err := ingest.Refresh(ctx, c.store(), sources, opt)
		sum = s
		return err
	})
	noop := time.Since(start)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "in-process index of %s (%d documents): from scratch %s, highest HeapInuse %s; no-op refresh %s (%+v)\nprofiles in %s\n",
		c.name, c.docs, ms(scratch), mib(int64(*peak)/1024), ms(noop), sum, e.o.profile)
	return nil
}

func cpuProfile(name string, f func() error) error {
	out, err := os.Create(name)
	if err != nil {
		return err
	}
	defer out.Close()
	if err := pprof.StartCPUProfile(out); err != nil {
		return err
	}
	err = f()
	pprof.StopCPUProfile()
	return err
}

func writeProfile(kind, name string) error {
	out, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := pprof.Lookup(kind).WriteTo(out, 0); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// heapSampler reads the heap every 250 ms and writes a heap profile each
// time HeapInuse reaches a new high. stop ends it; *peak is the high.
func heapSampler(name string) (stop func(), peak *uint64, err error) {
	peak = new(uint64)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > *peak {
				*peak = ms.HeapInuse
				_ = writeProfile("heap", name)
			}
		}
	}()
	return func() { close(done); wg.Wait() }, peak, nil
}

// profileNoop profiles a no-op refresh of the store in -profile-store,
// whose docir.yaml the bench wrote (sources with their prefixes).
func (e *env) profileNoop(w io.Writer) error {
	raw, err := os.ReadFile(filepath.Join(e.o.profileDir, "docir.yaml"))
	if err != nil {
		return err
	}
	var cfg struct {
		Retain  int `yaml:"retain"`
		Sources []struct {
			Path   string `yaml:"path"`
			Prefix string `yaml:"prefix"`
		} `yaml:"sources"`
	}
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		return fmt.Errorf("%s: %w", e.o.profileDir, err)
	}
	var sources []store.Source
	for _, s := range cfg.Sources {
		sources = append(sources, store.Source{Path: s.Path, Prefix: s.Prefix})
	}
	if err := os.MkdirAll(e.o.profile, 0o755); err != nil {
		return err
	}
	dir := filepath.Join(e.o.profileDir, ".docir")
	var times []string
	for i := range 3 {
		start := time.Now()
		err := cpuProfile(filepath.Join(e.o.profile, fmt.Sprintf("noop%d.cpu.pprof", i+1)), func() error {
			_, err := ingest.Refresh(context.Background(), dir, sources, ingest.Options{Retain: cfg.Retain})
			return err
		})
		if err != nil {
			return err
		}
		times = append(times, ms(time.Since(start)))
	}
	fmt.Fprintf(w, "in-process no-op refreshes of %s: %v; profiles in %s\n", dir, times, e.o.profile)
	return nil
}
