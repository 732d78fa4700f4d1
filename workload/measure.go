package workload

import (
	"slices"
	"time"
)

// LeaseEnd is a lease that ended other than by its holder's release: it
// ran out, or the issuer or the nemesis ended it.
type LeaseEnd struct {
	Resource string
	Token    uint64
	Time     int64 // on the run's clock, as Job's times
	// ByNemesis says the nemesis ended it on purpose: an early expiry,
	// or a pause or a delayed write made to outlive it.
	ByNemesis bool
}

// Metrics is what a run's strategy cost its jobs, the two measures the
// article asks the tempting fixes to be judged by: processing latency and
// unnecessary reassignment.
type Metrics struct {
	// Jobs is how many jobs sent a write; Abandoned how many gave up
	// before writing because the worker learned its lease was gone.
	Jobs      int `json:"jobs"`
	Abandoned int `json:"abandoned"`
	// LatencyP50 and LatencyP99 are percentiles (nearest rank) of the
	// job latency of the jobs that wrote: from asking for the lease to
	// the answer to the job's last write (or the moment the worker
	// stopped waiting for it). Waiting for a lease another worker holds
	// is part of it.
	LatencyP50 time.Duration `json:"latency_p50_ns"`
	LatencyP99 time.Duration `json:"latency_p99_ns"`
	// UnnecessaryReassignments counts leases taken from a live worker:
	// leases that ended while their job was still running (granted, not
	// yet ended), while the nemesis was not holding the worker at its
	// pause point, and not by the nemesis's own hand. Such a lease ran
	// out by its TTL (or the issuer lost it) while its holder was
	// progressing: thinking, reading, or waiting for a write's answer.
	// It counts a lost lease whether or not another worker was waiting
	// for it at that moment.
	UnnecessaryReassignments int `json:"unnecessary_reassignments"`
}

// Measure computes a run's Metrics from its jobs and the ends of its
// leases.
func Measure(jobs []Job, ends []LeaseEnd) Metrics {
	var m Metrics
	type key struct {
		resource string
		token    uint64
	}
	byLease := make(map[key]*Job, len(jobs))
	var latencies []time.Duration
	for i := range jobs {
		j := &jobs[i]
		byLease[key{j.Resource, j.Token}] = j
		switch {
		case j.Abandoned:
			m.Abandoned++
		case j.Wrote:
			m.Jobs++
			latencies = append(latencies, time.Duration(j.Answered-j.Asked))
		}
	}
	slices.Sort(latencies)
	m.LatencyP50, m.LatencyP99 = percentile(latencies, 50), percentile(latencies, 99)
	for _, e := range ends {
		j := byLease[key{e.Resource, e.Token}]
		if e.ByNemesis || j == nil || e.Time < j.Granted || e.Time >= j.Ended || j.paused(e.Time) {
			continue
		}
		m.UnnecessaryReassignments++
	}
	return m
}

// percentile is the nearest-rank p-th percentile of sorted; 0 for none.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 · n)
	return sorted[max(rank, 1)-1]
}
