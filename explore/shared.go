package explore

import "fmt"

// Shared says what the runs of a sweep share when several go at once,
// and so how many may: runs in the deterministic simulation share
// nothing, while runs on the real clock share the receiver, and may go
// at once only where each has its own resources on it (harness's run
// names its resources from its own seed) and the receiver is not
// started anew by every run.
type Shared struct {
	// Simulated: every run is in the deterministic simulation, on a
	// receiver of its own.
	Simulated bool
	// ReceiverProcess: each run starts the receiver as a process at the
	// target's one address (targets/process).
	ReceiverProcess bool
	// FixedResources: the runs' resources have the same names in every
	// run (harness.Workload.ResourceNames).
	FixedResources bool
	// Shard: the runs are a shard of a job, on the job's resources
	// (harness.Workload.Shard).
	Shard bool
	_     struct{}
}

// Parallel is how many runs go at once unless the caller says: one per
// processor in the simulation (DefaultOptions), else one.
func (s Shared) Parallel() int {
	if s.Simulated {
		return DefaultOptions().Parallel
	}
	return 1
}

// Refuse refuses parallel runs at once that would share what only one
// run may have: the address of a receiver each run starts, or resources
// of fixed names on one receiver. word words Options.Parallel
// ("Parallel") and Shared.ReceiverProcess ("ReceiverProcess") as the
// caller sets them; nil words them as Go code does.
func (s Shared) Refuse(parallel int, word func(field string) string) error {
	if parallel == 1 {
		return nil
	}
	if word == nil {
		word = goWords
	}
	p := fmt.Sprintf("%s %d", word("Parallel"), parallel)
	switch {
	case s.ReceiverProcess:
		return fmt.Errorf("%s: each run starts the receiver of %s, and they would share its address; sweep such a receiver with %s 1", p, word("ReceiverProcess"), word("Parallel"))
	case s.FixedResources && !s.Simulated:
		return fmt.Errorf("%s: the runs would share the receiver's resources of fixed names; sweep them with %s 1", p, word("Parallel"))
	case s.Shard:
		return fmt.Errorf("%s: a shard's runs share the job's resources; sweep a shard with %s 1", p, word("Parallel"))
	}
	return nil
}

// goWords words Refuse's fields as Go code sets them.
func goWords(field string) string {
	if field == "Parallel" {
		return "Options.Parallel"
	}
	return "Shared." + field
}
