package lease

import "context"

// LockParent is a Service whose locks are sequential nodes under a
// parent node per resource, numbered by a counter the parent keeps
// (ZooKeeper's lock recipe, lease/zookeeper): Sequence says which number
// the lease that carries token got, while it is the resource's latest
// grant, and RecreateParent deletes the resource's parent, with no lease
// current, and creates it again, as an operator's clean-up or a
// container node reaped when empty does, which starts the counter again.
//
// verify-issuer's sequence-after-parent-reset scenario uses it to show
// that the counter goes back where the tokens must not: an issuer whose
// tokens were those numbers would grant old tokens again. A service
// without it has no such counter; the scenario is skipped.
type LockParent interface {
	Sequence(resource string, token uint64) (int32, bool)
	RecreateParent(ctx context.Context, resource string) error
}
