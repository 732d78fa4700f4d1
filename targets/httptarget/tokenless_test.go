package httptarget

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
)

// TestReferenceReceiverRefusesWritesWithoutToken: the reference
// receiver, correct or with its unfenced bug, answers a PUT without a
// Fencing-Token header with 400, which the target reports as an unknown
// outcome; the value is not stored.
func TestReferenceReceiverRefusesWritesWithoutToken(t *testing.T) {
	t.Parallel()
	for _, bug := range []receiver.Bug{receiver.NoBug, receiver.Unfenced} {
		t.Run(bug.String(), func(t *testing.T) {
			t.Parallel()
			o := receiver.DefaultOptions()
			o.Bug = bug
			h, err := receiver.NewHandler(receiver.NewMemory(), o)
			require.NoError(t, err)
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			tgt, err := New(srv.URL, DefaultOptions())
			require.NoError(t, err)
			w, err := targets.Tokenless(tgt)
			require.NoError(t, err)
			_, err = w.WriteWithoutToken(context.Background(), "r", "old-result")
			require.Error(t, err)
			assert.Contains(t, err.Error(), "write to r without a token: unknown outcome: status 400")
			assert.Contains(t, err.Error(), "missing Fencing-Token header")
			got, err := tgt.Read(context.Background(), "r")
			require.NoError(t, err)
			assert.False(t, got.Found)
		})
	}
}

// TestWriteWithoutTokenSendsNoToken: the request has neither the token
// header nor the token query parameter, and no fault-proxy description;
// a 2xx is accepted. An adapter with the token in its body template
// cannot leave it out, and says so before a run.
func TestWriteWithoutTokenSendsNoToken(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []*http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		name    string
		adapter Adapter
	}{
		{"header", Adapter{}},
		{"query", Adapter{Write: WriteSpec{TokenIn: "query:fence"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			o.Adapter, o.Timeout = tc.adapter, 5*time.Second
			o.Describe = func(h http.Header, _, _ string, _ uint64) { h.Set("X-Described", "yes") }
			tgt, err := New(srv.URL, o)
			require.NoError(t, err)
			out, err := tgt.WriteWithoutToken(context.Background(), "r", "v")
			require.NoError(t, err)
			assert.Equal(t, histories.Accepted, out)
			mu.Lock()
			r := seen[len(seen)-1]
			mu.Unlock()
			assert.Empty(t, r.Header.Values(TokenHeader))
			assert.Empty(t, r.URL.Query().Get("fence"))
			assert.Empty(t, r.Header.Get("X-Described"))
		})
	}
	body := DefaultOptions()
	body.Adapter = Adapter{Write: WriteSpec{TokenIn: "body", JSONBody: `{"token": {token}, "value": {value}}`}}
	tgt, err := New(srv.URL, body)
	require.NoError(t, err)
	_, err = targets.Tokenless(tgt)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "JSON body")
}
