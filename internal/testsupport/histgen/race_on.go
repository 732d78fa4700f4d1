//go:build race

package histgen

// raceEnabled says whether the race detector is built in (CaseCount).
const raceEnabled = true
