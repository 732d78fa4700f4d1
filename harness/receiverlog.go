package harness

import (
	"github.com/fencecheck/fencecheck/logscan"
)

// logScanner is implemented by targets whose receiver writes a log
// fencecheck can read (a receiver process's receiver.log, process.Target):
// its signs of a bug are evidence the history cannot hold, as in Jepsen's
// log-file-pattern checker.
type logScanner interface {
	ScanLog() (logscan.Report, error)
}

// scanReceiverLog reads the target's receiver log, once the receiver has
// stopped; nil when the target has none.
func scanReceiverLog(target any) *logscan.Outcome {
	s, ok := target.(logScanner)
	if !ok {
		return nil
	}
	return logscan.NewOutcome(s.ScanLog())
}
