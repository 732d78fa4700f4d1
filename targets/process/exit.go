package process

import (
	"fmt"
	"strings"
)

// ExitError is how a child exited on its own: its exit status and the
// end of its output. Err, Down and a failed Start return one (errors.As
// finds it), so that a caller can quote the receiver's last words
// without the command line that names it.
type ExitError struct {
	// Name is the child's role and command line, as messages name it.
	Name string
	Pid  int
	// Ready says it had passed its readiness check.
	Ready bool
	// State is its exit status as os.ProcessState words it: "exit
	// status 1", "signal: segmentation fault".
	State string
	// Output is the end of its output, whole lines; empty when it had
	// no log (Child.SetLogDir).
	Output string
}

func (e *ExitError) Error() string {
	when := "before it was ready"
	if e.Ready {
		when = "after it was ready"
	}
	tail := ""
	if e.Output != "" {
		tail = "; its output ends:\n" + e.Output
	}
	return fmt.Sprintf("%s (pid %d) exited on its own %s (%s)%s", e.Name, e.Pid, when, e.State, tail)
}

// LastLines returns up to n of the last lines the start that exited
// wrote, without the lines fencecheck writes into the log (the log
// appends across restarts, and marks each start).
func (e *ExitError) LastLines(n int) []string {
	var lines []string
	for _, line := range strings.Split(e.Output, "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case strings.HasPrefix(line, logMarker+"start "):
			lines = lines[:0] // an earlier start's
		case strings.TrimSpace(line) != "" && !strings.HasPrefix(line, logMarker):
			lines = append(lines, line)
		}
	}
	return lines[max(0, len(lines)-n):]
}
