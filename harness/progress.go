package harness

import "github.com/fencecheck/fencecheck/workload"

// Progress is a snapshot of a run in progress (Config.Output.Progress).
type Progress = workload.Progress
