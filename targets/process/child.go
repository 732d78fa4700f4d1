// Package process runs a receiver as a child process, Jepsen-style: start
// it, wait until it is ready, and crash (SIGKILL), freeze (SIGSTOP) or
// thaw (SIGCONT) it on the nemesis's orders, so that durability across a
// crash is tested against the real program.
//
// The receiver under test must be the one this package started: Start
// refuses to start while something else answers on the receiver's
// address, readiness counts only while the child is alive, and a child
// that exits on its own is reported (Err, Failed), never silently
// replaced by whatever answers on its port. Unix only; the parent-death
// signal that ends the child with a SIGKILLed fencecheck is Linux only.
package process

import (
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

	"github.com/fencecheck/fencecheck/internal/procfs"
	"github.com/fencecheck/fencecheck/internal/spawn"
	"github.com/fencecheck/fencecheck/logscan"
)

// LogFile is the child's output file in the run directory.
const LogFile = "receiver.log"

const (
	// probeTimeout bounds one readiness attempt, so that a receiver that
	// accepts connections but never answers is asked again.
	probeTimeout = 2 * time.Second
	// probeInterval is the pause between readiness attempts.
	probeInterval = 20 * time.Millisecond
	// killGrace bounds the wait for a SIGKILLed group to disappear.
	killGrace = 2 * time.Second
	// stopGrace is how long Teardown lets the receiver shut down after
	// SIGTERM before SIGKILL.
	stopGrace = 5 * time.Second
)

// Child is a receiver running as a child process (or another program
// fencecheck crashes and freezes: the server of a private token issuer).
// Its command line runs under sh -c in a process group of its own, so
// that signals reach the receiver even when the shell forks it.
type Child struct {
	cmdline string
	addr    string
	ready   Ready
	// StartTimeout bounds the wait for the receiver to be ready.
	StartTimeout time.Duration
	// Role is what messages call the child: "receiver" when empty.
	Role string
	// Credential, when set, runs the child as another user: PostgreSQL
	// refuses to run as root.
	Credential *spawn.Credential
	// Tree makes Freeze, Thaw and Kill reach every process descended
	// from the child, wherever it put them (see tree.go), not only its
	// process group.
	Tree bool
	// LogPatterns are what ScanLog looks for in the child's log besides
	// the built-in signs of a bug; LogSecrets are masked in what it
	// quotes.
	LogPatterns []logscan.Pattern
	LogSecrets  []string

	mu      sync.Mutex
	logPath string
	log     *os.File
	proc    *proc // the running start; nil when not running
	last    *proc // the latest start, running or not
	starts  int
	exe     *logscan.Executable // the program of the latest start that became ready
	err     error               // the first exit on its own
	failed  chan struct{}       // closed when err is set
}

// proc is one start of the child.
type proc struct {
	cmd  *exec.Cmd
	pgid int
	// Under Child.mu:
	ready  bool   // it passed its readiness check
	ending ending // what fencecheck did to end it
	// err says how it exited on its own; nil when fencecheck ended it.
	// It is set before exited is closed.
	err    error
	exited chan struct{}
}

// ending is what fencecheck did to end a process.
type ending uint8

const (
	notEnded ending = iota
	killed          // SIGKILL, to crash it or to give up on it
	stopped         // SIGTERM, then SIGKILL after a grace period
)

// NewChild returns a child for cmdline, which listens on addr (host:port)
// and is ready when ready says so. Start refuses to start it while
// something else answers on addr; an empty addr skips that check.
func NewChild(cmdline, addr string, ready Ready) *Child {
	return &Child{cmdline: cmdline, addr: addr, ready: ready, StartTimeout: 15 * time.Second,
		failed: make(chan struct{})}
}

// SetLogDir sends the child's output to LogFile in dir (appending across
// restarts); without it the output is discarded.
func (c *Child) SetLogDir(dir string) { c.SetLogFile(filepath.Join(dir, LogFile)) }

// SetLogFile sends the child's output to the file at path, appending
// across restarts.
func (c *Child) SetLogFile(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.logPath = path
}

// name is how messages name the child: its role and command line.
func (c *Child) name() string {
	role := c.Role
	if role == "" {
		role = "receiver"
	}
	return fmt.Sprintf("%s %q", role, c.cmdline)
}

