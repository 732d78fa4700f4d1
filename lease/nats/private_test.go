package natslease

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/lease/private"
	"github.com/fencecheck/fencecheck/sched"
)

// openPrivate opens the private issuer's service in a temporary run
// directory, closed when the test ends.
func openPrivate(t *testing.T, iss *PrivateIssuer) *private.Service {
	t.Helper()
	dir := schema.TempDir(t)
	f, err := os.Create(filepath.Join(dir, "history.jsonl"))
	require.NoError(t, err)
	rt := sched.NewReal()
	rec := histories.NewRecorder(f, histories.RecorderOptions{Clock: rt})
	life, end := context.WithCancel(context.Background())
	svc, err := iss.Open(context.Background(), lease.Env{Life: life, Runtime: rt, Recorder: rec, TTL: time.Minute, Dir: dir})
	require.NoError(t, err)
	t.Cleanup(func() {
		end()
		require.NoError(t, svc.(*private.Service).Close())
		_ = rec.Close()
	})
	return svc.(*private.Service)
}
