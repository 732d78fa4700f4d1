package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/sched"
)

// localIssuer is the run's own lease service on the real clock, with
// leases of ttl.
func localIssuer(t *testing.T, ttl time.Duration) (*lease.Local, *histories.Recorder) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	rt := sched.NewReal()
	rec := histories.NewRecorder(io.Discard, histories.RecorderOptions{Clock: rt})
	return lease.NewLocal(ctx, rt, rec, ttl), rec
}

func issuerOptions(ttl time.Duration) IssuerOptions {
	o := DefaultIssuerOptions()
	o.RunID, o.TTL = "t", ttl
	return o
}

func issuerStatuses(t *testing.T, svc lease.Service, o IssuerOptions) map[string]Row {
	t.Helper()
	rows, err := RunIssuer(context.Background(), svc, o)
	require.NoError(t, err)
	require.Len(t, rows, len(issuerScenarios))
	requireValidReport(t, Report{Battery: "issuer", Target: "test", Passed: Passed(rows), Outcomes: rows})
	got := make(map[string]Row)
	for _, r := range rows {
		got[r.Scenario] = r
		t.Logf("%s: %s (%s)", r.Scenario, r.Result, r.Observed)
	}
	return got
}

// wrap32 is an issuer with a 32-bit counter per resource that never
// makes anyone wait: its tokens wrap to 0 after 2^32-1.
type wrap32 struct {
	mu   sync.Mutex
	next map[string]uint32
}

func (w *wrap32) Acquire(_ context.Context, resource string, worker int) (lease.Lease, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.next[resource]++
	return lease.Lease{Resource: resource, Token: uint64(w.next[resource]), Worker: worker}, nil
}
func (w *wrap32) StartAbove(resource string, token uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.next[resource] = uint32(token)
}
func (*wrap32) Release(lease.Lease)             {}
func (*wrap32) Expire(string) bool              { return true }
func (*wrap32) ExpireToken(string, uint64) bool { return true }

// wrap64 is a counter per resource that StartAbove sets.
type wrap64 struct {
	mu   sync.Mutex
	next map[string]uint64
}

func (w *wrap64) Acquire(_ context.Context, resource string, worker int) (lease.Lease, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.next[resource]++
	return lease.Lease{Resource: resource, Token: w.next[resource], Worker: worker}, nil
}
func (w *wrap64) StartAbove(resource string, token uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.next[resource] = token
}
func (*wrap64) Release(lease.Lease)             {}
func (*wrap64) Expire(string) bool              { return true }
func (*wrap64) ExpireToken(string, uint64) bool { return true }

// slowNearTop answers no grant above 2^62 in time: it reports the
// deadline, as an issuer on a loaded machine does.
type slowNearTop struct{ wrap64 }

func (s *slowNearTop) Acquire(ctx context.Context, resource string, worker int) (lease.Lease, error) {
	s.mu.Lock()
	high := s.next[resource] > 1<<62
	s.mu.Unlock()
	if high {
		return lease.Lease{}, fmt.Errorf("acquire %s: %w", resource, context.DeadlineExceeded)
	}
	return s.wrap64.Acquire(ctx, resource, worker)
}

// forgetful grants every eleventh token again: an issuer that lost its
// counter, as Redis without appendfsync does when it crashes.
type forgetful struct {
	*lease.Local
	mu     sync.Mutex
	grants int
	last   uint64
}

func (f *forgetful) Acquire(ctx context.Context, resource string, worker int) (lease.Lease, error) {
	l, err := f.Local.Acquire(ctx, resource, worker)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.grants++
	if f.grants%11 == 0 {
		l.Token = f.last
	}
	f.last = l.Token
	return l, err
}

