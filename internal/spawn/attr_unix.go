//go:build !linux && !windows

package spawn

import "syscall"

// Attr puts the child in a process group of its own. Outside Linux there
// is no parent-death signal: a child outlives a fencecheck that was
// SIGKILLed (fencecheck still stops it on every exit it lives to see).
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// keepCredential keeps the user a caller asked the child to run as.
func keepCredential(attr, asked *syscall.SysProcAttr) { attr.Credential = asked.Credential }
