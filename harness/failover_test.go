package harness

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/lease/etcd/embedded"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// serversIssuer opens lease.Local with three pretend servers the issuer
// faults can take down: the leader that goes down is replaced by the
// next server at once. With none, its services have no servers although
// it says they have, as a broken issuer would.
type serversIssuer struct{ none bool }

func (serversIssuer) Name() string     { return "servers-issuer" }
func (serversIssuer) HasServers() bool { return true }
func (i serversIssuer) Open(_ context.Context, env lease.Env) (lease.Service, error) {
	local := lease.NewLocal(env.Life, env.Runtime, env.Recorder, env.TTL)
	if i.none {
		return local, nil
	}
	return &pretendServers{Local: local}, nil
}

type pretendServers struct {
	*lease.Local
	mu     sync.Mutex
	leader int
	down   int // 1 + the server that is down; 0: none
}

func (p *pretendServers) Servers() []string { return []string{"p0", "p1", "p2"} }
func (p *pretendServers) Leader(context.Context) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.leader
}

func (p *pretendServers) takeDown(i int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down != 0 {
		return errors.New("two servers down")
	}
	p.down = i + 1
	if p.leader == i {
		p.leader = (i + 1) % 3
	}
	return nil
}

func (p *pretendServers) bringUp(i int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down != i+1 {
		return errors.New("not down")
	}
	p.down = 0
	return nil
}

func (p *pretendServers) Kill(i int) error                     { return p.takeDown(i) }
func (p *pretendServers) Freeze(i int) error                   { return p.takeDown(i) }
func (p *pretendServers) Start(_ context.Context, i int) error { return p.bringUp(i) }
func (p *pretendServers) Thaw(i int) error                     { return p.bringUp(i) }

var _ lease.Servers = (*pretendServers)(nil)

// TestIssuerFaultsNeedServers: a run with an issuer fault whose issuer
// has no servers is refused before it starts, in the caller's terms: by
// Validate when the issuer says so, by Run when the service it opened has
// none.
func TestIssuerFaultsNeedServers(t *testing.T) {
	t.Parallel()
	withCommand := embedded.DefaultOptions()
	withCommand.Command = []string{"fencecheck", "leases", "member"}
	cases := []struct {
		name   string
		issuer lease.Issuer
		terms  Terms
		want   string // from Validate; "" valid
	}{
		{"local leases", nil, nil, "Nemesis.Faults: issuer-kill and issuer-pause needs an issuer fencecheck started itself: an embedded.Issuer with Options.Command as Config.Leases.Issuer"},
		{"in the caller's terms", nil, marked{}, "Nemesis.Faults: issuer-kill and issuer-pause needs an issuer fencecheck started itself: <Leases.Issuer servers>"},
		{"members in process", embedded.NewIssuer(embedded.DefaultOptions()), nil, "needs an issuer fencecheck started itself"},
		{"members as processes", embedded.NewIssuer(withCommand), nil, ""},
		{"an issuer with servers", serversIssuer{}, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) {
				c.Runtime.Deterministic, c.Leases.Issuer, c.Output.Terms = false, tc.issuer, tc.terms
				c.Nemesis.Faults = []nemesis.Fault{nemesis.NewIssuerKill(), nemesis.NewIssuerPause()}
			})
			err := cfg.Validate()
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tc.want)
		})
	}
	t.Run("opened without servers", func(t *testing.T) {
		t.Parallel()
		_, err := Run(context.Background(), testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) {
			c.Runtime.Deterministic, c.Leases.Issuer, c.Workload.Ops = false, serversIssuer{none: true}, 10
			c.Nemesis.Faults = []nemesis.Fault{nemesis.NewIssuerKill()}
		}))
		assert.ErrorContains(t, err, "lease issuer: issuer-kill needs an issuer fencecheck started itself")
	})
}

// TestIssuerFaultRun: the harness hands the issuer's servers to the
// issuer faults; the first outage takes the leader down once a worker
// holds a lease, so the history has a leader change between grants and
// grants after the server came back, which the coverage line counts and
// the gate accepts.
func TestIssuerFaultRun(t *testing.T) {
	t.Parallel()
	for _, fault := range []nemesis.Fault{nemesis.NewIssuerKill(), nemesis.NewIssuerPause()} {
		t.Run(fault.Name(), func(t *testing.T) {
			t.Parallel()
			res, err := Run(context.Background(), testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) {
				c.Runtime.Deterministic, c.Leases.Issuer, c.Workload.Ops, c.Workload.Duration = false, serversIssuer{}, 300, 0
				c.Nemesis.Faults = []nemesis.Fault{nemesis.NewPause(), nemesis.NewDelay(), fault}
			}))
			require.NoError(t, err)
			assert.NotEqual(t, judge.Violated, res.Verdict, res.Reason)
			assert.NotEqual(t, judge.GateFailover, res.Gate, res.Reason)
			assert.GreaterOrEqual(t, res.Coverage.LeaderChanges, 1)
			assert.Positive(t, res.Coverage.GrantsAfterFailover)
			assert.Contains(t, res.Summary(), "issuer leader changes;")
			h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(res.Dir, runstore.History)})
			require.NoError(t, err)
			var details []string
			for _, e := range h.Others {
				if e.Fault == fault.Name() && e.F != histories.FStart && e.F != histories.FStop {
					details = append(details, e.F+": "+e.Detail)
				}
			}
			require.GreaterOrEqual(t, len(details), 3, "%v", details)
			signal := map[string]string{"issuer-kill": "SIGKILL", "issuer-pause": "SIGSTOP"}[fault.Name()]
			assert.Equal(t, "begin: "+signal+" to p0 (the leader)", details[0])
			assert.Equal(t, "leader: the leader is now p1 (was p0)", details[1])
			assert.Regexp(t, `^end: p0 .* after .*; the leader is p1$`, details[2])
		})
	}
}

