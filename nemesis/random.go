package nemesis

import (
	"context"
	"fmt"
	"time"
)

// Random opens fault windows at random: every Interval on average it
// switches on a random subset of the faults for about Window, then switches
// them off. Each window includes the faults in turn, plus each other fault
// with probability one half, so every fault gets its share of a short run;
// overlapping faults (a pause during a delay) are where the interesting
// interleavings come from.
type Random struct {
	Interval time.Duration
	Window   time.Duration
	_        struct{} // keyed fields only: the struct may grow
}

// Run implements Schedule.
func (r Random) Run(ctx context.Context, env Env, faults []Fault) {
	if len(faults) == 0 {
		return
	}
	rt := env.Runtime()
	for window := 0; ; window++ {
		quiet := time.Duration((0.5 + env.Float64()) * float64(r.Interval))
		if rt.Sleep(ctx, quiet) != nil {
			return
		}
		turn := window % len(faults)
		for i, f := range faults {
			if i == turn || env.Float64() < 0.5 {
				set(env, f, true)
			}
		}
		window := time.Duration((0.5 + env.Float64()) * float64(r.Window))
		err := rt.Sleep(ctx, window)
		StopAll(env, faults)
		if err != nil {
			return
		}
	}
}

// String words the schedule: "random windows every 300ms, up to 400ms".
func (r Random) String() string {
	return fmt.Sprintf("random windows every %s, up to %s", r.Interval, r.Window)
}
