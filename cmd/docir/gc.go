package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
)

// longRunning annotates a command that runs until stopped or allocates in
// proportion to a corpus (serve, index): it keeps Go's default collector.
const longRunning = "docir.long-running"

// gcFreeHeap is the heap a one-shot command allocates before Go's collector
// first runs (see relaxGC).
const gcFreeHeap = 64 << 20

// relaxGC lets a one-shot command (a read: search, get, context, …)
// allocate its first gcFreeHeap bytes without a collection, and returns the
// collector to Go's default (GOGC=100, no limit) at the first collection
// that heap triggers. Such a command's heap is garbage by the time it
// exits, so collecting it earlier is work thrown away (a fifth of a cold
// search's CPU, measured); a command that allocates more is collected as
// any Go program from then on, so its memory stays bounded as before. A
// GOGC or GOMEMLIMIT in the environment wins. Long-running commands (serve,
// index) keep the default from the start.
func relaxGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(gcFreeHeap)
	sentinel := new([16]byte) // not a tiny allocation: its cleanup runs at the first collection
	runtime.AddCleanup(sentinel, func(int) { defaultGC() }, 0)
}

// defaultGC is Go's default collector: GOGC=100 and no memory limit.
func defaultGC() {
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
}
