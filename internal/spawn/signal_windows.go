//go:build windows

package spawn

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Windows cannot freeze a process with a signal: SIGSTOP and SIGCONT are
// here only so that the code that sends them builds; Kill refuses them.
const (
	SIGSTOP = syscall.Signal(0x13)
	SIGCONT = syscall.Signal(0x12)
)

// Credential is a user a child runs as. Windows starts children as
// fencecheck's own user; AsUser ignores it.
type Credential struct {
	Uid, Gid uint32
	Groups   []uint32
}

// ErrUnsupported is what Kill answers for what Windows cannot do: freeze
// and thaw a process, or signal a process group.
var ErrUnsupported = fmt.Errorf("spawn: not supported on windows: %w", errors.ErrUnsupported)

// Kill ends pid for SIGKILL and SIGTERM (Windows has only TerminateProcess)
// and reports whether it exists for signal 0; a negative pid (a process
// group) is taken as the group's leader. Every other signal is refused.
func Kill(pid int, sig syscall.Signal) error {
	if pid < 0 {
		pid = -pid
	}
	switch sig {
	case 0:
		p, err := os.FindProcess(pid)
		if err != nil {
			return syscall.ESRCH
		}
		return p.Release()
	case syscall.SIGKILL, syscall.SIGTERM:
		p, err := os.FindProcess(pid)
		if err != nil {
			return syscall.ESRCH
		}
		if err := p.Kill(); errors.Is(err, os.ErrProcessDone) {
			return syscall.ESRCH
		} else if err != nil {
			return err
		}
		return nil
	}
	return fmt.Errorf("signal %v to process %d: %w", sig, pid, ErrUnsupported)
}

// AsUser returns no attributes: Windows children run as fencecheck's user.
func AsUser(*Credential) *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

// OwnGroup returns the attributes that start a child in a console process
// group of its own.
func OwnGroup() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}
