//go:build !linux

package process

import "syscall"

// sysProcAttr puts the child in a process group of its own. Outside Linux
// there is no parent-death signal: a receiver outlives a fencecheck that
// was SIGKILLed (fencecheck still stops it on every exit it lives to see).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
