package redislease

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"al.essio.dev/pkg/shellescape"
	"github.com/redis/go-redis/v9"

	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/lease/private"
	"github.com/fencecheck/fencecheck/targets/process"
)

// Replicated is the lease service of a private redis-server primary with
// one replica (redis?replicas=1): two servers, r0 the primary at the
// start and r1 its replica, in the redis/r0 and redis/r1 folders of the
// run directory. The replica replicates through a link fencecheck relays
// (see link), which HoldReplica holds; Failover kills the primary,
// promotes the replica with REPLICAOF NO ONE and moves the issuer to it.
//
// Redis replication is asynchronous: a primary answers a write before
// any replica has it. A replica promoted while behind holds counters
// below tokens already handed out, and grants them again: the failover
// the Redlock critique describes. Settings.Wait closes it: every grant
// waits for the replica's acknowledgement (WAIT) and is refused without
// it. Renewals and releases do not wait: a promoted replica may then hold
// a lease that was released, which delays the next grant by its TTL, or
// miss a renewal, which ends a lease early; neither repeats a token.
type Replicated struct {
	*lease.Polled
	store *Store
	tally tally
	nodes [2]*node
	link  *link
	// addr is where the store's connections go: the primary's address.
	addr         atomic.Pointer[string]
	readyTimeout time.Duration

	mu         sync.Mutex
	primary    int
	failedOver bool
}

// node is one of the two servers.
type node struct {
	name  string // "redis-server r0"
	child *process.Child
	addr  string // 127.0.0.1:PORT
	conf  string // its redis.conf
	data  string // its data folder, deleted at Close
	port  int
	down  bool // killed and not started again
}

// openReplicated starts the primary and its replica in dir and serves
// leases from the primary.
func (i *PrivateIssuer) openReplicated(ctx context.Context, env lease.Env, bin, dir string) (lease.Service, error) {
	svc := &Replicated{readyTimeout: i.ReadyTimeout}
	fail := func(err error) (lease.Service, error) {
		return nil, fmt.Errorf("private %s: %w", ServerName, errors.Join(err, svc.stop()))
	}
	var err error
	if svc.nodes[0], err = i.startNode(ctx, bin, filepath.Join(dir, "r0"), "r0", nil); err != nil {
		return fail(err)
	}
	if svc.link, err = newLink(svc.nodes[0].addr); err != nil {
		return fail(err)
	}
	if svc.nodes[1], err = i.startNode(ctx, bin, filepath.Join(dir, "r1"), "r1", svc.link); err != nil {
		return fail(err)
	}
	if err := svc.synced(ctx, svc.nodes[1], svc.nodes[0]); err != nil {
		return fail(err)
	}
	primary := svc.nodes[0].addr
	svc.addr.Store(&primary)
	svc.store, err = connect(ctx, &redis.Options{Addr: primary, Dialer: svc.dial})
	if err != nil {
		return fail(fmt.Errorf("connect to %s: %w", svc.nodes[0].name, err))
	}
	svc.store.wait, svc.store.tally = i.Settings.Wait, &svc.tally
	svc.Polled = lease.NewPolled(env, svc.store, i.Poll)
	return svc, nil
}

// startNode starts one server in dir, a replica of what via relays when
// via is set.
func (i *PrivateIssuer) startNode(ctx context.Context, bin, dir, id string, via *link) (*node, error) {
	n := &node{name: ServerName + " " + id, conf: filepath.Join(dir, "redis.conf")}
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}
	var err error
	if n.data, err = filepath.Abs(data); err != nil {
		return nil, err
	}
	replicaOf := ""
	if via != nil {
		replicaOf = via.Addr()
	}
	n.child, n.port, err = private.StartOnFreePort(ctx, func(port int) (*process.Child, error) {
		if err := os.WriteFile(n.conf, []byte(i.Settings.config(port, n.data, replicaOf)), 0o644); err != nil {
			return nil, err
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		child := process.NewChild(shellescape.QuoteCommand([]string{bin, n.conf}), addr, answers(addr))
		child.Role = "private " + n.name
		child.StartTimeout = i.ReadyTimeout
		child.SetLogFile(filepath.Join(dir, "redis.log"))
		return child, nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", n.name, errors.Join(err, os.RemoveAll(n.data)))
	}
	n.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(n.port))
	return n, nil
}

// dial connects the store to the primary of the moment.
func (s *Replicated) dial(ctx context.Context, network, _ string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, *s.addr.Load())
}

