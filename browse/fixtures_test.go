package browse

import (
	"context"
	"strings"
	"testing"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/targets"
)

// run records a short run of tgt into the store, as fencecheck run does,
// in the folder runName.
func run(t *testing.T, ctx context.Context, store, runName string, tgt targets.Target, set func(*harness.Config)) (harness.Result, error) {
	t.Helper()
	cfg := harness.DefaultConfig()
	cfg.Target.Receiver, cfg.Target.Name, cfg.Store.RunName, cfg.Store.Dir = tgt, "memory://fenced", runName, store
	cfg.Runtime.Seed, cfg.Runtime.Deterministic, cfg.Workload.Duration, cfg.Workload.Ops, cfg.Nemesis.Faults, cfg.Gates.MinStale = 1, true, 0, 100, nil, 0
	if set != nil {
		set(&cfg)
	}
	return harness.Run(ctx, cfg)
}

// rowOf returns the runs table's row of the run named name, "" if none.
func rowOf(page, name string) string {
	for _, tr := range strings.Split(page, "<tr>")[1:] {
		if strings.Contains(tr, "<code>"+name+"</code>") {
			return tr
		}
	}
	return ""
}
