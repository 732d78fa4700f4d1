package logscan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logFiles are the real logs in testdata/logs: each the output of a small
// program of one runtime that crashed, between the start and exit lines
// a process target writes.
func logFiles(tb testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "logs", "*.log"))
	require.NoError(tb, err)
	require.NotEmpty(tb, files)
	return files
}

// processOptions are the options a process target scans with: its own
// start and exit lines.
func processOptions() Options {
	o := DefaultOptions()
	o.Own = func(line string) bool { return strings.HasPrefix(line, "--- fencecheck: ") }
	o.Exited = func(line string) bool {
		return strings.HasPrefix(line, "--- fencecheck: pid ") && strings.Contains(line, " exited on its own ")
	}
	return o
}

// pythonHandlerError is what a Python HTTP server prints for an exception
// it caught in a request handler and logged (traceback.print_exc): the
// server answered and lives on.
const pythonHandlerError = `127.0.0.1 - - [07/Dec/2026 01:50:00] "PUT /resources/r1 HTTP/1.1" 204 -
Traceback (most recent call last):
  File "/srv/recv.py", line 41, in do_GET
    value, token = store[name]
                   ~~~~~^^^^^^
KeyError: 'r7'
127.0.0.1 - - [07/Dec/2026 01:50:00] "GET /resources/r7 HTTP/1.1" 404 -
`

// TestRuntimes: each runtime's crash signature is counted once per
// crash, however many lines its stack has, quoted with its message, and
// is a finding exactly when the process died of it.
func TestRuntimes(t *testing.T) {
	start := "--- fencecheck: start 1 of \"./recv\" at now\n"
	exit := "--- fencecheck: pid 4242 exited on its own (exit status 1)\n"
	cases := []struct {
		name, file, log string
		hits, findings  int
		summary         string
	}{
		{name: "Go: a race, a recovered panic, then a panic that ended it", file: "go-race-panic.log", hits: 3, findings: 2,
			summary: "1 Go data race (finding), first at line 3: WARNING: DATA RACE; " +
				"1 recovered Go panic (warning), first at line 20: 2026/12/07 01:49:47 http: panic serving 127.0.0.1:47332: handler boom; " +
				"1 Go panic (finding), first at line 37: panic: runtime error: invalid memory address or nil pointer dereference"},
		{name: "Python: a thread's traceback, then a chained one that ended it", file: "python-exit.log", hits: 2, findings: 1,
			summary: "2 Python tracebacks (1 finding, 1 warning), first at line 4: Traceback (most recent call last): … ZeroDivisionError: division by zero"},
		{name: "Python: tracebacks a server caught and logged are warnings", log: start + strings.Repeat(pythonHandlerError, 12),
			hits: 12, findings: 0,
			summary: "12 Python tracebacks (warning), first at line 3: Traceback (most recent call last): … KeyError: 'r7'"},
		{name: "Python: the server logged, then died of one", log: start + strings.Repeat(pythonHandlerError, 3) +
			"Traceback (most recent call last):\n  File \"/srv/recv.py\", line 90, in <module>\n    serve()\nOSError: [Errno 98] Address already in use\n" + exit,
			hits: 4, findings: 1},
		{name: "Python: a traceback long before the exit is not its cause",
			log: start + pythonHandlerError + strings.Repeat("served\n", 10) + exit, hits: 1, findings: 0},
		{name: "Java: a worker thread's exception, then main's", file: "java-main.log", hits: 2, findings: 1,
			summary: `2 Java uncaught exceptions (1 finding, 1 warning), first at line 2: Exception in thread "Thread-0" java.lang.IllegalStateException: worker`},
		{name: "Java: a worker thread's exception the JVM lived through",
			log:  start + "Exception in thread \"pool-1-thread-2\" java.lang.NullPointerException\n\tat Recv.handle(Recv.java:40)\nserved\n",
			hits: 1, findings: 0},
		{name: "Node: an uncaught throw", file: "node-throw.log", hits: 1, findings: 1,
			summary: "1 Node error stack (finding), first at line 6: Error: boom"},
		{name: "Node: an unhandled rejection", file: "node-rejection.log", hits: 1, findings: 1},
		{name: "Node: an unhandled 'error' event", file: "node-error-event.log", hits: 1, findings: 1,
			summary: "1 Node uncaught exception (finding), first at line 3: throw er; // Unhandled 'error' event … Error: listen EADDRINUSE"},
		{name: "Node: a logged error stack and a rejection warning, alive",
			log:  start + "Error: token 5 refused\n    at handle (/srv/recv.js:10:9)\nserved\n(node:77) UnhandledPromiseRejectionWarning: boom\nserved\n",
			hits: 2, findings: 0},
		{name: "Rust: a worker's panic, then main's", file: "rust-main.log", hits: 2, findings: 1,
			summary: "2 Rust panics (1 finding, 1 warning), first at line 3: thread '<unnamed>' (18948) panicked at m.rs:1:34: … worker boom"},
		{name: "Rust: the older format, in a tokio worker",
			log:  start + "thread 'tokio-runtime-worker' panicked at 'boom', src/main.rs:4:5\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\nserved\n",
			hits: 1, findings: 0},
		{name: "an error line without a stack is no hit", log: start + "Error: config not found, using defaults\nserving\n"},
		{name: "a frame that mentions a panic is part of its stack",
			log:  start + "Traceback (most recent call last):\n  File \"x.py\", line 1\n    raise RuntimeError('panic: no')\nRuntimeError: panic: no\nserved\n",
			hits: 1, findings: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			log := tc.log
			if tc.file != "" {
				data, err := os.ReadFile(filepath.Join("testdata", "logs", tc.file))
				require.NoError(t, err)
				log = string(data)
			}
			rep, err := Scan(strings.NewReader(log), processOptions())
			require.NoError(t, err)
			assert.Equal(t, tc.hits, rep.Hits, rep.Summary())
			assert.Equal(t, tc.findings, rep.Findings, rep.Summary())
			if tc.summary != "" {
				assert.Equal(t, tc.summary, rep.Summary())
			}
		})
	}
}

