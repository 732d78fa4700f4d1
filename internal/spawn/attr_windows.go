//go:build windows

package spawn

import "syscall"

// Attr starts the child in a process group of its own, so that a Ctrl-C
// at the console reaches fencecheck alone, which then stops its children
// itself. Windows has no parent-death signal: a child outlives a
// fencecheck that was killed.
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// keepCredential keeps the token a caller asked the child to run with.
func keepCredential(attr, asked *syscall.SysProcAttr) { attr.Token = asked.Token }
