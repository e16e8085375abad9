//go:build race

package corpustest

// RaceEnabled is true when the test binary runs under the race detector.
const RaceEnabled = true
