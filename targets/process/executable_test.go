package process

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waiter is a receiver stand-in in Go: it touches the file its argument
// names, so that the test knows it runs, and waits to be stopped.
const waiter = `package main

import (
	"os"
	"time"
)

func main() {
	os.WriteFile(os.Args[1], nil, 0o644)
	time.Sleep(time.Minute)
}
`

// buildWaiter builds waiter into dir with the flags given.
func buildWaiter(t *testing.T, dir string, flags ...string) string {
	t.Helper()
	src := filepath.Join(dir, "main.go")
	require.NoError(t, os.WriteFile(src, []byte(waiter), 0o644))
	bin := filepath.Join(dir, "recv")
	cmd := exec.Command("go", append(append([]string{"build"}, flags...), "-o", bin, src)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GO111MODULE=off")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// TestChildExecutable: the claim about data races follows the program
// the receiver runs: a Go program built with -race can report one, a Go
// program built without cannot, and a Python or other program is not
// Go at all; the shell it runs under is never taken for it.
func TestChildExecutable(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the receiver's program is read from /proc")
	}
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	cases := []struct {
		name  string
		cmd   func(t *testing.T, dir, ready string) string
		claim string
	}{
		{"a Go program built with -race", func(t *testing.T, dir, ready string) string {
			return buildWaiter(t, dir, "-race") + " " + ready
		}, "no data race: the receiver was built with -race, and its race detector reported none"},
		{"a Go program built without -race", func(t *testing.T, dir, ready string) string {
			return buildWaiter(t, dir) + " " + ready
		}, "data races not detectable: the receiver was not built with -race"},
		{"a Go program under a wrapper", func(t *testing.T, dir, ready string) string {
			return "env FOO=1 " + buildWaiter(t, dir) + " " + ready + "; echo done"
		}, "data races not detectable: the receiver was not built with -race"},
		{"a Python program", func(t *testing.T, dir, ready string) string {
			return fmt.Sprintf("%s -c 'import pathlib, time; pathlib.Path(%q).touch(); time.sleep(60)'", python, ready)
		}, "is a Python program, not a Go one"},
		{"another program", func(t *testing.T, dir, ready string) string {
			return "sleep 60 & touch " + ready + "; wait"
		}, "the race claim does not apply: the receiver (sleep) is not a Go program"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ready := filepath.Join(dir, "ready")
			c := NewChild(tc.cmd(t, dir, ready), "", func(context.Context) error { _, err := os.Stat(ready); return err })
			c.StartTimeout = time.Minute
			c.SetLogDir(dir)
			require.NoError(t, c.Start(context.Background()))
			require.NoError(t, c.Stop(5*time.Second))
			rep, err := c.ScanLog()
			require.NoError(t, err)
			require.NotNil(t, rep.Executable)
			assert.Contains(t, rep.Executable.RaceClaim(false), tc.claim)
			assert.Contains(t, rep.Claim(), tc.claim)
		})
	}
}

// TestChildExecutableNeverRan: a receiver never seen running gives no
// claim about races beyond "not detectable".
func TestChildExecutableNeverRan(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := NewChild("exit 3", "", func(context.Context) error { return errors.New("not ready") })
	c.SetLogDir(dir)
	require.Error(t, c.Start(context.Background()))
	rep, err := c.ScanLog()
	require.NoError(t, err)
	assert.Equal(t, "data races not detectable: fencecheck could not tell how the receiver was built (the receiver was never seen running)",
		rep.Executable.RaceClaim(false))
}