// Err returns how the receiver first exited on its own (its exit status
// and the end of its output), or nil while it never did: exits that
// fencecheck caused (Kill, Stop) do not count.
func (c *Child) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Failed is closed when the receiver first exits on its own; Err says how.
func (c *Child) Failed() <-chan struct{} { return c.failed }

// Down says why the receiver is not running now: how its latest start
// exited on its own (an *ExitError), or that it is not running (not
// started yet, stopped, or killed by a restart whose start then failed).
// Nil while it runs. Unlike Err, which keeps the first exit on its own
// for the whole run, Down is about the latest start: a caller that
// starts the receiver again after an exit (StartAgain) sees the next.
func (c *Child) Down() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.proc; p != nil {
		if p.hasExited() {
			return p.exitError(c.name())
		}
		return nil
	}
	if c.last != nil && c.last.err != nil {
		return c.last.err
	}
	return fmt.Errorf("%s is not running", c.name())
}

// Start starts the child and waits until it is ready. It refuses when
// something already answers on the child's address: that would be tested
// in its place. A child that exits before it is ready, or is not ready
// within StartTimeout, is an error (and is not left running).
func (c *Child) Start(ctx context.Context) error {
	c.mu.Lock()
	running := c.proc != nil
	c.mu.Unlock()
	if running {
		return fmt.Errorf("%s is already running", c.name())
	}
	if err := c.checkAddrFree(ctx); err != nil {
		return err
	}
	c.mu.Lock()
	p, err := c.startLocked()
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if err := c.waitReady(ctx, p); err != nil {
		_ = c.end(p, killed, 0) // the readiness error says more
		return err
	}
	exe := inspect(p.pgid)
	c.mu.Lock()
	p.ready = true
	c.exe = &exe
	c.mu.Unlock()
	return nil
}

// checkAddrFree fails when a TCP connection to the child's address
// succeeds before the child is started.
func (c *Child) checkAddrFree(ctx context.Context) error {
	if c.addr == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if DialReady(c.addr)(ctx) != nil {
		return nil
	}
	return addrInUse(fmt.Sprintf("another process already listens on %s (one left over from an earlier run, or another server): "+
		"it would be tested instead of the %s; stop it or choose a free port", c.addr, c.name()))
}

// ErrAddrInUse is the error of a Start that found something else
// answering on the child's address: errors.Is tells it, so that a caller
// that chose a free port can choose another.
var ErrAddrInUse = errors.New("address in use")

type addrInUse string

func (e addrInUse) Error() string        { return string(e) }
func (e addrInUse) Is(target error) bool { return target == ErrAddrInUse }

func (c *Child) startLocked() (*proc, error) {
	if c.proc != nil {
		return nil, fmt.Errorf("%s is already running", c.name())
	}
	if c.logPath != "" && c.log == nil {
		f, err := os.OpenFile(c.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("%s: log: %w", c.name(), err)
		}
		c.log = f
	}
	cmd := exec.Command("/bin/sh", "-c", shellCommand(c.cmdline))
	if c.Credential != nil {
		cmd.SysProcAttr = spawn.AsUser(c.Credential)
	}
	if c.log != nil {
		c.starts++
		fmt.Fprintf(c.log, logMarker+"start %d of %q at %s\n", c.starts, c.cmdline, time.Now().UTC().Format(time.RFC3339Nano))
		cmd.Stdout, cmd.Stderr = c.log, c.log
	}
	p := &proc{cmd: cmd, exited: make(chan struct{})}
	if err := spawn.Start(cmd, func() { c.noteExit(p) }); err != nil {
		return nil, fmt.Errorf("start %s: %w", c.name(), err)
	}
	p.pgid = cmd.Process.Pid
	c.proc, c.last = p, p
	return p, nil
}

// noteExit records how p exited, once it has been waited for, and then
// closes p.exited (and c.failed at the first exit on its own): whoever
// sees a channel closed sees the error.
func (c *Child) noteExit(p *proc) {
	state := p.cmd.ProcessState
	tail := c.tail()
	c.mu.Lock()
	ws, _ := state.Sys().(syscall.WaitStatus)
	own := true
	switch {
	case p.ending == stopped:
		own = false
	case p.ending == killed && ws.Signaled() && ws.Signal() == syscall.SIGKILL:
		own = false // our SIGKILL; otherwise it had exited just before it came
	}
	first := false
	if own {
		p.err = &ExitError{Name: c.name(), Pid: state.Pid(), Ready: p.ready, State: state.String(), Output: tail}
		if c.log != nil {
			fmt.Fprintf(c.log, logMarker+"pid %d exited on its own (%s)\n", state.Pid(), state)
		}
		if c.err == nil {
			c.err, first = p.err, true
		}
	}
	close(p.exited)
	c.mu.Unlock()
	if first {
		close(c.failed)
	}
}

