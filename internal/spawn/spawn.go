// Package spawn starts the child processes fencecheck crashes and freezes
// (a receiver under test, the members of an embedded etcd cluster) so that
// none of them outlives fencecheck: each runs in a process group of its
// own, and on Linux the kernel SIGKILLs it when fencecheck dies.
package spawn

import (
	"os/exec"
	"runtime"
)

// Start starts cmd with Attr's attributes from a goroutine locked to its
// OS thread and keeps that goroutine, and so the thread, until cmd has
// exited; then it calls exited. A Credential in cmd.SysProcAttr is kept:
// the child then runs as that user (PostgreSQL refuses to run as root).
// Go sets the parent-death signal after it changes the user, so the
// change does not clear it.
//
// Why the lock: Linux sends the parent-death signal (see Attr) when the
// thread that forked the child ends, not when the process does (prctl(2);
// golang/go#27505), and the Go runtime ends a thread when a goroutine
// locked to it returns without unlocking. Forked from an ordinary
// goroutine, the child could be SIGKILLed in mid-run because some other
// code's locked goroutine happened to run on that thread later. Here the
// forking thread is ours alone for the child's whole life.
func Start(cmd *exec.Cmd, exited func()) error {
	attr := Attr()
	if cmd.SysProcAttr != nil {
		keepCredential(attr, cmd.SysProcAttr)
	}
	cmd.SysProcAttr = attr
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait() // the exit status stays in cmd.ProcessState
		exited()
	}()
	return <-started
}
