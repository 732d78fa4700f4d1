package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
)

// The end-to-end tests of the faults on the token issuer: the embedded
// etcd cluster's members run as processes of the built binary
// (`fencecheck leases member`), which issuer-kill SIGKILLs and restarts
// and issuer-pause freezes and thaws, while workers hold leases.

// TestIssuerFaultsHoldAcrossAFailover: runs against the correct memory
// receiver and the reference HTTP receiver, with issuer-kill or
// issuer-pause beside pause and delay, hold; each saw a leader change,
// grants before and after it, every grant's token above every earlier
// grant's on its resource across the failover, no issuer violation, and
// left no member process behind.
func TestIssuerFaultsHoldAcrossAFailover(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, target, fault string
	}{
		{"memory/issuer-kill", "memory://fenced", "issuer-kill"},
		{"http/issuer-kill", "", "issuer-kill"}, // the reference receiver
		{"memory/issuer-pause", "memory://fenced", "issuer-pause"},
	}
	for _, tc := range cases {
		// One after another: each run is five race-enabled processes
		// (fencecheck, three etcd members, the receiver).
		t.Run(tc.name, func(t *testing.T) {
			target := tc.target
			if target == "" {
				target = startReceiver(t)
			}
			dir := schema.TempDir(t)
			// Bounded by its operations: the first outage holds the
			// workers at their pause point until the member is back, and
			// a worker held for a stale write keeps the run going until
			// it has written, so the run cannot use its operations up
			// before either. pause and delay act from the start (a
			// script), not from windows that a fast machine might never
			// reach; the issuer fault's first outage comes with the first
			// worker at its pause point, and no later one is needed.
			r := fencecheck(t, dir, "run", "--store", "s", "--target", target, "--leases", "etcd",
				"--nemesis", "pause,delay,"+tc.fault, "--nemesis-script", "0s:+pause,0s:+delay", "--ops", "120", "--json")
			require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			var res struct {
				Verdict  string `json:"verdict"`
				Coverage struct {
					LeaderChanges       int            `json:"leader_changes"`
					GrantsAfterFailover int            `json:"grants_after_failover"`
					FaultActions        map[string]int `json:"fault_actions"`
				} `json:"coverage"`
				Check struct {
					Issuer []json.RawMessage `json:"issuer_violations"`
				} `json:"check"`
				Dir string `json:"dir"`
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
			assert.Equal(t, "held", res.Verdict)
			assert.Empty(t, res.Check.Issuer, "the issuer check found a violation")
			assert.GreaterOrEqual(t, res.Coverage.LeaderChanges, 1)
			assert.Positive(t, res.Coverage.GrantsAfterFailover)
			assert.Positive(t, res.Coverage.FaultActions[tc.fault])
			run := filepath.Join(dir, res.Dir)

			h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(run, "history.jsonl")})
			require.NoError(t, err)
			before, after := grantsAroundTheFirstLeaderChange(t, h)
			t.Logf("%s: %d grants before the first leader change, %d after; %d leader changes, %d grants after a member came back",
				tc.name, before, after, res.Coverage.LeaderChanges, res.Coverage.GrantsAfterFailover)
			assert.Positive(t, before, "grants before the first leader change")
			assert.Positive(t, after, "grants after it")

			for _, m := range []string{"m0", "m1", "m2"} {
				assert.FileExists(t, filepath.Join(run, "etcd", m, "member.log"), "the member ran as a process")
				assert.NoDirExists(t, filepath.Join(run, "etcd", m, "data"))
			}
			assert.Empty(t, membersOf(t, run), "member processes outlived the run")
		})
	}
}

// grantsAroundTheFirstLeaderChange asserts that every grant's token is
// above every earlier grant's on its resource, and counts the grants
// before and after the first leader change.
func grantsAroundTheFirstLeaderChange(t *testing.T, h *histories.History) (before, after int) {
	t.Helper()
	changed := false
	highest := map[string]uint64{}
	for _, e := range h.Others {
		switch {
		case e.Actor == histories.ActorNemesis && e.F == histories.FLeader:
			changed = true
		case e.Actor == histories.ActorLease && e.F == histories.FAcquire:
			assert.Greater(t, e.Token, highest[e.Resource], "grant at index %d on %s (after the first leader change: %v)", e.Index, e.Resource, changed)
			highest[e.Resource] = max(highest[e.Resource], e.Token)
			if changed {
				after++
			} else {
				before++
			}
		}
	}
	require.True(t, changed, "the history has no leader change")
	return before, after
}

// granted reports whether the history of the run in store has a lease
// grant.
func granted(store string) bool {
	paths, _ := filepath.Glob(filepath.Join(store, "*", "*", "history.jsonl"))
	for _, p := range paths {
		data, _ := os.ReadFile(p)
		if strings.Contains(string(data), `"actor":"lease","f":"acquire"`) {
			return true
		}
	}
	return false
}

