package etcdlease

import "context"

// Restored tells the service that its cluster was restored from a
// snapshot: the lock waits in progress end, and their grants are tried
// again (Acquire's retry), as clients restarted after a restore do. A
// waiter watches for the deletion of the key ahead of it; a key created
// after the snapshot no longer exists, and a restore that did not bump
// the revision leaves the watch waiting for a revision the cluster
// reaches only later, for a deletion that never comes.
func (s *Service) Restored() {
	s.mu.Lock()
	end := s.endWaits
	s.waits, s.endWaits = context.WithCancel(context.Background())
	s.mu.Unlock()
	end()
}

// lockWait is ctx for one lock wait, which also ends at Restored; call
// the function returned when the wait is over.
func (s *Service) lockWait(ctx context.Context) (context.Context, context.CancelFunc) {
	s.mu.Lock()
	waits := s.waits
	s.mu.Unlock()
	lctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(waits, cancel)
	return lctx, func() { stop(); cancel() }
}
