package process

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func TestChildLifecycle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := NewChild("sleep 30", func(context.Context) error { return nil })
	c.SetLogDir(dir)
	ctx := context.Background()
	require.NoError(t, c.Start(ctx))
	first := c.cmd.Process.Pid
	require.Error(t, c.Start(ctx), "already running")
	require.NoError(t, c.Freeze())
	require.NoError(t, c.Thaw())
	require.NoError(t, c.Restart(ctx))
	assert.False(t, alive(first), "the first process survived SIGKILL")
	second := c.cmd.Process.Pid
	assert.NotEqual(t, first, second)
	require.NoError(t, c.Freeze())
	require.NoError(t, c.Stop(5*time.Second), "stop thaws a frozen child and ends it")
	assert.False(t, alive(second))
	log, err := os.ReadFile(filepath.Join(dir, LogFile))
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(log), "--- fencecheck: start"))
}

func TestChildThatNeverAnswers(t *testing.T) {
	t.Parallel()
	never := func(context.Context) error { return errors.New("connection refused") }
	c := NewChild("echo starting up; exit 4", never)
	c.SetLogDir(t.TempDir())
	err := c.Start(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exited before it answered")
	assert.Contains(t, err.Error(), "starting up", "the error shows the end of its output")

	c = NewChild("sleep 30", never)
	c.StartTimeout = 100 * time.Millisecond
	err = c.Start(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "did not answer")
	require.NoError(t, c.Stop(time.Second))
}

func TestShellCommand(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"./recv --port 9000":      "exec ./recv --port 9000",
		"exec ./recv":             "exec ./recv",
		"cd d && ./recv":          "cd d && ./recv",
		"PORT=$P ./recv":          "PORT=$P ./recv",
		"./recv > out.log 2>&1":   "./recv > out.log 2>&1",
		"  ./recv --store a.db  ": "exec ./recv --store a.db",
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, want, shellCommand(in))
		})
	}
}
