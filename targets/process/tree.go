package process

import (
	"errors"
	"syscall"
	"time"

	"github.com/fencecheck/fencecheck/internal/procfs"
	"github.com/fencecheck/fencecheck/internal/spawn"
)

// A child with Tree set is signalled through its process tree as well as
// its process group: a server may put its children in process groups of
// their own (each PostgreSQL server process starts a session), where a
// signal to the group misses them, and a freeze or a crash of the
// server must reach them all. Only Linux's /proc tells a process's
// children; elsewhere the tree is the child alone.

// stopTree stops pid with SIGSTOP, waits until it has stopped (so that it
// forks no more), and does the same for each of its children in turn; it
// returns every process it stopped, pid first. A process that ended
// meanwhile is left out.
func stopTree(pid int) []int {
	var stopped []int
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		p := queue[0]
		if spawn.Kill(p, spawn.SIGSTOP) != nil {
			continue // gone
		}
		waitStopped(p)
		stopped = append(stopped, p)
		kids, _ := procfs.Children(p)
		queue = append(queue, kids...)
	}
	return stopped
}

// treeOf returns pid and every process descended from it, without
// stopping them.
func treeOf(pid int) []int {
	all := []int{pid}
	for i := 0; i < len(all); i++ {
		kids, _ := procfs.Children(all[i])
		all = append(all, kids...)
	}
	return all
}

// waitStopped waits until pid has stopped or ended, up to killGrace: a
// process in an uninterruptible wait (a disk flush) stops only once it
// returns from it.
func waitStopped(pid int) {
	deadline := time.Now().Add(killGrace)
	for time.Now().Before(deadline) {
		s, err := procfs.ReadStat(pid)
		if err != nil || s.State == 'T' || s.State == 't' || s.Dead() {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// signalAll sends sig to each of pids; a process that is gone is not an
// error.
func signalAll(pids []int, sig syscall.Signal) error {
	var errs []error
	for _, p := range pids {
		if err := spawn.Kill(p, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// allGone waits up to d until every one of pids has ended.
func allGone(pids []int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for _, p := range pids {
		for !procfs.Gone(p) {
			if !time.Now().Before(deadline) {
				return false
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return true
}
