// Package process runs a receiver as a child process, Jepsen-style: start
// it, wait until it answers, and crash (SIGKILL), freeze (SIGSTOP) or thaw
// (SIGCONT) it on the nemesis's orders, so that durability across a crash
// is tested against the real program. Unix only.
package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// LogFile is the child's output file in the run directory.
const LogFile = "receiver.log"

// Child is a receiver running as a child process. Its command line runs
// under sh -c in a process group of its own, so that signals reach the
// receiver even when the shell forks it.
type Child struct {
	cmdline string
	// ready returns nil once the receiver answers.
	ready func(ctx context.Context) error
	// StartTimeout bounds the wait for the receiver to answer; default 15s.
	StartTimeout time.Duration

	mu     sync.Mutex
	logDir string
	log    *os.File
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has been waited for
	frozen bool
	starts int
}

// NewChild returns a child for cmdline; ready probes whether it answers.
func NewChild(cmdline string, ready func(ctx context.Context) error) *Child {
	return &Child{cmdline: cmdline, ready: ready, StartTimeout: 15 * time.Second}
}

// SetLogDir sends the child's output to LogFile in dir (appending across
// restarts); without it the output is discarded.
func (c *Child) SetLogDir(dir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.logDir = dir
}

// Start starts the child and waits until it answers.
func (c *Child) Start(ctx context.Context) error {
	c.mu.Lock()
	if c.cmd != nil {
		c.mu.Unlock()
		return fmt.Errorf("receiver %q is already running", c.cmdline)
	}
	if err := c.startLocked(); err != nil {
		c.mu.Unlock()
		return err
	}
	exited := c.exited
	c.mu.Unlock()
	return c.waitReady(ctx, exited)
}

func (c *Child) startLocked() error {
	out := io.Discard
	if c.logDir != "" && c.log == nil {
		f, err := os.OpenFile(filepath.Join(c.logDir, LogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("receiver log: %w", err)
		}
		c.log = f
	}
	if c.log != nil {
		out = c.log
		c.starts++
		fmt.Fprintf(c.log, "--- fencecheck: start %d of %q at %s\n", c.starts, c.cmdline, time.Now().UTC().Format(time.RFC3339Nano))
	}
	cmd := exec.Command("/bin/sh", "-c", shellCommand(c.cmdline))
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start receiver %q: %w", c.cmdline, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	c.cmd, c.exited, c.frozen = cmd, exited, false
	return nil
}

// waitReady polls the receiver until it answers, the child exits, or the
// start timeout passes.
func (c *Child) waitReady(ctx context.Context, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, c.StartTimeout)
	defer cancel()
	var last error
	for {
		pctx, pcancel := context.WithTimeout(ctx, time.Second)
		last = c.ready(pctx)
		pcancel()
		if last == nil {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("receiver %q exited before it answered%s", c.cmdline, c.tail())
		case <-ctx.Done():
			return fmt.Errorf("receiver %q did not answer within %v: %w", c.cmdline, c.StartTimeout, last)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// tail returns the end of the log, for error messages.
func (c *Child) tail() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.log == nil {
		return ""
	}
	data, err := os.ReadFile(c.log.Name())
	if err != nil || len(data) == 0 {
		return ""
	}
	if len(data) > 600 {
		data = data[len(data)-600:]
	}
	return fmt.Sprintf("; its output ends:\n%s", bytes.TrimSpace(data))
}

// signal sends sig to the child's process group.
func (c *Child) signal(sig syscall.Signal) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil {
		return fmt.Errorf("receiver %q is not running", c.cmdline)
	}
	if err := syscall.Kill(-c.cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal %v to receiver %q: %w", sig, c.cmdline, err)
	}
	c.frozen = sig == syscall.SIGSTOP
	return nil
}

// Freeze stops the receiver with SIGSTOP: it keeps its connections and
// state but answers nothing.
func (c *Child) Freeze() error { return c.signal(syscall.SIGSTOP) }

// Thaw resumes a frozen receiver with SIGCONT.
func (c *Child) Thaw() error { return c.signal(syscall.SIGCONT) }

// Kill crashes the receiver with SIGKILL and waits until it is gone.
func (c *Child) Kill() error {
	if err := c.signal(syscall.SIGKILL); err != nil {
		return err
	}
	c.mu.Lock()
	exited := c.exited
	c.mu.Unlock()
	<-exited // SIGKILL cannot be caught; the wait is short
	c.mu.Lock()
	pgid := c.cmd.Process.Pid
	c.cmd = nil
	c.mu.Unlock()
	return waitGroupGone(pgid)
}

// waitGroupGone waits until no process of the group is left, at most 2s.
// A shell may exit before the receiver it forked has released its port,
// and a restart before that would fail to bind. (A killed grandchild can
// linger as a zombie until init reaps it, long after its port is free;
// hence the bound. Simple commands are exec'd and have no grandchild.)
func waitGroupGone(pgid int) error {
	deadline := time.Now().Add(2 * time.Second)
	for syscall.Kill(-pgid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// shellCommand prefixes a simple command line with exec, so that the
// receiver replaces the shell and is the child fencecheck waits for.
// Command lines with shell syntax run as they are.
func shellCommand(cmdline string) string {
	trimmed := strings.TrimSpace(cmdline)
	if strings.ContainsAny(trimmed, ";&|()<>`$\n") || strings.HasPrefix(trimmed, "exec ") {
		return cmdline
	}
	return "exec " + trimmed
}

// Restart crashes the receiver and starts it again, waiting until it
// answers.
func (c *Child) Restart(ctx context.Context) error {
	if err := c.Kill(); err != nil {
		return err
	}
	return c.Start(ctx)
}

// Stop ends the receiver gracefully: SIGCONT (in case it is frozen),
// SIGTERM, and SIGKILL if it has not exited within grace.
func (c *Child) Stop(grace time.Duration) error {
	c.mu.Lock()
	running := c.cmd != nil
	exited := c.exited
	pgid := 0
	if running {
		pgid = c.cmd.Process.Pid
	}
	c.mu.Unlock()
	if running {
		_ = c.signal(syscall.SIGCONT)
		_ = c.signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(grace):
			_ = c.signal(syscall.SIGKILL)
			<-exited
		}
		if waitGroupGone(pgid) != nil {
			_ = syscall.Kill(-pgid, syscall.SIGKILL) // a child that ignored SIGTERM
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cmd = nil
	if c.log != nil {
		err := c.log.Close()
		c.log = nil
		return err
	}
	return nil
}
