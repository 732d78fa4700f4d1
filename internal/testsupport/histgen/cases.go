package histgen

// CaseCount is the number of cases a randomized campaign runs: flagged,
// the count its flag asked for, when set, else full, or short when the
// tests run with -short (pass testing.Short(); histgen is not a test
// package and does not import testing).
func CaseCount(flagged, full, short int, isShort bool) int {
	switch {
	case flagged > 0:
		return flagged
	case isShort:
		return short
	}
	return full
}
