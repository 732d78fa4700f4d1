package nemesis

import (
	"context"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/histories"
)

// PauseReceiver freezes the receiver process with SIGSTOP for up to two
// lease TTLs and thaws it with SIGCONT, at random intervals while active:
// the process pause of the article, on the receiver's side. Requests queue in
// the kernel, workers time out (unknown outcomes), and the queued requests
// are processed late, after the workers gave up on them.
type PauseReceiver struct {
	toggle
	proc Process
	// Every is the mean time between pauses while active; default three
	// lease TTLs.
	Every time.Duration
}

// NewPauseReceiver returns the pause-receiver fault for proc.
func NewPauseReceiver(proc Process) *PauseReceiver {
	return &PauseReceiver{toggle: toggle{name: "pause-receiver"}, proc: proc}
}

// Available implements Fault: the fault acts on the process it was
// given, and on nothing without one.
func (p *PauseReceiver) Available(Site) error { return needProcess(p.name, p.proc) }

// Act implements Actor.
func (p *PauseReceiver) Act(ctx context.Context, env Env) {
	every := p.Every
	if every <= 0 {
		every = 3 * env.LeaseTTL()
	}
	rt := env.Runtime()
	for ctx.Err() == nil {
		if rt.Sleep(ctx, time.Duration((0.5+env.Float64())*float64(every))) != nil {
			return
		}
		if !p.Active() {
			continue
		}
		p.freeze(ctx, env, time.Duration(env.Float64()*float64(2*env.LeaseTTL())))
	}
}

func (p *PauseReceiver) freeze(ctx context.Context, env Env, d time.Duration) {
	if err := p.proc.Freeze(); err != nil {
		// No pause took place, so none is recorded: the receiver is gone.
		env.Fail(fmt.Errorf("pause-receiver fault: no live receiver to pause: %w", err))
		return
	}
	record(env, p.name, histories.FBegin, fmt.Sprintf("SIGSTOP to the receiver process for %v", d.Round(time.Millisecond)))
	_ = env.Runtime().Sleep(ctx, d) // ends early with the fault phase
	if err := p.proc.Thaw(); err != nil {
		record(env, p.name, histories.FEnd, fmt.Sprintf("SIGCONT failed: %v", err))
		env.Fail(fmt.Errorf("pause-receiver fault: resume the receiver: %w", err))
		return
	}
	record(env, p.name, histories.FEnd, "SIGCONT: the receiver resumes and works through its queued requests")
}
