//go:build linux

package process

import "syscall"

// sysProcAttr puts the child in a process group of its own (so that
// signals reach a receiver the shell forked) and has the kernel SIGKILL it
// when fencecheck dies without stopping it (a SIGKILL, a crash): no
// receiver outlives its run to answer on the port in the next one.
//
// The parent-death signal reaches only the child fencecheck started: the
// shell, or the receiver when the command line is simple enough to be
// exec'd (see shellCommand). A grandchild forked by a shell command line
// does not inherit it; when fencecheck stops normally, on an error or on
// SIGINT/SIGTERM, Stop signals the whole group instead, which does reach
// it. The signal is also lost when the child execs a set-user-ID program.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