// TestIssuerBattery: the local service passes every scenario; an issuer
// that reuses a token fails the sequences that catch it, and one that
// wraps at 2^32 fails the boundaries.
func TestIssuerBattery(t *testing.T) {
	t.Parallel()
	t.Run("correct", func(t *testing.T) {
		t.Parallel()
		svc, _ := localIssuer(t, 20*time.Millisecond)
		got := issuerStatuses(t, svc, issuerOptions(20*time.Millisecond))
		for _, name := range IssuerNames() {
			want := Pass
			if name == "grant-after-restart" || name == "grant-after-failover" || name == "grant-after-promotion" || name == "clock-jump" || name == "grant-after-restore" || name == "grant-after-restore-bumped" {
				want = Skip // no server of its own to crash or restore, no replica to promote, no clock to jump
			}
			if name == "sequence-after-parent-reset" {
				want = Skip // no lock parent
			}
			assert.Equal(t, want, got[name].Result, "%s: %s", name, got[name].Observed)
		}
		assert.Contains(t, got["grant-after-restart"].Observed, "skipped: the issuer has no server fencecheck started itself")
		assert.Contains(t, got["token-boundaries"].Observed, "2^32: 4294967295→4294967296→4294967297")
		assert.Contains(t, got["grant-after-ttl"].Observed, "after the lease ran out by its TTL")
	})
	t.Run("reuses a token", func(t *testing.T) {
		t.Parallel()
		svc, _ := localIssuer(t, 20*time.Millisecond)
		got := issuerStatuses(t, &forgetful{Local: svc}, issuerOptions(20*time.Millisecond))
		assert.Equal(t, Fail, got["successive-grants"].Result)
		assert.Contains(t, got["successive-grants"].Observed, "granted twice")
		assert.Equal(t, Fail, got["contended-grants"].Result)
	})
	t.Run("too slow near 2^63-1", func(t *testing.T) {
		// An issuer that gives no grant within the deadline (a loaded
		// machine) has shown nothing wrong with its sequence: the
		// boundary is not judged, and the row is no failure.
		t.Parallel()
		got := issuerStatuses(t, &slowNearTop{wrap64: wrap64{next: map[string]uint64{}}}, issuerOptions(time.Hour))
		assert.Equal(t, Pass, got["token-boundaries"].Result, got["token-boundaries"].Observed)
		assert.Contains(t, got["token-boundaries"].Observed, "2^63-1: no grant within the deadline, not judged")
	})
	t.Run("wraps at 2^32", func(t *testing.T) {
		t.Parallel()
		got := issuerStatuses(t, &wrap32{next: map[string]uint32{}}, issuerOptions(time.Hour))
		assert.Equal(t, Fail, got["token-boundaries"].Result)
		assert.Contains(t, got["token-boundaries"].Observed, "2^32: grant 2 carries token 0, below 4294967295")
		assert.Equal(t, Pass, got["successive-grants"].Result)
	})
}

// crashable is an issuer with servers of its own that never makes anyone
// wait: a counter per resource. A crash of a server forgets every token
// granted (lossy), as a Redis without appendfsync always does, or
// nothing. With 3 servers or more, the leader's crash hands the lead to
// the next one.
type crashable struct {
	names []string
	lossy bool

	// slow, once a server was started again, lets that many grants
	// through and then answers none in time, as a server slow to serve
	// after its restart on a loaded machine; -1: never.
	slow int

	mu      sync.Mutex
	leader  int
	down    map[int]bool
	next    map[string]uint64
	started bool
}

func newCrashable(servers int, lossy bool) *crashable {
	c := &crashable{lossy: lossy, slow: -1, leader: -1, down: map[int]bool{}, next: map[string]uint64{}}
	for i := range servers {
		c.names = append(c.names, fmt.Sprintf("m%d", i))
	}
	if servers >= 3 {
		c.leader = 1
	}
	return c
}

func (c *crashable) Acquire(_ context.Context, resource string, worker int) (lease.Lease, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.down) == len(c.names) {
		return lease.Lease{}, errors.New("every server is down")
	}
	if c.started && c.slow >= 0 {
		if c.slow == 0 {
			return lease.Lease{}, errors.New("read tcp 127.0.0.1:2181: i/o timeout")
		}
		c.slow--
	}
	c.next[resource]++
	return lease.Lease{Resource: resource, Token: c.next[resource], Worker: worker}, nil
}
func (*crashable) Release(lease.Lease)             {}
func (*crashable) Expire(string) bool              { return true }
func (*crashable) ExpireToken(string, uint64) bool { return true }

func (c *crashable) Servers() []string { return c.names }
func (c *crashable) Leader(context.Context) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.leader
}
func (c *crashable) Kill(i int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.down[i] = true
	if c.leader == i {
		c.leader = (i + 1) % len(c.names)
	}
	if c.lossy {
		clear(c.next)
	}
	return nil
}
func (c *crashable) Start(_ context.Context, i int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.down, i)
	c.started = true
	return nil
}

// Freeze and Thaw complete lease.Servers; the restart scenarios never
// freeze a server.
func (*crashable) Freeze(int) error { return errors.New("crashable: no freeze in this test") }
func (*crashable) Thaw(int) error   { return errors.New("crashable: no thaw in this test") }

var _ lease.Servers = (*crashable)(nil)

