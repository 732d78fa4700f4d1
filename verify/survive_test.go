package verify

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/targets/httptarget"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
)

// goingAway serves the reference receiver over HTTP on loopback until a
// write's token satisfies away: then it closes its listener and every
// connection, the request that did it unanswered, as a receiver that
// exits does. It returns the receiver's base URL.
func goingAway(t *testing.T, away func(token uint64) bool) string {
	t.Helper()
	h, err := receiver.NewHandler(receiver.NewMemory(), receiver.DefaultOptions())
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{}
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token, err := strconv.ParseUint(r.Header.Get("Fencing-Token"), 10, 64); err == nil && r.Method == http.MethodPut && away(token) {
			_ = srv.Close() // the listener first: every later dial is refused
			return
		}
		h.ServeHTTP(w, r)
	})
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

// TestAReceiverFencecheckDidNotStartGoesAway: a receiver that stops
// answering during a scenario (nothing listens on its address any more)
// fails that scenario, saying so, and with the largest token it answered
// as the domain to declare when it went away on a large token; since
// fencecheck did not start it, the scenarios after it are rows not run
// that say why, and the battery's verdict names both. A receiver that
// stays never stops the battery.
func TestAReceiverFencecheckDidNotStartGoesAway(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		away    func(uint64) bool
		failed  string // the scenario it goes away during; "" for none
		suggest bool   // the row suggests a token domain
	}{
		{"never", func(uint64) bool { return false }, "", false},
		{"on a token above 2^63-1", func(tok uint64) bool { return tok > math.MaxInt64 }, "digit-boundaries", true},
		{"on token 9, of check-then-set-race", func(tok uint64) bool { return tok == 9 }, "check-then-set-race", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tgt, err := httptarget.New(goingAway(t, tc.away), httptarget.DefaultOptions())
			require.NoError(t, err)
			rows := battery(t, tgt, options(model.Strict, false))
			require.Len(t, rows, len(scenarios))
			after := false
			var notRun []string
			for _, row := range rows {
				switch {
				case row.Scenario == tc.failed:
					after = true
					assert.Equal(t, Fail, row.Result)
					assert.Contains(t, row.Observed, "the receiver stopped answering (")
					assert.Contains(t, row.Observed, "connection refused")
					if tc.suggest {
						assert.Contains(t, row.Observed, "on token 2^63, having answered tokens up to 2^63-1 (if that is its largest token, declare it: Options.MaxToken 9223372036854775807)")
					} else {
						assert.NotContains(t, row.Observed, "declare it")
					}
				case after:
					notRun = append(notRun, row.Scenario)
					assert.True(t, row.NotRun, row.Scenario)
					assert.Equal(t, Skip, row.Result, row.Scenario)
					assert.Equal(t, "not run: the receiver stopped answering during "+tc.failed+
						" (connection refused), and fencecheck did not start it, so it cannot start it again", row.Observed)
				default:
					assert.False(t, row.NotRun, row.Scenario)
					assert.NotEqual(t, Fail, row.Result, "%s: %s", row.Scenario, row.Observed)
				}
			}
			v, _, reason := Decide(rows, nil)
			if tc.failed == "" {
				assert.Equal(t, judge.Held, v, reason)
				return
			}
			assert.NotEmpty(t, notRun, "a scenario played after it went away")
			assert.Equal(t, judge.Violated, v)
			assert.Contains(t, reason, tc.failed+" failed; ")
			assert.Contains(t, reason, " not run: the receiver stopped answering during "+tc.failed)
		})
	}
}
