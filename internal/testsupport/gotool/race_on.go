//go:build race

package gotool

// RaceEnabled says whether the race detector is built into this binary.
const RaceEnabled = true
