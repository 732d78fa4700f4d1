package check

import (
	"sync"

	"github.com/fencecheck/fencecheck/model"
)

// fastScratch holds the buffers a fast checker worker builds a resource's
// problem in. They are reused from one resource to the next and, through
// scratchPool, from one check to the next: a check allocates almost
// nothing but its records, which matters to callers that check many
// histories (the shrinker checks hundreds of sub-histories, verify one
// per scenario) and to every check's garbage collector, which would
// otherwise scan the history once per few megabytes allocated. Without the
// pools the 10,000-operation cells of BenchmarkCheckFast take 1.4 to 3.7
// times as long (interleaved A/B: 2.46 ms against 0.66 ms on
// resources=1/clients=5/ops=10000/unknown=0%/valid); at 1,000,000 and
// 10,000,000 operations, where the work dwarfs the buffers, the difference
// was within the noise. Nothing a check returns refers to a scratch
// buffer.
type fastScratch struct {
	sorting           []fastWrite
	rejects, rejected []fastReject
	slots             []indexSlot
	capWrites         []model.CapWrite
	model.CapScratch
	sort sortBuffers
}

var scratchPool = sync.Pool{New: func() any { return new(fastScratch) }}

// collectBuffers are a check's per-operation buffers (see collectFast),
// reused through collectPool like fastScratch.
type collectBuffers struct {
	local  [][]int32 // each stretch's numbers of the resources
	writes []fastWrite
	// The reads left for newFastProblem, each stretch's in a region of
	// reads, with the number of their resource in the stretch at the same
	// place in readRes; then, when there are several resources, all of
	// them by resource in allLeft.
	reads   []fastRead
	readRes []int32
	allLeft []fastRead
}

var collectPool = sync.Pool{New: func() any { return new(collectBuffers) }}

// poolLimit is the most records (writes or reads) a buffer may hold and
// still go back to its pool. The pools serve the many small checks (a
// shrinker's candidates); the buffers of a check of millions of operations
// are as large as the history's compact form, and kept in a pool they
// would stay live through everything that follows the check: explaining
// its violation, in the memory those buffers held (about 145 bytes per
// operation of a 1,000,000-operation history on one resource).
const poolLimit = 1 << 16

// recycle returns bufs to collectPool, unless a buffer outgrew poolLimit.
func (bufs *collectBuffers) recycle() {
	if cap(bufs.writes) > poolLimit || cap(bufs.reads) > poolLimit || cap(bufs.readRes) > poolLimit || cap(bufs.allLeft) > poolLimit {
		return
	}
	collectPool.Put(bufs)
}

// recycle returns sc to scratchPool, unless a buffer outgrew poolLimit.
func (sc *fastScratch) recycle() {
	if cap(sc.sorting) > poolLimit || cap(sc.slots) > 2*poolLimit || cap(sc.rejects) > poolLimit ||
		cap(sc.rejected) > poolLimit || cap(sc.capWrites) > poolLimit || cap(sc.sort.keys) > poolLimit ||
		cap(sc.sort.counts) > 4*poolLimit {
		return
	}
	scratchPool.Put(sc)
}
