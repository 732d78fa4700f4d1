package pglease

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fencecheck/fencecheck/internal/spawn"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/lease/private"
	"github.com/fencecheck/fencecheck/targets/process"
)

// StandbyName is how events name the standby of a private cluster.
const StandbyName = "postgres standby"

// node is one server of a replicated private cluster.
type node struct {
	name       string
	child      *process.Child
	dsn        string
	data       string
	removeData func() error
	down       bool // killed and not started again
}

// cluster is where a private cluster's programs, folder and primary are.
type cluster struct {
	bin, postgres string // the folder of initdb; the server program
	cred          *spawn.Credential
	dir           string // the run directory's postgres folder
	port          int    // the primary's
}

// Replicated is the lease service of a private PostgreSQL cluster with a
// streaming standby (postgres?standby=async|sync): a primary, which
// grants, and a hot standby made from it with pg_basebackup -R, which
// replays its write-ahead log. Server 0 is the primary, server 1 the
// standby; Failover kills the primary, promotes the standby and grants
// from it.
//
// What a promotion keeps of the token sequence is the point. A sequence
// is WAL-logged ahead: nextval writes a WAL record only every 32 values
// (SEQ_LOG_VALS), saying the sequence is at the 32nd value ahead, so a
// standby that has replayed that record continues above every value it
// covers, even values whose grants it never saw. With standby=async a
// commit is acknowledged once the primary has flushed it: the standby
// may not have received it, nor the sequence's record for the values
// after the ones it covers. Grants acknowledged past that record are
// lost with the primary, and the promoted standby grants their tokens
// again. With standby=sync (synchronous_standby_names '*' on the
// primary, synchronous_commit on) a commit is acknowledged only once the
// standby has flushed it, and a promotion replays everything flushed:
// no acknowledged grant is lost. While the standby does not answer, the
// primary acknowledges no grant at all. What neither covers: an
// operator who starts the old primary again beside the promoted standby
// (two primaries; Start refuses it), and synchronous_commit local or off,
// which acknowledge before the standby has the commit.
type Replicated struct {
	*lease.Polled
	store   *Store
	standby string // async or sync
	nodes   [2]*node
	// readyTimeout bounds the wait for the standby to stream again.
	readyTimeout time.Duration

	mu       sync.Mutex
	primary  int  // the node that grants: 0 until Failover promotes 1
	promoted bool // Failover happened: no standby is left
	held     int  // the walsender HoldReplica stopped, 0 when none
}

// openReplicated makes the standby of the primary, which runs, starts
// it, and only then makes the run's table and sequence: with a
// synchronous standby the primary's commits wait for it. Once the
// standby has replayed them it returns the service of both.
func (i *PrivateIssuer) openReplicated(ctx context.Context, env lease.Env, primary *node, c cluster) (*Replicated, error) {
	fail := func(err error) error {
		return fmt.Errorf("private PostgreSQL cluster with a standby: %w", errors.Join(err, primary.child.Stop(0), primary.removeData()))
	}
	standby, err := i.startStandby(ctx, c)
	if err != nil {
		return nil, fail(err)
	}
	store, err := Connect(ctx, primary.dsn)
	if err != nil {
		return nil, fail(errors.Join(err, standby.child.Stop(0), standby.removeData()))
	}
	wait, cancel := context.WithTimeout(ctx, i.ReadyTimeout)
	defer cancel()
	if err := caughtUp(wait, store, standby.dsn); err != nil {
		err = fmt.Errorf("the standby did not replay the run's lease table: %w", err)
		return nil, fail(errors.Join(err, store.Close(), standby.child.Stop(0), standby.removeData()))
	}
	return &Replicated{
		Polled: lease.NewPolled(env, store, i.Poll), store: store, standby: i.Settings.Standby,
		nodes: [2]*node{primary, standby}, readyTimeout: i.ReadyTimeout,
	}, nil
}

// startStandby makes the standby from the primary with pg_basebackup,
// in the standby folder beside the primary's, and starts it on a port of
// its own.
func (i *PrivateIssuer) startStandby(ctx context.Context, c cluster) (*node, error) {
	basebackup := filepath.Join(c.bin, "pg_basebackup")
	if !executable(basebackup) {
		return nil, fmt.Errorf("no pg_basebackup beside %s, to make the standby: install PostgreSQL's server programs (Debian: the postgresql package)", filepath.Join(c.bin, "initdb"))
	}
	dir := filepath.Join(c.dir, "standby")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	data, remove, err := dataDir(dir, c.cred)
	if err != nil {
		return nil, err
	}
	removeData := func() error { return os.RemoveAll(remove) }
	logPath := filepath.Join(dir, "postgres.log")
	if err := baseBackup(ctx, basebackup, data, logPath, c); err != nil {
		return nil, errors.Join(err, removeData())
	}
	var dsn string
	child, _, err := private.StartOnFreePort(ctx, func(port int) (*process.Child, error) {
		if err := appendConfig(filepath.Join(data, "postgresql.conf"), standbyConfig(port)); err != nil {
			return nil, err
		}
		var child *process.Child
		child, dsn = i.serverChild(c.postgres, data, port, StandbyName, logPath, c.cred)
		return child, nil
	})
	if err != nil {
		return nil, errors.Join(err, removeData())
	}
	return &node{name: StandbyName, child: child, dsn: dsn, data: data, removeData: removeData}, nil
}

