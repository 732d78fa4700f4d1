package models

// SortByTokenForTest exposes sortByToken to the external tests.
func SortByTokenForTest[T any](xs []T, token func(*T) uint64) {
	var tmp []T
	sortByToken(xs, &tmp, &sortBuffers{}, token)
}
