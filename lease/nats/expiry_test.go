package natslease

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/internal/natsserver"
	"github.com/fencecheck/fencecheck/internal/spawn"
	"github.com/fencecheck/fencecheck/targets/process"
)

// TestTokensAfterAnEmptyBucketRestarts measures what the token sequence
// does when the server is SIGKILLed while the bucket is empty (every
// lease ran out and the server removed its key): the stream's last
// sequence must survive the restart for the next token to be higher.
func TestTokensAfterAnEmptyBucketRestarts(t *testing.T) {
	t.Parallel()
	for _, sync := range []bool{false, true} {
		t.Run(map[bool]string{false: "default fsync", true: "sync=always"}[sync], func(t *testing.T) {
			t.Parallel()
			env, err := exec.LookPath("env")
			require.NoError(t, err)
			port, err := spawn.FreePort()
			require.NoError(t, err)
			dir := t.TempDir() // not validated: a NATS server's store, not fencecheck's files
			cfg := natsserver.Config{Port: port, StoreDir: filepath.Join(dir, "store"), Sync: sync}
			conf, err := natsserver.Write(dir, cfg)
			require.NoError(t, err)
			child := process.NewChild(natsserver.Cmdline([]string{env, helperEnv + "=1", os.Args[0], "-test.run=^TestHelperNATSServer$", "--"}, conf),
				cfg.Addr(), process.Ready(natsserver.Ready(cfg.URL())))
			ctx := context.Background()
			require.NoError(t, child.Start(ctx))
			t.Cleanup(func() { _ = child.Stop(5 * time.Second) })
			s, err := Connect(ctx, cfg.URL())
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Close() })
			ttl := 200 * time.Millisecond
			var last uint64
			for range 3 {
				tok, ok, err := s.Grant(ctx, "r", 0, ttl)
				require.NoError(t, err)
				require.True(t, ok)
				last = tok
				ended, err := s.End(ctx, "r", tok)
				require.NoError(t, err)
				require.True(t, ended)
			}
			// The delete marker runs out by the TTL too: wait until the
			// bucket holds nothing.
			require.Eventually(t, func() bool {
				st, err := s.current().Status(ctx)
				return err == nil && st.Values() == 0
			}, time.Minute, 20*time.Millisecond)
			require.NoError(t, child.Kill())
			require.NoError(t, child.Start(ctx))
			s.reconnected()
			next, ok, err := s.Grant(ctx, "r", 0, ttl)
			require.NoError(t, err)
			require.True(t, ok)
			t.Logf("last token before the SIGKILL %d, first after it %d", last, next)
			assert.Greater(t, next, last, "the token sequence went back after a SIGKILL of the server with an empty bucket")
		})
	}
}
