package process

import "github.com/fencecheck/fencecheck/targets"

// CarriesTrace implements targets.TraceCarrier for the inner target: a
// receiver process is reached through it (an HTTP target sends each
// operation's traceparent), and the receiver's log (receiver.log) is
// where a person then finds the operation's requests.
func (t *Target) CarriesTrace() bool { return targets.CarriesTrace(t.Target) }
