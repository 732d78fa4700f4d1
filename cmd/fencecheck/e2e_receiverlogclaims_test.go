package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// The claims a run and verify make about the log of a receiver
// fencecheck started: they name what was searched, count and quote the
// crashes of the receiver's runtime, and say "no data race" only of a
// receiver that could have reported one.

// pyReceiver returns the command line that runs testdata/pyreceiver, a
// correct receiver in Python that logs a traceback for every read of a
// resource never written, on addr, with args; the test is skipped without
// python3.
func pyReceiver(t *testing.T, addr string, args ...string) string {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	// The interpreter itself, not a version manager's shim (pyenv's is
	// a shell script that takes seconds on a loaded machine): the
	// receiver must be ready within the start timeout.
	out, err := exec.Command(python, "-c", "import sys; print(sys.executable)").Output()
	require.NoError(t, err)
	python = strings.TrimSpace(string(out))
	script, err := filepath.Abs(filepath.Join("testdata", "pyreceiver", "recv.py"))
	require.NoError(t, err)
	cmd := fmt.Sprintf("%s %s --listen %s", python, script, addr)
	for _, a := range args {
		cmd += " " + a
	}
	return cmd
}

// TestExecPythonTracebacks: a Python receiver's tracebacks are counted
// and quoted: those it lived through (caught and logged) are warnings,
// and the run that is otherwise right holds; one it died of fails
// verify's receiver-log row. The race claim does not apply to it.
func TestExecPythonTracebacks(t *testing.T) {
	t.Parallel()
	t.Run("run", func(t *testing.T) {
		t.Parallel()
		dir, addr := schema.TempDir(t), freeAddr(t)
		r := fencecheck(t, dir, "run", "--target", "http://"+addr, "--exec", pyReceiver(t, addr),
			"--ops", "100", "--nemesis", "none", "--min-stale", "0", "--seed", "1", "--store", "s", "--junit", "junit.xml")
		t.Log(r.stdout)
		assert.Equal(t, exitHeld, r.code, r.stdout+r.stderr)
		assert.Regexp(t, `receiver    receiver\.log: searched \d+ lines for Go, Python, Java, Node and Rust crash signatures: `+
			`\d+ Python tracebacks? \(warning\), first at line 2: Traceback \(most recent call last\): … KeyError: '[^']+'; `+
			`the race claim does not apply: the receiver \(python3[.\d]*\) is a Python program, not a Go one\n`, r.stdout)
		assert.Regexp(t, `(?m)^  Python traceback at line 2:\n(.*\n)*\s+\d+ \| KeyError: `, r.stdout, "quoted")

		data, err := os.ReadFile(filepath.Join(newestRun(t, filepath.Join(dir, "s")), "result.json"))
		require.NoError(t, err)
		var res struct {
			Verdict     string `json:"verdict"`
			ReceiverLog struct {
				Hits, Findings int
				Runtimes       []string
				Counts         []struct {
					Pattern, Runtime, Example string
					Hits, Findings            int
				}
				Executable struct {
					Go      bool
					Runtime string
				}
			} `json:"receiver_log"`
		}
		require.NoError(t, json.Unmarshal(data, &res))
		assert.Equal(t, "held", res.Verdict)
		log := res.ReceiverLog
		assert.Equal(t, []string{"Go", "Python", "Java", "Node", "Rust"}, log.Runtimes)
		assert.Positive(t, log.Hits)
		assert.Zero(t, log.Findings)
		require.Len(t, log.Counts, 1)
		assert.Equal(t, "Python traceback", log.Counts[0].Pattern)
		assert.Equal(t, "Python", log.Counts[0].Runtime)
		assert.Equal(t, log.Hits, log.Counts[0].Hits)
		assert.Contains(t, log.Counts[0].Example, "KeyError: ")
		assert.False(t, log.Executable.Go)
		assert.Equal(t, "Python", log.Executable.Runtime)

		junit, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
		require.NoError(t, err)
		assert.Regexp(t, `name="receiver\.log: searched \d+ lines[^"]*Python traceback[^"]*" classname="receiver-log"[^>]*>\s*</testcase>`, string(junit),
			"warnings pass")
	})
	t.Run("verify, a receiver that dies of one", func(t *testing.T) {
		t.Parallel()
		addr := freeAddr(t)
		r := fencecheck(t, schema.TempDir(t), "verify", "--target", "http://"+addr, "--exec", pyReceiver(t, addr, "--die-on-token", "9223372036854775808"), "--store", "s")
		t.Log(r.stdout)
		assert.Equal(t, exitViolated, r.code, r.stdout+r.stderr)
		assert.Regexp(t, `\| receiver-log \| .* \| receiver\.log: searched \d+ lines for Go, Python, Java, Node and Rust crash signatures: `+
			`\d+ Python tracebacks \(1 finding, \d+ warnings?\), first at line 2; the race claim does not apply: .* \| FAIL \|`, r.stdout)
		assert.Regexp(t, `\s+\d+ \| OverflowError: token 9223372036854775808 is not one this receiver can store\n\s+\d+ \| --- fencecheck: pid \d+ exited on its own`, r.stdout)
	})
}

// TestExecRaceClaim: of a Go receiver, the claim about data races
// follows its build: built with -race, "no data race"; built without, data
// races are not detectable, and the run does not claim their absence.
func TestExecRaceClaim(t *testing.T) {
	t.Parallel()
	for _, race := range []bool{true, false} {
		want := `data races not detectable: the receiver was not built with -race`
		if race {
			want = `no data race: the receiver was built with -race, and its race detector reported none`
		}
		t.Run(fmt.Sprint("race ", race), func(t *testing.T) {
			t.Parallel()
			recv := buildTestdata(t, "flakyreceiver", race)
			t.Run("run", func(t *testing.T) {
				t.Parallel()
				dir, addr := schema.TempDir(t), freeAddr(t)
				r := fencecheck(t, dir, "run", "--target", "http://"+addr, "--exec", recv+" --listen "+addr,
					"--ops", "100", "--nemesis", "none", "--min-stale", "0", "--seed", "1", "--store", "s")
				t.Log(r.stdout)
				assert.Equal(t, exitHeld, r.code, r.stdout+r.stderr)
				assert.Regexp(t, `receiver    receiver\.log: searched \d+ lines? for Go, Python, Java, Node and Rust crash signatures: none found; `+want+`\n`, r.stdout)
				data, err := os.ReadFile(filepath.Join(newestRun(t, filepath.Join(dir, "s")), "result.json"))
				require.NoError(t, err)
				var res struct {
					ReceiverLog struct {
						Executable struct {
							Path string
							Go   bool
							Race bool `json:"race_detector"`
						}
					} `json:"receiver_log"`
				}
				require.NoError(t, json.Unmarshal(data, &res))
				assert.True(t, res.ReceiverLog.Executable.Go)
				assert.Equal(t, race, res.ReceiverLog.Executable.Race)
				assert.Equal(t, recv, res.ReceiverLog.Executable.Path)
			})
			t.Run("verify", func(t *testing.T) {
				t.Parallel()
				addr := freeAddr(t)
				r := fencecheck(t, schema.TempDir(t), "verify", "--target", "http://"+addr, "--exec", recv+" --store sqlite:recv.db --listen "+addr, "--store", "s")
				t.Log(r.stdout)
				assert.Equal(t, exitHeld, r.code, r.stdout+r.stderr)
				assert.Regexp(t, `\| receiver-log \| .* \| receiver\.log: searched \d+ lines? for .* crash signatures: none found; `+want+` \| pass \|`, r.stdout)
			})
		})
	}
}