// waitReady asks the readiness check until it answers while the child is
// alive, the child exits, or the start timeout passes.
func (c *Child) waitReady(ctx context.Context, p *proc) error {
	tctx, cancel := context.WithTimeout(ctx, c.StartTimeout)
	defer cancel()
	for {
		pctx, pcancel := context.WithTimeout(tctx, probeTimeout)
		err := c.ready(pctx)
		pcancel()
		// Alive after the answer came means alive when it was given:
		// the answer was the child's, not a successor's on its port.
		if p.hasExited() {
			return p.exitError(c.name())
		}
		if err == nil {
			return nil
		}
		select {
		case <-p.exited:
			return p.exitError(c.name())
		case <-tctx.Done():
			if ctx.Err() != nil {
				return fmt.Errorf("start %s: %w", c.name(), ctx.Err())
			}
			return fmt.Errorf("%s was not ready within %v: %w", c.name(), c.StartTimeout, err)
		case <-time.After(probeInterval):
		}
	}
}

func (p *proc) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// exitError is how p ended, once it has exited.
func (p *proc) exitError(name string) error {
	if p.err != nil {
		return p.err
	}
	return fmt.Errorf("%s was stopped (%s)", name, p.cmd.ProcessState)
}

// tail returns the end of the log, whole lines, for error messages.
func (c *Child) tail() string {
	c.mu.Lock()
	name := ""
	if c.log != nil {
		name = c.log.Name()
	}
	c.mu.Unlock()
	if name == "" {
		return ""
	}
	f, err := os.Open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() > tailBytes {
		_, _ = f.Seek(-tailBytes, io.SeekEnd)
	}
	data, _ := io.ReadAll(f)
	return lastLines(data)
}

// signal sends sig to the running child's process group; it fails when
// the child is not running or has exited on its own.
func (c *Child) signal(sig syscall.Signal) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.proc
	if p == nil {
		return fmt.Errorf("%s is not running", c.name())
	}
	if p.hasExited() {
		return p.exitError(c.name())
	}
	if c.Tree {
		if err := c.signalTree(p, sig); err != nil {
			return err
		}
	}
	return signalGroup(p.pgid, sig)
}

// signalTree sends sig to p's process tree: SIGSTOP from the top down,
// each process stopped before its children are looked for.
func (c *Child) signalTree(p *proc, sig syscall.Signal) error {
	if sig == spawn.SIGSTOP {
		stopTree(p.pgid)
		return nil
	}
	if err := signalAll(treeOf(p.pgid), sig); err != nil {
		return fmt.Errorf("signal %v to %s's processes: %w", sig, c.name(), err)
	}
	return nil
}

func signalGroup(pgid int, sig syscall.Signal) error {
	if err := spawn.Kill(-pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal %v to process group %d: %w", sig, pgid, err)
	}
	return nil
}

// Freeze stops the receiver with SIGSTOP: it keeps its connections and
// state but answers nothing.
func (c *Child) Freeze() error { return c.signal(spawn.SIGSTOP) }

// Thaw resumes a frozen receiver with SIGCONT.
func (c *Child) Thaw() error { return c.signal(spawn.SIGCONT) }

// Kill crashes the receiver with SIGKILL and waits until it is gone. A
// receiver that had already exited on its own is not signalled: Kill
// returns how it exited, so that the crash is not counted as one.
func (c *Child) Kill() error {
	c.mu.Lock()
	p := c.proc
	if p == nil {
		c.mu.Unlock()
		return fmt.Errorf("%s is not running", c.name())
	}
	exited := p.hasExited()
	c.mu.Unlock()
	// Either way the group goes: a grandchild may outlive its shell.
	if err := c.end(p, killed, 0); err != nil {
		return err
	}
	if exited {
		return p.exitError(c.name())
	}
	return p.err // non-nil when it exited on its own just before the signal
}

