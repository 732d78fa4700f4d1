package embedded

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/fencecheck/fencecheck/internal/spawn"
)

// OutputFile is a member process's stdout and stderr, in its folder
// beside etcd.log (appended to across restarts).
const OutputFile = "member.log"

// killGrace bounds the wait for a SIGKILLed member to be reaped: only a
// process stuck in the kernel outlasts it.
const killGrace = 10 * time.Second

// process is a member running in a process of its own, started with the
// cluster's command and the member's configuration file. The member on
// the other end of it is always the one this cluster started: a member
// counts as serving only from its own ready message on, and its exit is
// noticed when the process is reaped.
type process struct {
	cfg          MemberConfig
	configPath   string
	command      []string
	dir          string
	readyTimeout time.Duration

	mu     sync.Mutex
	run    *processRun // the current start; nil when down
	frozen bool
	failed error // how it first exited on its own
	log    *os.File
	starts int
}

// processRun is one start of a member process.
type processRun struct {
	cmd    *exec.Cmd
	ready  bool // it said it serves clients
	killed bool // fencecheck SIGKILLed it
	// own says how it exited on its own; set before exited is closed.
	own    error
	exited chan struct{}
}

// logs names the member's logs, for error messages.
func (p *process) logs() string {
	return fmt.Sprintf("its logs are %s and %s", filepath.Join(p.dir, OutputFile), p.cfg.LogFile)
}

// start starts the member process and waits until it says it serves
// clients (it has joined the cluster: a new member once a quorum
// started, a restarted one once it rejoined), it exits, the ready timeout
// passes or ctx ends. A member that is not ready is not left running.
func (p *process) start(ctx context.Context) error {
	run, ready, err := p.spawn()
	if err != nil {
		return err
	}
	if err := p.awaitReady(ctx, run, ready); err != nil {
		_ = p.kill()
		return err
	}
	return nil
}

// spawn starts the process and returns the read end of its ready pipe.
func (p *process) spawn() (*processRun, *os.File, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.run != nil {
		return nil, nil, fmt.Errorf("etcd member %s is already running", p.cfg.Name)
	}
	if p.log == nil {
		f, err := os.OpenFile(filepath.Join(p.dir, OutputFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, nil, fmt.Errorf("etcd member %s: %w", p.cfg.Name, err)
		}
		p.log = f
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("etcd member %s: ready pipe: %w", p.cfg.Name, err)
	}
	defer w.Close() // the child has its own copy
	p.starts++
	fmt.Fprintf(p.log, "--- fencecheck: start %d of etcd member %s at %s\n", p.starts, p.cfg.Name, time.Now().UTC().Format(time.RFC3339Nano))
	args := append(append([]string(nil), p.command[1:]...), p.configPath)
	cmd := exec.Command(p.command[0], args...)
	cmd.Stdout, cmd.Stderr = p.log, p.log
	cmd.ExtraFiles = []*os.File{w} // descriptor 3, the configuration's ReadyFD
	run := &processRun{cmd: cmd, exited: make(chan struct{})}
	if err := spawn.Start(cmd, func() { p.reaped(run) }); err != nil {
		r.Close()
		return nil, nil, fmt.Errorf("start etcd member %s (%q): %w", p.cfg.Name, p.command[0], err)
	}
	p.run = run
	return run, r, nil
}

// awaitReady waits for the member's ready line, or for the pipe to close
// without one: the member exited (or closed it) before it served.
func (p *process) awaitReady(ctx context.Context, run *processRun, ready *os.File) error {
	said := make(chan bool, 1)
	go func() {
		line, _ := bufio.NewReader(ready).ReadString('\n')
		said <- line == readyLine
	}()
	defer ready.Close()
	timer := time.NewTimer(p.readyTimeout)
	defer timer.Stop()
	select {
	case ok := <-said:
		if ok {
			p.mu.Lock()
			run.ready = true
			p.mu.Unlock()
			return nil
		}
		select {
		case <-run.exited:
			if run.own != nil {
				return run.own
			}
			return fmt.Errorf("etcd member %s was stopped before it was ready", p.cfg.Name)
		case <-timer.C:
			return fmt.Errorf("etcd member %s closed its ready pipe without being ready; %s", p.cfg.Name, p.logs())
		}
	case <-timer.C:
		return fmt.Errorf("etcd member %s was not ready within %v; %s", p.cfg.Name, p.readyTimeout, p.logs())
	case <-ctx.Done():
		return fmt.Errorf("start etcd member %s: %w", p.cfg.Name, ctx.Err())
	}
}

// reaped notes that run's process has exited and been waited for.
// Whatever ended it other than fencecheck's SIGKILL is an exit on its own.
func (p *process) reaped(run *processRun) {
	state := run.cmd.ProcessState
	p.mu.Lock()
	ws, _ := state.Sys().(syscall.WaitStatus)
	if !run.killed || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		when := "before it was ready"
		if run.ready {
			when = "while it served"
		}
		run.own = fmt.Errorf("etcd member %s (pid %d) exited on its own %s (%s); %s", p.cfg.Name, state.Pid(), when, state, p.logs())
		fmt.Fprintf(p.log, "--- fencecheck: etcd member %s (pid %d) exited on its own (%s)\n", p.cfg.Name, state.Pid(), state)
		if p.failed == nil {
			p.failed = run.own
		}
	}
	if p.run == run {
		p.run, p.frozen = nil, false
	}
	p.mu.Unlock()
	close(run.exited)
}

// running returns the current start, or an error saying why there is
// none.
func (p *process) running() (*processRun, error) {
	if p.run != nil {
		return p.run, nil
	}
	if p.failed != nil {
		return nil, p.failed
	}
	return nil, fmt.Errorf("etcd member %s: %w", p.cfg.Name, errNotRunning)
}

// errNotRunning is the error of an action on a member that is down.
var errNotRunning = errors.New("not running")

// kill SIGKILLs the member and waits until it has been reaped. A member
// that had exited on its own is not counted as killed: kill returns how
// it exited.
func (p *process) kill() error {
	p.mu.Lock()
	run, err := p.running()
	if err != nil {
		p.mu.Unlock()
		return err
	}
	run.killed = true
	p.mu.Unlock()
	if err := run.cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("SIGKILL to etcd member %s: %w", p.cfg.Name, err)
	}
	timer := time.NewTimer(killGrace)
	defer timer.Stop()
	select {
	case <-run.exited:
		return run.own
	case <-timer.C:
		return fmt.Errorf("etcd member %s (pid %d) was not gone %v after SIGKILL", p.cfg.Name, run.cmd.Process.Pid, killGrace)
	}
}

// signal sends sig (SIGSTOP, SIGCONT) to the running member and notes
// whether it is frozen.
func (p *process) signal(sig syscall.Signal, frozen bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	run, err := p.running()
	if err != nil {
		return err
	}
	if err := run.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("%v to etcd member %s: %w", sig, p.cfg.Name, err)
	}
	p.frozen = frozen
	return nil
}

// serving reports whether the member is up, ready and not frozen: the
// members whose status is worth asking.
func (p *process) serving() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.run != nil && p.run.ready && !p.frozen
}

// stop kills the member if it runs and closes its output file; it
// returns how the member first exited on its own, if it ever did.
func (p *process) stop() error {
	err := p.kill()
	if errors.Is(err, errNotRunning) {
		err = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.log != nil {
		_ = p.log.Close()
		p.log = nil
	}
	if p.failed != nil {
		return p.failed
	}
	return err
}
