//go:build !windows

package spawn

import "syscall"

// The signals fencecheck freezes and thaws a child with.
const (
	SIGSTOP = syscall.SIGSTOP
	SIGCONT = syscall.SIGCONT
)

// Credential is a user a child runs as (PostgreSQL refuses root).
type Credential = syscall.Credential

// Kill sends sig to pid, or to the process group -pid, as kill(2) does.
func Kill(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

// AsUser returns the attributes that run a child as cred.
func AsUser(cred *Credential) *syscall.SysProcAttr { return &syscall.SysProcAttr{Credential: cred} }

// OwnGroup returns the attributes that start a child in a process group of
// its own, so that Kill(-pid, …) reaches what it forks.
func OwnGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