// end ends p: SIGKILL, or for stopped SIGCONT (in case it is frozen),
// SIGTERM and SIGKILL if the group has not gone within grace. It waits
// until no process of the group is left (see groupGone).
func (c *Child) end(p *proc, how ending, grace time.Duration) error {
	c.mu.Lock()
	if !p.hasExited() {
		p.ending = how
	}
	if c.proc == p {
		c.proc = nil
	}
	c.mu.Unlock()
	if how == stopped {
		if c.Tree {
			_ = signalAll(treeOf(p.pgid), spawn.SIGCONT)
		}
		_ = signalGroup(p.pgid, spawn.SIGCONT)
		if err := signalGroup(p.pgid, syscall.SIGTERM); err != nil {
			return err
		}
		if groupGone(p, grace) {
			return nil
		}
		// Not gone: a child that ignored SIGTERM, or a grandchild of it.
	}
	var tree []int
	if c.Tree && !p.hasExited() {
		// Stopped first, so that none forks while the others die; a
		// process left behind could hold what the next start needs (a
		// PostgreSQL backend, its cluster's shared memory).
		tree = stopTree(p.pgid)
		if err := signalAll(tree, syscall.SIGKILL); err != nil {
			return fmt.Errorf("SIGKILL to %s's processes: %w", c.name(), err)
		}
	}
	if err := signalGroup(p.pgid, syscall.SIGKILL); err != nil {
		return err
	}
	if !groupGone(p, killGrace) && !p.hasExited() || !allGone(tree, killGrace) {
		return fmt.Errorf("%s (pid %d) did not exit within %v of SIGKILL", c.name(), p.pgid, killGrace)
	}
	return nil
}

// groupGone waits up to d until p has exited and no process of its group
// is left alive. A shell may exit before the receiver it forked has
// released its port, and a restart before that would find the port taken.
// (Simple commands are exec'd and have no grandchild.)
func groupGone(p *proc, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
		return false
	}
	deadline := time.Now().Add(d)
	for groupAlive(p.pgid) {
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// groupAlive reports whether a process of group pgid is alive. kill(-pgid,
// 0) also counts zombies, so where /proc can tell, it decides.
func groupAlive(pgid int) bool {
	if spawn.Kill(-pgid, 0) != nil {
		return false
	}
	alive, err := procfs.GroupAlive(pgid)
	return alive || err != nil
}

// shellCommand prefixes a simple command line with exec, so that the
// receiver replaces the shell and is the child fencecheck waits for (and
// the one the parent-death signal reaches). Command lines with shell
// syntax run as they are.
func shellCommand(cmdline string) string {
	trimmed := strings.TrimSpace(cmdline)
	if strings.ContainsAny(trimmed, ";&|()<>`$\n") || strings.HasPrefix(trimmed, "exec ") {
		return cmdline
	}
	return "exec " + trimmed
}

// Restart crashes the receiver and starts it again, waiting until it is
// ready.
func (c *Child) Restart(ctx context.Context) error {
	if err := c.Kill(); err != nil {
		return err
	}
	return c.Start(ctx)
}

// StartAgain starts the receiver again after it exited on its own (or a
// restart left it down) and waits until it is ready; what is left of the
// exited start's process group is ended first. It fails while the
// receiver runs: crashing a running receiver is Restart's, which the
// nemesis counts as a fault.
func (c *Child) StartAgain(ctx context.Context) error {
	c.mu.Lock()
	p := c.proc
	c.mu.Unlock()
	if p != nil {
		if !p.hasExited() {
			return fmt.Errorf("%s is running", c.name())
		}
		if err := c.end(p, killed, 0); err != nil {
			return err
		}
	}
	return c.Start(ctx)
}

// Stop ends the receiver gracefully: SIGCONT (in case it is frozen),
// SIGTERM to its group, and SIGKILL if the group has not gone within
// grace. It also reaches what is left of a child that exited on its own
// (a grandchild its shell forked).
func (c *Child) Stop(grace time.Duration) error {
	c.mu.Lock()
	p := c.proc
	c.mu.Unlock()
	var err error
	if p != nil {
		err = c.end(p, stopped, grace)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.log != nil {
		if cerr := c.log.Close(); err == nil {
			err = cerr
		}
		c.log = nil
	}
	return err
}
