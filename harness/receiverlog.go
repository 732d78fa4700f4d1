package harness

import (
	"github.com/fencecheck/fencecheck/logscan"
	"github.com/fencecheck/fencecheck/targets"
)

// scanReceiverLog reads the target's receiver log (targets.LogScanner),
// once the receiver has stopped; nil when the target has none.
func scanReceiverLog(target targets.Target) *logscan.Outcome {
	s, ok := target.(targets.LogScanner)
	if !ok {
		return nil
	}
	return logscan.NewOutcome(s.ScanLog())
}
