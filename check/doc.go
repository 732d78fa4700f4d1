// Package check judges a history against a model (package model): Check
// is its one entry point. It holds two checkers, which say whether a
// history is linearizable and, for each resource that is not, which
// operations they blame (Blame); package explain words a violation.
//
// Porcupine, the reference, searches an exponential space. The fast
// checker judges a fenced-register history exactly, in O(n log n) per
// resource. It needs every value to be written at most once per resource,
// so that a read names the write it observed; histories that fencecheck
// generates have that. Where it cannot judge, Check asks porcupine.
//
// # Why the problem is small
//
// A write takes effect only if it may be accepted at its point
// (model.Policy.MayAccept): its token above the highest so far under strict, at
// or above it under accept-equal, the highest starting at 0. So writes
// that take effect do so in increasing token order from 1 (strict) or
// non-decreasing order from 0 (accept-equal), the highest accepted token
// is always the token of the last write that took effect, and the state
// after any prefix of a linearization is that write (or none). Reads and
// rejections change nothing. So the order of the writes that take effect
// is forced, except among writes that share a token (accept-equal). A
// read's value names its write w (a read of nothing names the initial
// state; a reported token must be w's, or 0): the read goes after w and
// before the next write that takes effect. A rejection of token t may be
// given at a point iff t is at most the highest token there
// (model.Policy.MayReject), under both policies alike: accept-equal differs from
// strict only in which writes may take effect, and at an equal token it
// allows both answers, so a rejection needs the same as under strict. That
// is t = 0 (always legal, so ignored), or a write with a token of t or
// above taking effect before it; as tokens only grow, that is the first
// such write, the one that justifies it. A write with unknown outcome may
// take effect or not; one whose value was read did. Accepted writes and
// read unknown writes are forced; the other unknown writes are optional.
//
// # From orders to times
//
// With closed intervals, a total order is a linearization iff each
// operation can be given a point in [Call, Return], non-decreasing along
// the order. Given the points x(w) of the writes that take effect, a read
// of w fits iff its Call ≤ x(next write) and x(w) ≤ its Return, and a
// rejection fits iff x(first justifying write) ≤ its Return. So the
// question is only about the writes' points: each has lower bounds (its
// Call, the previous point, and the Calls of the previous write's reads)
// and upper bounds (its Return, the Returns of its reads, and the Returns
// of the rejections it must justify). All upper bounds are fixed times, so
// taking every point as early as its lower bounds allow is never worse.
//
// # The sweep
//
// Sweeping writes and rejections in token order, the rejections of a
// token before its writes (which can justify them), all that matters for
// the rest of the sweep is a pair (next, due): the earliest the next write
// can take effect, and the earliest Return among rejections still waiting
// for a justifying write. A pair with earlier next and later due leaves
// every choice the other leaves, so only the Pareto front is kept
// (fastFront). A rejection lowers the dues and discards states whose next
// is past its Return. Any write that takes effect justifies every waiting
// rejection, as they all have its token or below. An optional write is
// worth taking only as the first of its token (it justifies the waiting
// rejections; taking more of one token only adds constraints), so a
// token's optional writes add at most one state: from the best state whose
// due is not before the write's Call and whose next is not after its
// Return. Forced writes are taken by every state, so the front collapses
// to the best state that can take them (a same-token optional write may go
// first to justify rejections); for several forced writes of one token,
// fastGroup shows that they can be ordered iff no two of them each need
// the other first, and that the next they hand on does not depend on their
// order. Under strict, a token can take effect once and token 0 never, so
// forced repeats are violations and optional ones are ignored.
//
// # Why it is exact
//
// Sound: a state surviving the sweep with nothing due records which
// writes took effect; their earliest points, with each read and rejection
// placed as above and the other unknown writes as no-ops anywhere in their
// intervals, form a linearization: each write that takes effect may be
// accepted, its token being in order, and each rejection may be given, as
// it follows a write with its token or above or has token 0. Complete: a linearization takes
// some writes in token order with points that meet every bound; by
// induction over the sweep, after each token some kept state is at least
// as good as the linearization's (next no later, due no earlier), because
// every step keeps the best state for each choice the linearization can
// make. So a linearization exists iff a state with nothing due survives.
// The differential test against porcupine (TestFastDifferential, fast_diff_test.go) checks this
// on hundreds of thousands of small histories.
//
// # Cost
//
// Hashing written values, a radix sort of tokens (skipped when they are in
// order already) and the sweep are linear; binary searches and the order
// test of equal-token groups make it O(n log n). The history is read once
// more to size the records: GOMAXPROCS goroutines collect stretches of it,
// writing each resource's writes (64 bytes, no pointer) straight to their
// places, and matching each read, by comparing values while they are in
// cache, with one of the last writes of its resource; what a matched read
// says is folded into its write, so reads cost no memory. The few reads
// not matched there (their write is older, or in another stretch) are
// looked up in an index of hashes. Resources are then checked in parallel,
// in buffers reused across resources and checks. model.Prepare's filter
// and fencing cap are applied (the same functions), so both checkers judge
// the same intervals. Options.Timeout is not needed and ignored.
//
// The fast checker cannot judge a history with a value written twice
// within a resource (by any writes, including ones rejected or shown by
// the cap to be no-ops), nor a model other than the fenced register
// (Unsupported).
package check
