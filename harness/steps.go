package harness

import (
	"math"
	"time"
)

// stepsPerOp is how many steps the simulation schedules per client
// operation of a run on a memory target, as measured on main: 5.5 to 6
// for 2 to 32 workers, with and without faults (a step is a task's run
// from one wait to the next: the worker's think time, each leg of the
// simulated latency, the task that carries a call, the lease's timer).
const stepsPerOp = 6

// maxEstimatedOps bounds the estimate of a run whose operations take no
// virtual time, which its duration does not bound.
const maxEstimatedOps = 10_000_000

// estimatedSteps is k, the number of steps PCT draws its change points
// from (sched.PCT), estimated from the configuration before the run, as
// PCT needs: stepsPerOp for each operation the run is expected to make,
// and for each resource's reads before and after the work.
//
// The operations are Ops, or what Duration leaves room for if that is
// fewer: each resource is held by one job at a time, so at most
// min(Workers, Resources) jobs run at once, each holding its lease for
// about Think and four legs of Latency (a read and a write), plus a repeat
// write RepeatShare of the time; a job makes a read, a write, RepeatShare
// repeats and ReadShare extra reads; Rate caps them all; contention
// bursts take about Burst.Share of the jobs off. Against runs with
// the defaults this lands within a factor of two of the steps the run
// takes (TestEstimatedSteps): an estimate twice too high halves the
// chance of each change point landing on the step a bug needs, one too
// low leaves the steps after it without change points.
func (c *Config) estimatedSteps() int {
	ops := float64(maxEstimatedOps)
	if c.Workload.Ops > 0 {
		ops = min(ops, float64(c.Workload.Ops))
	}
	if c.Workload.Duration > 0 {
		busy := float64(min(c.Workload.Workers, c.Workload.Resources))
		hold := float64(c.Workload.Think) + (4+2*c.Workload.RepeatShare)*float64(c.Runtime.Latency)
		perJob := 2 + c.Workload.RepeatShare + c.Workload.ReadShare
		byTime := busy * float64(c.Workload.Duration) / max(hold, float64(time.Microsecond)) * perJob
		if c.Workload.Rate > 0 {
			byTime = min(byTime, c.Workload.Rate*c.Workload.Duration.Seconds())
		}
		ops = min(ops, byTime)
	}
	if c.Workload.Burst.On() && c.Workload.Strategy.Fences() && len(c.Nemesis.Faults) > 0 {
		// A burst's members wait at its barrier instead of working:
		// about Burst.Share of the jobs.
		ops *= 1 - c.Workload.Burst.Share
	}
	return stepsPerOp * int(math.Ceil(ops+2*float64(c.Workload.Resources)))
}
