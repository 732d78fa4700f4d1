package logscan

import "regexp"

// raceName is the name of the race detector's report.
const raceName = "Go data race"

// The runtimes whose crash signatures Builtin knows, in the order a
// claim names them.
var Runtimes = []string{"Go", "Python", "Java", "Node", "Rust"}

// Builtin returns the crash signatures every log is scanned for, of the
// common runtimes a receiver is written in. Each says when one of its
// hits is a finding (the run fails) and when a warning (counted and
// quoted, the run not failed by it):
//
//   - Go: an unrecovered panic ("panic: " at the start of a line) and a
//     fatal runtime error (a concurrent map write, a deadlock, out of
//     memory) always end the process: findings. A race the race detector
//     reported is a finding too: the detector reports only races that
//     happened, so it is a bug in itself, not a symptom the receiver may
//     have handled. A panic net/http or the program recovered (the
//     process lives on) is a warning.
//   - Python: a traceback is a warning (a handler's exception the server
//     caught and logged), a finding when the process exited on its own
//     right after it (Options.Exited): the exception ended the program.
//   - Java: an uncaught exception in thread "main" is a finding; in
//     another thread a warning, a finding when the process exited right
//     after it.
//   - Node: an uncaught exception or unhandled promise rejection (node's
//     "throw er; // Unhandled 'error' event", "UnhandledPromiseRejection",
//     "Uncaught …") and an error's stack ("Error: …" followed by
//     "    at …") are warnings, findings when the process exited right
//     after them (node ends on an uncaught one unless a handler keeps it
//     alive).
//   - Rust: a panic in thread 'main' is a finding (it ends the program);
//     in another thread (a tokio worker catches it) a warning, a finding
//     when the process exited right after it.
//
// What they do not cover: a crash that prints nothing (a SIGKILL, the
// OOM killer: the process target reports that exit on its own), other
// runtimes' formats, and a stack a logger reformatted beyond these
// shapes. A user's --log-fail pattern (Compile) covers the rest.
func Builtin() []Pattern {
	goFrames := `^(\s|$)|^goroutine \d+ \[|^[\w./*()\[\]{}-]+\(.*\)$|^created by |^\[signal |^runtime stack:|^exit status \d+$`
	nodeCont := `^(\s|$)|^Emitted 'error' event|^[{}]|^Node\.js v\d`
	return []Pattern{
		{Name: "Go panic", Runtime: "Go", Always: true,
			Re: regexp.MustCompile(`^panic: `), Cont: regexp.MustCompile(goFrames)},
		{Name: "Go fatal error", Runtime: "Go", Always: true,
			Re: regexp.MustCompile(`^fatal error: `), Cont: regexp.MustCompile(goFrames)},
		{Name: raceName, Runtime: "Go", Always: true,
			Re:   regexp.MustCompile(`WARNING: DATA RACE`),
			Cont: regexp.MustCompile(`^(\s|$)|^(Previous )?(Read|Write|read|write|Atomic|atomic)\b.* at 0x|^Goroutine \d+ `)},
		{Name: "recovered Go panic", Runtime: "Go", OnExit: true,
			Re: regexp.MustCompile(`http: panic serving|\bpanic: `), Cont: regexp.MustCompile(goFrames)},
		{Name: "Python traceback", Runtime: "Python", OnExit: true,
			Re:      regexp.MustCompile(`^Traceback \(most recent call last\):`),
			Cont:    regexp.MustCompile(`^(\s|$)`),
			Message: regexp.MustCompile(`^[A-Za-z_][\w.]*(: .*)?$`),
			Chain:   regexp.MustCompile(`^(During handling of the above exception, another exception occurred:|The above exception was the direct cause of the following exception:)$`)},
		{Name: "Java uncaught exception", Runtime: "Java", OnExit: true,
			Re:      regexp.MustCompile(`^Exception in thread "[^"]*" `),
			FatalIf: regexp.MustCompile(`^Exception in thread "main" `),
			Cont:    regexp.MustCompile(`^(\s|$)|^Caused by: |^Suppressed: |^\s*\.\.\. \d+ (more|common frames omitted)`)},
		{Name: "Node uncaught exception", Runtime: "Node", OnExit: true,
			Re:      regexp.MustCompile(`throw er; // Unhandled 'error' event|triggerUncaughtException\(|UnhandledPromiseRejection|^Uncaught \w`),
			Cont:    regexp.MustCompile(nodeCont + `|^\[?\w*(Error|Rejection|Exception)\b`),
			Message: regexp.MustCompile(`^\[?\w*(Error|Rejection|Exception)\b`)},
		{Name: "Node error stack", Runtime: "Node", OnExit: true,
			Re:   regexp.MustCompile(`^\w*Error( \[\w+\])?: `),
			Next: regexp.MustCompile(`^    at `),
			Cont: regexp.MustCompile(nodeCont)},
		{Name: "Rust panic", Runtime: "Rust", OnExit: true,
			Re:          regexp.MustCompile(`^thread '[^']*'( \(\d+\))? panicked at`),
			FatalIf:     regexp.MustCompile(`^thread 'main'`),
			Cont:        regexp.MustCompile(`^(\s|$)|^stack backtrace:$|^note: `),
			Message:     regexp.MustCompile(`\S`),
			MessageWhen: regexp.MustCompile(`:$`)},
	}
}
