// Package private serves leases from a private token issuer: a server
// that fencecheck starts itself for one run (a redis-server, a
// PostgreSQL cluster), on a free loopback port, with its data and logs in
// the run directory, never one of the machine's shared servers. Because
// fencecheck started it, it can crash it (SIGKILL), start it again on the
// same data and port, and freeze it (SIGSTOP): the faults that test
// whether the issuer's token sequence survives what the issuer's own
// server goes through.
//
// The server runs as a targets/process Child: in a process group of its
// own that dies with fencecheck, ready only once it answers, refused when
// something else already answers on its port, and an exit on its own is
// reported when the run closes the service.
package private

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/targets/process"
)

// stopGrace is how long Close lets the server shut down before SIGKILL.
const stopGrace = 10 * time.Second

// Service is the lease service of a private issuer: a lease.Polled on the
// store of one server that runs as a child process. It has the methods
// the issuer faults act through: Servers, Leader, Kill, Start, Freeze
// and Thaw, on the one server numbered 0.
type Service struct {
	*lease.Polled
	name  string
	child *process.Child
	// restarted is called once the server answers again after Start: a
	// store whose connections did not survive the restart drops them.
	restarted func()
	// removeData deletes the server's data at Close; its logs stay.
	removeData func() error

	mu   sync.Mutex
	down bool // killed and not started again
}

// Server is what NewService needs of a started server.
type Server struct {
	// Name is how events name the server: "redis-server".
	Name string
	// Child runs it, already started and ready.
	Child *process.Child
	// Restarted, when set, is called once the server answers again after
	// Start.
	Restarted func()
	// RemoveData deletes the server's data; Close calls it once the
	// server has stopped.
	RemoveData func() error
}

// NewService serves polled's leases from srv, whose store polled uses.
func NewService(polled *lease.Polled, srv Server) *Service {
	return &Service{Polled: polled, name: srv.Name, child: srv.Child, restarted: srv.Restarted, removeData: srv.RemoveData}
}

// Servers names the issuer's one server.
func (s *Service) Servers() []string { return []string{s.name} }

// Leader is -1: a single server has no leader, and counts as a follower
// for the faults that prefer the leader.
func (s *Service) Leader(context.Context) int { return -1 }

func (s *Service) server(i int) error {
	if i != 0 {
		return fmt.Errorf("%s: no server %d (a private issuer has one, numbered 0)", s.name, i)
	}
	return nil
}

// Kill crashes the server with SIGKILL (its whole process group) and
// waits until it is gone. Leases granted before it that the server then
// no longer has are recorded as possibly lost in the crash (see
// lease.Polled.Crashed).
func (s *Service) Kill(i int) error {
	if err := s.server(i); err != nil {
		return err
	}
	err := s.child.Kill()
	s.mu.Lock()
	s.down = true
	s.mu.Unlock()
	s.Polled.Crashed(s.name)
	return err
}

// Start starts the server again, on the same data and port, and waits
// until it answers.
func (s *Service) Start(ctx context.Context, i int) error {
	if err := s.server(i); err != nil {
		return err
	}
	if err := s.child.Start(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	s.down = false
	s.mu.Unlock()
	if s.restarted != nil {
		s.restarted()
	}
	return nil
}

// Freeze stops the server with SIGSTOP: it keeps its connections and
// answers nothing until Thaw.
func (s *Service) Freeze(i int) error {
	if err := s.server(i); err != nil {
		return err
	}
	return s.child.Freeze()
}

// Thaw resumes a frozen server with SIGCONT.
func (s *Service) Thaw(i int) error {
	if err := s.server(i); err != nil {
		return err
	}
	return s.child.Thaw()
}

// Close closes the lease service (which removes the run's keys or tables
// from the server, when it is up), stops the server and deletes its
// data; the logs stay. It reports a server that exited on its own during
// the run: whatever it answered afterwards was not the issuer under
// test.
func (s *Service) Close() error {
	_ = s.child.Thaw() // a frozen server would hold the store's clean-up
	err := s.Polled.Close()
	s.mu.Lock()
	if s.down {
		err = nil // nothing to clean up on a server that is not running: its data goes
	}
	s.mu.Unlock()
	if serr := s.child.Stop(stopGrace); serr != nil {
		err = errors.Join(err, fmt.Errorf("stop %s: %w", s.name, serr))
	}
	return errors.Join(err, s.child.Err(), s.removeData())
}

var _ lease.Servers = (*Service)(nil)
