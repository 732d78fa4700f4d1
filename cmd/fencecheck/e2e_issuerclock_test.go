package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/lease"
	redislease "github.com/fencecheck/fencecheck/lease/redis"
)

// TestIssuerClockOnTheCommandLine: issuer-clock jumps the private
// redis-server's clock, and a write accepted after its lease ended on
// the issuer makes `--require exclusive` exit 1, naming it, while the
// fenced receiver's history is not what failed. On an issuer whose clock
// fencecheck cannot jump the run is refused before it starts (exit 3).
func TestIssuerClockOnTheCommandLine(t *testing.T) {
	t.Parallel()
	for _, leases := range []string{"local", "etcd"} {
		t.Run("refused/"+leases, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			r := fencecheck(t, dir, "run", "--store", "s", "--target", "memory://fenced", "--leases", leases, "--nemesis", "issuer-clock")
			assert.Equal(t, 3, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stderr, "issuer-clock needs an issuer")
			assert.NoDirExists(t, filepath.Join(dir, "s"), "the run did not start")
		})
	}
	t.Run("redis", func(t *testing.T) {
		t.Parallel()
		if err := redislease.NewPrivateIssuer(redislease.DefaultSettings(), lease.DefaultPollOptions()).ClockJumps(); err != nil {
			t.Skipf("no private redis-server whose clock can jump here: %v", err)
		}
		dir := schema.TempDir(t)
		r := fencecheck(t, dir, "run", "--store", "s", "--target", "memory://fenced", "--leases", "redis", "--nemesis", "issuer-clock",
			"--require", "exclusive", "--ops", "300", "--no-progress")
		t.Logf("exit %d\n%s", r.code, r.stdout)
		assert.Contains(t, r.stdout, "fault actions issuer-clock 1")
		if strings.Contains(r.stdout, "writes accepted after their lease had ended (--require exclusive):") {
			assert.Equal(t, 1, r.code, r.stderr)
			assert.Contains(t, r.stdout, "verdict     VIOLATED: ")
			assert.Regexp(t, `verdict     VIOLATED: \d+ writes? (was|were) accepted after their lease had ended \(exclusive requirement\)\n`, r.stdout,
				"the exclusive requirement alone: the receiver's history is linearizable")
		} else {
			assert.NotEqual(t, 1, r.code, "no write outlived its lease on a machine too loaded for the newer holder to come in time")
		}
	})
}
