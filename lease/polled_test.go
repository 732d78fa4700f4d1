package lease

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/sched"
)

// fakeStore is an issuer on the simulated clock that keeps a lease extra
// longer than asked (negative: shorter, as when its clock runs fast), and
// whose calls fail while broken.
type fakeStore struct {
	rt     sched.Runtime
	extra  time.Duration
	broken bool
	last   uint64
	cur    map[string]fakeLease
}

type fakeLease struct {
	token   uint64
	expires int64
}

func (f *fakeStore) now() int64 { return f.rt.Now() }

func (f *fakeStore) current(resource string) (fakeLease, bool) {
	l, ok := f.cur[resource]
	return l, ok && f.now() < l.expires
}

func (f *fakeStore) Grant(_ context.Context, resource string, _ int, ttl time.Duration) (uint64, bool, error) {
	if f.broken {
		return 0, false, errors.New("store down")
	}
	if _, ok := f.current(resource); ok {
		return 0, false, nil
	}
	f.last++
	f.cur[resource] = fakeLease{f.last, f.now() + int64(ttl+f.extra)}
	return f.last, true, nil
}

func (f *fakeStore) End(_ context.Context, resource string, token uint64) (bool, error) {
	if f.broken {
		return false, errors.New("store down")
	}
	if l, ok := f.current(resource); ok && l.token == token {
		delete(f.cur, resource)
		return true, nil
	}
	return false, nil
}

func (f *fakeStore) Renew(_ context.Context, resource string, token uint64, ttl time.Duration) (bool, error) {
	if f.broken {
		return false, errors.New("store down")
	}
	if l, ok := f.current(resource); ok && l.token == token {
		f.cur[resource] = fakeLease{token, f.now() + int64(ttl+f.extra)}
		return true, nil
	}
	return false, nil
}

func (f *fakeStore) Left(_ context.Context, resource string, token uint64) (time.Duration, error) {
	if f.broken {
		return 0, errors.New("store down")
	}
	if l, ok := f.current(resource); ok && l.token == token {
		return time.Duration(l.expires - f.now()), nil
	}
	return 0, nil
}

