package procfs

import (
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestLiveZombieAndGone follows one child through its life: alive in its
// own group, a zombie once it exited and before it is waited for, gone
// after.
func TestLiveZombieAndGone(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	pid := cmd.Process.Pid
	assert.False(t, Gone(pid))
	alive, err := GroupAlive(pid)
	require.NoError(t, err)
	assert.True(t, alive)

	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	// Wait for the exit without reaping it (WNOWAIT): a zombie.
	var info unix.Siginfo
	require.NoError(t, unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil))
	assert.True(t, Gone(pid), "a zombie has ended")
	alive, err = GroupAlive(pid)
	require.NoError(t, err)
	assert.False(t, alive, "a group of zombies is not alive")

	_ = cmd.Wait()
	assert.True(t, Gone(pid))
}

// TestChildren: a child started here is among this process's children,
// with this process as its parent, until it is reaped.
func TestChildren(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sleep", "60")
	require.NoError(t, cmd.Start())
	pid := cmd.Process.Pid
	kids, err := Children(os.Getpid())
	require.NoError(t, err)
	assert.Contains(t, kids, pid)
	s, err := ReadStat(pid)
	require.NoError(t, err)
	assert.Equal(t, os.Getpid(), s.PPID)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	kids, err = Children(os.Getpid())
	require.NoError(t, err)
	assert.NotContains(t, kids, pid)
}
