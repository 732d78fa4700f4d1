package workload_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/workload"
)

func TestMeasure(t *testing.T) {
	t.Parallel()
	ms := int64(time.Millisecond)
	// Job of token 1 on r: granted at 10 ms, paused 40–60 ms, ended at 100 ms.
	job := workload.Job{Resource: "r", Token: 1, Asked: 0, Granted: 10 * ms, PausedFrom: 40 * ms, PausedTo: 60 * ms,
		Wrote: true, Answered: 90 * ms, Ended: 100 * ms}
	end := func(at int64, byNemesis bool) workload.LeaseEnd {
		return workload.LeaseEnd{Resource: "r", Token: 1, Time: at * ms, ByNemesis: byNemesis}
	}
	for _, tc := range []struct {
		name string
		end  workload.LeaseEnd
		want int
	}{
		{"ran out while the worker thought", end(30, false), 1},
		{"ran out while the worker was paused", end(50, false), 0},
		{"ended by the nemesis", end(30, true), 0},
		{"ran out after the job ended", end(100, false), 0},
		{"another lease", workload.LeaseEnd{Resource: "r", Token: 2, Time: 30 * ms}, 0},
		{"another resource", workload.LeaseEnd{Resource: "s", Token: 1, Time: 30 * ms}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := workload.Measure([]workload.Job{job}, []workload.LeaseEnd{tc.end})
			assert.Equal(t, tc.want, m.UnnecessaryReassignments)
		})
	}

	t.Run("latency percentiles of the jobs that wrote", func(t *testing.T) {
		var jobs []workload.Job
		for i := int64(1); i <= 200; i++ { // latencies 1 … 200 ms
			jobs = append(jobs, workload.Job{Token: uint64(i), Asked: i * ms, Wrote: true, Answered: 2 * i * ms})
		}
		jobs = append(jobs, workload.Job{Token: 500, Abandoned: true}, workload.Job{Token: 501})
		m := workload.Measure(jobs, nil)
		assert.Equal(t, workload.Metrics{Jobs: 200, Abandoned: 1, LatencyP50: 100 * time.Millisecond, LatencyP99: 198 * time.Millisecond}, m)
	})
	t.Run("no job", func(t *testing.T) {
		assert.Equal(t, workload.Metrics{}, workload.Measure(nil, nil))
	})
}
