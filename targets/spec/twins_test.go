package targetspec

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
)

// TestTwinsAreBrokenReceiversOfTheSpecsKind: each kind of target gets
// twins it can be calibrated against, reached as it is; an HTTP twin
// is the reference receiver in a bug mode on loopback, which answers
// the protocol, and a twin that runs in fencecheck cannot take a fault
// on a receiver process.
func TestTwinsAreBrokenReceiversOfTheSpecsKind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		spec  string
		o     Options
		twins []string
	}{
		{"memory://fenced", DefaultOptions(), []string{"check-then-set", "unfenced"}},
		{"http://127.0.0.1:1", DefaultOptions(), []string{"check-then-set", "unfenced"}},
		// not validated: the twin is only parsed, nothing is written there
		{"sqlite://" + filepath.Join(t.TempDir(), "t.db"), DefaultOptions(), []string{"check-then-set"}},
	}
	for _, tc := range cases {
		s, err := Parse(tc.spec, tc.o)
		require.NoError(t, err)
		twins, err := s.Twins()
		require.NoError(t, err, tc.spec)
		var names []string
		for _, tw := range twins {
			names = append(names, tw.Name)
			assert.NotEmpty(t, tw.Broken)
		}
		assert.Equal(t, tc.twins, names, tc.spec)
		if tc.spec == "http://127.0.0.1:1" {
			faults, omitted, err := twins[0].Faults("pause,hold,kill")
			require.NoError(t, err)
			assert.Len(t, faults, 2)
			assert.Equal(t, []string{"kill"}, omitted)
			tt, err := twins[0].Spec.Open(ctx, nil)
			require.NoError(t, err)
			out, err := tt.Target.Write(ctx, "r0", 2, "v")
			require.NoError(t, err)
			assert.Equal(t, histories.Accepted, out, "the twin answers the protocol")
			require.NoError(t, tt.Close())
		}
		require.NoError(t, CloseTwins(twins))
	}
}
