//go:build !race

package workspace

// raceEnabled is true when tests run under the race detector.
const raceEnabled = false
