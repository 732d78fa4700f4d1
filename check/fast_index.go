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

// indexSlot is one slot of a fastIndex, 8 bytes: the high half of the
// hash of its write's value, which rules out nearly every other write
// without reading it, and the write's position plus one (0: unused). The
// whole hash is the write's own; holding it here too cost 8 bytes per slot,
// 16 per write at the table's half fill (128 MB of a 10,000,000-operation
// check on one resource).
type indexSlot struct {
	tag uint32
	w1  uint32
}

// tag is the part of hash h a slot keeps.
func tag(h uint64) uint32 { return uint32(h >> 32) }

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
	t := tag(h)
	for i := h & ix.mask; ix.slots[i].w1 != 0; i = (i + 1) & ix.mask {
		if s := &ix.slots[i]; s.tag == t {
			if w := &writes[s.w1-1]; w.hash == h && c.Value(&c.Ops[w.op]) == value {
				return int32(s.w1 - 1), true
			}
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
	t := tag(h)
	i := h & ix.mask
	for ; ix.slots[i].w1 != 0; i = (i + 1) & ix.mask {
		s := &ix.slots[i]
		if s.tag != t || writes[s.w1-1].hash != h {
			continue
		}
		if !fetched {
			value, fetched = c.Value(&c.Ops[writes[w].op]), true
		}
		if c.Value(&c.Ops[writes[s.w1-1].op]) == value {
			return int32(s.w1 - 1), true
		}
	}
	ix.slots[i] = indexSlot{tag: t, w1: uint32(w) + 1}
	return 0, false
}
