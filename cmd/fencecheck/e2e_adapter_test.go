package main

import (
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/targets/httptarget/exampleapi"
)

// TestWorkedAdapterExamplesE2E: `fencecheck run` with each worked
// example's adapter (docs/http-protocol.md) against its receiver, served
// by this test process: the correct receiver holds and the one that
// applies every write, whose answers look just the same, is found. So the
// adapter maps the receiver's answers right in both directions. pause and
// delay act from the start (a script), so that stale writes happen
// however fast the machine is.
func TestWorkedAdapterExamplesE2E(t *testing.T) {
	t.Parallel()
	for name, handler := range exampleapi.Handlers() {
		for _, tc := range []struct {
			bug     exampleapi.Bug
			code    int
			verdict string
		}{
			{exampleapi.Correct, 0, "HELD"},
			{exampleapi.NoComparison, 1, "VIOLATED"},
		} {
			t.Run(name+"/"+tc.verdict, func(t *testing.T) {
				t.Parallel()
				srv := httptest.NewServer(handler(tc.bug))
				defer srv.Close()
				adapter, err := filepath.Abs(filepath.Join("..", "..", "docs", "adapters", name+".json"))
				assert.NoError(t, err)
				r := fencecheck(t, schema.TempDir(t), "run", "--target", srv.URL, "--adapter", adapter,
					"--nemesis", "pause,delay", "--nemesis-script", "0s:+pause,0s:+delay",
					"--ops", "200", "--seed", "1", "--store", "s", "--no-progress", "--no-report")
				assert.Equal(t, tc.code, r.code, r.stdout+r.stderr)
				assert.Contains(t, r.stdout, tc.verdict)
				t.Logf("%s against the %s receiver:\n%s", name, map[exampleapi.Bug]string{exampleapi.Correct: "correct", exampleapi.NoComparison: "no-comparison"}[tc.bug], r.stdout)
			})
		}
	}
}
