package models

import "slices"

// sortByToken sorts records stably by token, with *tmp as a buffer of
// len(xs) that it grows when it must. The sweep sorts every write and
// rejection of a resource; in a history that fencecheck recorded they
// are nearly in token order already, and tokens are small integers, so
// it checks for order first, and otherwise a least-significant-digit
// radix sort over the bytes the largest token needs (one or two passes)
// beats a comparison sort by a wide margin.
func sortByToken[T any](xs []T, tmp *[]T, token func(*T) uint64) {
	var hi uint64
	sorted := true
	for i := range xs {
		t := token(&xs[i])
		sorted = sorted && t >= hi
		hi = max(hi, t)
	}
	if sorted {
		return
	}
	if len(xs) < 64 {
		// Insertion sort: stable, and without the allocations a
		// comparison function taking the records' addresses would cause.
		for i := 1; i < len(xs); i++ {
			for j := i; j > 0 && token(&xs[j-1]) > token(&xs[j]); j-- {
				xs[j-1], xs[j] = xs[j], xs[j-1]
			}
		}
		return
	}
	*tmp = slices.Grow((*tmp)[:0], len(xs))[:len(xs)]
	src, dst := xs, *tmp
	for shift := uint(0); shift < 64 && hi>>shift > 0; shift += 8 {
		var count [257]int
		for i := range src {
			count[int(byte(token(&src[i])>>shift))+1]++
		}
		for d := 1; d < len(count); d++ {
			count[d] += count[d-1]
		}
		for i := range src {
			d := byte(token(&src[i]) >> shift)
			dst[count[d]] = src[i]
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &xs[0] {
		copy(xs, src)
	}
}
