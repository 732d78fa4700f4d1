package fencetest

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
)

// tokenStore is a receiver of the reference protocol written as a
// service would write it, with one of two ways to apply a write.
type tokenStore struct {
	mu    sync.Mutex
	cells map[string]cell
	// window is how long checkThenSet's write takes after its check;
	// zero, the store compares and sets under its lock.
	window time.Duration
}

type cell struct {
	value string
	token uint64
}

func newTokenStore(window time.Duration) *tokenStore {
	return &tokenStore{cells: make(map[string]cell), window: window}
}

func (s *tokenStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Path[len("/resources/"):]
	switch r.Method {
	case http.MethodGet:
		s.mu.Lock()
		c, ok := s.cells[id]
		s.mu.Unlock()
		if !ok {
			http.Error(w, "never written", http.StatusNotFound)
			return
		}
		w.Header().Set("Fencing-Token", strconv.FormatUint(c.token, 10))
		_, _ = io.WriteString(w, c.value)
	case http.MethodPut:
		token, err := strconv.ParseUint(r.Header.Get("Fencing-Token"), 10, 64)
		body, berr := io.ReadAll(r.Body)
		if err != nil || berr != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if !s.put(id, cell{value: string(body), token: token}) {
			http.Error(w, "stale token", http.StatusConflict)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// put applies a write unless its token is not above the stored one.
func (s *tokenStore) put(id string, c cell) bool {
	if s.window == 0 {
		s.mu.Lock()
		defer s.mu.Unlock()
		if c.token <= s.cells[id].token {
			return false
		}
		s.cells[id] = c
		return true
	}
	// The bug: the check and the write are two steps, and the write
	// comes a moment later, from a goroutine of the store's.
	s.mu.Lock()
	stale := c.token <= s.cells[id].token
	s.mu.Unlock()
	if stale {
		return false
	}
	written := make(chan struct{})
	go func() {
		defer close(written)
		time.Sleep(s.window)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.cells[id] = c
	}()
	<-written
	return true
}

// stores are the two stores of the Synctest tests and benchmark: a race
// in one, none in the other.
var stores = []struct {
	name   string
	window time.Duration
	want   judge.Verdict
}{
	{"check-then-set is violated", 5 * time.Millisecond, judge.Violated},
	{"compare-and-set under a lock holds", 0, judge.Held},
}

// runStore runs Handler with Synctest for ten seconds of virtual time
// against a fresh store with window, in the run store dir, reporting to
// rec.
func runStore(rec *recorder, window time.Duration, dir string) harness.Result {
	o := DefaultOptions()
	o.Synctest = true
	o.Config = func(c *harness.Config) { c.Store.Dir, c.Workload.Duration = dir, 10*time.Second }
	return Handler(rec, newTokenStore(window), o)
}

// TestHandlerSynctest: ten seconds of virtual run against an in-process
// handler find a check-then-set store's race, and a store that compares
// and sets under its lock holds. The expected failure goes to a
// recording T, not to the test.
func TestHandlerSynctest(t *testing.T) {
	t.Parallel()
	for _, tc := range stores {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{TB: t}
			began := time.Now()
			res := runStore(rec, tc.window, schema.TempDir(t))
			t.Logf("%s in %v of wall time, %v of virtual time", res.Verdict, time.Since(began), res.Elapsed)
			require.False(t, rec.fatal, "%v", rec.errors)
			assert.Equal(t, tc.want, res.Verdict, res.Reason)
			assert.True(t, res.Config.VirtualClock)
			assert.GreaterOrEqual(t, res.Elapsed, 10*time.Second, "ten seconds of virtual time")
			if tc.want == judge.Held {
				assert.Empty(t, rec.errors)
				return
			}
			require.Len(t, rec.errors, 1, "the violation fails the test")
			assert.Contains(t, rec.errors[0], "violated")
			t.Logf("the failure it reports:\n%s", strings.SplitN(rec.errors[0], "\n", 2)[0])
		})
	}
}

// TestSynctestHistoriesRepeat: under Synctest the same seed gives the
// same history, byte for byte, from a fresh receiver each time: the
// reference receiver, and a service's own that compares and sets under
// its lock.
func TestSynctestHistoriesRepeat(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		handler func(t *testing.T) http.Handler
	}{
		{"reference receiver", func(t *testing.T) http.Handler {
			h, err := receiver.NewHandler(receiver.NewMemory(), receiver.DefaultOptions())
			require.NoError(t, err)
			return h
		}},
		{"compare-and-set under a lock", func(*testing.T) http.Handler { return newTokenStore(0) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			history := func(seed uint64) []byte {
				o := DefaultOptions()
				o.Synctest, o.Seed = true, seed
				o.Config = func(c *harness.Config) { c.Store.Dir, c.Workload.Duration = schema.TempDir(t), 3*time.Second }
				res := Handler(t, tc.handler(t), o)
				require.Equal(t, judge.Held, res.Verdict, res.Reason)
				b, err := os.ReadFile(filepath.Join(res.Dir, "history.jsonl"))
				require.NoError(t, err)
				return b
			}
			first := history(7)
			require.NotEmpty(t, first)
			assert.True(t, bytes.Equal(first, history(7)), "the same seed gives the same history")
			assert.False(t, bytes.Equal(first, history(8)), "another seed gives another history")
		})
	}
}
