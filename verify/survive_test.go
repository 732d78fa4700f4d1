package verify

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/internal/spawn"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/targets/httptarget"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
	"github.com/fencecheck/fencecheck/targets/process"
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

// receiverEnv, when set to an address, makes this test binary the
// receiver of TestAReceiverFencecheckStartedExits: the reference
// receiver on that address, which keeps tokens in an int64 and exits
// when one does not fit.
const receiverEnv = "FENCECHECK_VERIFY_TEST_RECEIVER"

func TestMain(m *testing.M) {
	if addr := os.Getenv(receiverEnv); addr != "" {
		serveInt64Receiver(addr)
		return
	}
	os.Exit(m.Run())
}

// serveInt64Receiver serves the reference receiver on addr until a
// write's token does not fit an int64; then it exits 1.
func serveInt64Receiver(addr string) {
	h, err := receiver.NewHandler(receiver.NewMemory(), receiver.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	fmt.Println("test receiver: listening on", addr)
	err = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token := r.Header.Get("Fencing-Token"); r.Method == http.MethodPut && token != "" {
			if _, err := strconv.ParseInt(token, 10, 64); err != nil {
				fmt.Println("test receiver: token", token, "does not fit an int64; exiting")
				os.Exit(1)
			}
		}
		h.ServeHTTP(w, r)
	}))
	fmt.Println(err)
	os.Exit(2)
}

// TestAReceiverFencecheckStartedExits: a receiver process fencecheck
// started that exits on a token above 2^63-1 fails digit-boundaries,
// quoting its last lines, and is started again: the scenarios after it
// play against it. One that does not start again leaves them not run,
// saying why. Either way the battery gives a table, never an error.
func TestAReceiverFencecheckStartedExits(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		second bool // it starts a second time
	}{
		{"it starts again", true},
		{"it does not start again", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			port, err := spawn.FreePort()
			require.NoError(t, err)
			addr := fmt.Sprintf("127.0.0.1:%d", port)
			line := fmt.Sprintf("exec env %s=%s %s", receiverEnv, addr, os.Args[0])
			if !tc.second {
				marker := filepath.Join(dir, "started")
				line = fmt.Sprintf("test -e %s && echo once only && exit 3; touch %[1]s; %s", marker, line)
			}
			inner, err := httptarget.New("http://"+addr, httptarget.DefaultOptions())
			require.NoError(t, err)
			tgt := process.NewTarget(inner, process.NewChild(line, addr, process.DialReady(addr)))
			rep, err := RunBattery(context.Background(), Battery{Target: tgt, Name: "http://" + addr, Dir: dir, Options: options(model.Strict, false)})
			require.NoError(t, err, "a receiver that exits is a row, not an error")
			requireValidReport(t, rep)
			byName := map[string]Row{}
			for _, row := range rep.Outcomes {
				byName[row.Scenario] = row
			}
			digits := byName["digit-boundaries"]
			assert.Equal(t, Fail, digits.Result)
			assert.Regexp(t, `^the receiver exited \(exit status 1\) on token 2\^63, having answered tokens up to 2\^63-1 \(if that is its largest token, declare it: Options.MaxToken 9223372036854775807\); `+
				`its output ends: "test receiver: listening on `+addr+`" "test receiver: token 9223372036854775808 does not fit an int64; exiting"; `, digits.Observed)
			assert.Equal(t, judge.Violated, rep.Verdict)
			if tc.second {
				assert.Equal(t, Pass, byName["scope"].Result, byName["scope"].Observed)
				assert.Equal(t, Pass, byName["acknowledged-writes"].Result, byName["acknowledged-writes"].Observed)
				assert.Equal(t, Fail, byName["restart-durability"].Result, "its memory store forgets: "+byName["restart-durability"].Observed)
				assert.Equal(t, Pass, byName[ReceiverLog].Result, byName[ReceiverLog].Observed)
				assert.Equal(t, "digit-boundaries and restart-durability failed", rep.Reason)
				return
			}
			for _, name := range []string{"scope", "acknowledged-writes", "restart-durability"} {
				assert.True(t, byName[name].NotRun, name)
				assert.Equal(t, `not run: the receiver went away during digit-boundaries and did not start again: it exited (exit status 3) before it was ready; its output ends: "once only"`, byName[name].Observed)
			}
			assert.Contains(t, rep.Reason, "digit-boundaries failed; scope, acknowledged-writes and restart-durability not run: the receiver went away")
		})
	}
}
