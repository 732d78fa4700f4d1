package harness

import (
	"errors"
	"fmt"
)

// Naming says how a run names its resources when they are to be the
// same in every run (Config.Workload.ResourceNames): as given, a job's
// (JobResourceNames), or numbered r0 … r<n-1>, the rows a receiver's own
// set-up statements may create (an UPDATE-only write needs them). Its
// zero value names none: the run draws names of its own (resources.go).
type Naming struct {
	Names    []string // fixed names as given
	Job      string   // a job's id: the job's names, the same in each shard
	Numbered bool     // r0 … r<n-1> unless Names or Job say otherwise
	_        struct{}
}

// Fixed says whether the runs' resources have the same names in every
// run: the shards of a job need them (Shard), and parallel runs on one
// receiver would share them.
func (n Naming) Fixed() bool {
	return len(n.Names) > 0 || n.Job != "" || n.Numbered
}

// ResourceNames returns the fixed names of resources resources, or nil
// when the run draws its own. Names and Job exclude each other: each
// names the job's resources.
func (n Naming) ResourceNames(resources int) ([]string, error) {
	switch {
	case n.Job != "" && len(n.Names) > 0:
		return nil, errors.New("give Names or Job, not both: each names the job's resources")
	case n.Job != "":
		return JobResourceNames(n.Job, resources)
	case len(n.Names) > 0 || !n.Numbered:
		return n.Names, nil
	}
	names := make([]string, max(resources, 0))
	for i := range names {
		names[i] = fmt.Sprintf("r%d", i)
	}
	return names, nil
}