// TestClaim: the claim names what was searched, how many lines, the
// user's patterns, what was found, and what the log can say of races.
func TestClaim(t *testing.T) {
	user, err := Compile(`LOST`)
	require.NoError(t, err)
	o := processOptions()
	o.Patterns = append(o.Patterns, user)
	rep, err := Scan(strings.NewReader(strings.Repeat("served\n", 6451)), o)
	require.NoError(t, err)
	assert.Equal(t, "searched 6,451 lines for Go, Python, Java, Node and Rust crash signatures and 1 pattern of yours: none found", rep.Claim())

	rep, err = Scan(strings.NewReader("--- fencecheck: start 1\n"+strings.Repeat(pythonHandlerError, 12)), processOptions())
	require.NoError(t, err)
	rep.Executable = &Executable{Path: "/usr/bin/python3.11", Runtime: "Python"}
	assert.Equal(t, "searched 85 lines for Go, Python, Java, Node and Rust crash signatures: "+
		"12 Python tracebacks (warning), first at line 3: Traceback (most recent call last): … KeyError: 'r7'; "+
		"the race claim does not apply: the receiver (python3.11) is a Python program, not a Go one", rep.Claim())
	assert.False(t, rep.Failed())

	for _, tc := range []struct {
		exe  *Executable
		want string
	}{
		{nil, ""},
		{&Executable{Path: "/tmp/recv", Go: true, Race: true}, "no data race: the receiver was built with -race, and its race detector reported none"},
		{&Executable{Path: "/tmp/recv", Go: true}, "data races not detectable: the receiver was not built with -race"},
		{&Executable{Path: "/tmp/recv"}, "the race claim does not apply: the receiver (recv) is not a Go program"},
		{&Executable{Unknown: "it had exited"}, "data races not detectable: fencecheck could not tell how the receiver was built (it had exited)"},
	} {
		assert.Equal(t, tc.want, tc.exe.RaceClaim(false))
	}
}
