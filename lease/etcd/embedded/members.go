package embedded

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/fencecheck/fencecheck/internal/spawn"
)

// statusTimeout bounds one member's answer to Leader's status request:
// a member that serves answers in milliseconds, so only a member that
// cannot answer (partitioned, overloaded) takes it.
const statusTimeout = 2 * time.Second

// Members names the cluster's members (m0, m1, …); a member's index in it
// is its number for Kill, Start, Freeze and Thaw.
func (c *Cluster) Members() []string {
	names := make([]string, len(c.configs))
	for i, m := range c.configs {
		names[i] = m.Name
	}
	return names
}

// member returns member i's process; members inside this process have
// none to crash or freeze.
func (c *Cluster) member(i int) (*process, error) {
	if i < 0 || i >= len(c.configs) {
		return nil, fmt.Errorf("embedded etcd: no member %d (the cluster has %d)", i, len(c.configs))
	}
	if c.procs == nil {
		return nil, fmt.Errorf("embedded etcd: member %s runs inside this process, where it cannot be killed or frozen (set Options.Command)", c.configs[i].Name)
	}
	return c.procs[i], nil
}

// Kill crashes member i with SIGKILL and waits until its process is gone.
// It fails, saying how and where the logs are, when the member had
// exited on its own: there was nothing to crash.
func (c *Cluster) Kill(i int) error {
	p, err := c.member(i)
	if err != nil {
		return err
	}
	return p.kill()
}

// Start starts member i again, on its data, and waits until it has
// rejoined the cluster and serves clients (bounded by
// Options.ReadyTimeout). Its configuration is the one it first started
// with: same name, ports and data folder.
func (c *Cluster) Start(ctx context.Context, i int) error {
	p, err := c.member(i)
	if err != nil {
		return err
	}
	if err := p.start(ctx); err != nil {
		return fmt.Errorf("embedded etcd: %w", err)
	}
	return nil
}

// Freeze stops member i with SIGSTOP: it keeps its connections and state
// but answers nothing, and its peers elect a new leader if it led.
func (c *Cluster) Freeze(i int) error {
	p, err := c.member(i)
	if err != nil {
		return err
	}
	return p.signal(spawn.SIGSTOP, true)
}

// Thaw resumes a frozen member with SIGCONT.
func (c *Cluster) Thaw(i int) error {
	p, err := c.member(i)
	if err != nil {
		return err
	}
	return p.signal(spawn.SIGCONT, false)
}

// Leader returns the index of the member that leads the cluster now, or
// -1 when no member answers as the leader. It asks every member that
// serves (not one that is down, starting or frozen, which could not
// answer) for its status; a member leads when the leader it reports is
// itself. Two can claim it for a moment (a thawed leader that has not yet
// heard of its successor): the one with the higher raft term leads.
func (c *Cluster) Leader(ctx context.Context) int {
	cli, err := c.statusClient()
	if err != nil {
		return -1
	}
	type answer struct {
		term  uint64
		leads bool
	}
	answers := make([]answer, len(c.Endpoints))
	done := make(chan struct{}, len(c.Endpoints))
	asked := 0
	for i, ep := range c.Endpoints {
		if c.procs != nil && !c.procs[i].serving() {
			continue
		}
		asked++
		go func() {
			defer func() { done <- struct{}{} }()
			sctx, cancel := context.WithTimeout(ctx, statusTimeout)
			defer cancel()
			resp, err := cli.Status(sctx, ep)
			if err == nil && resp.Header != nil {
				answers[i] = answer{term: resp.RaftTerm, leads: resp.Leader != 0 && resp.Leader == resp.Header.MemberId}
			}
		}()
	}
	for range asked {
		<-done
	}
	leader := -1
	for i, a := range answers {
		if a.leads && (leader < 0 || a.term > answers[leader].term) {
			leader = i
		}
	}
	return leader
}

// statusClient is the client Leader asks through, made at the first call.
func (c *Cluster) statusClient() (*clientv3.Client, error) {
	c.statusMu.Lock()
	defer c.statusMu.Unlock()
	if c.status == nil {
		cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints, Logger: zap.NewNop()})
		if err != nil {
			return nil, fmt.Errorf("embedded etcd: status client: %w", err)
		}
		c.status = cli
	}
	return c.status, nil
}
