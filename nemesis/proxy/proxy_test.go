package proxy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
	httptarget "github.com/fencecheck/fencecheck/targets/httptarget"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
)

// counting wraps the receiver and counts the PUTs that reach it.
type counting struct {
	h    http.Handler
	puts atomic.Int64
}

func (c *counting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPut {
		c.puts.Add(1)
	}
	if r.Header.Get(HeaderOp) != "" {
		http.Error(w, "the proxy leaked its description headers", http.StatusTeapot)
		return
	}
	c.h.ServeHTTP(w, r)
}

// TestToxicsScriptedPerRequest scripts each toxic onto one write, the
// write of token 2 to "r", and checks what the worker and the receiver saw.
func TestToxicsScriptedPerRequest(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		toxic    func() (Toxic, *fault)
		outcome  histories.Outcome // 0: the worker sees an error (unknown)
		puts     int64
		final    uint64
		slowerBy time.Duration
	}{
		{"none", nil, histories.Accepted, 2, 2, 0},
		{"hold", func() (Toxic, *fault) { h := NewHold(); h.For = 50 * time.Millisecond; return h, &h.fault }, histories.Accepted, 2, 2, 50 * time.Millisecond},
		{"duplicate-request", func() (Toxic, *fault) { d := NewDuplicate(); return d, &d.fault }, histories.Accepted, 3, 2, 0},
		{"drop-response", func() (Toxic, *fault) { d := NewDropResponse(); return d, &d.fault }, 0, 2, 2, 0},
		{"latency", func() (Toxic, *fault) { l := NewLatency(); l.Latency = 30 * time.Millisecond; return l, &l.fault }, histories.Accepted, 2, 2, 30 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			recv := &counting{h: receiver.NewHandler(receiver.NewMemory(), receiver.Options{})}
			srv := httptest.NewServer(recv)
			defer srv.Close()
			var toxics []Toxic
			if tc.toxic != nil {
				tx, f := tc.toxic()
				f.Select = WriteOf("r", 2)
				f.SetActive(true)
				toxics = append(toxics, tx)
				assert.Equal(t, tc.name, f.Name())
			}
			p, err := Start(srv.URL, toxics...)
			require.NoError(t, err)
			defer p.Close()
			tgt, err := httptarget.New(p.URL(), httptarget.Options{Describe: Describe, Timeout: 5 * time.Second})
			require.NoError(t, err)

			out, err := tgt.Write(ctx, "r", 1, "first")
			require.NoError(t, err)
			require.Equal(t, histories.Accepted, out)
			start := time.Now()
			out, err = tgt.Write(ctx, "r", 2, "second")
			took := time.Since(start)
			if tc.outcome == 0 {
				require.Error(t, err, "the answer should have been dropped")
				assert.NotErrorIs(t, err, targets.ErrDefinitelyNotApplied)
			} else {
				require.NoError(t, err)
				assert.Equal(t, tc.outcome, out)
			}
			assert.GreaterOrEqual(t, took, tc.slowerBy)
			require.NoError(t, p.Close()) // waits for deliveries still on their way
			assert.Equal(t, tc.puts, recv.puts.Load(), "PUTs that reached the receiver")
			direct, err := httptarget.New(srv.URL, httptarget.Options{})
			require.NoError(t, err)
			r, err := direct.Read(ctx, "r")
			require.NoError(t, err)
			assert.Equal(t, tc.final, r.Token, "the receiver applied token 2")
		})
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	for _, name := range Names {
		f, ok := New(name)
		require.True(t, ok, name)
		assert.Equal(t, name, f.Name())
		_, isToxic := f.(Toxic)
		assert.True(t, isToxic)
	}
	_, ok := New("pause")
	assert.False(t, ok)
}
