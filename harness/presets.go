package harness

// Presets: the common shapes of a run's work, as named values a test or a
// caller picks and overrides a field of (etcd's robustness traffic
// profiles, kvnemesis's nested configs): cfg.Workload =
// harness.ContendedWorkload(). DefaultConfig's Workload is the default
// shape; every preset starts from it, so the defaults stay in one place.

// ContendedWorkload is many workers on one resource, most of their writes
// in flight at once: the interleavings a receiver whose comparison and
// write are not one atomic step gets wrong (a check-then-write race,
// Coverage.ConcurrentWrites), rather than the stale writes of paused
// owners the default spreads over four resources.
func ContendedWorkload() Workload {
	w := DefaultConfig().Workload
	w.Workers, w.Resources, w.ReadShare = 16, 1, 0.5
	// Bursts of up to 8 writes, half the jobs: the workers are many.
	w.Burst.Share, w.Burst.Size = 0.5, 8
	return w
}

// SpreadWorkload is many resources, a few workers on each: the shape of a
// long run against a receiver that must keep every resource's highest
// token apart (a scope bug shows on many resources at once), with fewer
// collisions on any one.
func SpreadWorkload() Workload {
	w := DefaultConfig().Workload
	w.Workers, w.Resources = 32, 64
	return w
}