// TestFailoverGate: a run with an issuer fault and no grant after a
// server came back is inconclusive, and says why; one with such a grant
// is judged by the rest; a run whose issuer has servers but no issuer
// fault says what it did not test. The JUnit suite has the gate as a
// case of its own.
func TestFailoverGate(t *testing.T) {
	t.Parallel()
	ev := func(i int64, e histories.Event) histories.Event { e.Index, e.Time, e.Process = i, i*10, -1; return e }
	grant := ev(0, histories.Event{Actor: histories.ActorLease, F: histories.FAcquire, Resource: "r", Token: 1, HasToken: true})
	begin := ev(1, histories.Event{Actor: histories.ActorNemesis, F: histories.FBegin, Fault: "issuer-kill"})
	leader := ev(2, histories.Event{Actor: histories.ActorNemesis, F: histories.FLeader, Fault: "issuer-kill"})
	end := ev(3, histories.Event{Actor: histories.ActorNemesis, F: histories.FEnd, Fault: "issuer-kill"})
	later := ev(4, histories.Event{Actor: histories.ActorLease, F: histories.FAcquire, Resource: "r", Token: 9, HasToken: true})
	cases := []struct {
		name     string
		events   []histories.Event
		faults   []string
		servers  bool
		changes  int
		after    int
		gate     judge.Gate
		reason   string // in the reason and the gaps
		gapAdded string
	}{
		{"never acted", []histories.Event{grant}, []string{"issuer-kill"}, true, 0, 0, judge.GateFailover,
			"the issuer faults never acted", ""},
		{"the work ended first", []histories.Event{grant, begin, leader, end}, []string{"issuer-kill"}, true, 1, 0, judge.GateFailover,
			"the run's work ended before a server came back (1 outages, 1 leader changes)", ""},
		{"a grant after", []histories.Event{grant, begin, leader, end, later}, []string{"issuer-kill"}, true, 1, 1, judge.GateCheck, "", ""},
		{"servers without a fault", []histories.Event{grant}, nil, true, 0, 0, judge.GateCheck, "",
			"the token sequence across a failover of the issuer is not tested by this run (add nemesis.IssuerKill to Config.Nemesis.Faults)"},
		{"no servers, no fault", []histories.Event{grant}, nil, false, 0, 0, judge.GateCheck, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// A write acknowledged and a read after it give the check its
			// evidence: the failover gate decides.
			client := []histories.Event{
				{Index: 10, Time: 100, Type: histories.TypeInvoke, F: histories.FWrite, Resource: "r", Token: 1, HasToken: true, Value: "v", HasValue: true},
				{Index: 11, Time: 110, Type: histories.TypeOK, F: histories.FWrite, Resource: "r", Token: 1, HasToken: true, Outcome: histories.Accepted},
				{Index: 12, Time: 120, Type: histories.TypeInvoke, F: histories.FRead, Resource: "r"},
				{Index: 13, Time: 130, Type: histories.TypeOK, F: histories.FRead, Resource: "r", Token: 1, HasToken: true, Value: "v", HasValue: true},
			}
			h, err := histories.Pair(append(slices.Clone(tc.events), client...))
			require.NoError(t, err)
			o := judge.DefaultOptions()
			o.IssuerFaults, o.MinStale = tc.faults, 0
			rep, err := judge.Judge(context.Background(), h, o)
			require.NoError(t, err)
			res := Result{Report: rep, Config: RunConfig{issuerFaults: tc.faults, issuerServers: tc.servers, judged: o}}
			assert.Equal(t, tc.changes, res.Coverage.LeaderChanges)
			assert.Equal(t, tc.after, res.Coverage.GrantsAfterFailover)
			verdict, gate, reason := res.Verdict, res.Gate, res.Reason
			assert.Equal(t, tc.gate, gate, reason)
			var gaps []string
			for _, g := range res.NotCovered() {
				gaps = append(gaps, g.Text(ConfigTerms{}))
			}
			if tc.reason != "" {
				assert.Equal(t, judge.Inconclusive, verdict)
				assert.Contains(t, reason, "no lease was granted after an issuer server came back from an outage")
				assert.Contains(t, reason, tc.reason)
				assert.Contains(t, gaps, reason)
			}
			if tc.gapAdded != "" {
				assert.Contains(t, gaps, tc.gapAdded)
			}
			var junit []string
			for _, c := range res.JUnit().Cases {
				if c.Name == "a lease granted after an issuer server came back from an outage" {
					junit = append(junit, fmt.Sprint(c.Error != nil))
				}
			}
			switch {
			case len(tc.faults) == 0:
				assert.Empty(t, junit, "no failover case without an issuer fault")
			default:
				assert.Equal(t, []string{fmt.Sprint(tc.reason != "")}, junit, "the JUnit case fails with the gate")
			}
			for _, g := range gaps {
				if tc.reason == "" && tc.gapAdded == "" {
					assert.NotContains(t, g, "issuer")
				}
			}
		})
	}
}
