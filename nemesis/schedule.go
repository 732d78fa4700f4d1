package nemesis

import (
	"context"

	"github.com/fencecheck/fencecheck/histories"
)

// Schedule switches faults on and off during the fault phase of a run. It
// returns when ctx is done; the harness then calls StopAll.
type Schedule interface {
	Run(ctx context.Context, env Env, faults []Fault)
}

// set switches one fault and records the window's edge.
func set(env Env, f Fault, on bool) {
	if f.Active() == on {
		return
	}
	f.SetActive(on)
	e := histories.Event{Process: -1, Actor: histories.ActorNemesis, F: histories.FStop, Fault: f.Name(), Detail: "window closes"}
	if on {
		e.F, e.Detail = histories.FStart, "window opens"
	}
	env.Record(&e)
}

// StopAll switches every fault off, recording the windows that close.
func StopAll(env Env, faults []Fault) {
	for _, f := range faults {
		set(env, f, false)
	}
}
