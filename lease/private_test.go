package lease_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
	pglease "github.com/fencecheck/fencecheck/lease/postgres"
	redislease "github.com/fencecheck/fencecheck/lease/redis"
	"github.com/fencecheck/fencecheck/sched"
)

// servers is a private issuer's service as the run sees it: the
// lease.Servers the issuer faults and verify-issuer's restart scenarios
// act on.
type servers interface {
	lease.Service
	io.Closer
	lease.Servers
}

// privateCase is a private issuer, with what a SIGKILL does to its
// counter: survives is nil where the test does not assert it (a loss the
// server does not reliably produce, or a survival that only a process
// crash, not a machine crash, gives).
type privateCase struct {
	name     string
	binary   string // skipped, saying so, when it is not installed
	issuer   func(lease.PollOptions) lease.Issuer
	folder   string   // the server's folder in the run directory
	log      string   // the server's log in it
	logs     []string // other files in it that stay after Close
	survives *bool
	// answers asks the server for an answer within ctx.
	answers func(ctx context.Context, dir string) error
}

var (
	yes = true
	no  = false
)

var privateCases = []privateCase{
	{name: "redis default", binary: "redis-server", folder: "redis", log: "redis.log", logs: []string{"redis.conf"}, survives: &no,
		issuer: func(p lease.PollOptions) lease.Issuer {
			return redislease.NewPrivateIssuer(redislease.DefaultSettings(), p)
		}, answers: redisAnswers},
	{name: "redis appendfsync always", binary: "redis-server", folder: "redis", log: "redis.log", logs: []string{"redis.conf"}, survives: &yes,
		issuer: func(p lease.PollOptions) lease.Issuer {
			s := redislease.DefaultSettings()
			s.AppendOnly, s.AppendFsync = true, "always"
			return redislease.NewPrivateIssuer(s, p)
		}, answers: redisAnswers},
	{name: "postgres default", binary: "initdb", folder: "postgres", log: "postgres.log", logs: []string{"settings.conf"}, survives: &yes,
		issuer: func(p lease.PollOptions) lease.Issuer {
			return pglease.NewPrivateIssuer(pglease.DefaultSettings(), p)
		}, answers: postgresAnswers},
	{name: "postgres synchronous_commit off", binary: "initdb", folder: "postgres", log: "postgres.log", logs: []string{"settings.conf"},
		issuer: func(p lease.PollOptions) lease.Issuer {
			s := pglease.DefaultSettings()
			s.SynchronousCommit = "off"
			return pglease.NewPrivateIssuer(s, p)
		}, answers: postgresAnswers},
}

// portIn is the port the line of format ("port %d") in file names.
func portIn(file, format string) (int, error) {
	conf, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	var port int
	for line := range strings.SplitSeq(string(conf), "\n") {
		if _, err := fmt.Sscanf(line, format, &port); err == nil {
			return port, nil
		}
	}
	return 0, fmt.Errorf("no %q in %s", format, file)
}

// redisAnswers pings the server whose port redis.conf names.
func redisAnswers(ctx context.Context, dir string) error {
	port, err := portIn(filepath.Join(dir, "redis", "redis.conf"), "port %d")
	if err != nil {
		return err
	}
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port), MaxRetries: -1, ContextTimeoutEnabled: true})
	defer c.Close()
	return c.Ping(ctx).Err()
}

// postgresAnswers connects to the cluster whose port settings.conf names.
func postgresAnswers(ctx context.Context, dir string) error {
	port, err := portIn(filepath.Join(dir, "postgres", "settings.conf"), "port = %d")
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return conn.Ping(ctx)
}

