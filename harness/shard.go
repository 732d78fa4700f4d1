package harness

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard makes a run one of Count runs (usually processes on several
// machines) that share one token issuer and one receiver and split a job's
// resources between them: the run owns the resources whose name hashes to
// its Index, works on those alone, and records them in its own history.
// So every resource's history is recorded by one process, on one clock,
// as in an unsharded run, and `fencecheck check` judges the shards'
// histories together (histories.Read of several files).
//
// Which shard owns a resource depends on the resource's name and Count
// alone (Owner), never on the list of names a run was given: two shards
// given different lists may leave a name untested, but never both record
// it. The shards of one job still must name the same resources
// (Config.Workload.ResourceNames) to test them all, which is why a sharded run
// needs fixed names: names a run draws for itself are its own.
type Shard struct {
	Index int // this run's shard, from 0
	Count int // the number of shards in the job
	_     struct{}
}

// NewShard returns shard index of count; Validate says whether it is one.
func NewShard(index, count int) Shard { return Shard{Index: index, Count: count} }

// ParseShard reads "i/N", shard i of N (0 ≤ i < N).
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("%q is not i/N (shard i of N, counted from 0: 0/4 … 3/4)", s)
	}
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("%q is not i/N: i and N are whole numbers (0/4 … 3/4)", s)
	}
	sh := NewShard(i, n)
	return sh, sh.Validate()
}

// maxShards bounds Count: more shards than resources a run may have
// (1,000,000) could only leave shards with nothing to do.
const maxShards = 1000000

// Validate says what is wrong with s: Count must be between 1 and
// 1,000,000 and 0 ≤ Index < Count.
func (s Shard) Validate() error {
	switch {
	case s.Count < 1 || s.Count > maxShards:
		return fmt.Errorf("%s: the number of shards must be between 1 and %d", s, maxShards)
	case s.Index < 0 || s.Index >= s.Count:
		return fmt.Errorf("%s: the shard must be between 0 and %d (shards are counted from 0)", s, s.Count-1)
	}
	return nil
}

// String is "i/N".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Owner is the shard, of count, that owns the resource name: FNV-1a
// (64 bits) of the name, modulo count. It is part of the contract between
// the processes of a job, which may run different builds: changing it
// would let two shards of one job record the same resource (TestShardOwner
// pins it).
func Owner(name string, count int) int {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return int(h.Sum64() % uint64(count))
}

// Owns reports whether s owns the resource name.
func (s Shard) Owns(name string) bool { return Owner(name, s.Count) == s.Index }

// Of returns the names s owns, in their order.
func (s Shard) Of(names []string) []string {
	var out []string
	for _, n := range names {
		if s.Owns(n) {
			out = append(out, n)
		}
	}
	return out
}

// errNoNames is why a shard needs fixed resource names.
var errNoNames = errors.New("a shard needs ResourceNames: every shard of a job must name the same resources, and names a run draws for itself are its own")

// validateShard reports what is wrong with c.Shard, as Validate's fields.
func (c *Config) validateShard(bad func(field, format string, args ...any)) {
	if c.Workload.Shard == nil {
		return
	}
	if err := c.Workload.Shard.Validate(); err != nil {
		bad("Workload.Shard", "%v", err)
		return
	}
	if len(c.Workload.ResourceNames) == 0 {
		bad("Workload.Shard", "%v", errNoNames)
		return
	}
	if len(c.Workload.Shard.Of(c.Workload.ResourceNames)) == 0 {
		bad("Workload.Shard", "%s owns none of the %d resources: a run on nothing would test nothing; give more resources or fewer shards",
			c.Workload.Shard, len(c.Workload.ResourceNames))
	}
}

// JobResourceNames are the names of a job's n resources, job-r0 …
// job-r<n-1>: every shard of the job derives the same names from the
// job's id, and a new id names fresh resources (as a run's own names do),
// which nothing an earlier job left on a durable receiver can meet.
func JobResourceNames(job string, n int) ([]string, error) {
	names := make([]string, max(n, 0))
	for i := range names {
		names[i] = fmt.Sprintf("%s-r%d", job, i)
	}
	if job == "" {
		return nil, errors.New("the job id is empty")
	}
	if len(names) > 0 {
		if why := validResourceName(names[len(names)-1]); why != "" {
			return nil, fmt.Errorf("job id %q does not make resource names: %s", job, why)
		}
	}
	return names, nil
}