// membersOf lists the live member processes (`fencecheck leases member`)
// whose command line names the run directory.
func membersOf(t *testing.T, run string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var found []string
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), run) || !strings.Contains(string(cmdline), "leases\x00member\x00") {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && strings.Contains(string(stat), ") Z ") {
			continue // a zombie: dead, not yet reaped by whoever inherited it
		}
		found = append(found, strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return found
}

// TestIssuerFaultsNeedLeasesEtcd: an issuer fault with an issuer that
// fencecheck did not start is a usage error naming the flags, before the
// run starts.
func TestIssuerFaultsNeedLeasesEtcd(t *testing.T) {
	t.Parallel()
	for _, leases := range []string{"local", "etcd://127.0.0.1:1", "redis://127.0.0.1:1/0", "nats://127.0.0.1:1"} {
		t.Run(leases, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			r := fencecheck(t, dir, "run", "--store", "s", "--target", "memory://fenced", "--leases", leases, "--nemesis", "pause,issuer-kill")
			assert.Equal(t, 3, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stderr, "nemesis: issuer-kill needs an issuer fencecheck started itself: --leases etcd, redis, postgres or nats")
			assert.NoDirExists(t, filepath.Join(dir, "s"), "the run did not start")
		})
	}
}

// TestLeasesMemberRefusesABadConfiguration: the hidden member command
// fails, naming the file, on a configuration it cannot read.
func TestLeasesMemberRefusesABadConfiguration(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	r := fencecheck(t, dir, "leases", "member", "missing.json")
	assert.Equal(t, 3, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "missing.json")
}

// TestEtcdMembersDoNotOutliveFencecheck: a run interrupted with SIGINT
// once it granted a lease kills and reaps its member processes before it
// exits; a fencecheck that is SIGKILLed takes them with it (the
// parent-death signal).
func TestEtcdMembersDoNotOutliveFencecheck(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			store := filepath.Join(dir, "s")
			b := startFencecheck(t, dir, "run", "--store", store, "--target", "memory://fenced", "--leases", "etcd",
				"--nemesis", "pause,delay,issuer-kill", "--duration", "10m", "--no-progress")
			eventually(t, func() bool { return len(membersOf(t, store)) == 3 && granted(store) }, "three members run and the run has a grant")
			require.NoError(t, b.cmd.Process.Signal(sig))
			b.wait(t)
			if sig == syscall.SIGINT {
				assert.Empty(t, membersOf(t, store), "fencecheck exited before its members were gone")
				return
			}
			eventually(t, func() bool { return len(membersOf(t, store)) == 0 }, "the members are gone")
		})
	}
}

// TestIssuerFaultsOnPrivateIssuers: issuer-kill on a private issuer
// during a run. A redis-server as Redis ships comes back from its first
// SIGKILL without the counters it had not snapshotted and hands tokens out
// again: the run is violated, by the issuer ("the issuer handed token 1
// … to two workers"), not the receiver. With appendfsync always, and on a
// PostgreSQL cluster, the run holds, with grants after the server came
// back. issuer-pause freezes and thaws the server without loss.
func TestIssuerFaultsOnPrivateIssuers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		leases, binary, faults string
		code                   int
		want                   []string
	}{
		{"redis", "redis-server", "pause,issuer-kill", 1, []string{
			"verdict     VIOLATED: the token issuer, not the receiver: the issuer handed token ", " to two workers",
			"SIGKILL to redis-server (the issuer's only server)"}},
		{"redis?appendonly=yes&appendfsync=always", "redis-server", "pause,issuer-kill,issuer-pause", 0, []string{
			"verdict     HELD", "SIGKILL to redis-server (the issuer's only server)"}},
		{"postgres", "initdb", "pause,issuer-kill", 0, []string{"verdict     HELD", "SIGKILL to postgres (the issuer's only server)"}},
	}
	for _, c := range cases {
		t.Run(c.leases, func(t *testing.T) {
			t.Parallel()
			needPrivateServer(t, c.binary)
			dir := schema.TempDir(t)
			// Bounded by its operations: the first outage holds the
			// workers at their pause point until the server is back.
			// pause acts from the start, not from random windows that
			// the operations may all be spent before.
			r := fencecheck(t, dir, "run", "--store", "s", "--target", "memory://fenced", "--leases", c.leases,
				"--nemesis", c.faults, "--nemesis-script", "0s:+pause", "--ops", "200", "--no-progress")
			require.Equal(t, c.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			history, err := os.ReadFile(filepath.Join(dir, "s", "latest", "history.jsonl"))
			require.NoError(t, err)
			for _, w := range c.want {
				assert.Contains(t, r.stdout+string(history), w)
			}
			assert.Regexp(t, `[1-9][0-9]* lease grants after a server the issuer faults took down came back`, r.stdout)
		})
	}
}
