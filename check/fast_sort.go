package check

import "slices"

// sortBuffers are sortByToken's buffers, reused like fastScratch's.
type sortBuffers struct {
	keys, keysTmp []uint64
	counts        []int32
}

// sortByToken sorts records stably by token, with *tmp as a buffer of
// len(xs) that it grows when it must. The sweep sorts every write and
// rejection of a resource; in a history that fencecheck recorded they
// are nearly in token order already, and tokens are small integers, so
// it checks for order first. Otherwise it reads each record's token once
// (token is a call the compiler cannot inline into a generic function)
// and sorts by those keys: when the tokens span a range not much wider
// than their number, as recorded tokens do, a counting sort places the
// records in one pass over the keys, however many bytes the tokens need;
// otherwise a least-significant-digit radix sort places them once for
// every byte the span needs. Sorting with slices.SortStableFunc instead
// (after the same check for order) made a whole check about 2.7 times as
// slow on the 10,000,000-operation cells of BenchmarkCheckFastScale and
// 1.7 to 4.9 times as slow on the cells of BenchmarkCheckFast, in an
// interleaved A/B of the two versions' test binaries.
func sortByToken[T any](xs []T, tmp *[]T, buf *sortBuffers, token func(*T) uint64) {
	if len(xs) < 2 {
		return
	}
	buf.keys = slices.Grow(buf.keys[:0], len(xs))[:len(xs)]
	keys := buf.keys
	lo, hi := token(&xs[0]), uint64(0)
	sorted := true
	for i := range xs {
		t := token(&xs[i])
		keys[i] = t
		sorted = sorted && t >= hi
		hi, lo = max(hi, t), min(lo, t)
	}
	if sorted {
		return
	}
	if len(xs) < 64 {
		// Insertion sort: stable, and cheap on so few.
		for i := 1; i < len(xs); i++ {
			for j := i; j > 0 && keys[j-1] > keys[j]; j-- {
				xs[j-1], xs[j] = xs[j], xs[j-1]
				keys[j-1], keys[j] = keys[j], keys[j-1]
			}
		}
		return
	}
	*tmp = slices.Grow((*tmp)[:0], len(xs))[:len(xs)]
	if span := hi - lo; span < uint64(4*len(xs)) {
		countingSort(xs, *tmp, keys, lo, int(span)+1, buf)
		return
	}
	buf.keysTmp = slices.Grow(buf.keysTmp[:0], len(xs))[:len(xs)]
	src, dst := xs, *tmp
	ksrc, kdst := keys, buf.keysTmp
	for shift := uint(0); shift < 64 && (hi-lo)>>shift > 0; shift += 8 {
		var count [257]int
		for _, k := range ksrc {
			count[int(byte((k-lo)>>shift))+1]++
		}
		for d := 1; d < len(count); d++ {
			count[d] += count[d-1]
		}
		for i, k := range ksrc {
			d := byte((k - lo) >> shift)
			dst[count[d]], kdst[count[d]] = src[i], k
			count[d]++
		}
		src, dst = dst, src
		ksrc, kdst = kdst, ksrc
	}
	if &src[0] != &xs[0] {
		copy(xs, src)
	}
}

// countingSort sorts xs stably by keys, which lie in [lo, lo+width), through
// tmp.
func countingSort[T any](xs, tmp []T, keys []uint64, lo uint64, width int, buf *sortBuffers) {
	buf.counts = slices.Grow(buf.counts[:0], width+1)[:width+1]
	count := buf.counts
	clear(count)
	for _, k := range keys {
		count[k-lo+1]++
	}
	for d := 1; d < len(count); d++ {
		count[d] += count[d-1]
	}
	for i, k := range keys {
		d := k - lo
		tmp[count[d]] = xs[i]
		count[d]++
	}
	copy(xs, tmp)
}
