package nemesis

import (
	"context"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/histories"
)

// Process is a receiver running as a process that faults can crash and
// freeze (targets/process.Child implements it).
type Process interface {
	// Restart crashes the process (SIGKILL) and starts it again, waiting
	// until it answers.
	Restart(ctx context.Context) error
	// Freeze stops it (SIGSTOP); Thaw resumes it (SIGCONT).
	Freeze() error
	Thaw() error
}

// Kill crashes the receiver process with SIGKILL and starts it again, at
// random intervals while active: whatever it had not made durable is lost,
// and a receiver that keeps its highest token only in memory then accepts
// a stale write. Writes in flight at the crash have unknown outcomes.
type Kill struct {
	toggle
	proc Process
	// Every is the mean time between crashes while active; default five
	// lease TTLs.
	Every time.Duration
}

// NewKill returns the kill fault for proc.
func NewKill(proc Process) *Kill { return &Kill{toggle: toggle{name: "kill"}, proc: proc} }

// Act implements Actor.
func (k *Kill) Act(ctx context.Context, env Env) {
	every := k.Every
	if every <= 0 {
		every = 5 * env.LeaseTTL()
	}
	rt := env.Runtime()
	for ctx.Err() == nil {
		if rt.Sleep(ctx, time.Duration((0.5+env.Float64())*float64(every))) != nil {
			return
		}
		if !k.Active() {
			continue
		}
		record(env, k.name, histories.FBegin, "SIGKILL to the receiver process")
		start := time.Now()
		// The restart completes even if the fault phase ends meanwhile:
		// the final reads need a running receiver.
		if err := k.proc.Restart(context.WithoutCancel(ctx)); err != nil {
			record(env, k.name, histories.FEnd, fmt.Sprintf("the receiver did not come back: %v", err))
			return
		}
		record(env, k.name, histories.FEnd, fmt.Sprintf("the receiver restarted and answers again after %v", time.Since(start).Round(time.Millisecond)))
	}
}
