package models

// fastIndex finds the write of a value by the hash of the value, which the
// records carry: building and probing the index reads no string, and a
// match is confirmed by comparing the strings, so a collision of hashes can
// cost time but never a wrong verdict. Writers are writer indices (see
// newFastProblem).
type fastIndex struct {
	first map[uint64]int32
	// more holds further writes whose value has a hash already in first,
	// in the rare case of a collision.
	more map[uint64][]int32
}

func newFastIndex(n int) fastIndex { return fastIndex{first: make(map[uint64]int32, n)} }

// valueOf returns the value of record k's operation.
func (pb *fastProblem) valueOf(k int32) string { return pb.values[pb.recs[k].pos] }

// recordOf returns the record of a writer index.
func (pb *fastProblem) recordOf(w int32) int32 {
	if w < 0 {
		return -1 - w
	}
	return pb.writes[w].op
}

// lookup returns the writer index of record k's value, if some write wrote
// it.
func (pb *fastProblem) lookup(ix *fastIndex, k int32) (int32, bool) {
	h := pb.recs[k].hash
	w, ok := ix.first[h]
	if !ok {
		return 0, false
	}
	v := pb.valueOf(k)
	if pb.valueOf(pb.recordOf(w)) == v {
		return w, true
	}
	for _, w := range ix.more[h] {
		if pb.valueOf(pb.recordOf(w)) == v {
			return w, true
		}
	}
	return 0, false
}

// insert records that writer index w wrote record k's value, which lookup
// did not find.
func (pb *fastProblem) insert(ix *fastIndex, k, w int32) {
	h := pb.recs[k].hash
	if _, taken := ix.first[h]; !taken {
		ix.first[h] = w
		return
	}
	if ix.more == nil {
		ix.more = make(map[uint64][]int32)
	}
	ix.more[h] = append(ix.more[h], w)
}
