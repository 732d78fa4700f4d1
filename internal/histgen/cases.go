package histgen

import "testing"

// CaseCount is the number of cases a randomized campaign runs: flagged,
// the count its flag asked for, when set, else full, or short with -short.
func CaseCount(flagged, full, short int) int {
	switch {
	case flagged > 0:
		return flagged
	case testing.Short():
		return short
	}
	return full
}