// TestIssuerRestart: an issuer whose server forgets its tokens in a crash
// fails grant-after-restart, naming the token granted twice; one that
// keeps them passes; grant-after-failover runs only with a leader among
// 3 or more servers, grants from the others while the leader is down,
// and fails when the failover forgets tokens.
func TestIssuerRestart(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name             string
		servers          int
		lossy            bool
		restart, failovr Result
		want             map[string]string // scenario: what its observed says
	}{
		{"one server that forgets", 1, true, Fail, Skip, map[string]string{
			"grant-after-restart":  "token 1 granted twice (grants 1 and 6): tokens 1 to 5, then 1 to 5 after m0 was SIGKILLed and started again",
			"grant-after-failover": "skipped: the issuer has no leader among 3 or more servers of its own"}},
		{"one server that keeps its tokens", 1, false, Pass, Skip, map[string]string{
			"grant-after-restart": "tokens 1 to 5, then 6 to 10 after m0 was SIGKILLed and started again"}},
		{"three servers that keep their tokens", 3, false, Pass, Pass, map[string]string{
			"grant-after-restart":  "after m1 was SIGKILLed",
			"grant-after-failover": "tokens 1 to 5 before m2 (the leader) was SIGKILLed, 6 to 10 while it was down (m0 led), 11 to 15 after it rejoined"}},
		{"three servers whose failover forgets", 3, true, Fail, Fail, map[string]string{
			"grant-after-failover": "token 1 granted twice (grants 1 and 6)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCrashable(tc.servers, tc.lossy)
			rec := histories.NewRecorder(io.Discard, histories.RecorderOptions{Clock: sched.NewReal(), Retain: true})
			o := issuerOptions(20 * time.Millisecond)
			o.Recorder = rec
			got := issuerStatuses(t, c, o)
			assert.Equal(t, tc.restart, got["grant-after-restart"].Result, got["grant-after-restart"].Observed)
			assert.Equal(t, tc.failovr, got["grant-after-failover"].Result, got["grant-after-failover"].Observed)
			for name, w := range tc.want {
				assert.Contains(t, got[name].Observed, w)
			}
			var crashes []string
			for _, e := range rec.Events() {
				if e.F == histories.FBegin || e.F == histories.FEnd {
					crashes = append(crashes, e.Fault+": "+e.Detail)
				}
			}
			victim := "m0"
			if tc.servers >= 3 {
				victim = "m1" // the leader
			}
			assert.Contains(t, crashes, "verify-issuer:grant-after-restart: SIGKILL "+victim)
			assert.Contains(t, crashes, "verify-issuer:grant-after-restart: "+victim+" started again and serves")
		})
	}
}

// TestAnIssuerSlowAfterItsRestartIsNotJudged: an issuer whose server,
// restarted and serving, grants nothing more within the grant's deadline
// (a JVM warming up on a loaded machine) has granted no token twice: its
// grant-after-restart row is not judged and the battery is
// inconclusive, not failed. Tokens it granted before going quiet are
// still judged: a repeated one fails the row.
func TestAnIssuerSlowAfterItsRestartIsNotJudged(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		lossy   bool
		slow    int
		result  Result
		observe string
		verdict judge.Verdict
	}{
		{"quiet at once", false, 0, Skip, "not judged: tokens 1 to 5, then none after m0 was SIGKILLed and started again; grant 1 after it: read tcp 127.0.0.1:2181: i/o timeout", judge.Inconclusive},
		{"quiet after 2 grants", false, 2, Skip, "not judged: tokens 1 to 5, then 6 to 7 after m0 was SIGKILLed and started again; grant 3 after it: ", judge.Inconclusive},
		{"a repeat, then quiet", true, 2, Fail, "token 1 granted twice (grants 1 and 6): tokens 1 to 5, then 1 to 2 after m0", judge.Violated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCrashable(1, tc.lossy)
			c.slow = tc.slow
			rows, err := RunIssuer(context.Background(), c, issuerOptions(20*time.Millisecond))
			require.NoError(t, err)
			var restart Row
			for _, r := range rows {
				if r.Scenario == "grant-after-restart" {
					restart = r
				}
			}
			assert.Equal(t, tc.result, restart.Result, restart.Observed)
			assert.Equal(t, tc.result == Skip, restart.NotRun)
			assert.Contains(t, restart.Observed, tc.observe)
			v, _, reason := Decide(rows[:6], nil) // the scenarios up to grant-after-restart; those after meet the quiet server too
			assert.Equal(t, tc.verdict, v, reason)
		})
	}
}

// TestRealTimeOrder: contended grants are judged by real-time order, not
// by the order their calls returned. A holder whose call returned after
// its lease had run out and been granted again (a loaded machine, a
// short TTL) is no evidence against the issuer; a grant asked for after
// a higher one had returned is.
func TestRealTimeOrder(t *testing.T) {
	t.Parallel()
	at := func(ms int) time.Time { return time.Unix(0, 0).Add(time.Duration(ms) * time.Millisecond) }
	cases := []struct {
		name   string
		grants []timedGrant
		want   string
	}{
		{"in order", []timedGrant{{1, at(0), at(1)}, {2, at(2), at(3)}, {3, at(4), at(5)}}, ""},
		{"returned late, after its lease ran out", []timedGrant{
			{88, at(10), at(11)}, // asked while 81's call had not returned
			{81, at(0), at(30)},  // granted first, returned last
		}, ""},
		{"asked after a higher grant returned", []timedGrant{{88, at(0), at(1)}, {81, at(2), at(3)}},
			"grant 2 carries token 81, below 88 granted before it was asked for (grant 1)"},
		{"granted twice", []timedGrant{{5, at(0), at(1)}, {5, at(0), at(2)}}, "token 5 granted twice (grants 1 and 2)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, realTimeOrder(tc.grants))
		})
	}
}
