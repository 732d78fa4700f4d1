package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// TestShardOwner pins the owner of a few names: the processes of one job
// may run different builds, and a change here would let two of them
// record the same resource.
func TestShardOwner(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		count int
		want  int
	}{
		{"r0", 4, 3}, {"r1", 4, 0}, {"r2", 4, 1}, {"r3", 4, 2},
		{"r0", 3, 2}, {"r3", 3, 0}, {"job-r0", 4, 1}, {"job-r1", 4, 2},
		{"r0", 1000000, 202015}, {"a", 1, 0},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s of %d", tc.name, tc.count), func(t *testing.T) {
			assert.Equal(t, tc.want, Owner(tc.name, tc.count))
			assert.True(t, NewShard(tc.want, tc.count).Owns(tc.name))
		})
	}
}

// TestShardsPartitionTheResources: for every number of shards, every
// resource is owned by exactly one shard, whatever list of names each
// shard was given.
func TestShardsPartitionTheResources(t *testing.T) {
	t.Parallel()
	var names []string
	for i := range 200 {
		names = append(names, fmt.Sprintf("job-r%d", i))
	}
	for count := 1; count <= 9; count++ {
		t.Run(fmt.Sprint(count), func(t *testing.T) {
			owners := make(map[string][]int)
			for i := range count {
				sh := NewShard(i, count)
				// Each shard sees the names in another order and only a
				// part of them: ownership depends on the name alone.
				given := slices.Clone(names[:len(names)-i])
				slices.Reverse(given[:i*7%len(given)])
				for _, n := range sh.Of(given) {
					owners[n] = append(owners[n], i)
				}
			}
			for _, n := range names[:len(names)-count+1] {
				assert.Len(t, owners[n], 1, "%s is owned by shards %v", n, owners[n])
			}
			for n, o := range owners {
				assert.Len(t, o, 1, "%s is owned by shards %v", n, o)
			}
		})
	}
}

func TestParseShard(t *testing.T) {
	t.Parallel()
	good := map[string]Shard{"0/1": NewShard(0, 1), "3/4": NewShard(3, 4), "0/4": NewShard(0, 4)}
	for s, want := range good {
		got, err := ParseShard(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, got)
		assert.Equal(t, s, got.String())
	}
	bad := map[string]string{
		"4/4":   "4/4: the shard must be between 0 and 3",
		"-1/4":  "-1/4: the shard must be between 0 and 3",
		"0/0":   "0/0: the number of shards must be between 1",
		"1":     `"1" is not i/N`,
		"a/4":   `"a/4" is not i/N: i and N are whole numbers`,
		"1/4/8": `"1/4/8" is not i/N`,
		"":      `"" is not i/N`,
	}
	for s, want := range bad {
		_, err := ParseShard(s)
		assert.ErrorContains(t, err, want, s)
	}
}

func TestShardValidation(t *testing.T) {
	t.Parallel()
	valid := func(set func(*Config)) Config {
		cfg := DefaultConfig()
		cfg.Target.Receiver = memory.NewFenced()
		set(&cfg)
		return cfg
	}
	shard := func(i, n int) *Shard { s := NewShard(i, n); return &s }
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"a shard with the job's names", valid(func(c *Config) {
			c.Workload.Shard, c.Workload.ResourceNames = shard(1, 4), []string{"r0", "r1", "r2", "r3"}
		}), ""},
		{"a shard without names", valid(func(c *Config) { c.Workload.Shard = shard(1, 4) }), "Shard: a shard needs ResourceNames"},
		{"a shard out of range", valid(func(c *Config) {
			c.Workload.Shard, c.Workload.ResourceNames = shard(4, 4), []string{"r0", "r1", "r2", "r3"}
		}), "Shard: 4/4: the shard must be between 0 and 3"},
		{"a shard that owns nothing", valid(func(c *Config) {
			c.Workload.Shard, c.Workload.Resources, c.Workload.ResourceNames = shard(0, 4), 1, []string{"r0"}
		}),
			"Shard: 0/4 owns none of the 1 resources"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.cfg.Validate()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, "Workload.Shard", fe.Field)
		})
	}
}

// TestShardsOfOneJob: four shards of one job, run one after another
// against one receiver, each record only the resources they own, between
// them every resource of the job, and their histories joined hold as one;
// against a broken receiver the joined histories are violated.
func TestShardsOfOneJob(t *testing.T) {
	t.Parallel()
	names := []string{"j-r0", "j-r1", "j-r2", "j-r3", "j-r4", "j-r5", "j-r6", "j-r7"}
	for _, tc := range []struct {
		target string
		want   judge.Verdict
	}{{"fenced", judge.Held}, {"unfenced", judge.Violated}} {
		t.Run(tc.target, func(t *testing.T) {
			t.Parallel()
			tgt, err := memory.Open(tc.target)
			require.NoError(t, err)
			faults, err := nemesis.Parse("pause,delay")
			require.NoError(t, err)
			var parts []histories.Source
			seen := make(map[string]int)
			for i := range 4 {
				sh := NewShard(i, 4)
				res, err := Run(context.Background(), testConfig(t, tgt, "memory://"+tc.target, func(c *Config) {
					c.Workload.Shard, c.Workload.Resources, c.Workload.ResourceNames, c.Nemesis.Faults, c.Runtime.Seed = &sh, len(names), names, faults, uint64(i+1)
				}))
				require.NoError(t, err)
				assert.Equal(t, sh.Of(names), res.Config.ResourceNames)
				assert.Equal(t, sh.String(), res.Config.Shard)
				assert.Contains(t, res.Summary(), fmt.Sprintf("%d of 8 resources as shard %s", len(sh.Of(names)), sh))
				path := filepath.Join(res.Dir, runstore.History)
				h, err := histories.Read(t.Context(), histories.Source{Path: path})
				require.NoError(t, err)
				for _, r := range resourcesOf(h) {
					assert.True(t, sh.Owns(r), "shard %s recorded %s", sh, r)
					seen[r]++
				}
				parts = append(parts, histories.Source{Path: path})
				raw, err := os.ReadFile(filepath.Join(res.Dir, runstore.Result))
				require.NoError(t, err)
				assert.Contains(t, string(raw), `"shard": "`+sh.String()+`"`)
			}
			for _, n := range names {
				assert.Equal(t, 1, seen[n], "%s recorded by %d shards", n, seen[n])
			}
			joined, err := histories.Read(t.Context(), parts...)
			require.NoError(t, err)
			res, err := check.Check(context.Background(), joined, check.Options{})
			require.NoError(t, err)
			assert.Equal(t, tc.want, judge.Verdict(res.Verdict))
			assert.Empty(t, res.Issuer)
		})
	}
}

// resourcesOf returns the resources of h's operations.
func resourcesOf(h *histories.History) []string {
	var out []string
	for _, op := range h.Expand(nil) {
		if !slices.Contains(out, op.Resource) {
			out = append(out, op.Resource)
		}
	}
	return out
}

func TestJobResourceNames(t *testing.T) {
	t.Parallel()
	names, err := JobResourceNames("7f3c-job", 3)
	require.NoError(t, err)
	assert.Equal(t, []string{"7f3c-job-r0", "7f3c-job-r1", "7f3c-job-r2"}, names)
	_, err = JobResourceNames("", 3)
	assert.EqualError(t, err, "the job id is empty")
	_, err = JobResourceNames("a job", 3)
	assert.ErrorContains(t, err, `job id "a job" does not make resource names: "a job-r2" has ' '`)
	_, err = JobResourceNames(strings.Repeat("j", 126), 10)
	assert.ErrorContains(t, err, "longer than 128 bytes")
}
