package process

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHelperParent is not a test: TestChildDiesWithItsParent runs the test
// binary as a parent that starts a child and waits to be SIGKILLed.
func TestHelperParent(t *testing.T) {
	if os.Getenv("FENCECHECK_PROCESS_HELPER") != "parent" {
		t.Skip("the parent process of TestChildDiesWithItsParent")
	}
	c := NewChild("sleep 300", "", alwaysReady)
	if err := c.Start(context.Background()); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("child", c.currentPID())
	time.Sleep(time.Hour)
}

// TestChildDiesWithItsParent: a parent that is SIGKILLed cannot stop its
// child; the parent-death signal does.
func TestChildDiesWithItsParent(t *testing.T) {
	t.Parallel()
	parent := exec.Command(os.Args[0], "-test.run=^TestHelperParent$", "-test.timeout=10m")
	parent.Env = append(os.Environ(), "FENCECHECK_PROCESS_HELPER=parent")
	out, err := parent.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, parent.Start())
	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			if strings.HasPrefix(s.Text(), "child ") || strings.HasPrefix(s.Text(), "error:") {
				line <- s.Text()
				return
			}
		}
		line <- "no child line"
	}()
	var got string
	select {
	case got = <-line:
	case <-time.After(30 * time.Second):
		_ = parent.Process.Kill()
		t.Fatal("the helper parent did not start its child")
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(got, "child "))
	require.NoError(t, err, got)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	require.True(t, alive(pid))

	require.NoError(t, parent.Process.Kill())
	_ = parent.Wait()
	require.Eventually(t, func() bool { return !alive(pid) }, 30*time.Second, 5*time.Millisecond,
		"the child outlived its SIGKILLed parent")
}

// TestChildSurvivesTheThreadThatStartedIt: Linux sends the parent-death
// signal when the thread that forked the child ends, and the Go runtime
// ends a thread whose locked goroutine returns. Call Start from such a
// goroutine: once its thread is gone, the child must still answer (it
// does not if Start forks from the calling thread).
func TestChildSurvivesTheThreadThatStartedIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	require.NoError(t, syscall.Mkfifo(in, 0o600))
	require.NoError(t, syscall.Mkfifo(out, 0o600))
	c := NewChild(fmt.Sprintf(`read x < %s && echo "$x" > %s && exec sleep 60`, in, out), "", alwaysReady)
	defer c.Stop(time.Second)

	type started struct {
		tid int
		err error
	}
	var s started
	for {
		ch := make(chan started, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			if syscall.Gettid() == syscall.Getpid() {
				runtime.UnlockOSThread() // the main thread is never ended; try another
				ch <- started{tid: -1}
				return
			}
			ch <- started{syscall.Gettid(), c.Start(context.Background())}
		}()
		if s = <-ch; s.tid > 0 {
			break
		}
	}
	require.NoError(t, s.err)
	task := fmt.Sprintf("/proc/self/task/%d", s.tid)
	require.Eventually(t, func() bool { _, err := os.Stat(task); return os.IsNotExist(err) },
		30*time.Second, 5*time.Millisecond, "the runtime did not end the locked thread")

	// The signal would have been sent when the thread ended, before its
	// /proc entry went: a child that answers now was not killed by it.
	w, err := os.OpenFile(in, os.O_RDWR, 0)
	require.NoError(t, err)
	defer w.Close()
	_, err = w.WriteString("ping\n")
	require.NoError(t, err)
	answer := make(chan string, 1)
	go func() {
		data, _ := os.ReadFile(out) // blocks until the child opens it
		answer <- string(data)
	}()
	select {
	case got := <-answer:
		assert.Equal(t, "ping\n", got)
	case <-c.Failed():
		t.Fatalf("the child died with the thread that called Start: %v", c.Err())
	case <-time.After(30 * time.Second):
		t.Fatalf("the child did not answer after its starting thread ended: %v", c.Err())
	}
	assert.NoError(t, c.Err())
}
