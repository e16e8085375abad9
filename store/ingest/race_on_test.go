//go:build race

package ingest

// raceEnabled is true when tests run under the race detector.
const raceEnabled = true