// TestPolledRecordsHowLeasesEnd: whichever of the TTL check, the next
// grant or the holder's release first learns that a lease ran out on the
// issuer records it, once, before the next grant; a lease the store ended
// on request is recorded as such; a store that cannot be reached leaves
// the end to the TTL check.
func TestPolledRecordsHowLeasesEnd(t *testing.T) {
	t.Parallel()
	const ttl = 100 * time.Millisecond
	cases := []struct {
		name  string
		extra time.Duration
		// run drives the service; it returns when the events are in.
		run  func(p *Polled, f *fakeStore, rt sched.Runtime)
		want []string // f, worker, token, and when (ms) of each lease event
	}{
		{"the TTL check records the expiry", 0, func(p *Polled, _ *fakeStore, rt sched.Runtime) {
			a := acquire(p, 0)
			_ = rt.Sleep(context.Background(), 2*ttl)
			p.Release(a) // stale: nothing
		}, []string{"acquire 0 1 @0", "expire 0 1 @100 TTL elapsed"}},
		{"a lease the issuer keeps longer is waited for", 30 * time.Millisecond, func(p *Polled, _ *fakeStore, rt sched.Runtime) {
			acquire(p, 0)
			_ = rt.Sleep(context.Background(), 2*ttl)
		}, []string{"acquire 0 1 @0", "expire 0 1 @130 TTL elapsed"}},
		{"the next grant records an expiry the TTL check has not seen", -50 * time.Millisecond, func(p *Polled, _ *fakeStore, _ sched.Runtime) {
			acquire(p, 0)
			acquire(p, 1)
		}, []string{"acquire 0 1 @0", "expire 0 1 @50 TTL elapsed", "acquire 1 2 @50 reassigned"}},
		{"a release after the issuer's TTL records the expiry", -60 * time.Millisecond, func(p *Polled, _ *fakeStore, rt sched.Runtime) {
			a := acquire(p, 0)
			_ = rt.Sleep(context.Background(), 45*time.Millisecond)
			p.Release(a)
		}, []string{"acquire 0 1 @0", "expire 0 1 @45 TTL elapsed"}},
		{"release and expire", 0, func(p *Polled, _ *fakeStore, _ sched.Runtime) {
			p.Release(acquire(p, 0))
			b := acquire(p, 1)
			p.Expire("r")
			p.ExpireToken("r", b.Token)
		}, []string{"acquire 0 1 @0", "release 0 1 @0", "acquire 1 2 @0", "expire 1 2 @0 nemesis"}},
		{"a store that cannot be reached leaves the end to the TTL check", 0, func(p *Polled, f *fakeStore, rt sched.Runtime) {
			a := acquire(p, 0)
			f.broken = true
			p.Release(a)
			assert.False(t, p.Expire("r"))
			_ = rt.Sleep(context.Background(), ttl/2)
			f.broken = false
			_ = rt.Sleep(context.Background(), ttl)
		}, []string{"acquire 0 1 @0", "expire 0 1 @100 TTL elapsed"}},
		{"a lease the issuer lost in a crash may not have run out", 0, func(p *Polled, f *fakeStore, rt sched.Runtime) {
			acquire(p, 0)
			_ = rt.Sleep(context.Background(), ttl/4)
			p.Crashed("fake-server")
			delete(f.cur, "r") // lost with the server's data
			acquire(p, 1)
			_ = rt.Sleep(context.Background(), 2*ttl)
		}, []string{"acquire 0 1 @0", "expire 0 1 @25 TTL elapsed crashed", "acquire 1 2 @25 reassigned", "expire 1 2 @125 TTL elapsed"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := DefaultPollOptions()
			opts.MinWait, opts.MaxWait = 5*time.Millisecond, 5*time.Millisecond
			sim, rec, f, p, end := onSim(tc.extra, ttl, opts)
			require.NoError(t, sim.Run(func() {
				tc.run(p, f, sim)
				end()
			}))
			require.NoError(t, p.Close())
			var got []string
			for _, e := range rec.Events() {
				s := fmt.Sprintf("%s %d %d @%d", e.F, e.Holder, e.Token, e.Time/int64(time.Millisecond))
				for _, word := range []string{"TTL elapsed", "reassigned", "nemesis", "crashed"} {
					if strings.Contains(e.Detail, word) {
						s += " " + word
					}
				}
				got = append(got, s)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// onSim returns a Polled service on a fake store that keeps leases extra
// longer than asked, on a simulated clock, with a recorder that retains
// its events; end ends the run's life.
func onSim(extra, ttl time.Duration, opts PollOptions) (*sched.Sim, *histories.Recorder, *fakeStore, *Polled, context.CancelFunc) {
	sim := sched.NewSim(1)
	rec := histories.NewRecorder(&bufWriter{}, histories.RecorderOptions{Clock: sim, Retain: true})
	life, end := context.WithCancel(context.Background())
	f := &fakeStore{rt: sim, extra: extra, cur: map[string]fakeLease{}}
	return sim, rec, f, NewPolled(Env{Life: life, Runtime: sim, Recorder: rec, TTL: ttl}, f, opts), end
}

func acquire(p *Polled, worker int) Lease {
	l, err := p.Acquire(context.Background(), "r", worker)
	if err != nil {
		panic(err)
	}
	return l
}

// TestPolledSuspend: a suspended lease ends by its TTL on the issuer, and
// the caller hears of it when the expiry is recorded (on the issuer's
// clock: a lease it keeps longer is waited for), or when anything else
// ended it first, or when the service closes; a lease that is no longer
// current cannot be suspended.
func TestPolledSuspend(t *testing.T) {
	t.Parallel()
	const ttl = 100 * time.Millisecond
	cases := []struct {
		name  string
		extra time.Duration
		run   func(p *Polled, l Lease, rt sched.Runtime)
		ended int64 // ms; -1: at Close
	}{
		{"by its TTL", 0, func(*Polled, Lease, sched.Runtime) {}, 100},
		{"by the issuer's TTL", 30 * time.Millisecond, func(*Polled, Lease, sched.Runtime) {}, 130},
		{"released first", 0, func(p *Polled, l Lease, rt sched.Runtime) {
			_ = rt.Sleep(context.Background(), 20*time.Millisecond)
			p.Release(l)
		}, 20},
		{"the service closes first", time.Hour, func(*Polled, Lease, sched.Runtime) {}, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sim, _, _, p, end := onSim(tc.extra, ttl, DefaultPollOptions())
			endedAt := int64(-2)
			require.NoError(t, sim.Run(func() {
				l := acquire(p, 0)
				within, ok := p.Suspend("r", l.Token, func() { endedAt = sim.Now() / int64(time.Millisecond) })
				require.True(t, ok)
				assert.Equal(t, 2*ttl+DefaultPollOptions().OpTimeout, within)
				_, ok = p.Suspend("r", l.Token+1, func() {})
				assert.False(t, ok, "not the current lease")
				tc.run(p, l, sim)
				_ = sim.Sleep(context.Background(), time.Second)
				end()
			}))
			if tc.ended == -1 {
				assert.Equal(t, int64(-2), endedAt, "not before Close")
			}
			require.NoError(t, p.Close())
			if tc.ended == -1 {
				assert.NotEqual(t, int64(-2), endedAt, "at Close")
				return
			}
			assert.Equal(t, tc.ended, endedAt)
		})
	}
}

// flakyStore fails its first grants: with lease.ErrUnavailable, as an
// issuer that does not answer, or with answered, as one that refuses.
type flakyStore struct {
	Store
	fails    int // how many grants fail; -1: every one
	answered error
	attempts int
}

func (f *flakyStore) Grant(ctx context.Context, resource string, worker int, ttl time.Duration) (uint64, bool, error) {
	f.attempts++
	if f.fails != 0 {
		f.fails--
		if f.answered != nil {
			return 0, false, f.answered
		}
		return 0, false, fmt.Errorf("fake grant: %w", Unavailable(errors.New("connection refused")))
	}
	return f.Store.Grant(ctx, resource, worker, ttl)
}

// TestPolledRetriesAnIssuerThatDoesNotAnswer: Acquire tries again while
// the issuer does not answer, up to RetryFor, recording nothing for the
// attempts that failed; an error the issuer answered with, or RetryFor
// zero, ends it at once.
func TestPolledRetriesAnIssuerThatDoesNotAnswer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		fails    int
		answered error
		retryFor time.Duration
		attempts int
		err      string // "" when the lease is granted
	}{
		{"granted once the issuer answers", 3, nil, time.Minute, 4, ""},
		{"an answered error ends it", 3, errors.New("counter at its end"), time.Minute, 1, "counter at its end"},
		{"zero RetryFor gives up at once", 3, nil, 0, 1, "connection refused"},
		{"gives up after RetryFor", -1, nil, time.Second, 101, "connection refused (the issuer did not answer for 1s)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sim := sched.NewSim(1)
			rec := histories.NewRecorder(&bufWriter{}, histories.RecorderOptions{Clock: sim, Retain: true})
			life, end := context.WithCancel(context.Background())
			defer end()
			f := &flakyStore{Store: &fakeStore{rt: sim, cur: map[string]fakeLease{}}, fails: tc.fails, answered: tc.answered}
			opts := DefaultPollOptions()
			opts.MinWait, opts.MaxWait, opts.RetryFor = 10*time.Millisecond, 10*time.Millisecond, tc.retryFor
			p := NewPolled(Env{Life: life, Runtime: sim, Recorder: rec, TTL: time.Second}, f, opts)
			var l Lease
			var err error
			require.NoError(t, sim.Run(func() { l, err = p.Acquire(context.Background(), "r", 0) }))
			assert.Equal(t, tc.attempts, f.attempts)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.Empty(t, rec.Events())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, uint64(1), l.Token)
			require.NotEmpty(t, rec.Events())
			assert.Equal(t, histories.FAcquire, rec.Events()[0].F, "the first event is the grant: nothing for the failed attempts")
		})
	}
}