// synced waits until replica n has loaded its primary's data and follows
// it (master_link_status:up), and has acknowledged a write on the
// primary: after a diskless sync, the primary streams its writes to the
// replica only once the replica's first acknowledgement came, up to a
// second later, and a grant that waits for the replica would be refused
// until then. All within the ready timeout.
func (s *Replicated) synced(ctx context.Context, n, primary *node) error {
	deadline := time.Now().Add(s.readyTimeout)
	if err := s.await(ctx, n, "master_link_status:up", deadline); err != nil {
		return fmt.Errorf("%s did not follow %s within %v: %w", n.name, primary.name, s.readyTimeout, err)
	}
	c := redis.NewClient(&redis.Options{Addr: primary.addr, MaxRetries: -1, PoolSize: 1})
	defer c.Close()
	if err := c.Incr(ctx, "fencecheck:replicated").Err(); err != nil {
		return fmt.Errorf("%s: %w", primary.name, err)
	}
	acked, err := c.Wait(ctx, 1, time.Until(deadline)).Result()
	if err == nil && acked < 1 {
		err = errors.New("no replica acknowledged a write (WAIT 1)")
	}
	if err != nil {
		return fmt.Errorf("%s did not follow %s within %v: %w", n.name, primary.name, s.readyTimeout, err)
	}
	return nil
}

// await asks n for INFO replication until it says want, or deadline.
func (s *Replicated) await(ctx context.Context, n *node, want string, deadline time.Time) error {
	c := redis.NewClient(&redis.Options{Addr: n.addr, MaxRetries: -1, PoolSize: 1})
	defer c.Close()
	for {
		info, err := c.Info(ctx, "replication").Result()
		if err == nil && strings.Contains(info, want) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s has no %q: %w", n.name, want, errors.Join(err, errors.New(strings.TrimSpace(info))))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond): // readiness polling: the server has no notice to wait on
		}
	}
}

// Servers names the two servers, r0 the primary at the start.
func (s *Replicated) Servers() []string { return []string{s.nodes[0].name, s.nodes[1].name} }

// Leader is the primary's number.
func (s *Replicated) Leader(context.Context) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.primary
}

func (s *Replicated) node(i int) (*node, error) {
	if i < 0 || i > 1 {
		return nil, fmt.Errorf("%s: no server %d (a primary and its replica, numbered 0 and 1)", ServerName, i)
	}
	return s.nodes[i], nil
}

// Kill crashes server i with SIGKILL; leases the primary held are then
// recorded as possibly lost with it (lease.Polled.Crashed).
func (s *Replicated) Kill(i int) error {
	n, err := s.node(i)
	if err != nil {
		return err
	}
	err = n.child.Kill()
	s.mu.Lock()
	n.down = true
	primary := s.primary == i
	s.mu.Unlock()
	if primary {
		s.Polled.Crashed(n.name)
	}
	return err
}

