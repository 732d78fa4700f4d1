package etcdlease

import (
	"context"
	"fmt"
)

// maxFloorWrites bounds the writes StartAbove makes to raise the
// cluster's revision: about a second of puts on a local cluster.
const maxFloorWrites = 2000

// StartAbove makes the next token of resource exceed token, the token the
// resource held before the run. etcd's revision cannot be set, only
// advanced one write at a time, so StartAbove writes a scratch key under
// the run's prefix until the revision passes token. A gap wider than
// maxFloorWrites is left: the run's tokens are then below the resource's,
// its writes are stale, and a correct receiver rejects them all (the
// history's initial state says why). Revisions are global, so on a
// cluster that has seen real use the gap is usually already closed.
//
// Each request has its own rpcTimeout, not the whole raise: up to
// maxFloorWrites puts on a loaded machine take longer than one request
// may, and a raise cut short would leave the floor below token.
func (s *Service) StartAbove(resource string, token uint64) {
	_ = s.raiseRevision(s.env.Life, token)
}

func (s *Service) raiseRevision(life context.Context, token uint64) error {
	ctx, cancel := context.WithTimeout(life, rpcTimeout)
	got, err := s.cli.Get(ctx, s.prefix+"floor")
	cancel()
	if err != nil {
		return fmt.Errorf("read etcd's revision: %w", err)
	}
	rev := uint64(got.Header.Revision)
	if rev >= token || token-rev > maxFloorWrites {
		return nil
	}
	for ; rev < token; rev++ {
		ctx, cancel := context.WithTimeout(life, rpcTimeout)
		_, err := s.cli.Put(ctx, s.prefix+"floor", fmt.Sprint(rev))
		cancel()
		if err != nil {
			return fmt.Errorf("raise etcd's revision: %w", err)
		}
	}
	return nil
}
