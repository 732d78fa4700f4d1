package process

import (
	"errors"
	"slices"
	"strings"

	"github.com/fencecheck/fencecheck/logscan"
)

// logMarker starts the lines fencecheck itself writes into the receiver's
// log (each start, an exit on its own). They quote the receiver's command
// line, so a scan quotes them as context but never counts them as hits.
const logMarker = "--- fencecheck: "

// ScanLog reads the receiver's log (LogFile) for the signs of a bug the
// history cannot show: logscan's built-in crash signatures (Go, Python,
// Java, Node, Rust; a crash followed by fencecheck's line that the
// receiver exited on its own ended it, and is a finding) and
// LogPatterns, and says what program the receiver ran (inspect), so
// that the claim about data races is only as strong as the program's
// build. Quoted lines are scrubbed of LogSecrets. It is meant for
// after the run, once Stop closed the log, but reads whatever was written
// so far. A child whose output is not kept (no SetLogFile) has no log to
// read: that is an error, so that no caller takes it for a clean one.
func (c *Child) ScanLog() (logscan.Report, error) {
	c.mu.Lock()
	path, exe := c.logPath, c.exe
	c.mu.Unlock()
	if path == "" {
		return logscan.Report{}, errors.New("the receiver's output was not kept: no log to read")
	}
	o := logscan.DefaultOptions()
	o.Patterns = append(o.Patterns, c.LogPatterns...)
	o.Secrets = slices.Clone(c.LogSecrets)
	o.Own = func(line string) bool { return strings.HasPrefix(line, logMarker) }
	o.Exited = func(line string) bool {
		return strings.HasPrefix(line, logMarker+"pid ") && strings.Contains(line, " exited on its own ")
	}
	rep, err := logscan.ScanFile(path, o)
	if exe == nil {
		exe = &logscan.Executable{Unknown: "the receiver was never seen running"}
	}
	rep.Executable = exe
	return rep, err
}