// Start starts server i again, on its data and port, and waits until it
// answers.
func (s *Replicated) Start(ctx context.Context, i int) error {
	n, err := s.node(i)
	if err != nil {
		return err
	}
	if err := n.child.Start(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	n.down = false
	s.mu.Unlock()
	return nil
}

// Freeze stops server i with SIGSTOP.
func (s *Replicated) Freeze(i int) error {
	n, err := s.node(i)
	if err != nil {
		return err
	}
	return n.child.Freeze()
}

// Thaw resumes server i with SIGCONT.
func (s *Replicated) Thaw(i int) error {
	n, err := s.node(i)
	if err != nil {
		return err
	}
	return n.child.Thaw()
}

// HoldReplica implements lease.ReplicaHolder: once the replica has
// caught up with the primary (within the ready timeout: after the
// primary restarted, it resynchronizes first), it holds the replica's
// link, and counts the tokens the primary issues from then on.
func (s *Replicated) HoldReplica(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failedOver {
		return "", fmt.Errorf("%s: the issuer failed over already; its replica replicates directly", ServerName)
	}
	primary, replica := s.nodes[s.primary], s.nodes[1-s.primary]
	if err := s.synced(ctx, replica, primary); err != nil {
		return "", err
	}
	s.link.Hold()
	s.tally.detach()
	return fmt.Sprintf("replication to %s (the replica) held: it receives none of %s's writes", replica.name, primary.name), nil
}

// AfterIssued implements lease.IssueCounter.
func (s *Replicated) AfterIssued(n int, fn func()) { s.tally.after(n, fn) }

// Failover implements lease.FailingOver: it SIGKILLs the primary, drops
// what the held link had not delivered, promotes the replica with
// REPLICAOF NO ONE and moves the issuer to it, then starts the old
// primary again as the new one's replica (so that a grant that waits for
// a replica can be acknowledged again). It says what became of the
// tokens issued while the replica was held. An issuer fails over once.
func (s *Replicated) Failover(ctx context.Context) (string, error) {
	s.mu.Lock()
	if s.failedOver {
		s.mu.Unlock()
		return "", fmt.Errorf("%s: the issuer fails over once", ServerName)
	}
	s.failedOver = true
	old, next := s.nodes[s.primary], s.nodes[1-s.primary]
	s.mu.Unlock()
	if err := s.Kill(s.primary); err != nil {
		return "", fmt.Errorf("SIGKILL %s: %w", old.name, err)
	}
	issued, refused := s.tally.end()
	if err := s.link.Cut(); err != nil {
		return "", fmt.Errorf("cut the replication link of %s: %w", next.name, err)
	}
	c := redis.NewClient(&redis.Options{Addr: next.addr, MaxRetries: -1, PoolSize: 1})
	err := c.Do(ctx, "REPLICAOF", "NO", "ONE").Err()
	c.Close()
	if err != nil {
		return "", fmt.Errorf("promote %s (REPLICAOF NO ONE): %w", next.name, err)
	}
	s.addr.Store(&next.addr)
	s.mu.Lock()
	s.primary = 1 - s.primary
	s.mu.Unlock()
	if err := s.rejoin(ctx, old, next); err != nil {
		return "", fmt.Errorf("start %s again as the replica of %s: %w", old.name, next.name, err)
	}
	return fmt.Sprintf("%s SIGKILLed, %s promoted (REPLICAOF NO ONE) and serves, %s back as its replica; %s",
		old.name, next.name, old.name, lagged(old.name, next.name, issued, refused)), nil
}

// lagged words what became of the tokens primary issued while replica
// was held behind.
func lagged(primary, replica string, issued, refused int) string {
	handed := issued - refused
	switch {
	case refused == 0:
		return fmt.Sprintf("the %d tokens %s issued while %s was behind were handed out, and %s never received them", issued, primary, replica, replica)
	case handed == 0:
		return fmt.Sprintf("the %d tokens %s issued while %s was behind were refused, not handed out: no replica acknowledged them", issued, primary, replica)
	}
	return fmt.Sprintf("of the %d tokens %s issued while %s was behind, %d were handed out and %d refused (no replica acknowledged them)", issued, primary, replica, handed, refused)
}

// rejoin starts old again as a replica of primary and waits until it
// follows it.
func (s *Replicated) rejoin(ctx context.Context, old, primary *node) error {
	conf, err := os.ReadFile(old.conf)
	if err != nil {
		return err
	}
	if err := os.WriteFile(old.conf, append(conf, replicaConfig(primary.addr)...), 0o644); err != nil {
		return err
	}
	idx := 0
	if old == s.nodes[1] {
		idx = 1
	}
	if err := s.Start(ctx, idx); err != nil {
		return err
	}
	return s.synced(ctx, old, primary)
}

// Close closes the lease service (removing the run's keys from the
// primary, when it is up), stops both servers and deletes their data;
// the logs and configurations stay. A server that exited on its own
// during the run is reported.
func (s *Replicated) Close() error {
	var err error
	if s.Polled != nil {
		for _, n := range s.nodes {
			_ = n.child.Thaw() // a frozen server would hold the clean-up
		}
		err = s.Polled.Close()
		s.mu.Lock()
		if s.nodes[s.primary].down {
			err = nil // nothing to clean up on a server that is not running: its data goes
		}
		s.mu.Unlock()
	}
	for _, n := range s.nodes {
		if n != nil {
			err = errors.Join(err, n.child.Err())
		}
	}
	return errors.Join(err, s.stop())
}

// stop cuts the link, stops the servers started and deletes their data.
func (s *Replicated) stop() error {
	var err error
	if s.link != nil {
		err = s.link.Cut()
	}
	for _, n := range s.nodes {
		if n == nil {
			continue
		}
		if serr := n.child.Stop(stopGrace); serr != nil {
			err = errors.Join(err, fmt.Errorf("stop %s: %w", n.name, serr))
		}
		err = errors.Join(err, os.RemoveAll(n.data))
	}
	return err
}

// stopGrace is how long Close lets a server shut down before SIGKILL.
const stopGrace = 10 * time.Second

var (
	_ lease.Servers       = (*Replicated)(nil)
	_ lease.FailingOver   = (*Replicated)(nil)
	_ lease.IssueCounter  = (*Replicated)(nil)
	_ lease.ReplicaHolder = (*Replicated)(nil)
)
