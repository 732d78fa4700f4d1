package histories

import "unsafe"

// arena holds the values of a History: their bytes side by side in large
// chunks, and for each value number where its bytes are. A value costs its
// bytes and eight, with no allocation and no pointer of its own; a string
// per value (as Operation.Value) costs an allocation and sixteen bytes the
// garbage collector scans.
type arena struct {
	chunks [][]byte
	refs   []valueRef // by value number; refs[0] is noValue
}

// valueRef locates a value: chunk<<48 | offset<<24 | length. A value is
// shorter than a line (maxLineBytes, under 1<<24), and a chunk that holds
// more than one value is arenaChunk bytes, so each fits.
type valueRef uint64

// arenaChunk is the size of a chunk; a longer value gets a chunk of its
// own. The first chunks are smaller, each twice the last, as most
// histories compressed in memory (a shrinker's candidates) are tiny: a
// chunk of arenaChunk for each cost the explain property tests thirty
// times their time.
const arenaChunk = 4 << 20

// add stores v and returns its number.
func (a *arena) add(v string) uint32 {
	if len(a.refs) == 0 {
		a.refs = append(a.refs, 0) // noValue
	}
	n := len(a.chunks) - 1
	if n < 0 || len(a.chunks[n])+len(v) > cap(a.chunks[n]) {
		size := 256
		if n >= 0 {
			size = min(2*cap(a.chunks[n]), arenaChunk)
		}
		a.chunks = append(a.chunks, make([]byte, 0, max(size, len(v))))
		n++
	}
	c := a.chunks[n]
	a.refs = append(a.refs, valueRef(uint64(n)<<48|uint64(len(c))<<24|uint64(len(v))))
	a.chunks[n] = append(c, v...)
	return uint32(len(a.refs) - 1)
}

// get returns value number i. The bytes of a chunk are never written
// again once a value is in them, so the string can share them.
func (a *arena) get(i uint32) string {
	if i == noValue {
		return ""
	}
	r := a.refs[i]
	n := int(r & (1<<24 - 1))
	if n == 0 {
		return ""
	}
	off := int(r >> 24 & (1<<24 - 1))
	return unsafe.String(&a.chunks[r>>48][off], n)
}
