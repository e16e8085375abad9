package main

import (
	"math"
	"runtime/debug"
	"testing"
	"time"
)

// TestRelaxGC: a one-shot command's collector is off until its heap
// reaches gcFreeHeap, and back to Go's default from the collection that
// heap triggers: memory stays bounded past it.
func TestRelaxGC(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer defaultGC()
	relaxGC()
	if got := debug.SetMemoryLimit(-1); got != gcFreeHeap {
		t.Fatalf("memory limit %d after relaxGC, want %d", got, gcFreeHeap)
	}
	var sink []byte
	deadline := time.Now().Add(30 * time.Second)
	for debug.SetMemoryLimit(-1) != math.MaxInt64 {
		if time.Now().After(deadline) {
			t.Fatal("the collector was not returned to its default after the heap passed gcFreeHeap")
		}
		for range 16 {
			sink = make([]byte, 1<<20) // garbage: past gcFreeHeap, the limit collects it
		}
		time.Sleep(time.Millisecond)
	}
	_ = sink
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GOGC %d after the first collection, want 100", p)
	}
}

// TestRelaxGCEnvironment: GOGC in the environment wins.
func TestRelaxGCEnvironment(t *testing.T) {
	t.Setenv("GOGC", "50")
	defer defaultGC()
	relaxGC()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("memory limit %d with GOGC set, want none", got)
	}
}