// baseBackup copies the primary at c.port into data with pg_basebackup,
// as the user the cluster runs as, with -R: the copy starts as a standby
// that streams from the primary. Its output goes to the log at logPath.
func baseBackup(ctx context.Context, program, data, logPath string, c cluster) error {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	fmt.Fprintf(log, "--- fencecheck: pg_basebackup of the primary on port %d into %s at %s\n", c.port, data, time.Now().UTC().Format(time.RFC3339Nano))
	conn := fmt.Sprintf("host=127.0.0.1 port=%d user=postgres sslmode=disable", c.port)
	cmd := exec.CommandContext(ctx, program, "-D", data, "-d", conn, "-R", "-X", "stream", "-c", "fast", "--no-sync")
	cmd.Stdout, cmd.Stderr, cmd.Dir = log, log, filepath.Dir(data)
	if c.cred != nil {
		cmd.SysProcAttr = spawn.AsUser(c.cred)
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pg_basebackup: %w (its output is in %s)", err, logPath)
	}
	return nil
}

// appendConfig appends conf to the postgresql.conf at path.
func appendConfig(path, conf string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(conf)
	return errors.Join(err, f.Close())
}

// caughtUp waits until the standby at dsn has replayed the primary's
// write-ahead log up to where it is now: from then on the standby has
// the run's table and sequence, and a promotion cannot lose them.
func caughtUp(ctx context.Context, store *Store, dsn string) error {
	var lsn string
	if err := store.db().QueryRow(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&lsn); err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	for {
		var done bool
		if err := conn.QueryRow(ctx, "SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false)", lsn).Scan(&done); err != nil {
			return err
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("replay did not reach %s: %w", lsn, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Servers names the primary and the standby.
func (r *Replicated) Servers() []string { return []string{r.nodes[0].name, r.nodes[1].name} }

// Leader is the server that grants (the primary, or the standby once
// promoted), -1 while it is down.
func (r *Replicated) Leader(context.Context) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.nodes[r.primary].down {
		return -1
	}
	return r.primary
}

func (r *Replicated) node(i int) (*node, error) {
	if i < 0 || i > 1 {
		return nil, fmt.Errorf("private PostgreSQL cluster: no server %d (0 is the primary, 1 the standby)", i)
	}
	return r.nodes[i], nil
}

// Kill crashes server i with SIGKILL and waits until it is gone. When it
// is the one that grants, leases granted before it that it then no
// longer has are recorded as possibly lost (lease.Polled.Crashed).
func (r *Replicated) Kill(i int) error {
	n, err := r.node(i)
	if err != nil {
		return err
	}
	err = n.child.Kill()
	r.mu.Lock()
	n.down = true
	granting := i == r.primary
	if granting {
		r.held = 0
	}
	r.mu.Unlock()
	if granting {
		r.Polled.Crashed(n.name)
	}
	return err
}

// Start starts server i again, on its data, and waits until it answers.
// It refuses the old primary once the standby was promoted: it would
// come back as a second primary, with grants the promoted one never saw.
func (r *Replicated) Start(ctx context.Context, i int) error {
	n, err := r.node(i)
	if err != nil {
		return err
	}
	r.mu.Lock()
	replaced := r.promoted && i != r.primary
	r.mu.Unlock()
	if replaced {
		return fmt.Errorf("%s was replaced by the standby promoted in its place: started again it would be a second primary", n.name)
	}
	if err := n.child.Start(ctx); err != nil {
		return err
	}
	r.mu.Lock()
	n.down = false
	granting := i == r.primary
	r.mu.Unlock()
	if granting {
		r.store.db().Reset()
	}
	return nil
}

// Freeze stops server i with SIGSTOP; Thaw resumes it. A frozen
// synchronous standby holds every grant's commit on the primary.
func (r *Replicated) Freeze(i int) error {
	n, err := r.node(i)
	if err != nil {
		return err
	}
	return n.child.Freeze()
}

// Thaw resumes a frozen server with SIGCONT.
func (r *Replicated) Thaw(i int) error {
	n, err := r.node(i)
	if err != nil {
		return err
	}
	return n.child.Thaw()
}

// HoldReplica implements lease.ReplicaHolder: it makes the standby fall
// behind while the primary goes on:
// it stops (SIGSTOP) the primary's walsender, the process that streams
// the write-ahead log to the standby, until the primary is killed. An
// asynchronous primary goes on acknowledging grants the standby never
// receives; a synchronous one acknowledges none. It says which process
// it stopped and where the standby had got to.
func (r *Replicated) HoldReplica(ctx context.Context) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.promoted || r.held != 0 {
		return "", errors.New("private PostgreSQL cluster: no standby streaming to hold (already held, or promoted)")
	}
	pid, sent, err := r.walsender(ctx)
	if err != nil {
		return "", fmt.Errorf("private PostgreSQL cluster: find the walsender of the standby: %w", err)
	}
	if err := spawn.Kill(pid, spawn.SIGSTOP); err != nil {
		return "", fmt.Errorf("private PostgreSQL cluster: SIGSTOP the walsender (pid %d): %w", pid, err)
	}
	r.held = pid
	return fmt.Sprintf("SIGSTOP to the primary's walsender (pid %d): %s has flushed WAL up to %s and receives no more", pid, StandbyName, sent), nil
}

// walsender is the pid of the primary's walsender and how far the
// standby says it flushed. A standby reconnects on its own after the
// primary restarts (every wal_retrieve_retry_interval): it waits for
// one that streams, for up to readyTimeout.
func (r *Replicated) walsender(ctx context.Context) (pid int, sent string, err error) {
	ctx, cancel := context.WithTimeout(ctx, r.readyTimeout)
	defer cancel()
	for {
		err = r.store.db().QueryRow(ctx, `SELECT pid, coalesce(flush_lsn::text, 'nothing') FROM pg_stat_replication
WHERE state = 'streaming' LIMIT 1`).Scan(&pid, &sent)
		if !errors.Is(err, pgx.ErrNoRows) {
			return pid, sent, err
		}
		select {
		case <-ctx.Done():
			return 0, "", fmt.Errorf("no standby streams from the primary: %w", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Failover implements lease.FailingOver: SIGKILL to the primary (its
// postmaster and every process of it), pg_promote() on the standby, and
// the store moved to it. The standby promotes with what it had received:
// it replays that, and ends recovery.
func (r *Replicated) Failover(ctx context.Context) (string, error) {
	r.mu.Lock()
	if r.promoted {
		r.mu.Unlock()
		return "", errors.New("private PostgreSQL cluster: the standby was promoted already, there is none left to fail over to")
	}
	old, standby := r.nodes[0], r.nodes[1]
	r.mu.Unlock()
	pid := postmasterPID(old.data)
	if err := r.Kill(0); err != nil {
		return "", fmt.Errorf("private PostgreSQL cluster: SIGKILL the primary: %w", err)
	}
	received, err := promote(ctx, standby.dsn)
	if err != nil {
		return "", fmt.Errorf("private PostgreSQL cluster: promote %s: %w", StandbyName, err)
	}
	if err := r.store.Repoint(ctx, standby.dsn); err != nil {
		return "", fmt.Errorf("private PostgreSQL cluster: move to the promoted %s: %w", StandbyName, err)
	}
	r.mu.Lock()
	r.primary, r.promoted = 1, true
	r.mu.Unlock()
	return fmt.Sprintf("SIGKILL to %s, the primary (postmaster pid %s); %s (%s replication) had received WAL up to %s, promoted with pg_promote(); the issuer grants from it now",
		old.name, pid, standby.name, r.standby, received), nil
}

// postmasterPID is the pid on the first line of data/postmaster.pid, "?"
// when it cannot be read.
func postmasterPID(data string) string {
	b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if err != nil {
		return "?"
	}
	pid, _, _ := strings.Cut(string(b), "\n")
	return pid
}

// promote promotes the standby at dsn and waits until it takes writes;
// it returns how far the standby had received the primary's WAL.
func promote(ctx context.Context, dsn string) (string, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", err
	}
	defer conn.Close(context.Background())
	var received string
	if err := conn.QueryRow(ctx, "SELECT coalesce(pg_last_wal_receive_lsn()::text, 'nothing')").Scan(&received); err != nil {
		return "", err
	}
	var ok bool
	if err := conn.QueryRow(ctx, "SELECT pg_promote(true, 60)").Scan(&ok); err != nil {
		return received, err
	}
	if !ok {
		return received, errors.New("pg_promote() did not finish within 60 s")
	}
	return received, nil
}

// Close closes the lease service (which drops the run's table from the
// server that grants, when it is up), stops both servers and deletes
// their data; the logs stay. It reports a server that exited on its own.
func (r *Replicated) Close() error {
	r.mu.Lock()
	held, down := r.held, r.nodes[r.primary].down
	r.mu.Unlock()
	for _, n := range r.nodes {
		_ = n.child.Thaw()
	}
	if held != 0 {
		_ = spawn.Kill(held, spawn.SIGCONT)
	}
	err := r.Polled.Close()
	if down {
		err = nil
	}
	for _, n := range r.nodes {
		if serr := n.child.Stop(stopGrace); serr != nil {
			err = errors.Join(err, fmt.Errorf("stop %s: %w", n.name, serr))
		}
		err = errors.Join(err, n.child.Err(), n.removeData())
	}
	return err
}

// stopGrace is how long Close lets a server shut down before SIGKILL.
const stopGrace = 10 * time.Second

var (
	_ lease.Servers       = (*Replicated)(nil)
	_ lease.FailingOver   = (*Replicated)(nil)
	_ lease.ReplicaHolder = (*Replicated)(nil)
)
