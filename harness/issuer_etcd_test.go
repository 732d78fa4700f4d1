package harness

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease/etcd/embedded"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// TestEtcdIssuerRun: a run whose tokens come from an embedded
// three-member etcd cluster, under pause, delay and expire, against the
// correct receiver: not violated, grants recorded, every
// resource's grant tokens strictly increasing, and the cluster's logs
// (not its data) left in the run directory.
func TestEtcdIssuerRun(t *testing.T) {
	t.Parallel()
	tgt, err := memory.Open("fenced")
	require.NoError(t, err)
	res, err := Run(context.Background(), testConfig(t, tgt, "memory://fenced", func(c *Config) {
		// Bounded by its work, not by time: a loaded machine gets as
		// many grants, only later.
		c.Runtime.Deterministic, c.Leases.Issuer, c.Workload.Duration, c.Workload.Ops = false, embedded.NewIssuer(embedded.DefaultOptions()), 0, 300
		c.Workload.OpTimeout = 2 * time.Second
		c.Nemesis.Faults = []nemesis.Fault{nemesis.NewPause(), nemesis.NewDelay(), nemesis.NewExpire()}
	}))
	require.NoError(t, err)
	assert.NotEqual(t, judge.Violated, res.Verdict, res.Reason) // held, or inconclusive on a starved machine
	h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(res.Dir, runstore.History)})
	require.NoError(t, err)
	last := map[string]uint64{}
	grants := 0
	for _, e := range h.Others {
		if e.Actor != histories.ActorLease || e.F != histories.FAcquire {
			continue
		}
		grants++
		assert.Greater(t, e.Token, last[e.Resource], "grant %d on %s", e.Index, e.Resource)
		last[e.Resource] = e.Token
		assert.Contains(t, e.Detail, "etcd lock key's revision")
	}
	t.Logf("verdict %s; %d grants, %d expiries and revokes", res.Verdict, grants, res.Coverage.LeaseExpiries)
	assert.Positive(t, grants, "the issuer's grants are in the history")
	assert.FileExists(t, filepath.Join(res.Dir, "etcd", "m2", "etcd.log"), "etcd logs to a file in the run directory")
	_, err = os.Stat(filepath.Join(res.Dir, "etcd", "m0", "data"))
	assert.ErrorIs(t, err, os.ErrNotExist, "the cluster's data is deleted at the end of the run")
}
