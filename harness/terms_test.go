package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// marked are Terms that mark each setting, to see where the text uses them.
type marked struct{}

func (marked) Setting(s Setting) string { return "<" + s.Field + " " + s.Value + ">" }

// TestGapsInTheCallersTerms: the gaps and the exclusive finding name
// their settings in Config.Terms, as Config's fields without it, in the
// summary (and summary.txt), the report and NotCovered alike.
func TestGapsInTheCallersTerms(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		terms   Terms
		want    []string // in the summary
		finding string   // how the report's finding starts
	}{
		{"config", nil, []string{
			"not covered no old token reached the resource before a newer one (add nemesis.Delay to Config.Nemesis.Faults)",
			"not covered durability across receiver crashes is not tested by this run (add a process.Target as Config.Target.Receiver and nemesis.Kill to Config.Nemesis.Faults)",
			"writes accepted after their lease had ended (Config.Gates.RequireExclusive):",
		}, "Config.Gates.RequireExclusive: process "},
		{"the caller's", marked{}, []string{
			"not covered no old token reached the resource before a newer one (add <Nemesis.Faults delay>)",
			"not covered durability across receiver crashes is not tested by this run (add <Target.Receiver process> and <Nemesis.Faults kill>)",
			"writes accepted after their lease had ended (<Gates.RequireExclusive >):",
		}, "<Gates.RequireExclusive >: process "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var res Result
			for seed := uint64(1); seed <= 10 && len(res.Exclusive) == 0; seed++ {
				faults, err := nemesis.Parse("expire")
				require.NoError(t, err)
				var runErr error
				res, runErr = Run(t.Context(), testConfig(t, memory.NewFenced(), "memory://fenced", func(c *Config) {
					c.Nemesis.Faults, c.Runtime.Seed, c.Gates.RequireExclusive, c.Output.Terms = faults, seed, true, tc.terms
				}))
				require.NoError(t, runErr)
			}
			require.NotEmpty(t, res.Exclusive, "no seed sent a write after its lease ended")
			// The requirement hides the old-token gap; shown without it.
			res.Config.RequireExclusive, res.Coverage.OldTokenFirst = false, 0
			sum := res.Summary()
			for _, want := range tc.want {
				assert.Contains(t, sum, want)
			}
			written, err := os.ReadFile(filepath.Join(res.Dir, runstore.Summary))
			require.NoError(t, err)
			assert.Contains(t, string(written), tc.want[1], "summary.txt is in the same terms")
			assert.True(t, strings.HasPrefix(res.ReportInput().Findings[0], tc.finding), res.ReportInput().Findings[0])
		})
	}
}

func TestGapText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		gap  Gap
		want string
	}{
		{Gap{Hazard: "no operation had an unknown outcome"}, "no operation had an unknown outcome"},
		{Gap{Hazard: "h", Add: []Setting{addFault("pause-receiver")}}, "h (add nemesis.PauseReceiver to Config.Nemesis.Faults)"},
		{Gap{Hazard: "h", Add: []Setting{processTarget, addFault("kill")}}, "h (add a process.Target as Config.Target.Receiver and nemesis.Kill to Config.Nemesis.Faults)"},
		{Gap{Hazard: "h", Add: []Setting{requireExclusive}}, "h (add Config.Gates.RequireExclusive)"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, tc.gap.Text(ConfigTerms{}))
		})
	}
}

// TestDefaultConfig pins the defaults the CLI's flags show and a run
// without flags uses, and the timings SetLeaseTTL scales with the lease.
func TestDefaultConfig(t *testing.T) {
	t.Parallel()
	c := DefaultConfig()
	assert.Equal(t, 8, c.Workload.Workers)
	assert.Equal(t, 4, c.Workload.Resources)
	assert.Equal(t, 5*time.Second, c.Workload.Duration)
	assert.Equal(t, 100*time.Millisecond, c.Leases.TTL)
	assert.Equal(t, 0.2, c.Workload.ReadShare)
	assert.Equal(t, 0.2, c.Workload.RepeatShare)
	assert.Equal(t, 25*time.Millisecond, c.Workload.Think)
	assert.Equal(t, 400*time.Millisecond, c.Workload.OpTimeout)
	assert.Equal(t, nemesis.Random{Interval: 300 * time.Millisecond, Window: 400 * time.Millisecond}, c.Nemesis.Schedule)
	require.Len(t, c.Nemesis.Faults, 2)
	assert.Equal(t, "pause", c.Nemesis.Faults[0].Name())
	assert.Equal(t, "delay", c.Nemesis.Faults[1].Name())
	assert.Equal(t, 1, c.Gates.MinStale)
	assert.NotSame(t, c.Nemesis.Faults[0], DefaultConfig().Nemesis.Faults[0], "faults have state: each config its own")

	c.SetLeaseTTL(30 * time.Millisecond)
	assert.Equal(t, 7500*time.Microsecond, c.Workload.Think)
	assert.Equal(t, 120*time.Millisecond, c.Workload.OpTimeout)
	assert.Equal(t, nemesis.Random{Interval: 90 * time.Millisecond, Window: 120 * time.Millisecond}, c.Nemesis.Schedule)

	c.SetLeaseTTL(0)
	assert.Equal(t, time.Duration(0), c.Leases.TTL)
	assert.Equal(t, 120*time.Millisecond, c.Workload.OpTimeout, "a bad lease scales nothing")
	c.Target.Receiver = memory.NewFenced()
	require.EqualError(t, c.Validate(), "Leases.TTL: must be positive", "Validate reports the lease alone")
}
