package check

import (
	"slices"

	"github.com/fencecheck/fencecheck/histories"
)

// fastIndex finds the write of a value by the hash of the value, which the
// writes and reads carry: building and probing the index reads no string,
// and a match is confirmed by comparing the strings, so a collision of
// hashes can cost time but never a wrong verdict. It is an open-addressing
// table with linear probing, at most half full: a resource's index stays
// small enough for the cache, and a probe is a few integer comparisons.
// It holds positions in a resource's writes.
type fastIndex struct {
	slots []indexSlot
	mask  uint64
}

type indexSlot struct {
	hash uint64
	w    int32
	used bool
}

// index returns an empty index for n values, in sc's buffer.
func (sc *fastScratch) index(n int) fastIndex {
	size := 8
	for size < 2*n {
		size *= 2
	}
	sc.slots = slices.Grow(sc.slots[:0], size)[:size]
	clear(sc.slots)
	return fastIndex{slots: sc.slots, mask: uint64(size - 1)}
}

// lookup returns the write in writes of value, whose hash is h, if one
// wrote it; c holds the values.
func (ix *fastIndex) lookup(c *histories.History, writes []fastWrite, h uint64, value string) (int32, bool) {
	for i := h & ix.mask; ix.slots[i].used; i = (i + 1) & ix.mask {
		if s := &ix.slots[i]; s.hash == h && c.Value(&c.Ops[writes[s.w].op]) == value {
			return s.w, true
		}
	}
	return 0, false
}

// insert records that writes[w] wrote its value. It returns the write that
// wrote the value before, if one did.
func (ix *fastIndex) insert(c *histories.History, writes []fastWrite, w int32) (int32, bool) {
	h := writes[w].hash
	var value string
	var fetched bool
	i := h & ix.mask
	for ; ix.slots[i].used; i = (i + 1) & ix.mask {
		s := &ix.slots[i]
		if s.hash != h {
			continue
		}
		if !fetched {
			value, fetched = c.Value(&c.Ops[writes[w].op]), true
		}
		if c.Value(&c.Ops[writes[s.w].op]) == value {
			return s.w, true
		}
	}
	ix.slots[i] = indexSlot{hash: h, w: w, used: true}
	return 0, false
}
