package explore

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSharedRuns: runs in the simulation go one per processor unless
// told; runs that would share a started receiver's address, fixed
// resources outside the simulation, or a shard's resources are refused
// at more than one at once, worded in the caller's terms.
func TestSharedRuns(t *testing.T) {
	t.Parallel()
	flags := func(field string) string {
		return map[string]string{"Parallel": "--parallel", "ReceiverProcess": "--exec"}[field]
	}
	cases := []struct {
		name     string
		shared   Shared
		parallel int
		word     func(string) string
		wantErr  string
	}{
		{"simulated", Shared{Simulated: true, FixedResources: true}, 4, nil, ""},
		{"one at a time", Shared{ReceiverProcess: true, Shard: true}, 1, nil, ""},
		{"a real receiver on drawn names", Shared{}, 2, nil, ""},
		{"a started receiver", Shared{ReceiverProcess: true}, 2, flags,
			"--parallel 2: each run starts the receiver of --exec, and they would share its address; sweep such a receiver with --parallel 1"},
		{"a started receiver in Go's words", Shared{ReceiverProcess: true}, 3, nil,
			"Options.Parallel 3: each run starts the receiver of Shared.ReceiverProcess, and they would share its address; sweep such a receiver with Options.Parallel 1"},
		{"fixed names", Shared{FixedResources: true}, 2, flags,
			"--parallel 2: the runs would share the receiver's resources of fixed names; sweep them with --parallel 1"},
		{"a shard", Shared{Shard: true, Simulated: true}, 2, flags,
			"--parallel 2: a shard's runs share the job's resources; sweep a shard with --parallel 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.shared.Refuse(tc.parallel, tc.word)
			if tc.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, tc.wantErr)
		})
	}
	assert.Equal(t, 1, Shared{}.Parallel())
	assert.Equal(t, DefaultOptions().Parallel, Shared{Simulated: true}.Parallel())
}