// TestPrivateIssuers: a private redis-server or PostgreSQL cluster starts
// in the run directory and serves increasing tokens; frozen, it answers
// nothing until thawed, and a grant asked meanwhile is granted then;
// killed, a grant is an error the issuer did not answer, never a silent
// success; started again on the same data and port, it grants again, and
// a lease it held across the crash is recorded as possibly lost with it.
// Whether the counter itself survived is what the settings decide: stock
// Redis loses it (the next token repeats one granted before), Redis with
// appendfsync always and PostgreSQL with synchronous_commit on keep it.
// Close stops the server and deletes its data; its logs stay.
func TestPrivateIssuers(t *testing.T) {
	t.Parallel()
	for _, pc := range privateCases {
		t.Run(pc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := exec.LookPath(pc.binary); err != nil {
				t.Skipf("%s is not installed (%v): the private issuer cannot start", pc.binary, err)
			}
			ctx := context.Background()
			dir := schema.TempDir(t)
			rt := sched.NewReal()
			rec := histories.NewRecorder(io.Discard, histories.RecorderOptions{Clock: rt, Retain: true})
			life, end := context.WithCancel(ctx)
			defer end()
			poll := lease.DefaultPollOptions()
			poll.RetryFor = 0 // a grant while the server is down fails at once
			iss := pc.issuer(poll)
			assert.True(t, iss.(interface{ HasServers() bool }).HasServers())
			// A TTL no step of the test outlasts, so that only the crash can
			// end the lease held across it.
			opened, err := iss.Open(ctx, lease.Env{Life: life, Runtime: rt, Recorder: rec, TTL: time.Minute, Dir: dir})
			require.NoError(t, err)
			svc, ok := opened.(servers)
			require.True(t, ok, "%T has not the servers' methods", opened)
			closed := false
			defer func() {
				if !closed {
					assert.NoError(t, svc.Close())
				}
			}()
			require.Len(t, svc.Servers(), 1)
			assert.Equal(t, -1, svc.Leader(ctx), "a single server has no leader")
			require.Error(t, svc.Kill(1), "there is no server 1")

			grant := func(resource string, worker int) (uint64, error) {
				l, err := svc.Acquire(ctx, resource, worker)
				if err == nil {
					svc.Release(l)
				}
				return l.Token, err
			}
			var before []uint64
			for i := range 3 {
				tok, err := grant("r", i%2)
				require.NoError(t, err)
				before = append(before, tok)
			}
			assert.IsIncreasing(t, before)
			held, err := svc.Acquire(ctx, "held", 0)
			require.NoError(t, err)

			require.NoError(t, svc.Freeze(0))
			short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			err = pc.answers(short, dir)
			cancel()
			require.Error(t, err, "a frozen server answered")
			asked := make(chan error, 1)
			var whileFrozen uint64
			go func() {
				var err error
				whileFrozen, err = grant("r", 1)
				asked <- err
			}()
			require.NoError(t, svc.Thaw(0))
			require.NoError(t, <-asked, "a grant asked while frozen is granted once thawed")
			assert.Greater(t, whileFrozen, before[len(before)-1])
			require.NoError(t, pc.answers(ctx, dir))

			require.NoError(t, svc.Kill(0))
			require.Error(t, pc.answers(ctx, dir), "a killed server answered")
			_, err = grant("r", 0)
			require.Error(t, err, "a grant while the server is down")
			assert.ErrorIs(t, err, lease.ErrUnavailable)

			require.NoError(t, svc.Start(ctx, 0))
			after, err := grant("r", 0)
			require.NoError(t, err)
			t.Logf("%s: tokens %v, %d while frozen, then %d after SIGKILL and a restart", iss.Name(), before, whileFrozen, after)
			if pc.survives != nil {
				if *pc.survives {
					assert.Greater(t, after, whileFrozen, "the counter did not survive the crash")
				} else {
					assert.LessOrEqual(t, after, whileFrozen, "the counter survived the crash: the weakness was not shown")
				}
			}
			// The lease held across the crash: still on the issuer if
			// its data survived, else gone, and recorded as possibly lost
			// in the crash (not as run out by a TTL it had not reached).
			kept := svc.ExpireToken("held", held.Token)
			var ends []string
			for _, e := range rec.Events() {
				if e.Resource == "held" && e.F == histories.FExpire {
					ends = append(ends, e.Detail)
				}
			}
			require.Len(t, ends, 1, "the lease held across the crash ends once")
			if kept {
				assert.Contains(t, ends[0], "outlived a pause or a delayed write")
			} else {
				assert.Contains(t, ends[0], "whose server ("+svc.Servers()[0]+") crashed while it held the lease")
			}
			if pc.survives != nil {
				assert.Equal(t, *pc.survives, kept, "whether the lease survived the crash")
			}

			closed = true
			require.NoError(t, svc.Close())
			folder := filepath.Join(dir, pc.folder)
			assert.NoDirExists(t, filepath.Join(folder, "data"), "the data is deleted")
			for _, f := range pc.logs {
				assert.FileExists(t, filepath.Join(folder, f))
			}
			log, err := os.ReadFile(filepath.Join(folder, pc.log))
			require.NoError(t, err)
			assert.Equal(t, 2, strings.Count(string(log), "--- fencecheck: start"), "two starts in the log")
			assert.NotContains(t, string(log), "exited on its own")
		})
	}
}

// TestPrivateIssuerMissing: a private issuer whose server is not
// installed fails to open, naming what is missing.
func TestPrivateIssuerMissing(t *testing.T) {
	t.Setenv("PATH", schema.TempDir(t))
	ctx := context.Background()
	env := lease.Env{Life: ctx, Runtime: sched.NewReal(), Recorder: histories.NewRecorder(io.Discard, histories.RecorderOptions{}), TTL: time.Second, Dir: schema.TempDir(t)}
	_, err := redislease.NewPrivateIssuer(redislease.DefaultSettings(), lease.DefaultPollOptions()).Open(ctx, env)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `private redis-server: exec: "redis-server": executable file not found in $PATH`)
	assert.True(t, errors.Is(err, exec.ErrNotFound))
}
