// Package procfs reads what Linux's /proc says about processes: enough to
// tell a live process from a dead one that nobody reaped yet. A zombie
// still counts for kill(pid, 0) and kill(-pgid, 0), and not every
// container's init reaps the orphans it inherits, so those calls alone
// would take a dead receiver's grandchild for alive. Elsewhere than on
// Linux the functions return an error, and callers fall back on kill.
package procfs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Stat is the part of /proc/PID/stat fencecheck needs.
type Stat struct {
	State byte // R, S, D, T (stopped), Z (zombie), X (dead), …
	PPID  int  // parent process
	PGRP  int  // process group
}

// Dead reports whether the process has ended: it is a zombie or gone.
func (s Stat) Dead() bool { return s.State == 'Z' || s.State == 'X' }

// ReadStat reads /proc/PID/stat. A process that does not exist is an
// error that wraps os.ErrNotExist.
func ReadStat(pid int) (Stat, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Stat{}, err
	}
	return parseStat(data)
}

// parseStat parses "PID (COMM) STATE PPID PGRP …"; COMM may itself hold
// spaces and parentheses, hence the last ")".
func parseStat(data []byte) (Stat, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return Stat{}, errors.New("procfs: stat without a command name")
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 3 || len(fields[0]) != 1 || !isLetter(fields[0][0]) {
		return Stat{}, fmt.Errorf("procfs: malformed stat %q", data)
	}
	ppid, err1 := strconv.Atoi(fields[1])
	pgrp, err2 := strconv.Atoi(fields[2])
	if err1 != nil || err2 != nil {
		return Stat{}, fmt.Errorf("procfs: malformed parent or process group in %q", data)
	}
	return Stat{State: fields[0][0], PPID: ppid, PGRP: pgrp}, nil
}

func isLetter(b byte) bool { return b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' }

// Gone reports whether pid has ended: no such process, or a zombie all
// of whose threads have exited. (The leader of a multi-threaded process
// shows as a zombie while its other threads are still exiting, and until
// the last of them has, the process keeps its files, and sockets, open.)
// It is false when /proc cannot tell.
func Gone(pid int) bool {
	s, err := ReadStat(pid)
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	return err == nil && s.Dead() && threadsDead(pid)
}

// threadsDead reports whether every thread of pid has exited.
func threadsDead(pid int) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	for _, t := range tasks {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, t.Name()))
		if err != nil {
			continue // exited since the listing
		}
		if s, err := parseStat(data); err == nil && !s.Dead() {
			return false
		}
	}
	return true
}

// GroupAlive reports whether a process of group pgid has not ended (see
// Gone).
func GroupAlive(pgid int) (bool, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		s, err := ReadStat(pid)
		if err != nil || s.PGRP != pgid {
			continue // not in the group, or ended since the listing
		}
		if !s.Dead() || !threadsDead(pid) {
			return true, nil
		}
	}
	return false, nil
}

// Children returns the processes whose parent is pid, alive or not yet
// reaped. A server may put its children in process groups of their own
// (PostgreSQL's server processes each start a session), where a signal
// to its group does not reach them; its children still name it as their
// parent until it dies.
func Children(pid int) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if s, err := ReadStat(child); err == nil && s.PPID == pid {
			out = append(out, child)
		}
	}
	return out, nil
}
