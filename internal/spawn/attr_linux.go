//go:build linux

package spawn

import "syscall"

// Attr puts the child in a process group of its own (so that signals
// reach a program a shell forked, and a Ctrl-C at the terminal reaches
// fencecheck alone, which then stops its children itself) and has the
// kernel SIGKILL it when fencecheck dies without stopping it (a SIGKILL, a
// crash): no child outlives its run to answer on its port in the next one.
//
// The parent-death signal reaches only the child fencecheck started: a
// shell, or the program when the shell execs it. A grandchild forked by a
// shell command line does not inherit it; when fencecheck stops normally,
// on an error or on SIGINT/SIGTERM, it signals the whole group instead,
// which does reach it. The signal is also lost when the child execs a
// set-user-ID program.
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// keepCredential keeps the user a caller asked the child to run as.
func keepCredential(attr, asked *syscall.SysProcAttr) { attr.Credential = asked.Credential }
